"""What a person's mistake or a machine fault costs exact mode.

Each fault (physical.Fault) happens once, somewhere in one round; the
firmware does not notice and carries on dealing by what it believes the
pack holds. For small packs the law of the final order is computed exactly
by running every one of the N! code arrangements (and every place the fault
can happen); for 162 cards the distance is bounded from below by Monte Carlo
(shuffling.quality.bounds), the figure carrying its standard error.

After a mistake, extra random-mode rounds restore quality: if the pack's
law is mu, t random pile-trade rounds (each one inverse riffle of the whole
pack) leave it within d(t) of uniform, d(t) the exact Bayer-Diaconis
distance: from any fixed order t rounds give distance d(t), and mu is a
mixture of fixed orders. If mu is known to be within eps of uniform, the
distance is also at most eps * min(1, 2 d(t)) (Dobrushin contraction).
Running exact mode again with fresh codes restores exact uniformity in b
rounds from any order.
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from shuffling.exact_mode.batch import random_assignments, run_batch
from shuffling.exact_mode.codes import code_set, loads_for_round, n_bits
from shuffling.exact_mode.physical import FAULT_KINDS, Fault, run_with_fault
from shuffling.limits import MAX_ENUMERATION_CARDS, MAX_SEARCH_ROUNDS
from shuffling.quality.bounds import StatAccumulator, best_lower_bound
from shuffling.quality.estimate import Estimate
from shuffling.quality.riffle_distance import tv_riffle


def fault_locations(n: int, capacity: int, kind: str, round_index: int, uneven: bool = False) -> list[Fault]:
    """Every place a fault of this kind can happen in round `round_index` (0-based)."""
    if kind not in FAULT_KINDS:
        raise ValueError(f"unknown fault kind {kind!r}")
    if not 0 <= round_index < n_bits(n):
        raise ValueError("no such round")
    sizes = loads_for_round(n, capacity, code_set(n, capacity, uneven), round_index)
    if kind == "swap_round":
        return [Fault(kind, round_index)]
    if kind in ("swap_piles", "repeat_load"):
        return [Fault(kind, round_index, j) for j in range(len(sizes))]
    if kind == "double_feed":  # a pair needs a next card: index + 1 < size
        return [Fault(kind, round_index, j, k) for j, s in enumerate(sizes) for k in range(s - 1)]
    return [Fault(kind, round_index, j, m) for j, s in enumerate(sizes) for m in range(1, s)]  # abort


def all_arrangements(codes: list[int]) -> np.ndarray:
    """Every arrangement of the code set, one per row (N! rows; small N only)."""
    if len(codes) > MAX_ENUMERATION_CARDS:
        raise ValueError(f"exhaustive enumeration is for packs of at most {MAX_ENUMERATION_CARDS} cards")
    return np.array(list(itertools.permutations(codes)), dtype=np.int32).reshape(-1, len(codes))


def _tv_of_rows(finals: np.ndarray, n: int) -> Fraction:
    """Exact TV between the empirical law of the rows (each row equally likely) and uniform."""
    # One integer per order (base n digits) makes counting fast; n <= 9 fits in int64.
    keys = finals.astype(np.int64) @ (np.int64(n) ** np.arange(n, dtype=np.int64))
    _, counts = np.unique(keys, return_counts=True)
    total = finals.shape[0]
    nf = math.factorial(n)
    # sum |c/total - 1/nf| over reached orders = sum |c nf - total| / (total nf)
    reached = sum(abs(int(c) * nf - total) for c in counts.tolist())
    return (Fraction(reached, total * nf) + Fraction(nf - len(counts), nf)) / 2


@dataclass(frozen=True)
class ExactFaultCost:
    kind: str
    round: int  # 0-based
    worst: Fraction  # largest distance over the places the fault can happen
    spread: Fraction  # distance when the place is uniformly random
    places: int


def exact_fault_cost(
    n: int, capacity: int, kind: str, round_index: int, places: list[Fault] | None = None
) -> ExactFaultCost:
    """Exact distance from uniform after one undetected fault, for a small pack."""
    arr = all_arrangements(code_set(n, capacity))
    if places is None:
        places = fault_locations(n, capacity, kind, round_index)
    finals = [run_batch(arr, capacity, f) for f in places]
    worst = max(_tv_of_rows(f, n) for f in finals)
    spread = _tv_of_rows(np.concatenate(finals), n)
    return ExactFaultCost(kind, round_index, worst, spread, len(places))


def detection_rate(n: int, capacity: int, fault: Fault) -> Fraction:
    """Share of code arrangements for which a load count differs from plan (two loads only).

    The count sensor reads each load; when a fault changes how many cards
    the left stack holds, the next round's loads have the wrong sizes and the
    firmware can stop and say so. Exact, by enumeration (small packs).
    """
    codes = code_set(n, capacity)
    hits = 0
    total = 0
    for arrangement in itertools.permutations(codes):
        total += 1
        hits += run_with_fault(list(range(n)), arrangement, capacity, fault).count_mismatch
    return Fraction(hits, total)


def monte_carlo_detection(
    n: int, capacity: int, kind: str, round_index: int, samples: int, seed: int = 1, uneven: bool = False
) -> Estimate:
    """Share of runs (fault at a random place) in which a load count differs from plan, with its error."""
    rng = np.random.default_rng(seed)
    codes = code_set(n, capacity, uneven)
    places = fault_locations(n, capacity, kind, round_index, uneven)
    hits = 0
    for arrangement in random_assignments(codes, samples, rng):
        fault = places[int(rng.integers(len(places)))]
        hits += run_with_fault(list(range(n)), arrangement.tolist(), capacity, fault).count_mismatch
    p_var = (hits + 0.5) / (samples + 1)  # keeps the error above 0 when no run or every run is caught
    return Estimate(hits / samples, math.sqrt(p_var * (1 - p_var) / samples), "estimate", "count sensor")


def half_way_aborts(n: int, capacity: int, round_index: int) -> list[Fault]:
    """A pass stopped after half its cards, one place per load."""
    sizes = loads_for_round(n, capacity, code_set(n, capacity), round_index)
    return [Fault("abort", round_index, j, s // 2) for j, s in enumerate(sizes) if s >= 2]


def monte_carlo_fault_cost(
    n: int,
    capacity: int,
    kind: str,
    round_index: int,
    samples: int,
    seed: int = 1,
    chunk: int = 20000,
    places: list[Fault] | None = None,
) -> Estimate:
    """Lower bound (with its standard error) on the distance after one fault at a random place.

    `places` narrows the places (all of one kind and round) the fault is drawn from.
    """
    rng = np.random.default_rng(seed)
    codes = code_set(n, capacity)
    if places is None:
        places = fault_locations(n, capacity, kind, round_index)
    if not places or any(f.kind != places[0].kind or f.round != places[0].round for f in places):
        raise ValueError("places must be one kind of fault in one round")
    loads = np.array([f.load for f in places], dtype=np.intp)
    index = np.array([f.index for f in places], dtype=np.intp)
    acc = StatAccumulator(n)
    done = 0
    while done < samples:
        m = min(chunk, samples - done)
        pick = rng.integers(len(places), size=m)
        finals = run_batch(
            random_assignments(codes, m, rng), capacity, places[0], fault_load=loads[pick], fault_index=index[pick]
        )
        acc.update(finals)
        done += m
    return best_lower_bound(acc.finish())


def monte_carlo_clean(n: int, capacity: int, samples: int, seed: int = 1) -> Estimate:
    """The same lower bound for a correct run: must read 0 within its error (a check of the method)."""
    rng = np.random.default_rng(seed)
    acc = StatAccumulator(n)
    acc.update(run_batch(random_assignments(code_set(n, capacity), samples, rng), capacity))
    return best_lower_bound(acc.finish())


def extra_random_rounds(n: int, target: float, mistake_tv: float = 1.0, limit: int = MAX_SEARCH_ROUNDS) -> int:
    """Fewest random pile-trade rounds that bring a pack known to be within `mistake_tv` to `target`.

    Uses TV after t rounds <= min(d(t), mistake_tv * min(1, 2 d(t)), mistake_tv),
    d(t) = tv_riffle(n, t) exactly.
    """
    if not 0 < target:
        raise ValueError("target must be positive")
    for t in range(limit + 1):
        d = tv_riffle(n, t)
        if min(d, mistake_tv * min(1.0, 2 * d), mistake_tv) <= target:
            return t
    raise ValueError("target not reached within the limit")
