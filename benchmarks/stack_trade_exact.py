"""Stack-trade's exact-law bounds, and their cost, for the docs' figures.

1. Rigorous lower bounds on stack-trade's distance from uniform, from the
   exact laws of one card and of two positions (shuffling/quality/stack_trade_laws.py),
   round by round for a pack on a machine, beside pile-trade's exact distance;
   the CPU time the report's call (exact_bounds, every round) takes.
2. The search over pairs of positions: each candidate pair's bound round by
   round; with --wide, a wider search (every pair of the six top and six
   bottom positions of every load, and every pair holding one of the two top
   or two bottom positions of the first load), and whether it finds a pair
   stronger than the candidates.
3. Pairs of cards followed forward, for comparison.
4. The upper bound by coupling (shuffling/quality/coupling.py), round
   by round, beside pile-trade's exact distance, and the time it takes.
5. The guessing game on stack-trade: the enumerated optimum of 8 cards in
   two loads against the inverse-riffle strategy and the position-checked
   ones (exact); and at the given pack, by simulation, the inverse-riffle
   strategy against the cross-fitted pick, on the same packs.

Run: python benchmarks/stack_trade_exact.py [--cards 162] [--capacity 104] [--rounds 16] [--samples 20000]
                                            [--coupling-samples 100000] [--wide]
"""
from __future__ import annotations

import argparse
import itertools
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import numpy as np  # noqa: E402

from shuffling.quality import coupling as cp  # noqa: E402
from shuffling.quality import stack_trade_laws as se  # noqa: E402
from shuffling.quality.enumerate import all_arrangements, exact_laws, guessing_score, optimal_guessing_score  # noqa: E402
from shuffling.quality.position_guessing import THETAS, CrossFitGuessing, guessing_for, position_checked_scores  # noqa: E402
from shuffling.quality.routines import simulate  # noqa: E402
from shuffling.quality.riffle_distance import tv_riffle  # noqa: E402
from shuffling.quality.routines import Machine, load_bounds  # noqa: E402
from shuffling.quality.words import bound_figure  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cards", type=int, default=162)
    ap.add_argument("--capacity", type=int, default=104)
    ap.add_argument("--rounds", type=int, default=16)
    ap.add_argument("--samples", type=int, default=20000)
    ap.add_argument("--coupling-samples", type=int, default=100_000)
    ap.add_argument("--wide", action="store_true", help="search a wider set of pairs of positions (minutes)")
    args = ap.parse_args()
    n, c, rounds = args.cards, args.capacity, args.rounds
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"{n} cards, capacity {c}, loads {load_bounds(n, c)}; load average {load:.2f}")
    t0 = time.process_time()
    bounds = se.exact_bounds(n, c, rounds)
    elapsed = time.process_time() - t0
    if bounds is None:
        print("exact-law bounds do not apply here (a single load)")
        return
    print(f"exact_bounds, {rounds} rounds: {elapsed:.2f} s of CPU time "
          f"({len(se.candidate_position_pairs(n, c))} pairs of positions searched)")
    print("round  one card  two positions (strongest pair)  best (statistic)                    pile-trade exact")
    for b in bounds:
        pair = "" if b.pair is None else f"{b.pair:.4f} {b.pair_positions}"
        print(f"{b.rounds:5d}  {b.one_card:8.4f}  {pair:>28}  {bound_figure(b.value)} ({b.method})".ljust(96)
              + f"{tv_riffle(n, b.rounds):.4f}")
    followed = sum(b.pair is not None for b in bounds)
    if followed:
        pair_search(n, c, followed, args.wide)
        forward_pairs(n, c, min(followed, 6), bounds)
    coupling_bound(n, c, rounds, args.coupling_samples)

    guessing_small()
    guessing_big(n, c, rounds, args.samples)


def _pair_table(n: int, c: int, rounds: int, pairs: list[tuple[int, int]]) -> list[dict[tuple[int, int], float]]:
    """Each pair of positions' exact bound (before the tolerance), round by round."""
    laws = se.pair_laws(n, c, rounds, pairs, of="positions", chunk=8)
    return [dict(zip(pairs, se.pair_tv(d))) for d in laws]


