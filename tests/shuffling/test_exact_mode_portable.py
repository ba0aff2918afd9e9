"""The device-side arithmetic runs unchanged on MicroPython and agrees with CPython."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from firmware import exact_codes as portable
from shuffling.exact_mode.codes import code_set, loads_for_round, n_bits, uniform_assignment
from shuffling.exact_mode.physical import run_exact

HERE = Path(__file__).resolve().parents[2] / "firmware"

# The same script runs on both interpreters; it prints one JSON line.
SCRIPT = """
import sys, json
sys.path.insert(0, %(dir)r)
import exact_codes as portable

state = [12345]
def lcg_bytes(k):
    out = bytearray(k)
    for i in range(k):
        state[0] = (state[0] * 1103515245 + 12345) & 0x7FFFFFFF
        out[i] = (state[0] >> 16) & 0xFF
    return bytes(out)

result = {}
for n, cap, uneven in ((162, 104, False), (162, 104, True), (52, 104, False), (300, 104, True), (7, 3, False), (432, 104, False)):
    result["%%d/%%d/%%d" %% (n, cap, uneven)] = list(portable.code_set(n, cap, uneven))
codes = portable.code_set(162, 104)
used = portable.shuffle_codes(codes, lcg_bytes)
result["arrangement"] = list(codes)
result["used"] = used
sides = []
scratch = portable.array("H", codes)
for r in range(portable.n_bits(162)):
    zeros, ones = portable.bit_counts(codes, r - 1) if r else (81, 81)
    start = 0
    for size in (zeros, ones):
        sides.extend(portable.feed_side(codes, start, size, k, r) for k in range(size))
        start += size
    codes, scratch = portable.next_round(codes, scratch, r), codes
result["sides"] = sides
result["final"] = list(codes)
print(json.dumps(result))
"""


def _run(interpreter: str, script: str = SCRIPT) -> dict:
    out = subprocess.run(
        [interpreter, "-c", script % {"dir": str(HERE)}], capture_output=True, text=True, timeout=120, check=True
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def _micropython() -> str | None:
    beside = Path(sys.executable).with_name("micropython")
    return str(beside) if beside.exists() else shutil.which("micropython")


def _lcg_stream():
    state = [12345]

    def lcg_bytes(k: int) -> bytes:
        out = bytearray(k)
        for i in range(k):
            state[0] = (state[0] * 1103515245 + 12345) & 0x7FFFFFFF
            out[i] = (state[0] >> 16) & 0xFF
        return bytes(out)

    return lcg_bytes


def test_cpython_run_of_the_portable_script_matches_the_simulator() -> None:
    got = _run(sys.executable)
    assert got["162/104/0"] == code_set(162, 104)
    assert got["162/104/1"] == code_set(162, 104, uneven=True)
    assert got["300/104/1"] == code_set(300, 104, uneven=True)
    arrangement = uniform_assignment(162, _lcg_stream(), code_set(162, 104))
    assert got["arrangement"] == arrangement
    # the sides the device would command, round by round, load by load, in feed order
    believed = list(arrangement)
    expected_sides: list[int] = []
    codes = code_set(162, 104)
    for r in range(n_bits(162)):
        start = 0
        for size in loads_for_round(162, 104, codes, r):
            expected_sides += [(believed[start + size - 1 - k] >> r) & 1 for k in range(size)]
            start += size
        believed = [c for c in believed if not (c >> r) & 1] + [c for c in believed if (c >> r) & 1]
    assert got["sides"] == expected_sides
    final = run_exact(list(range(162)), arrangement, 104)[-1]
    assert got["final"] == [arrangement[p] for p in final] == sorted(codes)


@pytest.mark.micropython
@pytest.mark.parametrize("what", ["codes", "routines"])
def test_micropython_gives_the_same_results_as_cpython(what: str) -> None:
    """The code sets, draw and sides; and the routines' plans (exact_routes.py)."""
    mp = _micropython()
    if mp is None:
        pytest.skip("the micropython unix port is not installed")
    script = SCRIPT if what == "codes" else ROUTES_SCRIPT
    assert _run(mp, script) == _run(sys.executable, script)


def test_portable_refuses_bad_input() -> None:
    with pytest.raises(ValueError):
        portable.n_bits(0)
    with pytest.raises(ValueError):
        portable.bounded_int(0, lambda k: b"\0")
    with pytest.raises(ValueError):
        portable.code_set(208, 104, True)


# The routines (firmware/exact_routes.py): their rounds, parts, times and the
# choice between them, and a split Samba's sides and final codes.
ROUTES_SCRIPT = """
import sys, json
sys.path.insert(0, %(dir)r)
import exact_routes

out = {}
for n, cap in ((162, 104), (108, 104), (52, 104), (270, 104), (432, 104), (512, 104), (7, 3), (52, 30), (300, 12)):
    for kind in (None, "radix", "split"):
        try:
            r = exact_routes.route(n, cap, kind)
        except ValueError as exc:
            out["%%d/%%d/%%s" %% (n, cap, kind)] = str(exc)
            continue
        out["%%d/%%d/%%s" %% (n, cap, kind)] = [r.kind, r.ms, list(r.kinds), list(r.lo), list(r.size), list(r.loads),
                                            list(r.param), [r.name(i, 0) for i in range(r.rounds)],
                                            list(r.part_size)]
r = exact_routes.route(162, 104)
codes = exact_routes.array("H", [(c * 61 + 17) %% 162 for c in range(162)])
scratch = exact_routes.array("H", codes)
sides = []
for i in range(r.rounds):
    lo, size = r.lo[i], r.size[i]
    sides.extend(exact_routes.round_side(c - lo, r.kinds[i], r.param[i]) for c in codes[lo:lo + size])
    exact_routes.partition(codes, scratch, lo, size, r.kinds[i], r.param[i])
out["sides"] = sides
out["final"] = list(codes)
print(json.dumps(out))
"""


def _run_routes(interpreter: str) -> dict:
    return _run(interpreter, ROUTES_SCRIPT)


def test_the_routes_script_on_cpython_sorts_samba_by_its_codes() -> None:
    got = _run_routes(sys.executable)
    assert got["final"] == list(range(162))
    assert got["162/104/None"][0] == "split" and got["52/104/split"].startswith("no split")

