"""Exact mode as routines of the quality report (shuffling.quality.report_routine).

The device deals every card by its code (docs/exact-mode.md), in one of two
routines of firmware/exact_routes.py: whole-pack radix, b = ceil(log2 N)
rounds of the whole pack by one bit of each code, or the split, which
splits the pack into parts that fit the tray and sorts each on its own. The
report's `exact` is the routine the device chooses for the pack (the least
modelled time at the table: the split for every pack bigger than the tray);
`exact-radix` and `exact-split` are each routine by name, so the other one
can stand beside it.

A routine's rounds are the route's: for radix every load of the pack once,
for the split a split round (every load of its stack once) or one pass of a
part. Until the split's last pass its stacks and parts lie apart; a round's
pack is them put together in order, top part first, the order they end in.
Its distance is exact in every round: 1 - 1/prod(m_j!) over the classes of
codes that share their history, 0 once the routine is over
(shuffling.exact_mode.quality.route_tv). Its guessing game and deal come
from simulating the routine (shuffling.exact_mode.batch.simulate_route) on
the same starting order. After the routine the device deals at random, so
later rounds are random pile-trade rounds, which keep a uniform pack
uniform. Exact mode's sides come from its codes, so a machine's bias,
clumping or double feeds are refused for it.
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
from shuffling.quality.results import ExactRoutineResult
from shuffling.quality.routines import Machine, load_sizes

from .batch import simulate_route
from .codes import route_code_set
from .onlooker import onlooker
from .physical import device_steps
from .quality import route_tv

__all__ = ["ExactModeRoutine", "EXACT_MODE", "EXACT_RADIX", "EXACT_SPLIT", "exact_mode_description",
           "ROUTINE_NAMES"]

METHOD = "exact mode: 1 - 1/prod(m_j!)"
ROUTINE_NAMES = {routes.RADIX: "whole-pack radix", routes.SPLIT: "the split", routes.PIPELINED: "the pipelined routine"}


@lru_cache(maxsize=64)
def _route(n_cards: int, capacity: int, kind: str | None) -> routes.Route:
    return routes.route(n_cards, capacity, kind)


@lru_cache(maxsize=64)
def _codes(n_cards: int, capacity: int, kind: str | None) -> tuple[int, ...]:
    """The code set the device takes for this routine, pack and machine."""
    return tuple(route_code_set(_route(n_cards, capacity, kind)))


@lru_cache(maxsize=64)
def _seconds(n_cards: int, capacity: int, kind: str | None) -> tuple[float, ...]:
    """The modelled time at the table to the end of each round of the routine, from its steps."""
    steps = device_steps(_route(n_cards, capacity, kind))
    rounds = _route(n_cards, capacity, kind).rounds
    return tuple(time_model.timing(es.step for es in steps if es.round <= r).total_s for r in range(rounds + 1))


def exact_mode_description(n_cards: int, capacity: int, kind: str | None = None) -> str:
    """What the table does in the exact routine (one sentence)."""
    route = _route(n_cards, capacity, kind)
    if route.kind != routes.RADIX:
        return step_kinds.words(step_kinds.RoundSummary(f"exact-{route.kind}", tuple(route.part_size),
                                                        rounds=route.passes()))
    sizes = load_sizes(n_cards, capacity)
    return step_kinds.words(step_kinds.RoundSummary("exact", tuple(sizes), rounds=route.rounds))


@dataclass(frozen=True)
class ExactModeRoutine:
    """One of the device's exact routines, seen by the report like any other routine.

    kind None: the one the device chooses for the pack (firmware/exact_routes.route).
    """

    kind: str | None = None

    @property
    def name(self) -> str:
        return "exact" if self.kind is None else f"exact-{self.kind}"

    def title(self, n_cards: int, capacity: int) -> str:
        """The routine's own name ("the split", "whole-pack radix"); the plot's legend
        adds that it is exact mode and whether the shuffler runs it (its exact_routine)."""
        return ROUTINE_NAMES[_route(n_cards, capacity, self.kind).kind]

    def description(self, n_cards: int, capacity: int) -> str:
        return exact_mode_description(n_cards, capacity, self.kind)

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

    def refuses_pack(self, n_cards: int, capacity: int) -> str | None:
        try:
            _route(n_cards, capacity, self.kind)
        except ValueError as exc:
            return f"{exc} ({n_cards} cards on a {capacity}-card tray)"
        return None

    def exact_distance(self, n_cards: int, capacity: int, rounds: int, machine: Machine) -> Estimate | None:
        route = _route(n_cards, capacity, self.kind)
        if route.kind == routes.PIPELINED and rounds < route.rounds:
            # Its codes follow the order drawn: no class formula before the end (the simulation's bound instead).
            return None
        codes = list(_codes(n_cards, capacity, self.kind))
        return Estimate(float(route_tv(route, codes, min(rounds, route.rounds))), 0.0, "exact", METHOD)

    def bits_per_round(self, n_cards: int, capacity: int, machine: Machine) -> None:
        return None  # exact in every round: no counting bound needed

    def exact_rounds(self, n_cards: int, capacity: int) -> int:
        return _route(n_cards, capacity, self.kind).rounds

    def passes(self, n_cards: int, capacity: int, rounds: int) -> int:
        """The routine's passes to the end of round `rounds`, then a random pile-trade round's loads each."""
        route = _route(n_cards, capacity, self.kind)
        done = sum(route.loads[r] for r in range(min(rounds, route.rounds)))
        return done + max(0, rounds - route.rounds) * len(load_sizes(n_cards, capacity))

    def seconds(self, n_cards: int, capacity: int, rounds: int) -> float:
        """The routine's steps to the end of round `rounds`, then random pile-trade rounds."""
        own = _seconds(n_cards, capacity, self.kind)
        extra = max(0, rounds - (len(own) - 1))
        random_rounds = PILE_TRADE.seconds(n_cards, capacity, extra) - PILE_TRADE.seconds(n_cards, capacity, 0)
        return own[min(rounds, len(own) - 1)] + (random_rounds if extra else 0.0)

    def exact_routine(self, n_cards: int, capacity: int) -> ExactRoutineResult:
        route = _route(n_cards, capacity, self.kind)
        seen = onlooker(route)
        return ExactRoutineResult(route.kind, ROUTINE_NAMES[route.kind], route.kind == _route(n_cards, capacity, None).kind,
                            route.passes(), _seconds(n_cards, capacity, self.kind)[-1], seen.bits, seen.order_bits)

    def simulate(
        self, n_cards: int, capacity: int, rounds: int, samples: int, machine: Machine,
        rng: np.random.Generator, chunk: int,
    ) -> Iterator[tuple[int, Decks]]:
        return simulate_route(_route(n_cards, capacity, self.kind), rounds, samples, rng, chunk=chunk)


EXACT_MODE = ExactModeRoutine()
EXACT_RADIX = ExactModeRoutine(routes.RADIX)
EXACT_SPLIT = ExactModeRoutine(routes.SPLIT)
