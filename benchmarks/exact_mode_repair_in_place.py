"""Slips of the split that need no fresh routine, by enumeration: every case of small packs.

    python benchmarks/exact_mode_repair_in_place.py            # 4 to 7 cards, a few minutes
    python benchmarks/exact_mode_repair_in_place.py --largest 6

For every pack of 4 to 7 cards on every tray that gives a split
(shuffling/exact_mode/repair_in_place.py): (a) a card dropped from a part's
stack before its first pass and put back, every card at every place, no
repair; (b) a split round's left or right piles (or both) stacked in the
reverse order of the loads, no repair; (c) two parts of one size taken for
one another at the first of them, no repair; (d) a card stacked into the
wrong part at a split round, its parent stack dealt again from that round
with fresh codes. Prints how many cases of each end exactly uniform, and,
as the check that the count can fail, how many of the same moves made at a
part's later pass (which the count cannot tell from a dropped card) do not.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from shuffling.exact_mode import repair_in_place as rip  # noqa: E402
from shuffling.exact_mode.repair import first_round, is_uniform, split_routes  # noqa: E402

KINDS = (
    ("(a) a card dropped before a part's first pass, put back anywhere", lambda r: rip.dropped(r, True)),
    ("(b) a split round's piles stacked in the wrong order of loads", rip.wrong_order),
    ("(c) two parts of one size taken for one another", rip.parts_swapped),
    ("(d) a card into the wrong part, its parent dealt again", rip.wrong_set),
)


def uniform(route, case) -> bool:  # type: ignore[no-untyped-def]
    return rip.balanced_redo(route, case) if case.redo else is_uniform(rip.law(route, case), route.n)


def later_drops(route):  # type: ignore[no-untyped-def]
    """The drop of (a) at a part's later passes: the control."""
    from firmware import exact_routes as routes
    out = []
    for r in range(route.rounds):
        if route.kinds[r] == routes.SORT_ROUND and first_round(route, r) != r:
            size = route.size[r]
            out += [rip.Case(f"round {r + 1}: card {a + 1} to the bottom", r, before=rip._move(a, size - 1))
                    for a in range(size)]
    return out


def parent_passes(route) -> list[tuple[int, int, int]]:  # type: ignore[no-untyped-def]
    """(round, stack size, passes) for each split round: the passes its stack takes when dealt again
    from that round, its own loads and every round inside its range."""
    out = []
    for t in range(route.rounds):
        if route.kinds[t] == 1:  # a split round
            size, passes = route.size[t], rip.parent_passes(route, t)  # what the device and the guide deal again
            out.append((t + 1, size, passes))
    return out


def presets() -> None:
    from firmware import exact_routes as routes
    print("(d) at the table, 104-card tray: dealing the parent stack again against a fresh routine")
    for name, cards in (("Samba", 162), ("hand and foot", 270), ("Carolina", 432)):
        route = routes.split_route(cards, 104)
        rows = ", ".join(f"round {t} ({size} cards): {p}" for t, size, p in parent_passes(route))
        print(f"  {name}, a fresh routine {route.passes()} passes; a wrong set at the split round {rows}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--largest", type=int, default=7)
    args = parser.parse_args()
    presets()
    splits = split_routes(4, args.largest)
    print(f"every pack of 4 to {args.largest} cards on every tray that gives a split: {len(splits)} splits")
    for title, cases in KINDS:
        t0 = time.perf_counter()
        done = [uniform(route, case) for route in splits for case in cases(route)]
        print(f"  {title}: {sum(done)} of {len(done)} cases exactly uniform ({time.perf_counter() - t0:.0f} s)")
    t0 = time.perf_counter()
    control = [uniform(route, case) for route in splits for case in later_drops(route)]
    print(f"  control, the same drop at a part's later pass, no repair: {len(control) - sum(control)} of "
          f"{len(control)} cases not uniform ({time.perf_counter() - t0:.0f} s)")


if __name__ == "__main__":
    main()
