"""Exact mode's orders are uniform: the firmware's own exact routine (code
draw from os.urandom, side source, pack tracking) runs thousands of times in
one MicroPython process on the simulated board, with the simulated world
dealing every card, and a chi-square test over all N! orders must not reject
uniformity at p < 1e-4 (a false failure is one run in ten thousand), for the
split (the device's routine for 5 cards on a 3-card tray: parts of 3 and 2)
and for whole-pack radix. The same test on a deliberately biased draw (a
modulo of three random bits, the classic mistake) must reject it: the test
is able to fail."""

from __future__ import annotations

import itertools
import os
import subprocess
from pathlib import Path

import pytest

from fwtest_support import FIRMWARE, MICROPYTHON, REPO, require_micropython
from simulator.virtual.world_client import BOARD_PATH
from shuffling.exact_mode.uniformity import chi_square_uniform

pytestmark = [pytest.mark.micropython, pytest.mark.exact_mode]
BOARD_SIM = REPO / "simulator" / "virtual" / "board"
N = 5
CAPACITY = 3  # the split: a round of two loads, then parts of 3 and 2; radix: two loads, 3 rounds
P_MIN = 1e-4

SCRIPT = r"""
import sys
import exact_codes
import sim_headless

N = int(sys.argv[1]); RUNS = int(sys.argv[2]); KIND = sys.argv[4]
if sys.argv[3] == "biased":
    def biased(m, randbytes):
        return (randbytes(1)[0] & 7) % m, 1
    exact_codes.bounded_int = biased
ctl = sim_headless.controller(stack_samples=1)  # fewer simulated milliseconds per count
w = ctl.board.world
counts = {}
for run in range(RUNS):
    ctl.cmd_exact("exact", None, {"n": N, "routine": KIND})
    e = ctl.exact
    assert e.active and e.loads == 2 and e.route.kind == KIND
    pack = list(range(N))
    while e.active:
        lefts = []; rights = []; lo = start = e.lo; rnd = e.round
        while True:
            cnt = e.expected()
            w.load(pack[start:start + cnt]); start += cnt
            ctl.start_pass(None, None)
            lefts += w.take("left"); rights += w.take("right")
            if e.round != rnd or not e.active:
                break
        pack[lo:start] = lefts + rights  # the round's left piles on its right piles, where its stack lay
    assert sorted(pack) == list(range(N))
    key = "".join(str(c) for c in pack)
    counts[key] = counts.get(key, 0) + 1
for k in counts:
    print(k, counts[k])
"""


def orders(tmp_path: Path, runs: int, variant: str, kind: str = "split") -> list[int]:
    script = tmp_path / "uniformity.py"
    script.write_text(SCRIPT)
    out = subprocess.run([MICROPYTHON, str(script), str(N), str(runs), variant, kind], capture_output=True, text=True,
                         timeout=120, cwd=tmp_path,
                         env={"MICROPYPATH": os.pathsep.join([str(FIRMWARE), *BOARD_PATH]), "PATH": "/usr/bin:/bin",
                              "SHUFFLER_SIM_SPEED": "0", "SHUFFLER_DATA_DIR": str(tmp_path),
                              "SHUFFLER_SIM_CAPACITY": str(CAPACITY), "SHUFFLER_SIM_MECHANISM": "fast"})
    assert out.returncode == 0, out.stderr
    seen = dict(line.split() for line in out.stdout.splitlines())
    every = ["".join(map(str, p)) for p in itertools.permutations(range(N))]
    assert set(seen) <= set(every)
    return [int(seen.get(k, 0)) for k in every]


def test_the_firmware_split_gives_every_order_equally_often(tmp_path: Path) -> None:
    require_micropython()
    # 1200 runs: 10 expected in each of the 120 cells, twice the 5 from which
    # the chi-square law holds; the biased draw below is rejected with fewer.
    counts = orders(tmp_path, 1200, "fair")
    assert sum(counts) == 1200
    stat, p = chi_square_uniform(counts)
    assert p > P_MIN, (stat, p)


@pytest.mark.slow
def test_the_firmware_radix_routine_gives_every_order_equally_often(tmp_path: Path) -> None:
    require_micropython()
    counts = orders(tmp_path, 1200, "fair", "radix")  # 10 expected in each of the 120 cells, as for the split
    assert sum(counts) == 1200
    stat, p = chi_square_uniform(counts)
    assert p > P_MIN, (stat, p)


def test_a_modulo_biased_draw_fails_the_same_test(tmp_path: Path) -> None:
    require_micropython()
    counts = orders(tmp_path, 1000, "biased")
    stat, p = chi_square_uniform(counts)
    assert p < P_MIN, (stat, p)
