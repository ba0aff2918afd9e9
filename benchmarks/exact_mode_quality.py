"""Exact mode against random mode, and what mistakes cost: prints the figures docs/exact-mode.md quotes.

    python benchmarks/exact_mode_quality.py [--samples 20000] [--seed 1]

Exact figures are marked "exact"; Monte Carlo figures are lower bounds
("at least"), each with its standard error.
"""
from __future__ import annotations

import argparse
import time

from shuffling.exact_mode.codes import bit_counts, code_set, expected_bytes, n_bits, n_loads
from shuffling.exact_mode.mistakes import (
    exact_fault_cost,
    extra_random_rounds,
    fault_locations,
    half_way_aborts,
    monte_carlo_clean,
    monte_carlo_detection,
    monte_carlo_fault_cost,
)
from shuffling.exact_mode.physical import FAULT_KINDS
from shuffling.exact_mode.quality import exact_mode_log2_gap, exact_mode_tv, quality_table

KIND_WORDS = {
    "swap_piles": "one load's piles swapped",
    "swap_round": "whole round gathered right on left",
    "repeat_load": "one load run twice",
    "double_feed": "one double feed",
    "abort": "pass aborted and restarted",
}


def show_exact_mode_tv(value: float, gap: float) -> str:
    if value == 0:
        return "0 (exact)"
    if value > 0.9999:
        return f"1 - 2^{gap:.1f} (exact)"
    return f"{value:.4f} (exact)"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--samples", type=int, default=20000, help="Monte Carlo shuffles per figure")
    ap.add_argument("--detect-samples", type=int, default=300, help="card-by-card runs per count-sensor figure")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--cards", type=int, default=162)
    ap.add_argument("--capacity", type=int, default=104)
    args = ap.parse_args()
    n, cap = args.cards, args.capacity
    t0 = time.perf_counter()
    b = n_bits(n)
    print(f"{n} cards, capacity {cap}: {n_loads(n, cap)} loads, exact mode needs b = {b} rounds")
    print()
    try:  # the set the device takes where it fits (docs/exact-mode.md, "The code set")
        uneven: list[int] | None = code_set(n, cap, uneven=True)
    except ValueError:
        uneven = None
    print_distances(n, cap, uneven, args.samples, args.seed)
    print_random_bytes()
    print_extra_rounds(n)
    for small_n, small_cap in ((7, 4), (8, 4)):
        print_exact_fault_costs(small_n, small_cap)
    print_detection(n, cap, uneven, args.detect_samples, args.seed)
    print_monte_carlo_fault_costs(n, cap, args.samples, args.seed)
    print(f"code set for {n} cards: {code_set(n, cap)[:6]} ... ({n} codes of {b} bits)")
    print(f"time: {time.perf_counter() - t0:.1f} s")


def print_distances(n: int, cap: int, uneven: list[int] | None, samples: int, seed: int) -> None:
    """Distance from uniform round by round: exact mode's code sets beside the random routines."""
    b = n_bits(n)
    print("Distance from uniform (total variation) after k rounds (exact mode: the balanced code set, then the "
          "device's uneven one)")
    print(f"{'k':>3}  {'exact mode':<24} {'uneven set':<24} {'random, pile trade':<20} random, stack-then-trade")
    for row in quality_table(n, cap, b + 7, samples, seed=seed):
        k = min(row.rounds, b)
        device = "-" if uneven is None else show_exact_mode_tv(float(exact_mode_tv(uneven, k)),
                                                               exact_mode_log2_gap(uneven, k))
        print(
            f"{row.rounds:>3}  {show_exact_mode_tv(float(row.exact_mode), row.exact_mode_log2_gap):<24} "
            f"{device:<24} {row.random_pile_trade:<.4f} (exact)       {row.stack_then_trade}"
        )
    print()


def print_random_bytes() -> None:
    print("Random bytes the code draw reads (exact expectation)")
    for m in (52, 104, 162, 432):
        print(f"  {m:>3} cards: {float(expected_bytes(m)):.2f} bytes")
    print()


