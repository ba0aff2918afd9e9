"""Exact permutation distributions of the routines for small packs.

A round of either routine moves cards by position only: given every card's
side (and the trade count), the new deck is old_deck[sigma] for an index
array sigma that does not depend on which labels the cards carry. With a fair
machine all 2**N side vectors are equally likely (otherwise each has the exact
probability the machine's settings give), so the round is a random sigma
with a law found by running the routine on the identity deck once per side
vector. Rounds are independent, so the law after k rounds is a k-fold
convolution, computed exactly with integer weights over all N! arrangements.
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

import numpy as np
from numpy.typing import NDArray

from shuffling.limits import MAX_ENUMERATION_CARDS

from .kernels import identity_decks
from .routines import ROUTINES, Machine, load_bounds, pile_trade_round, stack_trade_round, trade_count

__all__ = ["ExactLaw", "round_law", "side_weights", "exact_laws", "all_arrangements", "given_distinct_histories",
           "MAX_HISTORY_BITS", "optimal_guessing_score", "guessing_score"]

# given_distinct_histories runs every one of the 2**(N k) side sequences.
MAX_HISTORY_BITS = 20



def all_arrangements(n: int) -> NDArray[np.int8]:
    """Every arrangement of n cards, in lexicographic order (row i has rank i)."""
    return np.array(list(itertools.permutations(range(n))), dtype=np.int8).reshape(-1, n)


def _codes(decks: NDArray[np.integer], n: int) -> NDArray[np.int64]:
    return (decks.astype(np.int64) * (n ** np.arange(n - 1, -1, -1, dtype=np.int64))).sum(axis=1)


def _rational(x: float) -> Fraction:
    """The machine's setting as a small fraction (0.3 rather than its binary float)."""
    return Fraction(x).limit_denominator(10**6)


def side_weights(bits: NDArray[np.bool_], bounds: list[int], machine: Machine) -> tuple[list[int], int]:
    """Exact probability of each side vector (rows of `bits`, True = left) as weights / denominator.

    Same law as `kernels.draw_sides`: per pass, the bottom card is fed first
    and goes left with probability p; each later card copies the previous
    card's side with probability q = 1 - (1 - clump)(1 - double_feed), and
    otherwise goes left with probability p.
    """
    p = _rational(machine.p)
    q = 1 - (1 - _rational(machine.clump)) * (1 - _rational(machine.double_feed))
    probs = []
    for row in bits.tolist():
        w = Fraction(1)
        for lo, hi in zip(bounds[:-1], bounds[1:]):
            prev = None
            for pos in range(hi - 1, lo - 1, -1):  # feed order: bottom card first
                side_p = p if row[pos] else 1 - p
                w *= side_p if prev is None else (q if row[pos] == prev else 0) + (1 - q) * side_p
                prev = row[pos]
        probs.append(w)
    den = math.lcm(*(f.denominator for f in probs))
    return [int(f * den) for f in probs], den


def round_law(
    routine_name: str, n_cards: int, capacity: int, machine: Machine = Machine()
) -> tuple[NDArray[np.integer], list[int], int]:
    """Distinct index arrays sigma of one round, with exact weights and their denominator.

    A fair machine gives each of the 2**N side vectors weight 1 out of 2**N.
    Biased, clumping or double-feeding machines are handled exactly too; a
    random trade count (trade_sd > 0) is not.
    """
    if routine_name not in ROUTINES:
        raise ValueError(f"unknown routine {routine_name!r}; choose from {', '.join(ROUTINES)}")
    if not 1 <= n_cards <= MAX_ENUMERATION_CARDS:
        raise ValueError(f"exact enumeration handles 1 to {MAX_ENUMERATION_CARDS} cards, not {n_cards}")
    bounds = load_bounds(n_cards, capacity)
    if routine_name == "stack-trade" and machine.trade_sd > 0 and len(bounds) > 2:
        raise ValueError("exact enumeration needs a fixed trade count (trade_sd = 0)")
    m = 2**n_cards
    bits = (np.arange(m)[:, None] >> np.arange(n_cards)) & 1
    left = bits.astype(bool)
    ident = identity_decks(m, n_cards)
    if routine_name == "pile-trade":
        sig = pile_trade_round(ident, left)
    else:
        t = trade_count(bounds, Machine(), np.random.default_rng(0), m)  # the fixed half
        sig = stack_trade_round(ident, left, bounds, t)
    if machine.fair:
        weights, den = [1] * m, m
    else:
        weights, den = side_weights(left, bounds, machine)
    uniq, inverse = np.unique(sig, axis=0, return_inverse=True)
    merged = [0] * len(uniq)
    for i, w in zip(inverse.reshape(-1).tolist(), weights):
        merged[i] += w
    return uniq, merged, den


@dataclass(frozen=True)
class ExactLaw:
    """Weights over all N! arrangements (rank order of `all_arrangements`), out of `total`."""

    n: int
    weights: tuple[int, ...]
    total: int

    def tv(self) -> Fraction:
        """Exact total variation distance from uniform."""
        nf = math.factorial(self.n)
        return Fraction(sum(abs(w * nf - self.total) for w in self.weights), 2 * self.total * nf)

    def statistic_law(self, values: NDArray[np.integer]) -> dict[int, Fraction]:
        """Exact law of a statistic given its value on each arrangement (rank order)."""
        out: dict[int, int] = {}
        for v, w in zip(values.tolist(), self.weights):
            out[v] = out.get(v, 0) + w
        return {v: Fraction(w, self.total) for v, w in sorted(out.items())}

    def probabilities(self) -> NDArray[np.float64]:
        return np.array([w / self.total for w in self.weights])


