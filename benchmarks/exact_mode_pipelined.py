"""Pipelined exact routines: what they would ask of the device, on the one spelled out.

    python benchmarks/exact_mode_pipelined.py     # a few seconds

A pipelined routine feeds a pass a new part of the pack together with a
pile of an earlier pass, so that passes run full. The one examined here
deals 7 cards on a 5-card tray in 4 passes, where the split and whole-pack
radix take 6 (the counting bound is 3): the loads are the top 5 cards; the
last 2 on top of pass 1's left pile; pass 1's right pile on top of pass 2's
left pile; pass 3's left pile on top of pass 2's right pile; the pack is then
pass 4's left pile, pass 3's right pile and pass 4's right pile, top to
bottom. Every side of every card is tried, with every load within the tray.

Prints how many of the 7! orders it reaches; how many it reaches with any
one set of pile counts (how many cards each pass sends left), the most for
any set, and how many sets it takes to reach them all. Where no one set
reaches every order, the counts of some pass depend on the order dealt: the
routine cannot say its loads' counts before they are dealt (the guide's
counts, the device's checks against a plan fixed in advance) without
telling part of the order, and no fixed code set drives it (the device would
have to draw the order and work the sides out from it).
"""
from __future__ import annotations

import itertools
import math
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from firmware import exact_routes as routes  # noqa: E402

N, TRAY = 7, 5


def deal(load: tuple[int, ...], sides: tuple[int, ...]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """One pass (docs/mechanism.md): each pile keeps the load's order."""
    left = tuple(c for c, s in zip(load, sides) if s == 0)
    right = tuple(c for c, s in zip(load, sides) if s == 1)
    return left, right


def outcomes() -> dict[tuple[int, ...], set[tuple[int, ...]]]:
    """Every final order the routine reaches, with the pile counts (cards sent left each pass) that reach it."""
    pack = tuple(range(N))
    reached: dict[tuple[int, ...], set[tuple[int, ...]]] = defaultdict(set)

    def passes(load: tuple[int, ...]):  # type: ignore[no-untyped-def]
        if len(load) > TRAY:
            return
        for sides in itertools.product((0, 1), repeat=len(load)):
            yield deal(load, sides)

    for l1, r1 in passes(pack[:5]):
        for l2, r2 in passes(pack[5:] + l1):
            for l3, r3 in passes(r1 + l2):
                for l4, r4 in passes(l3 + r2):
                    reached[l4 + r3 + r4].add((len(l1), len(l2), len(l3), len(l4)))
    return reached


def main() -> None:
    reached = outcomes()
    total = math.factorial(N)
    by_counts: dict[tuple[int, ...], set[tuple[int, ...]]] = defaultdict(set)
    for order, counts in reached.items():
        for c in counts:
            by_counts[c].add(order)
    best_counts, best = max(by_counts.items(), key=lambda kv: len(kv[1]))
    # How many sets of counts it takes to reach every order (greedy: an upper bound on the fewest).
    left, chosen = set(reached), 0
    while left:
        pick = max(by_counts.values(), key=lambda orders: len(orders & left))
        left -= pick
        chosen += 1
    split, radix = routes.split_route(N, TRAY), routes.radix_route(N, TRAY)
    assert split is not None
    print(f"{N} cards on a {TRAY}-card tray, 4 passes (the split: {split.passes()}, whole-pack radix: "
          f"{radix.passes()}; counting bound: {math.ceil(math.log2(total) / TRAY)})")
    print(f"  orders reached: {len(reached)} of {total}")
    print(f"  sets of pile counts used: {len(by_counts)}; the most orders any one reaches: {len(best)} "
          f"(counts left {best_counts}); sets needed to reach every order: at most {chosen}")
    print(f"  so no one set of pile counts reaches every order: {total - len(best)} orders need other counts")


if __name__ == "__main__":
    main()