def print_extra_rounds(n: int) -> None:
    print("Extra random pile-trade rounds that bring any pack within the target (exact, Bayer-Diaconis)")
    for target in (0.25, 0.1, 0.05, 0.01):
        print(f"  target {target:<5}: {extra_random_rounds(n, target)} rounds (a fresh exact run: {n_bits(n)} rounds, "
              "distance 0)")
    print()


def print_exact_fault_costs(small_n: int, small_cap: int) -> None:
    """The exact cost of one undetected mistake on a small pack, every code arrangement counted."""
    print(f"Cost of one undetected mistake, {small_n} cards on a {small_cap}-card machine (exact, all "
          f"{small_n}! code arrangements): worst place / random place")
    for kind in FAULT_KINDS:
        cells = []
        for r in range(n_bits(small_n)):
            c = exact_fault_cost(small_n, small_cap, kind, r)
            cells.append(f"round {r + 1}: {float(c.worst):.3f} / {float(c.spread):.3f}")
        print(f"  {KIND_WORDS[kind]:<36} " + "   ".join(cells))
    cells = []
    for r in range(n_bits(small_n)):
        c = exact_fault_cost(small_n, small_cap, "abort", r, places=half_way_aborts(small_n, small_cap, r))
        cells.append(f"round {r + 1}: {float(c.worst):.3f} / {float(c.spread):.3f}")
    print(f"  {'pass aborted half way and restarted':<36} " + "   ".join(cells))
    print()


def print_detection(n: int, cap: int, uneven: list[int] | None, detect_samples: int, seed: int) -> None:
    """The share of mistakes the count sensor catches, round by round."""
    b = n_bits(n)
    print(f"Share of mistakes the count sensor catches (a load count differs from plan), {n} cards, "
          f"{detect_samples} runs per round, rounds 1..{b}")
    for kind in FAULT_KINDS:
        caught = [monte_carlo_detection(n, cap, kind, r, detect_samples, seed=seed + r) for r in range(b)]
        print(f"  {KIND_WORDS[kind]:<36} " + "  ".join(f"{e.value:.2f}±{e.stderr:.2f}" for e in caught))
    if uneven is None:
        print("  (no uneven code set for this pack and tray)")
    else:
        print(f"  with the uneven code set ({bit_counts(uneven, 0)[0]} : {bit_counts(uneven, 0)[1]} at every bit):")
        for kind in ("swap_piles", "swap_round"):
            caught = [monte_carlo_detection(n, cap, kind, r, detect_samples, seed=seed + r, uneven=True)
                      for r in range(b)]
            print(f"  {KIND_WORDS[kind]:<36} " + "  ".join(f"{e.value:.2f}±{e.stderr:.2f}" for e in caught))
    print()


def print_monte_carlo_fault_costs(n: int, cap: int, samples: int, seed: int) -> None:
    """The cost of one undetected mistake at a random place on the whole pack (a lower bound)."""
    b = n_bits(n)
    print(f"Cost of one undetected mistake at a random place, {n} cards (Monte Carlo lower bound, "
          f"{samples} shuffles each)")
    print(f"  correct run, same method: {monte_carlo_clean(n, cap, samples, seed=seed)}")
    for kind in FAULT_KINDS:
        print(f"  {KIND_WORDS[kind]} ({len(fault_locations(n, cap, kind, 0))} places in round 1)")
        for r in range(b):
            est = monte_carlo_fault_cost(n, cap, kind, r, samples, seed=seed + r)
            print(f"    round {r + 1}: {est}")
    print("  pass aborted half way and restarted (one place per load)")
    for r in range(b):
        est = monte_carlo_fault_cost(n, cap, "abort", r, samples, seed=seed + r, places=half_way_aborts(n, cap, r))
        print(f"    round {r + 1}: {est}")
    print()


if __name__ == "__main__":
    main()