def pair_search(n: int, c: int, rounds: int, wide: bool) -> None:
    candidates = se.candidate_position_pairs(n, c)
    table = _pair_table(n, c, rounds, candidates)
    print(f"pairs of positions the bounds search ({len(candidates)}), exact bound round by round:")
    print("round  " + "  ".join(f"{f'{a},{b}':>9}" for a, b in candidates))
    for r, tv in enumerate(table, start=1):
        print(f"{r:5d}  " + "  ".join(f"{tv[p]:9.6f}" for p in candidates))
    if not wide:
        return
    spans = list(itertools.pairwise(load_bounds(n, c)))
    edges = sorted({x for lo, hi in spans for x in (*range(lo, min(hi, lo + 6)), *range(max(lo, hi - 6), hi))})
    first = spans[0]
    strong = sorted({first[0], first[0] + 1, first[1] - 2, first[1] - 1} & set(range(n)))
    pairs = set(itertools.combinations(edges, 2)) | {tuple(sorted((a, b))) for a in strong for b in range(n) if b != a}
    pairs = sorted(pairs - set(candidates))
    t0 = time.perf_counter()
    wide_table = _pair_table(n, c, rounds, pairs)
    print(f"wider search: {len(pairs)} more pairs of positions, {time.perf_counter() - t0:.0f} s")
    print("round  strongest candidate            strongest of the wider search   stronger?")
    for r, (tv, more) in enumerate(zip(table, wide_table), start=1):
        pc, pw = max(tv, key=tv.get), max(more, key=more.get)
        print(f"{r:5d}  {tv[pc]:.6f} {str(pc):18}  {more[pw]:.6f} {str(pw):18}  {'YES' if more[pw] > tv[pc] else 'no'}")


def forward_pairs(n: int, c: int, rounds: int, bounds: list[se.ExactBound]) -> None:
    """The candidate pairs as pairs of cards followed forward, against the strongest pair of positions."""
    pairs = se.candidate_position_pairs(n, c)
    forward = se.pair_laws(n, c, rounds, pairs, of="cards", chunk=8)
    print("the same pairs as pairs of cards followed forward (exact TV of where they lie):")
    print("round  strongest pair of cards          strongest pair of positions")
    for r, d in enumerate(forward, start=1):
        tvs = se.pair_tv(d)
        k = int(tvs.argmax())
        b = bounds[r - 1]
        print(f"{r:5d}  {tvs[k]:.6f} cards {pairs[k][0]} and {pairs[k][1]}".ljust(40)
              + f"{b.pair + se.TOLERANCE:.6f} positions {b.pair_positions[0]} and {b.pair_positions[1]}")


def coupling_bound(n: int, c: int, rounds: int, samples: int) -> None:
    """The coupling's upper bound, round by round, beside pile-trade's exact distance, and its time."""
    print(f"upper bound by coupling, {samples:,} pairs of packs (coupling.py), each round at "
          f"{cp.CONFIDENCE:.1%} confidence:")
    t0 = time.process_time()
    found = cp.coupling_upper_bounds("stack-trade", n, c, rounds, samples, Machine(), np.random.default_rng(0))
    elapsed = time.process_time() - t0
    if found is None:
        print("  does not apply here (a single load)")
        return
    print("round  pairs still apart  upper bound  pile-trade exact  at or above it?")
    for r, b in enumerate(found, start=1):
        pile = tv_riffle(n, r)
        print(f"{r:5d}  {b.apart:>9,} ({b.apart / b.samples:.4f})  {b.value:11.5f}  {pile:16.4f}  "
              f"{'yes' if b.value >= pile else 'NO'}")
    per = elapsed / samples * cp.COUPLING_SAMPLES
    print(f"  {elapsed:.2f} s of CPU time ({per:.2f} s for the report's {cp.COUPLING_SAMPLES:,} pairs)")
    small, small_c, small_rounds = 8, 4, 6
    exact = [float(law.tv()) for law in exact_laws("stack-trade", small, small_c, small_rounds)]
    found = cp.coupling_upper_bounds("stack-trade", small, small_c, small_rounds, samples, Machine(),
                                     np.random.default_rng(0))
    assert found is not None
    print(f"  {small} cards in two loads, exact distance (enumerated) and upper bound by coupling: "
          + ", ".join(f"{r}: {e:.4f} <= {b.value:.4f}" for r, (e, b) in enumerate(zip(exact, found), start=1)))


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