@lru_cache(maxsize=8)
def _moves(
    routine_name: str, n_cards: int, capacity: int, machine: Machine
) -> tuple[list[NDArray[np.intp]], list[int], int, int]:
    """moves[j][i]: rank of perms[i][sigma_j], the deck one round after deck i; weights, denominator."""
    sigmas, weights, den = round_law(routine_name, n_cards, capacity, machine)
    perms = all_arrangements(n_cards)
    codes = _codes(perms, n_cards)  # sorted, since perms are lexicographic
    moves = [np.searchsorted(codes, _codes(perms[:, s], n_cards)) for s in sigmas]
    return moves, weights, den, len(perms)


def exact_laws(
    routine_name: str, n_cards: int, capacity: int, rounds: int, machine: Machine = Machine()
) -> list[ExactLaw]:
    """Exact law of the deck after 1..rounds rounds, starting from the order 0..N-1."""
    moves, weights, den, n_perms = _moves(routine_name, n_cards, capacity, machine)
    w = np.zeros(n_perms, dtype=np.int64)
    w[0] = 1  # rank 0 is the starting order
    total = 1
    out = []
    for _ in range(rounds):
        if (total * den >= 2**62 or max(weights) >= 2**62) and w.dtype != object:
            w = w.astype(object)  # exact Python integers once int64 could overflow
        new = np.zeros(n_perms, dtype=w.dtype)
        for mv, c in zip(moves, weights):
            if c:
                # Each move is a bijection of arrangements, so this scatter has no repeats.
                new[mv] += w * c
        w = new
        total *= den
        out.append(ExactLaw(n_cards, tuple(int(x) for x in w), total))
    return out


def given_distinct_histories(routine_name: str, n_cards: int, capacity: int, rounds: int) -> ExactLaw:
    """Law of the deck after `rounds` fair rounds, given that every card's side history differs.

    A card's history is its sides, round by round. For inverse riffles (and
    pile-trade) "all histories distinct" is a strong uniform time (Aldous and
    Diaconis 1986): the deck is then the cards sorted by history, last round
    first, and the histories are exchangeable, so this law is uniform. Every
    one of the 2**(N k) side sequences is run; the weights count those with
    distinct histories that give each arrangement.
    """
    if routine_name not in ROUTINES:
        raise ValueError(f"unknown routine {routine_name!r}; choose from {', '.join(ROUTINES)}")
    if n_cards * rounds > MAX_HISTORY_BITS or n_cards > MAX_ENUMERATION_CARDS:
        raise ValueError(f"{n_cards} cards for {rounds} rounds is too many side sequences to enumerate")
    bounds = load_bounds(n_cards, capacity)
    m = 2 ** (n_cards * rounds)
    bits = ((np.arange(m, dtype=np.int64)[:, None] >> np.arange(n_cards * rounds)) & 1).astype(bool)
    bits = bits.reshape(m, rounds, n_cards)
    decks = identity_decks(m, n_cards)
    history = np.zeros((m, n_cards), dtype=np.int64)  # indexed by label
    t = trade_count(bounds, Machine(), np.random.default_rng(0), m)  # the fixed half
    for r in range(rounds):
        left = bits[:, r, :]  # indexed by position
        by_label = np.zeros((m, n_cards), dtype=np.int64)
        np.put_along_axis(by_label, decks.astype(np.intp), left.astype(np.int64), axis=1)
        history = 2 * history + by_label
        if routine_name == "pile-trade":
            decks = pile_trade_round(decks, left)
        else:
            decks = stack_trade_round(decks, left, bounds, t)
    ordered = np.sort(history, axis=1)
    distinct = (ordered[:, 1:] != ordered[:, :-1]).all(axis=1)
    perms = all_arrangements(n_cards)
    ranks = np.searchsorted(_codes(perms, n_cards), _codes(decks[distinct], n_cards))
    weights = np.bincount(ranks, minlength=len(perms))
    return ExactLaw(n_cards, tuple(int(w) for w in weights), int(distinct.sum()))


def optimal_guessing_score(law: ExactLaw) -> Fraction:
    """The best possible mean score of the guessing game on this law, exactly.

    The guesses change nothing the player later sees, so the best strategy
    names, at every step, the card most likely to come next given the cards
    seen so far: the mean score is the sum, over every prefix of the deck, of
    the largest weight of that prefix followed by one card.
    """
    n = law.n
    perms = all_arrangements(n).astype(np.int64)
    weights = np.array(law.weights, dtype=object)
    best = 0
    for j in range(n):
        # Arrangements are in lexicographic order, so each prefix of length j
        # is a run of rows, and within it each next card a run too.
        prefix = perms[:, :j] @ (n ** np.arange(j, dtype=np.int64)) if j else np.zeros(len(perms), dtype=np.int64)
        key = prefix * n + perms[:, j]
        starts = np.flatnonzero(np.r_[True, key[1:] != key[:-1]])
        sums = np.add.reduceat(weights, starts)
        group = prefix[starts]
        firsts = np.flatnonzero(np.r_[True, group[1:] != group[:-1]])
        best += sum(int(max(sums[a:b])) for a, b in zip(firsts, [*firsts[1:], len(sums)]))
    return Fraction(best, law.total)


def guessing_score(law: ExactLaw, scores: NDArray[np.integer]) -> Fraction:
    """Mean score of a strategy, exactly, given its score on every arrangement (rank order)."""
    return Fraction(sum(int(w) * int(s) for w, s in zip(law.weights, scores.tolist())), law.total)
