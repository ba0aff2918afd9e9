"""Routines for packs bigger than the machine, and chunked simulation.

A pack of N cards on a machine holding C cards is split into L = ceil(N/C)
loads of near-equal size, named A, B, ... from the top (docs/mechanism.md).
A round puts every load through the machine once (L passes).

* stack-trade: each load is dealt and gathered left pile on top of right
  pile; then the top t cards of each load move onto the top of the next
  load, cyclically (load i receives load i-1's top t cards; A receives from
  the last load). With two loads this is "trade the top half of A for the top
  half of B". t is half the smallest load, plus the person's error (trade_sd),
  and at least one card, so loads of one card still mix.
* pile-trade: every load is dealt; all left piles, in load order, then all
  right piles, in load order, are gathered into one pack, which is cut into L
  near-equal loads from the top. With two loads this is "trade A's right pile
  for B's left pile before stacking". With fair independent sides it is
  exactly one inverse riffle of the whole pack per round, for every L.

Decks follow the batch convention of `kernels`: shape (S, N), row = labels
top to bottom.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from numpy.typing import NDArray

from shuffling import steps

from . import kernels
from .riffle_distance import tv_riffle_exact

__all__ = [
    "Machine",
    "Routine",
    "ROUTINES",
    "load_sizes",
    "load_bounds",
    "simulate",
    "exact_tv",
    "stack_trade_round",
    "pile_trade_round",
    "trade_count",
    "fixed_trade",
]

IntArray = NDArray[np.integer]


@dataclass(frozen=True)
class Machine:
    """How the machine and the person deviate from the ideal.

    p: probability a card goes left. clump and double_feed: see
    `kernels.draw_sides`. trade_sd: in stack-trade the person trades "about
    half": t = half + a normal with this sd, rounded, clipped to the load.
    """

    p: float = 0.5
    clump: float = 0.0
    double_feed: float = 0.0
    trade_sd: float = 0.0

    def __post_init__(self) -> None:
        for name in ("p", "clump", "double_feed"):
            v = getattr(self, name)
            if not 0.0 <= v <= 1.0:
                raise ValueError(f"{name} must lie in [0, 1], not {v!r}")
        if not 0.0 <= self.trade_sd < math.inf:
            raise ValueError(f"trade_sd must be a finite number >= 0, not {self.trade_sd!r}")

    @property
    def fair(self) -> bool:
        """Independent fair sides: every pass is an exact inverse GSR riffle."""
        return self.p == 0.5 and self.clump == 0.0 and self.double_feed == 0.0


def _check_int(name: str, value: int, least: int) -> None:
    if not isinstance(value, (int, np.integer)) or isinstance(value, bool) or value < least:
        raise ValueError(f"{name} must be an integer >= {least}, not {value!r}")


def load_sizes(n_cards: int, capacity: int) -> list[int]:
    """L = ceil(N / C) loads of near-equal size, larger ones on top."""
    _check_int("number of cards", n_cards, 1)
    _check_int("machine capacity", capacity, 2)
    n_loads = -(-n_cards // capacity)
    q, r = divmod(n_cards, n_loads)
    return [q + 1] * r + [q] * (n_loads - r)


def load_bounds(n_cards: int, capacity: int) -> list[int]:
    """Pack positions where the loads start, plus N: [0, |A|, |A|+|B|, ..., N]."""
    out = [0]
    for size in load_sizes(n_cards, capacity):
        out.append(out[-1] + size)
    return out


def _draw(decks: IntArray, bounds: list[int], machine: Machine, rng: np.random.Generator) -> NDArray[np.bool_]:
    return kernels.draw_sides(decks.shape, rng, machine.p, machine.clump, machine.double_feed, bounds=bounds)


def _deal_loads(decks: IntArray, bounds: list[int], machine: Machine, rng: np.random.Generator) -> IntArray:
    """Every load dealt and gathered left pile on top (segmented_partition by load).

    A fair machine's sides stay packed (kernels.fair_partition): the same
    bits, hence the same packs, as drawing them with _draw.
    """
    if machine.fair:
        return kernels.fair_partition(decks, rng, bounds)
    return kernels.segmented_partition(decks, _draw(decks, bounds, machine, rng), bounds)


def pile_trade_round(decks: IntArray, left: NDArray[np.bool_]) -> IntArray:
    """Deterministic part of a pile-trade round, given each card's side.

    All left piles in load order, then all right piles in load order: a stable
    partition of the whole pack, whatever the loads were.
    """
    return kernels.segmented_partition(decks, left)


def trade_count(bounds: list[int], machine: Machine, rng: np.random.Generator, samples: int) -> NDArray[np.intp]:
    """Cards moved from each load to the next in stack-trade, per sample.

    Half the smallest load, and never less than one card: trading nothing
    would leave the loads unmixed for ever. The person's error (trade_sd) is
    clipped to between one card and the whole smallest load.
    """
    smallest = min(b - a for a, b in zip(bounds[:-1], bounds[1:]))
    half = fixed_trade(smallest)
    if machine.trade_sd == 0.0:
        return np.full(samples, half, dtype=np.intp)
    t = np.rint(half + machine.trade_sd * rng.standard_normal(samples)).astype(np.intp)
    return np.clip(t, 1, smallest)


def fixed_trade(smallest_load: int) -> int:
    """Cards a careful person trades in stack-trade: half the smallest load, at least one."""
    return max(1, smallest_load // 2)


def stack_trade_round(decks: IntArray, left: NDArray[np.bool_], bounds: list[int], t: NDArray[np.intp]) -> IntArray:
    """Deterministic part of a stack-trade round, given sides and trade counts.

    Each load is gathered left on right; then load i's top t cards go on top
    of load (i + 1) mod L. Loads keep their sizes, since every load gives and
    receives t cards.
    """
    return _trade_tops(kernels.segmented_partition(decks, left, bounds), bounds, t)


def _trade_tops(dealt: IntArray, bounds: list[int], t: NDArray[np.intp]) -> IntArray:
    """Load i's top t cards onto load (i + 1) mod L, of packs whose loads are dealt."""
    n_loads = len(bounds) - 1
    if n_loads == 1:
        return dealt
    n = dealt.shape[1]
    starts = np.array(bounds[:-1])
    sizes = np.diff(bounds)
    start_col = np.repeat(starts, sizes)  # start of the load each position is in
    prev_start = np.repeat(np.roll(starts, 1), sizes)  # start of the load before it, cyclically
    offset = np.arange(n) - start_col
    t = np.asarray(t)
    if t.size and (t == t.flat[0]).all():
        # One count for every row: copy blocks of columns.
        k = int(t.flat[0])
        out = np.empty_like(dealt)
        for i in range(n_loads):
            lo, hi = bounds[i], bounds[i + 1]
            prev = bounds[(i - 1) % n_loads]  # start of the load before, cyclically
            out[:, lo : lo + k] = dealt[:, prev : prev + k]
            out[:, lo + k : hi] = dealt[:, lo + k : hi]
        return out
    src = np.where(offset < t[:, None], prev_start + offset, np.arange(n))
    return np.take_along_axis(dealt, src, axis=1)


