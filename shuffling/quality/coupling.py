"""A simulated upper bound on stack-trade's distance from random: two packs coupled.

Two packs go through the same stack-trade rounds: X from the starting order,
Y from a uniformly random order. Every round each card draws one uniform
number U. In X it goes left when U < p. In Y it goes left when U < p too if it
sits in the same load in both packs, and when U >= 1 - p if it sits in
different loads (on a fair machine: the opposite side). Both packs trade the
same number of cards.

Why this bounds the distance. Given everything before a round, the cards'
numbers are independent and uniform and whether a card sits in the same load
in both packs is already fixed, so in each pack every position's card goes
left with probability p, independently: each pack on its own runs stack-trade
exactly. Y starts uniform and a round moves cards by position only, so Y
stays uniform in every round. For any set A of orders,
P(X in A) - P(Y in A) <= P(X != Y), so

    distance of X from random <= P(X_r != Y_r),

and packs once equal stay equal (same positions, same loads, same sides).
The simulation counts the pairs of packs still apart after each round; the
one-sided Clopper-Pearson limit of that count at CONFIDENCE is an upper bound
on the distance with that confidence.

Only a machine with independent sides is covered (clump = double_feed = 0),
as for stack_trade_laws.py. The rounds run in a compiled loop (numba), cached
beside this file like the kernels.
"""
from __future__ import annotations

import math
from collections.abc import Iterator

import numba
import numpy as np
from numpy.typing import NDArray

from .results import UpperBound
from .routines import Machine, load_bounds, trade_count

__all__ = ["CONFIDENCE", "COUPLING_SAMPLES", "coupled_packs", "apart_counts", "binomial_upper_limit",
           "coupling_upper_bounds"]

# Each round's bound holds with this probability over the simulation (the
# same one-sided confidence as the lower bounds' edges two errors below).
CONFIDENCE = 0.975
# Pairs of packs simulated: the fraction still apart then has a standard
# error of at most 0.005, and the bound lies at most about 0.01 above it.
COUPLING_SAMPLES = 10_000
CHUNK = 10_000

IntArray = NDArray[np.integer]


@numba.njit(cache=True, nogil=True)
def _coupled_round(x, y, u, p, bounds, t, apart):  # type: ignore[no-untyped-def]
    # One round of both packs of every pair; apart[r] says whether they still differ.
    # Equal packs deal alike and stay equal, so a pair once together stays together.
    # Its steps are inlined into it by numba (inline="always"): one compiled
    # function, as quick to compile as the steps written out (a helper compiled
    # on its own doubles the time), and as fast to run.
    n = x.shape[1]
    load_x = np.empty(n, np.intp)
    same = np.empty(n, np.bool_)
    dealt = np.empty(n, x.dtype)
    buf = np.empty(n, x.dtype)
    for r in range(x.shape[0]):
        _mark_same_load(x[r], y[r], bounds, load_x, same)
        for pack in range(2):
            deck = x[r] if pack == 0 else y[r]
            _deal_loads(deck, u[r], p, same, pack == 1, bounds, dealt, buf)
            _trade_tops(deck, dealt, bounds, t[r])
        apart[r] = not _equal(x[r], y[r])


@numba.njit(inline="always")
def _mark_same_load(xr, yr, bounds, load_x, same):  # type: ignore[no-untyped-def]
    # same[c]: card c sits in the same load in both packs.
    loads = bounds.size - 1
    for i in range(loads):
        for j in range(bounds[i], bounds[i + 1]):
            load_x[xr[j]] = i
    for i in range(loads):
        for j in range(bounds[i], bounds[i + 1]):
            c = yr[j]
            same[c] = load_x[c] == i


@numba.njit(inline="always")
def _deal_loads(deck, ur, p, same, coupled, bounds, dealt, buf):  # type: ignore[no-untyped-def]
    # Every load dealt and gathered left on right into `dealt`: a stable partition,
    # written branch-free as in kernels._partition_blocks. In the coupled pack (Y) a
    # card in another load than in X goes left when its number is at least 1 - p.
    for i in range(bounds.size - 1):
        lo, hi = bounds[i], bounds[i + 1]
        nl, nr = lo, 0
        for j in range(lo, hi):
            c = deck[j]
            v = ur[c]
            is_left = np.intp(v >= 1.0 - p) if coupled and not same[c] else np.intp(v < p)
            dealt[nl] = c
            buf[nr] = c
            nl += is_left
            nr += 1 - is_left
        for k in range(nr):
            dealt[nl + k] = buf[k]


@numba.njit(inline="always")
def _trade_tops(deck, dealt, bounds, tr):  # type: ignore[no-untyped-def]
    # Load i's top tr cards (of `dealt`) go on top of load i + 1, cyclically, back into deck.
    loads = bounds.size - 1
    for i in range(loads):
        lo, hi = bounds[i], bounds[i + 1]
        prev = bounds[(i - 1 + loads) % loads]
        for k in range(tr):
            deck[lo + k] = dealt[prev + k]
        for j in range(lo + tr, hi):
            deck[j] = dealt[j]


