"""Exact mode on the firmware (MicroPython unix port): time, memory, uniformity.

    python benchmarks/exact_mode_device.py     # about half a minute

Prints, side by side in one run:
  * the firmware's own time per card with the exact side source against the
    random one (an instant board: the firmware's work alone), and the ratio;
  * the time to begin a 162-card exact routine (the plan of its rounds, the
    code set and the draw) and the heap it holds (two arrays of 162 16-bit
    codes, the rounds, small fixed state), for the split the device takes
    and for whole-pack radix;
  * the chi-square test of tests/firmware/test_fw_exact_uniformity.py with
    more runs: 5 cards on a 3-card machine, the firmware's exact routine
    over the simulated world, counts of all 120 orders, for the split and
    for whole-pack radix; and the same with a modulo-biased draw. The
    statistic and its p-value (120 - 1 degrees of freedom) for each.
"""

from __future__ import annotations

import itertools

from firmware_budget import BOARD_SIM, FIRMWARE, INSTANT_BOARD, REPO, run_mp
from shuffling.exact_mode.uniformity import chi_square_uniform

UNIFORMITY_TEST = REPO / "tests" / "firmware" / "test_fw_exact_uniformity.py"

TIME_SCRIPT = r"""
import gc, os, time
from dealer import Dealer
from profile_common import merged
from sides import RandomSides
from exact import ExactRoutine
""" + INSTANT_BOARD + r"""
rnd = RandomSides(104)
for kind in ("radix", "split"):
    ex = ExactRoutine(104)
    gc.collect()
    before = gc.mem_alloc()
    t0 = time.ticks_us()
    ex.begin(162, os.urandom, kind)
    t_begin = time.ticks_diff(time.ticks_us(), t0)
    gc.collect()
    print("begin_us_" + kind, t_begin)
    print("held_bytes_" + kind, gc.mem_alloc() - before)
best = {"random": 10 ** 9, "exact": 10 ** 9}
for _ in range(20):
    for name in ("random", "exact"):
        b = Board()
        src = rnd if name == "random" else ex
        src.prepare(81)
        d = Dealer(b, Host(), out.write, src, merged({}))
        d.begin(src, 81, cfg, 6400, 1, name == "exact")
        t0 = time.ticks_us()
        d.run()
        best[name] = min(best[name], time.ticks_diff(time.ticks_us(), t0))
print("us_per_card_random", best["random"] / 81)
print("us_per_card_exact", best["exact"] / 81)
"""


def uniformity(runs: int, variant: str, kind: str) -> tuple[int, float, float]:
    text = UNIFORMITY_TEST.read_text()
    script = text.split('SCRIPT = r"""', 1)[1].split('"""', 1)[0]
    seen = run_mp(script, [FIRMWARE, BOARD_SIM], args=("5", str(runs), variant, kind),
                  env_extra={"SHUFFLER_SIM_CAPACITY": "3"}, timeout=600)
    counts = [int(seen.get("".join(map(str, p)), 0)) for p in itertools.permutations(range(5))]
    stat, p = chi_square_uniform(counts)
    return sum(counts), stat, p


def main() -> None:
    res = run_mp(TIME_SCRIPT, [FIRMWARE, BOARD_SIM], timeout=600)
    r, e = float(res["us_per_card_random"]), float(res["us_per_card_exact"])
    print("firmware time per card, instant board, 81-card load (best of 20):")
    print(f"  random sides: {r:.1f} us   exact sides: {e:.1f} us   exact / random: {e / r:.2f}")
    for kind in ("split", "radix"):
        print(f"begin a 162-card exact routine, {kind}: {int(res['begin_us_' + kind]) / 1000:.1f} ms; "
              f"heap held: {res['held_bytes_' + kind]} bytes (unix port, 64-bit)")
    for variant, runs, kind in (("fair", 12000, "split"), ("fair", 12000, "radix"), ("biased", 3000, "split")):
        n, stat, p = uniformity(runs, variant, kind)
        print(f"uniformity, {kind}, {variant} draw: {n} routines of 5 cards, chi-square {stat:.1f} "
              f"on 119 degrees of freedom, p = {p:.3g}")


if __name__ == "__main__":
    main()