@dataclass(frozen=True)
class Routine:
    """A way of shuffling a pack of N cards on a machine of capacity C."""

    name: str
    _summary: Callable[[list[int]], steps.RoundSummary]
    _run: Callable[[IntArray, int, Machine, np.random.Generator], IntArray]

    def passes_per_round(self, n_cards: int, capacity: int) -> int:
        return len(load_sizes(n_cards, capacity))

    def round_summary(self, n_cards: int, capacity: int) -> steps.RoundSummary:
        """What the table does each round, for this pack on this machine, as its record."""
        return self._summary(load_sizes(n_cards, capacity))

    def description(self, n_cards: int, capacity: int) -> str:
        """What the table does each round, for this pack on this machine (one sentence)."""
        return steps.words(self.round_summary(n_cards, capacity))

    def run_round(self, decks: IntArray, capacity: int, machine: Machine, rng: np.random.Generator) -> IntArray:
        """One round on every row of `decks`; returns a new array."""
        return self._run(decks, capacity, machine, rng)


def _run_stack_trade(decks: IntArray, capacity: int, machine: Machine, rng: np.random.Generator) -> IntArray:
    bounds = load_bounds(decks.shape[1], capacity)
    dealt = _deal_loads(decks, bounds, machine, rng)
    t = trade_count(bounds, machine, rng, decks.shape[0])
    return _trade_tops(dealt, bounds, t)


def _run_pile_trade(decks: IntArray, capacity: int, machine: Machine, rng: np.random.Generator) -> IntArray:
    if machine.fair:
        # Independent sides: the loads do not matter, the pack is one block.
        return kernels.fair_partition(decks, rng)
    # A clumping motor's chain of sides starts again with each load.
    bounds = load_bounds(decks.shape[1], capacity)
    return pile_trade_round(decks, _draw(decks, bounds, machine, rng))


