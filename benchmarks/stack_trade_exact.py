"""Stack-trade's exact-law bounds, and their cost, for the docs' figures.

1. Rigorous lower bounds on stack-trade's distance from uniform, from the
   exact laws of one card and of two positions (simulator/quality/stack_exact.py),
   round by round for a pack on a machine, beside pile-trade's exact distance;
   the time the report's call (exact_bounds, every round) takes.
2. Pairs of cards followed forward, for comparison.

Run: python benchmarks/stack_trade_exact.py [--cards 162] [--capacity 104] [--rounds 12]
"""
from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from simulator.quality import stack_exact as se  # noqa: E402
from simulator.quality.exact import tv_riffle  # noqa: E402
from simulator.quality.routines import load_bounds  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cards", type=int, default=162)
    ap.add_argument("--capacity", type=int, default=104)
    ap.add_argument("--rounds", type=int, default=16)
    args = ap.parse_args()
    n, c, rounds = args.cards, args.capacity, args.rounds
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"{n} cards, capacity {c}, loads {load_bounds(n, c)}; load average {load:.2f}")
    t0 = time.perf_counter()
    bounds = se.exact_bounds(n, c, rounds)
    elapsed = time.perf_counter() - t0
    if bounds is None:
        print("exact-law bounds do not apply here (a single load)")
        return
    print(f"exact_bounds, {rounds} rounds: {elapsed:.2f} s")
    print("round  one card  two positions  best (statistic)                      pile-trade exact")
    for b in bounds:
        pair = "" if b.pair is None else f"{b.pair:.4f}"
        print(f"{b.rounds:5d}  {b.one_card:8.4f}  {pair:>13}  {b.value:.4f} ({b.method})".ljust(72)
              + f"{tv_riffle(n, b.rounds):.4f}")
    bottom = load_bounds(n, c)[1]
    pairs = [(0, 1), (bottom - 2, bottom - 1)]
    forward = se.pair_laws(n, c, min(rounds, 6), pairs, of="cards")
    print("pairs of cards followed forward (exact TV of their positions):")
    for r, d in enumerate(forward, start=1):
        tvs = se.pair_tv(d)
        print(f"{r:5d}  " + "  ".join(f"cards {a},{b}: {v:.4f}" for (a, b), v in zip(pairs, tvs)))


if __name__ == "__main__":
    main()
