"""Distance from uniform per round: exact mode against random mode.

Exact mode after k rounds (k < b) has sorted the pack stably by the low k
bits of the codes: the cards whose codes share their low k bits (a class of
size m_j) keep their starting relative order, and the classes lie in order
of those bits. The class sizes are fixed by the code set and which cards
form which class is a uniformly random split, so the pack is uniform over
N! / prod(m_j!) orders, and the distance from uniform is exactly
1 - 1 / prod(m_j!). At k = b every class has one card: distance 0.

Random mode with pile trade is one inverse riffle of the whole pack per
round: Bayer-Diaconis gives its distance exactly
(shuffling.quality.riffle_distance.tv_riffle). Stack-then-trade has no closed form;
its figure is a Monte Carlo lower bound (shuffling.quality.bounds).
"""
from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from fractions import Fraction

from firmware import exact_routes as routes
from shuffling.exact_mode.codes import code_set, n_bits
from shuffling.limits import MAX_SEARCH_ROUNDS
from shuffling.quality.bounds import StatAccumulator, best_lower_bound
from shuffling.quality.estimate import Estimate
from shuffling.quality.riffle_distance import tv_riffle
from shuffling.quality.routines import simulate


def class_sizes(codes: list[int], k: int) -> list[int]:
    """Sizes of the classes of codes sharing their low k bits (the m_j above)."""
    mask = (1 << k) - 1
    return sorted(Counter(c & mask for c in codes).values(), reverse=True)


def exact_mode_tv(codes: list[int], k: int) -> Fraction:
    """Exact distance from uniform after k rounds of exact mode: 1 - 1 / prod(m_j!)."""
    if k < 0:
        raise ValueError("rounds must be >= 0")
    prod = 1
    for m in class_sizes(codes, k):
        prod *= math.factorial(m)
    return 1 - Fraction(1, prod)


def exact_mode_log2_gap(codes: list[int], k: int) -> float:
    """log2 of 1 - TV = -sum log2(m_j!): how far TV is below 1, readable when TV rounds to 1."""
    return -sum(math.lgamma(m + 1) for m in class_sizes(codes, k)) / math.log(2)


def route_class_sizes(route: routes.Route, codes: list[int], k: int) -> list[int]:
    """Sizes of the classes of codes that share their history over the first k
    rounds of an exact routine: the same stacks, and the same side in every
    round that dealt them. Cards whose codes share a history keep their
    starting order; two whose histories part were put in a fixed order, by
    codes, where they parted. For whole-pack radix a history is the low k bits
    (class_sizes); for the split, the pack is its stacks and parts put
    together in order."""
    if not 0 <= k <= route.rounds:
        raise ValueError(f"the routine has {route.rounds} rounds, not {k}")
    if route.kind == routes.PIPELINED:
        if k < route.rounds:
            raise ValueError("the pipelined routine's codes follow the order drawn: no fixed classes before its end")
        return [1] * route.n  # its end is the order of the places drawn
    history: dict[int, tuple[tuple[int, int], ...]] = {c: () for c in codes}
    for r in range(k):
        kind, lo, size, param = route.kinds[r], route.lo[r], route.size[r], route.param[r]
        # The round deals the positions [lo, lo + size), which hold the codes of
        # one history-set of stacks: for the split the codes lo..lo + size - 1,
        # for radix every code.
        for c in codes:
            if route.kind == routes.RADIX or lo <= c < lo + size:
                history[c] += ((r, routes.round_side(c - lo, kind, param)),)
    return sorted(Counter(history.values()).values(), reverse=True)


def route_tv(route: routes.Route, codes: list[int], k: int) -> Fraction:
    """Exact distance from uniform after k rounds of an exact routine, the
    split's parts put together: 1 - 1 / prod(m_j!), over route_class_sizes."""
    prod = 1
    for m in route_class_sizes(route, codes, k):
        prod *= math.factorial(m)
    return 1 - Fraction(1, prod)


@dataclass(frozen=True)
class QualityRow:
    rounds: int
    exact_mode: Fraction  # exact
    exact_mode_log2_gap: float
    random_pile_trade: float  # exact (Bayer-Diaconis)
    stack_then_trade: Estimate  # Monte Carlo lower bound


def quality_table(n_cards: int, capacity: int, max_rounds: int, samples: int, seed: int = 1) -> list[QualityRow]:
    """Per round 1..max_rounds: the three figures for an N-card pack on a C-card machine."""
    codes = code_set(n_cards, capacity)
    accs = {r: StatAccumulator(n_cards) for r in range(1, max_rounds + 1)}
    for r, decks in simulate("stack-trade", n_cards, capacity, max_rounds, samples, seed=seed):
        accs[r].update(decks)
    rows = []
    for k in range(1, max_rounds + 1):
        stack = best_lower_bound(accs[k].finish(), n_cards=n_cards, bits=n_cards * k)
        rows.append(QualityRow(
            rounds=k,
            exact_mode=exact_mode_tv(codes, min(k, n_bits(n_cards))),
            exact_mode_log2_gap=exact_mode_log2_gap(codes, min(k, n_bits(n_cards))),
            random_pile_trade=tv_riffle(n_cards, k),
            stack_then_trade=stack,
        ))
    return rows


def passes_lower_bound(n_cards: int, capacity: int) -> int:
    """The counting lower bound on the passes of any two-pile routine that
    reaches every order: a pass deals at most min(N, C) cards, each to one of
    two piles, so P passes have at most 2^(P min(N, C)) outcomes, which must
    be at least N!."""
    return math.ceil(math.lgamma(n_cards + 1) / math.log(2) / min(n_cards, capacity) - 1e-12)


def rounds_to_reach(n_cards: int, target: float, limit: int = MAX_SEARCH_ROUNDS) -> int:
    """Fewest random pile-trade rounds whose exact distance is at most `target`."""
    for k in range(limit + 1):
        if tv_riffle(n_cards, k) <= target:
            return k
    raise ValueError("target not reached within the limit")


__all__ = ["class_sizes", "exact_mode_tv", "route_class_sizes", "route_tv", "exact_mode_log2_gap", "QualityRow", "quality_table", "rounds_to_reach",
           "passes_lower_bound"]