@numba.njit(inline="always")
def _equal(a, b):  # type: ignore[no-untyped-def]
    for j in range(a.shape[0]):
        if a[j] != b[j]:
            return False
    return True


def _check(n_cards: int, capacity: int, machine: Machine) -> NDArray[np.intp]:
    if machine.clump != 0.0 or machine.double_feed != 0.0:
        raise ValueError("the coupling needs independent sides (clump = double_feed = 0)")
    bounds = np.array(load_bounds(n_cards, capacity), dtype=np.intp)
    if bounds.size < 3:
        raise ValueError("the coupling is for two loads or more (one load is an inverse riffle, known exactly)")
    return bounds


def coupled_packs(
    n_cards: int, capacity: int, rounds: int, samples: int, machine: Machine, rng: np.random.Generator,
    chunk: int = CHUNK,
) -> Iterator[tuple[int, IntArray, IntArray, NDArray[np.bool_]]]:
    """(round, X, Y, apart) for rounds 1..rounds, chunk after chunk (see the module docstring).

    X starts in the order 0..N-1, Y in a uniformly random order; apart[k] is
    False once pair k's packs are equal. The arrays are the loop's own, dealt
    again in the next round: a caller that keeps them copies them.
    """
    bounds = _check(n_cards, capacity, machine)
    dtype = np.int16 if n_cards <= np.iinfo(np.int16).max else np.int32
    done = 0
    while done < samples:
        m = min(chunk, samples - done)
        x = np.broadcast_to(np.arange(n_cards, dtype=dtype), (m, n_cards)).copy()
        y = rng.permuted(x, axis=1)
        apart = np.ones(m, dtype=np.bool_)
        for r in range(1, rounds + 1):
            u = rng.random((m, n_cards))
            t = trade_count(list(bounds), machine, rng, m)
            _coupled_round(x, y, u, machine.p, bounds, t, apart)
            yield r, x, y, apart
        done += m


def apart_counts(
    n_cards: int, capacity: int, rounds: int, samples: int, machine: Machine, rng: np.random.Generator,
) -> list[int]:
    """How many of `samples` coupled pairs of packs are still apart after each round."""
    counts = [0] * rounds
    for r, _, _, apart in coupled_packs(n_cards, capacity, rounds, samples, machine, rng):
        counts[r - 1] += int(apart.sum())
    return counts


def binomial_upper_limit(k: int, n: int, confidence: float) -> float:
    """One-sided Clopper-Pearson limit: the p at which P(Bin(n, p) <= k) = 1 - confidence.

    With k successes in n trials, the true chance lies below it with at
    least that confidence. 1 when k = n.
    """
    if not (0 <= k <= n and n >= 1 and 0.0 < confidence < 1.0):
        raise ValueError(f"need 0 <= k <= n, n >= 1 and a confidence in (0, 1), not {k}, {n}, {confidence}")
    if k == n:
        return 1.0
    alpha = 1.0 - confidence
    j = np.arange(k + 1)
    # log C(n, j) by its running sum of log((n - i + 1) / i), in one pass.
    log_comb = np.concatenate(([0.0], np.cumsum(np.log((n - j[1:] + 1) / j[1:]))))

    def cdf(p: float) -> float:
        terms = log_comb + j * math.log(p) + (n - j) * math.log1p(-p)
        top = float(terms.max())
        return math.exp(top) * float(np.exp(terms - top).sum())

    lo, hi = k / n, 1.0  # the cdf falls from at least 1/2 at p = k/n to 0 at 1
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if mid in (lo, hi):
            break
        if cdf(mid) > alpha:
            lo = mid
        else:
            hi = mid
    return hi


def coupling_upper_bounds(
    routine_name: str, n_cards: int, capacity: int, rounds: int, samples: int, machine: Machine,
    rng: np.random.Generator,
) -> list[UpperBound] | None:
    """The report's simulated upper bounds for a routine, round by round, or None.

    Only stack-trade with two loads or more on a machine with independent
    sides: pile-trade and exact mode have exact distances, and clumped sides
    are not covered. `samples` pairs of packs (the report gives at most
    COUPLING_SAMPLES).
    """
    if routine_name != "stack-trade" or len(load_bounds(n_cards, capacity)) < 3:
        return None
    if machine.clump != 0.0 or machine.double_feed != 0.0:
        return None
    counts = apart_counts(n_cards, capacity, rounds, samples, machine, rng)
    return [UpperBound(binomial_upper_limit(k, samples, CONFIDENCE), CONFIDENCE, k, samples,
                       "coupling: pairs of packs still apart")
            for k in counts]
