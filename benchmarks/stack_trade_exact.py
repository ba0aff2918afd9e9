"""Stack-trade's exact-law bounds, and their cost, for the docs' figures.

1. Rigorous lower bounds on stack-trade's distance from uniform, from the
   exact laws of one card and of two positions (simulator/shuffling/quality/stack_exact.py),
   round by round for a pack on a machine, beside pile-trade's exact distance;
   the time the report's call (exact_bounds, every round) takes.
2. Pairs of cards followed forward, for comparison.
3. The guessing game on stack-trade: the enumerated optimum of 8 cards in
   two loads against the inverse-riffle strategy and the position-checked
   ones (exact); and at the given pack, by simulation, the inverse-riffle
   strategy against the cross-fitted pick, on the same packs.

Run: python benchmarks/stack_trade_exact.py [--cards 162] [--capacity 104] [--rounds 16] [--samples 20000]
"""
from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from simulator.shuffling.quality import stack_exact as se  # noqa: E402
from simulator.shuffling.quality.enumerate import all_arrangements, exact_laws, guessing_score, optimal_guessing_score  # noqa: E402
from simulator.shuffling.quality.position_guessing import THETAS, CrossFitGuessing, guessing_for, position_checked_scores  # noqa: E402
from simulator.shuffling.quality.routines import simulate  # noqa: E402
from simulator.shuffling.quality.exact import tv_riffle  # noqa: E402
from simulator.shuffling.quality.routines import load_bounds  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cards", type=int, default=162)
    ap.add_argument("--capacity", type=int, default=104)
    ap.add_argument("--rounds", type=int, default=16)
    ap.add_argument("--samples", type=int, default=20000)
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

    guessing_small()
    guessing_big(n, c, rounds, args.samples)


def guessing_small(n: int = 8, capacity: int = 4, rounds: int = 5) -> None:
    print(f"guessing game, stack-trade, {n} cards in two loads (exact, by enumeration):")
    print("round  optimum  inverse-riffle  " + "  ".join(f"theta {t:g}" for t in THETAS[1:]))
    perms = all_arrangements(n)
    for r, (law, single) in enumerate(zip(exact_laws("stack-trade", n, capacity, rounds),
                                          se.position_laws(n, capacity, rounds)), start=1):
        scores = position_checked_scores(perms, single)
        means = [float(guessing_score(law, scores[:, j])) for j in range(len(THETAS))]
        print(f"{r:5d}  {float(optimal_guessing_score(law)):7.3f}  {means[0]:14.3f}  "
              + "  ".join(f"{m:{len(f'theta {t:g}')}.3f}" for m, t in zip(means[1:], THETAS[1:])))


def guessing_big(n: int, capacity: int, rounds: int, samples: int) -> None:
    print(f"guessing game, stack-trade, {n} cards, {samples} simulated packs (± one standard error):")
    fitted = guessing_for("stack-trade", n, capacity, rounds)
    plain = {r: CrossFitGuessing(None) for r in range(1, rounds + 1)}
    t_fitted = t_plain = 0.0
    for r, decks in simulate("stack-trade", n, capacity, rounds, samples, seed=1):
        # The same packs, scored both ways one after the other: the report's extra cost.
        t0 = time.perf_counter()
        fitted[r].update(decks)
        t1 = time.perf_counter()
        plain[r].update(decks)
        t_fitted += t1 - t0
        t_plain += time.perf_counter() - t1
    print("round  inverse-riffle    cross-fitted pick (strategy)")
    for r in range(1, rounds + 1):
        f, p = fitted[r].estimate(), plain[r].estimate()
        print(f"{r:5d}  {p.value:8.3f} ± {p.stderr:.3f}  {f.value:8.3f} ± {f.stderr:.3f} ({f.method})")
    print(f"scoring {samples} packs x {rounds} rounds: every threshold for the pick {t_fitted:.2f} s, the "
          f"inverse-riffle strategy alone {t_plain:.2f} s (same packs, side by side; "
          f"{t_fitted / t_plain:.1f} times)")


if __name__ == "__main__":
    main()
