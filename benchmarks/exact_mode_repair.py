"""A part of the split dealt again from fresh codes, checked exhaustively:
every pack of 4 to 8 cards (--largest) on every tray that gives a split,
every slip of shuffling/exact_mode/repair.py's catalogue at every pass of
every part, every arrangement of the codes; after the repair every order of
the pack comes equally often. Prints first what dealing each of Samba's
parts again costs at the table (the firmware's time model: the part's
passes, without the gather that ends the routine either way); then, per
pack size, the cases, how many are uniform after the repair, how many
would not be without it, and the time. The suite runs 4 to 7 cards (tests/shuffling/test_exact_mode_repair.py).

    python benchmarks/exact_mode_repair.py [--largest 8]
"""
from __future__ import annotations

import argparse
import time

from firmware import exact_routes
from shuffling import time_model
from shuffling.exact_mode import repair
from shuffling.exact_mode.codes import n_bits


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--largest", type=int, default=8)
    args = parser.parse_args()
    samba = exact_routes.split_route(162, 104)
    costs = [f"{samba.part_name(i)} {size} cards, {n_bits(size)} passes, "
             f"{time_model.duration(exact_routes.part_ms(size) / 1000)}" for i, size in enumerate(samba.part_size)]
    print(f"Dealing a part of Samba's split again (104-card tray): {'; '.join(costs)}")
    print(f"{'cards':>5} {'cases':>6} {'uniform after repair':>21} {'not uniform unrepaired':>23} {'seconds':>8}")
    for n in range(4, args.largest + 1):
        t0 = time.perf_counter()
        cases = [(rt, at, slip) for rt in repair.split_routes(n, n) for at, _ in repair.part_passes(rt)
                 for slip in repair.SLIPS]
        uniform = sum(repair.balanced_after_repair(rt, at, slip) for rt, at, slip in cases)
        unrepaired = (sum(not repair.is_uniform(repair.repaired_law(rt, at, slip, repair=False), n)
                          for rt, at, slip in cases) if n <= 7 else None)
        shown = "-" if unrepaired is None else str(unrepaired)
        print(f"{n:>5} {len(cases):>6} {uniform:>21} {shown:>23} {time.perf_counter() - t0:>8.1f}", flush=True)


if __name__ == "__main__":
    main()
