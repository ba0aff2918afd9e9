"""Exact mode on the firmware (MicroPython unix port): time, memory, uniformity.

    python benchmarks/exact_mode_device.py     # about half a minute

Prints, side by side in one run:
  * the firmware's own time per card with the exact side source against the
    random one (an instant board: the firmware's work alone), and the ratio;
  * the time to begin a 162-card exact routine (code set and draw) and the
    heap it holds (two arrays of 162 16-bit codes, plus small fixed state);
  * the chi-square test of tests/firmware/test_fw_exact_uniformity.py with
    more runs: 5 cards on a 3-card machine, the firmware's exact routine
    over the simulated world, counts of all 120 orders; and the same with a
    modulo-biased draw. The statistic and its p-value (120 - 1 degrees of
    freedom) for both.
"""

from __future__ import annotations

import itertools
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from simulator.exact_mode.uniformity import chi_square_uniform  # noqa: E402

FIRMWARE = REPO / "firmware"
BOARD_SIM = REPO / "simulator" / "virtual" / "board"
MICROPYTHON = shutil.which("micropython") or str(Path(sys.executable).parent / "micropython")
UNIFORMITY_TEST = REPO / "tests" / "firmware" / "test_fw_exact_uniformity.py"

TIME_SCRIPT = r"""
import gc, os, time
from dealer import Dealer
from sides import RandomSides
from exact import ExactRoutine

class Host:
    def pending(self): return False
    def service(self): pass

class Board:
    def __init__(self): self.t = 0
    def ticks_ms(self): return self.t
    def sleep_ms(self, ms): self.t += ms
    def exit_blocked(self): return self.t % 2 == 1
    def battery_mv(self): return 9000
    def motor(self, d, duty): pass
    def motor_brake(self): pass
    def motor_stop(self): pass
    def wdt_feed(self): pass

class Out:
    def write(self, b): pass

cfg = {"motor_duty": 80, "card_timeout_ms": 400, "block_max_ms": 30, "brake_ms": 0, "progress_every": 1}
out = Out()
rnd = RandomSides(104)
ex = ExactRoutine(104)
gc.collect()
before = gc.mem_alloc()
t0 = time.ticks_us()
ex.begin(162, os.urandom)
t_begin = time.ticks_diff(time.ticks_us(), t0)
gc.collect()
print("begin_us", t_begin)
print("held_bytes", gc.mem_alloc() - before)
best = {"random": 10 ** 9, "exact": 10 ** 9}
for _ in range(20):
    for name in ("random", "exact"):
        b = Board()
        src = rnd if name == "random" else ex
        src.prepare(81)
        d = Dealer(b, Host(), out.write, src)
        d.begin(src, 81, cfg, 6400, 1, name == "exact")
        t0 = time.ticks_us()
        d.run()
        best[name] = min(best[name], time.ticks_diff(time.ticks_us(), t0))
print("us_per_card_random", best["random"] / 81)
print("us_per_card_exact", best["exact"] / 81)
"""


def run_mp(script: str, args: list[str], env_extra: dict[str, str]) -> str:
    with tempfile.TemporaryDirectory() as d:
        f = Path(d) / "bench.py"
        f.write_text(script)
        env = dict(os.environ, MICROPYPATH=f"{FIRMWARE}:{BOARD_SIM}", SHUFFLER_BOARD="sim",
                   SHUFFLER_SIM_SPEED="0", SHUFFLER_DATA_DIR=d, **env_extra)
        out = subprocess.run([MICROPYTHON, str(f), *args], capture_output=True, text=True, env=env,
                             timeout=600, cwd=d)
        if out.returncode != 0:
            raise RuntimeError(out.stderr)
        return out.stdout


def uniformity(runs: int, variant: str) -> tuple[int, float, float]:
    text = UNIFORMITY_TEST.read_text()
    script = text.split('SCRIPT = r"""', 1)[1].split('"""', 1)[0]
    out = run_mp(script, ["5", str(runs), variant], {"SHUFFLER_SIM_CAPACITY": "3"})
    seen = dict(line.split() for line in out.splitlines())
    counts = [int(seen.get("".join(map(str, p)), 0)) for p in itertools.permutations(range(5))]
    stat, p = chi_square_uniform(counts)
    return sum(counts), stat, p


def main() -> None:
    res = dict(line.split(" ", 1) for line in run_mp(TIME_SCRIPT, [], {}).splitlines())
    r, e = float(res["us_per_card_random"]), float(res["us_per_card_exact"])
    print("firmware time per card, instant board, 81-card load (best of 20):")
    print(f"  random sides: {r:.1f} us   exact sides: {e:.1f} us   exact / random: {e / r:.2f}")
    print(f"begin a 162-card exact routine: {int(res['begin_us']) / 1000:.1f} ms; "
          f"heap held: {res['held_bytes']} bytes (unix port, 64-bit)")
    for variant, runs in (("fair", 12000), ("biased", 3000)):
        n, stat, p = uniformity(runs, variant)
        print(f"uniformity, {variant} draw: {n} routines of 5 cards, chi-square {stat:.1f} "
              f"on 119 degrees of freedom, p = {p:.3g}")


if __name__ == "__main__":
    main()