def _stack_trade_summary(sizes: list[int]) -> steps.RoundSummary:
    trade = fixed_trade(min(sizes)) if len(sizes) > 1 else 0
    return steps.RoundSummary("stack-trade", tuple(sizes), trade=trade)


def _pile_trade_summary(sizes: list[int]) -> steps.RoundSummary:
    return steps.RoundSummary("pile-trade", tuple(sizes))


ROUTINES: dict[str, Routine] = {
    "stack-trade": Routine("stack-trade", _stack_trade_summary, _run_stack_trade),
    "pile-trade": Routine("pile-trade", _pile_trade_summary, _run_pile_trade),
}


StartSpec = NDArray[np.integer] | Callable[[int, np.random.Generator], IntArray] | None


def _start_decks(start: StartSpec, samples: int, n_cards: int, rng: np.random.Generator) -> IntArray:
    if start is None:
        return kernels.identity_decks(samples, n_cards)
    if callable(start):
        decks = np.asarray(start(samples, rng))
        if decks.shape != (samples, n_cards):
            raise ValueError(f"start function gave shape {decks.shape}, expected {(samples, n_cards)}")
        return decks.copy()
    arr = np.asarray(start)
    if arr.shape != (n_cards,) or not np.array_equal(np.sort(arr), np.arange(n_cards)):
        raise ValueError(f"start order must be a permutation of 0..{n_cards - 1}")
    dtype = np.int16 if n_cards <= np.iinfo(np.int16).max else np.int32
    return np.broadcast_to(arr.astype(dtype), (samples, n_cards)).copy()


def _routine_named(routine: Routine | str) -> Routine:
    """The routine itself, or the one of ROUTINES with that name."""
    if isinstance(routine, str):
        if routine not in ROUTINES:
            raise ValueError(f"unknown routine {routine!r}; choose from {', '.join(ROUTINES)}")
        return ROUTINES[routine]
    return routine


def _check_run(n_cards: int, capacity: int, rounds: int, samples: int, chunk: int) -> None:
    """Refuse a simulation that cannot run, before any pack is dealt."""
    load_sizes(n_cards, capacity)  # validates both
    _check_int("number of rounds", rounds, 0)
    _check_int("number of samples", samples, 1)
    _check_int("chunk size", chunk, 1)


def simulate(
    routine: Routine | str,
    n_cards: int,
    capacity: int,
    rounds: int,
    samples: int,
    *,
    machine: Machine = Machine(),
    start: StartSpec = None,
    seed: int | np.random.Generator | None = None,
    chunk: int = 20000,
    on_chunk: Callable[[int, int], None] | None = None,
) -> Iterator[tuple[int, IntArray]]:
    """Simulate `samples` shuffles, `chunk` at a time, yielding after every round.

    Yields (r, decks) for r = 1..rounds within each chunk, chunk after chunk:
    decks has shape (m, N), m <= chunk, and holds those m shuffles after r
    rounds. Each yielded array is fresh (callers may keep it). Memory is
    bounded by the chunk, not by `samples`. After a chunk's last round,
    on_chunk(done, samples) reports progress.

    start: None (the starting order 0..N-1), one arrangement of the labels
    0..N-1 used for every shuffle, or a function (m, rng) -> (m, N) array
    (e.g. a random start per shuffle).
    """
    routine = _routine_named(routine)
    _check_run(n_cards, capacity, rounds, samples, chunk)
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    done = 0
    while done < samples:
        m = min(chunk, samples - done)
        decks = _start_decks(start, m, n_cards, rng)
        for r in range(1, rounds + 1):
            decks = routine.run_round(decks, capacity, machine, rng)
            yield r, decks
        done += m
        if on_chunk is not None:
            on_chunk(done, samples)


def exact_tv(
    routine_name: str, n_cards: int, capacity: int, rounds: int, *, machine: Machine = Machine()
) -> Fraction | None:
    """Exact TV from uniform after `rounds` rounds where theory gives it, else None.

    Known exactly, for a fair machine (independent fair sides) and a start
    independent of the shuffle: pile-trade with any number of loads, and any
    routine with a single load, are one inverse riffle of the pack per round,
    so the distance is tv_riffle_exact(N, rounds) (docs/mathematics.md).
    """
    if routine_name not in ROUTINES:
        raise ValueError(f"unknown routine {routine_name!r}; choose from {', '.join(ROUTINES)}")
    n_loads = len(load_sizes(n_cards, capacity))
    _check_int("number of rounds", rounds, 0)
    if not machine.fair:
        return None
    if routine_name == "pile-trade" or n_loads == 1:
        return tv_riffle_exact(n_cards, rounds)
    return None
