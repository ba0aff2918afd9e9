"""Exact mode as one routine of the quality report (shuffling.quality.report_routine).

The firmware deals each card by one bit of a random code, b = ceil(log2 N)
rounds of pile trade (docs/exact-mode.md). Its distance is exact in every
round: 1 - 1/prod(m_j!) before round b and 0 from round b on
(shuffling.exact_mode.quality). Its guessing game and deal come from
simulating exact mode (shuffling.exact_mode.batch) on the same starting
order. After round b the routine is over and the device deals at random,
so later rounds are random pile-trade rounds, which keep a uniform pack
uniform. Exact mode's sides come from its codes, so a machine's bias,
clumping or double feeds are refused for it.

The rounds are whole-pack radix, the routine whose pack is gathered after
every round; where the device runs the split instead (every pack bigger
than the tray), the report names it with its passes and modelled time
(`device_routine`): the split's parts lie apart until its last pass, so it
has no pack to measure before its end, where it is exactly uniform.
"""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from firmware import exact_routes as routes
from shuffling import steps as step_kinds
from shuffling import time_model
from shuffling.quality.estimate import Estimate
from shuffling.quality.report_routine import PILE_TRADE, Decks
from shuffling.quality.results import DeviceRoutine
from shuffling.quality.routines import Machine, load_sizes

from .batch import simulate_exact_mode
from .codes import device_code_set, n_bits
from .physical import device_steps
from .quality import exact_mode_tv

__all__ = ["ExactModeRoutine", "EXACT_MODE", "exact_mode_description"]

METHOD = "exact mode: 1 - 1/prod(m_j!)"


@lru_cache(maxsize=64)
def _codes(n_cards: int, capacity: int) -> tuple[int, ...]:
    """The code set the device takes for this pack and machine."""
    return tuple(device_code_set(n_cards, capacity)[0])


def exact_mode_description(n_cards: int, capacity: int) -> str:
    """What the table does in exact mode (one sentence)."""
    sizes = load_sizes(n_cards, capacity)
    return step_kinds.words(step_kinds.RoundSummary("exact", tuple(sizes), rounds=n_bits(n_cards)))


@dataclass(frozen=True)
class ExactModeRoutine:
    """The device's exact mode, seen by the report like any other routine."""

    name: str = "exact"
    title: str = "exact mode"

    def description(self, n_cards: int, capacity: int) -> str:
        return exact_mode_description(n_cards, capacity)

    def refuses(self, machine: Machine) -> str | None:
        """The firmware picks every side from the codes, so a random source's bias
        means nothing to it; clumping and double feeds would break exactness in
        ways these knobs do not describe (the device stops being exact at a
        double feed it sees: docs/exact-mode.md). The person's trade (trade_sd)
        belongs to stack-trade and leaves exact mode alone."""
        if machine.p != 0.5:
            return "--bias is the chance a random side goes left; exact mode takes its sides from its codes"
        if machine.clump != 0.0 or machine.double_feed != 0.0:
            return ("--clump and --double-feed model random sides; exact mode takes its sides from its "
                    "codes and stops being exact at a double feed it sees")
        return None

    def exact_distance(self, n_cards: int, capacity: int, rounds: int, machine: Machine) -> Estimate:
        codes = list(_codes(n_cards, capacity))
        return Estimate(float(exact_mode_tv(codes, min(rounds, n_bits(n_cards)))), 0.0, "exact", METHOD)

    def bits_per_round(self, n_cards: int, capacity: int, machine: Machine) -> None:
        return None  # exact in every round: no counting bound needed

    def exact_rounds(self, n_cards: int) -> int:
        return n_bits(n_cards)

    def seconds(self, n_cards: int, capacity: int, rounds: int) -> float:
        """Whole-pack radix's steps to the end of round `rounds`, then random pile-trade rounds."""
        b = n_bits(n_cards)
        steps = [es.step for es in device_steps(routes.radix_route(n_cards, capacity)) if es.round <= rounds]
        extra = max(0, rounds - b)
        random_rounds = PILE_TRADE.seconds(n_cards, capacity, extra) - PILE_TRADE.seconds(n_cards, capacity, 0)
        return time_model.timing(steps).total_s + (random_rounds if extra else 0.0)

    def device_routine(self, n_cards: int, capacity: int) -> DeviceRoutine | None:
        route = routes.route(n_cards, capacity)
        if route.kind == routes.RADIX:
            return None
        return DeviceRoutine(route.kind, route.passes(), time_model.timing(es.step for es in device_steps(route)).total_s)

    def simulate(
        self, n_cards: int, capacity: int, rounds: int, samples: int, machine: Machine,
        rng: np.random.Generator, chunk: int,
    ) -> Iterator[tuple[int, Decks]]:
        return simulate_exact_mode(n_cards, capacity, rounds, samples, rng, chunk=chunk)


EXACT_MODE = ExactModeRoutine()
