"""What the quality report asks of a routine, and the two routines with random sides.

The report (report.py) treats every routine alike through `ReportRoutine`:
a name, a title and a description, whether the machine's settings and the
pack apply to it, its exact distance where theory gives one, how many random
bits a round has (for the counting bound, and to tell a machine that never
shuffles), the machine passes and the modelled time at the table to the end
of each round (shuffling/time_model.py, on the routine's steps), and a
simulation that yields the packs round by round. Stack-trade and pile-trade
live here; exact mode, the device's own routine, lives with the rest of
exact mode (shuffling/exact_mode/report_routine.py), and
shuffling/report_catalogue.py lists them all. The report imports neither.
"""
from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Protocol

import numpy as np
from numpy.typing import NDArray

from shuffling import time_model
from shuffling.limits import MAX_EXACT_DISTANCE_CARDS
from shuffling.round_steps import first_cut, round_steps, stack_trade_round_steps

from .estimate import Estimate
from .results import ExactRoutineResult
from .routines import ROUTINES, Machine, Routine, exact_tv, fixed_trade, load_sizes, simulate

__all__ = ["ReportRoutine", "RandomSideRoutine", "STACK_TRADE", "PILE_TRADE", "side_bits"]

Decks = NDArray[np.integer]


class ReportRoutine(Protocol):
    """A routine the quality report can show (see the module docstring)."""

    @property
    def name(self) -> str: ...

    def title(self, n_cards: int, capacity: int) -> str:
        """How a legend calls it, for this pack on this machine."""
        ...

    def description(self, n_cards: int, capacity: int) -> str:
        """What the table does each round, for this pack on this machine (one sentence)."""
        ...

    def refuses(self, machine: Machine) -> str | None:
        """None when the routine can be reported on `machine`, else why not (one line)."""
        ...

    def refuses_pack(self, n_cards: int, capacity: int) -> str | None:
        """None when the routine exists for this pack on this machine, else why not (one line)."""
        ...

    def exact_distance(self, n_cards: int, capacity: int, rounds: int, machine: Machine) -> Estimate | None:
        """The exact distance from uniform after `rounds` rounds, or None where it is not known."""
        ...

    def bits_per_round(self, n_cards: int, capacity: int, machine: Machine) -> int | None:
        """At most 2**bits arrangements come out of one round from a given order; None: not counted."""
        ...

    def exact_rounds(self, n_cards: int, capacity: int) -> int | None:
        """The round from which the pack is exactly uniform, for a routine that gets there."""
        ...

    def passes(self, n_cards: int, capacity: int, rounds: int) -> int:
        """The machine passes of the first `rounds` rounds."""
        ...

    def seconds(self, n_cards: int, capacity: int, rounds: int) -> float:
        """The modelled time at the table of the first `rounds` rounds."""
        ...

    def exact_routine(self, n_cards: int, capacity: int) -> ExactRoutineResult | None:
        """Which exact routine the rounds are (exact mode), else None."""
        ...

    def simulate(
        self, n_cards: int, capacity: int, rounds: int, samples: int, machine: Machine,
        rng: np.random.Generator, chunk: int,
    ) -> Iterator[tuple[int, Decks]]:
        """(round, decks) for rounds 1..rounds, chunk after chunk, from the order 0..N-1."""
        ...


def side_bits(n_cards: int, capacity: int, machine: Machine) -> int:
    """Random bits in one round's sides.

    A coin that always says the same side (bias 0 or 1) gives none; a card
    that always follows the one before (clump or double feed 1) leaves one
    coin per pass; otherwise every card has its own.
    """
    if machine.p in (0.0, 1.0):
        return 0
    if machine.clump == 1.0 or machine.double_feed == 1.0:
        return len(load_sizes(n_cards, capacity))
    return n_cards


@dataclass(frozen=True)
class RandomSideRoutine:
    """Stack-trade or pile-trade: each card's side from the machine's random source."""

    routine: Routine

    @property
    def name(self) -> str:
        return self.routine.name

    def title(self, n_cards: int, capacity: int) -> str:
        return self.routine.name

    def description(self, n_cards: int, capacity: int) -> str:
        return self.routine.description(n_cards, capacity)

    def refuses(self, machine: Machine) -> str | None:
        return None  # the knobs describe exactly these routines' random sides

    def refuses_pack(self, n_cards: int, capacity: int) -> str | None:
        return None

    def exact_distance(self, n_cards: int, capacity: int, rounds: int, machine: Machine) -> Estimate | None:
        if n_cards > MAX_EXACT_DISTANCE_CARDS:
            return None
        value = exact_tv(self.name, n_cards, capacity, rounds, machine=machine)
        return None if value is None else Estimate(float(value), 0.0, "exact", "Bayer-Diaconis")

    def bits_per_round(self, n_cards: int, capacity: int, machine: Machine) -> int:
        bits = side_bits(n_cards, capacity, machine)
        if self.name == "stack-trade" and machine.trade_sd > 0:
            # The person's trade takes at most (smallest load + 1) values a round.
            bits += math.ceil(math.log2(min(load_sizes(n_cards, capacity)) + 1))
        return bits

    def exact_rounds(self, n_cards: int, capacity: int) -> None:
        return None

    def passes(self, n_cards: int, capacity: int, rounds: int) -> int:
        return rounds * len(load_sizes(n_cards, capacity))

    def seconds(self, n_cards: int, capacity: int, rounds: int) -> float:
        sizes = load_sizes(n_cards, capacity)
        names = [str(i) for i in range(len(sizes))]  # only timed, never shown
        if self.name == "stack-trade":
            one = stack_trade_round_steps(names, sizes, fixed_trade(min(sizes)) if len(sizes) > 1 else 0)
        else:
            one = round_steps(names, sizes)
        return time_model.timing(first_cut(names, sizes) + one * rounds).total_s

    def exact_routine(self, n_cards: int, capacity: int) -> None:
        return None

    def simulate(
        self, n_cards: int, capacity: int, rounds: int, samples: int, machine: Machine,
        rng: np.random.Generator, chunk: int,
    ) -> Iterator[tuple[int, Decks]]:
        return simulate(self.routine, n_cards, capacity, rounds, samples, machine=machine, seed=rng, chunk=chunk)


STACK_TRADE = RandomSideRoutine(ROUTINES["stack-trade"])
PILE_TRADE = RandomSideRoutine(ROUTINES["pile-trade"])
