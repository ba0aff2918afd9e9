"""The shuffling routine for a pack on this machine, as plain data.

Pure functions: how the pack is split into loads, what happens in each round
(the "pile trade" routine of docs/mechanism.md), how many rounds a chosen
quality needs and how long that takes. Every quality figure is computed by
the simulator (`shuffling.quality.routines.exact_tv`, the Bayer-Diaconis
rising-sequence formula); nothing here is a typed-in table of distances.

With fair, independent sides a pile-trade round is exactly one inverse riffle
of the whole pack whatever the loads hold, so the figure needs only the pack
size and the number of rounds; the capacity sets the loads and passes.
"""
from __future__ import annotations

import string
from dataclasses import dataclass
from typing import Any

from firmware import exact_routes as routes
from shuffling import steps
from shuffling import time_model
from shuffling.limits import MAX_CAPACITY, MIN_CAPACITY
from shuffling.round_steps import first_cut, round_steps, trade_steps
from shuffling.exact_mode.onlooker import Onlooker, onlooker
from shuffling.exact_mode.physical import device_steps
from shuffling.limits import (MAX_EXACT_MODE_CARDS, MAX_EXACT_MODE_LOADS, MAX_PACK_CARDS, MAX_ROUNDS,
                             MAX_SEARCH_ROUNDS, MIN_ROUNDS, out_of_range)
from shuffling.packs import PACKS, UnknownPackError, get_pack
from shuffling.quality.routines import exact_tv, load_sizes

ROUTINE = "pile-trade"
DEFAULT_CAPACITY = 104
DEFAULT_PACK = "samba"
DEFAULT_QUALITY = "good"
# The card limit is shuffling.limits.MAX_PACK_CARDS, shared with `shuffler quality`.
# The rules' "three passes suit a home game": three passes of each load,
# that is three rounds; every plan says what they give.
HOME_GAME_ROUNDS = 3

METHOD = "exact, by the Bayer-Diaconis rising-sequence formula"


class PlanError(ValueError):
    """Bad input for a plan; the message is one line for the user."""


@dataclass(frozen=True)
class QualityLevel:
    """A named ceiling on the total variation distance from a random pack:
    no question about the order (where the aces are, whether a meld survived)
    has a chance that differs from its chance in a random pack by more."""

    name: str
    threshold: float  # total variation distance from a truly random pack
    meaning: str


QUALITY_LEVELS: tuple[QualityLevel, ...] = (
    QualityLevel("casual", 0.5, "a loose ceiling, for a casual game"),
    QualityLevel("good", 0.25, "a well shuffled pack"),
    QualityLevel("near-random", 0.1, "hard to tell from a random pack"),
    QualityLevel("casino", 0.01, "as good as random for any practical purpose"),
)


def quality_level(name: str) -> QualityLevel:
    """A level by name ("near random", "near_random" and "Near-Random" all work)."""
    key = name.strip().lower().replace("_", "-").replace(" ", "-")
    for level in QUALITY_LEVELS:
        if level.name == key:
            return level
    names = ", ".join(q.name for q in QUALITY_LEVELS)
    raise PlanError(f"unknown quality {name!r}; choose one of {names}")


@dataclass(frozen=True)
class PackChoice:
    name: str  # preset name, or "custom"
    title: str
    cards: int


def choose_pack(pack: str | None, cards: int | None) -> PackChoice:
    """A preset by name, or any number of cards; never both."""
    if pack is not None and cards is not None:
        raise PlanError("give --pack or --cards, not both")
    if cards is not None:
        if isinstance(cards, bool) or not isinstance(cards, int) or cards < 2:
            raise PlanError(f"--cards must be a whole number of at least 2, not {cards!r}")
        if cards > MAX_PACK_CARDS:
            raise PlanError(f"--cards {cards} is more than this tool plans for (at most {MAX_PACK_CARDS})")
        return PackChoice("custom", f"{cards} cards", cards)
    try:
        preset = get_pack(pack if pack is not None else DEFAULT_PACK)
    except UnknownPackError as exc:
        raise PlanError(str(exc)) from None
    return PackChoice(preset.name, preset.title, preset.cards)


def check_capacity(capacity: int) -> None:
    if isinstance(capacity, bool) or not isinstance(capacity, int) or not MIN_CAPACITY <= capacity <= MAX_CAPACITY:
        raise PlanError(f"--capacity must be a whole number from {MIN_CAPACITY} to {MAX_CAPACITY}, not {capacity!r}")


def load_names(n_loads: int) -> list[str]:
    """A, B, C, ... from the top of the pack; AA, AB, ... past Z."""
    letters = string.ascii_uppercase
    out = []
    for i in range(n_loads):
        name = ""
        j = i
        while True:
            name = letters[j % 26] + name
            j = j // 26 - 1
            if j < 0:
                break
        out.append(name)
    return out


def distance_after(cards: int, capacity: int, rounds: int) -> float:
    """Exact distance from random after `rounds` pile-trade rounds, from the simulator."""
    tv = exact_tv(ROUTINE, cards, capacity, rounds)
    if tv is None:  # pile trade on a fair machine is always exact
        raise PlanError("the simulator has no exact figure for this routine")
    return float(tv)


def rounds_for(cards: int, capacity: int, threshold: float) -> int:
    """The fewest rounds whose exact distance is at most `threshold`."""
    for r in range(0, MAX_SEARCH_ROUNDS + 1):
        if distance_after(cards, capacity, r) <= threshold:
            return r
    raise PlanError(f"no routine of at most {MAX_SEARCH_ROUNDS} rounds reaches {threshold}")


# The time of a routine: the machine's from the mechanism, the person's per
# kind of step (shuffling/time_model.py), stated in every plan.
Timing = time_model.Timing


def timing(names: list[str] | tuple[str, ...], sizes: list[int] | tuple[int, ...], rounds: int) -> Timing:
    return time_model.timing(first_cut(names, sizes) + round_steps(names, sizes) * rounds)


def timing_assumption(sizes: list[int] | tuple[int, ...]) -> str:
    return time_model.assumption(max(sizes))


@dataclass(frozen=True)
class Plan:
    pack: PackChoice
    capacity: int
    quality: QualityLevel
    loads: tuple[int, ...]
    names: tuple[str, ...]
    rounds: int
    distance: float  # exact, after `rounds` rounds
    by_round: tuple[float, ...]  # exact distance after 1..rounds rounds
    timing: Timing
    exact_routine: str | None = None  # the exact routine asked for (routes.KINDS); None: the shuffler's choice

    @property
    def cards(self) -> int:
        return self.pack.cards

    @property
    def passes(self) -> int:
        return self.rounds * len(self.loads)

    def trade(self) -> list[steps.Step]:
        return trade_steps(list(self.names), list(self.loads))

    def guide_runs(self) -> dict[str, Any]:
        """What `shuffler guide` runs with the shuffler connected: the exact
        routine where the device has one, else random mode's rounds."""
        exact = exact_schedule(self.cards, self.capacity, self.exact_routine)
        if exact is not None:
            return {"mode": "exact", **exact.to_dict()}
        return {"mode": "random", "routine": ROUTINE, "rounds": self.rounds, "passes": self.passes,
                "distance": {"value": self.distance, "kind": "exact", "method": METHOD},
                "time": {"total_s": round(self.timing.total_s, 3), "machine_s": round(self.timing.machine_s, 3),
                         "handling_s": round(self.timing.handling_s, 3)}}

    def to_dict(self) -> dict[str, Any]:
        """The plan as JSON: what the guide runs first; then random mode's
        routine (the alternative) and every exact routine (`exact_mode`)."""
        return {
            "guide_runs": self.guide_runs(),
            "pack": {"name": self.pack.name, "title": self.pack.title, "cards": self.cards},
            "capacity": self.capacity,
            "routine": ROUTINE,
            "loads": [{"name": n, "cards": s} for n, s in zip(self.names, self.loads)],
            "quality": {"level": self.quality.name, "threshold": self.quality.threshold,
                        "meaning": self.quality.meaning},
            "rounds": self.rounds,
            "passes": self.passes,
            "distance": {"value": self.distance, "kind": "exact", "method": METHOD},
            "by_round": [{"round": r, "passes": r * len(self.loads), "distance": d}
                         for r, d in enumerate(self.by_round, start=1)],
            "round_steps": {
                "passes": [f"Deal load {n} ({s} cards)" for n, s in zip(self.names, self.loads)],
                "trade": [steps.words(x) for x in self.trade()],
                "trade_steps": [steps.to_dict(x) for x in self.trade()],
            },
            "time": {"total_s": round(self.timing.total_s, 3), "machine_s": round(self.timing.machine_s, 3),
                     "handling_s": round(self.timing.handling_s, 3), "per_card_ms": time_model.card_ms(),
                     "pass_s": [round(time_model.pass_s(s), 3) for s in self.loads], "handling_per_step_s": dict(time_model.HANDLING_S),
                     "assumption": timing_assumption(self.loads)},
            "home_game": {"rounds": HOME_GAME_ROUNDS, "passes": HOME_GAME_ROUNDS * len(self.loads),
                          "distance": distance_after(self.cards, self.capacity, HOME_GAME_ROUNDS)},
            "exact_mode": exact_mode_dict(self.cards, self.capacity, self.exact_routine),
        }


def make_plan(pack: PackChoice, capacity: int = DEFAULT_CAPACITY, quality: QualityLevel | str = DEFAULT_QUALITY,
              rounds: int | None = None, exact_routine: str | None = None) -> Plan:
    """The routine for `pack` on a machine of `capacity`: `rounds` if given,
    else the fewest that reach the quality level; `exact_routine` the exact
    routine the plan describes (None: the one the shuffler takes)."""
    check_capacity(capacity)
    check_exact_routine(pack.cards, capacity, exact_routine)
    level = quality if isinstance(quality, QualityLevel) else quality_level(quality)
    sizes = load_sizes(pack.cards, capacity)
    if rounds is None:
        rounds = rounds_for(pack.cards, capacity, level.threshold)
    elif (problem := out_of_range("--rounds", rounds, MIN_ROUNDS, MAX_ROUNDS)) is not None:
        raise PlanError(problem)  # checked first: a thousand rounds' figures would take minutes
    by_round = tuple(distance_after(pack.cards, capacity, r) for r in range(1, rounds + 1))
    names = load_names(len(sizes))
    return Plan(
        pack=pack,
        capacity=capacity,
        quality=level,
        loads=tuple(sizes),
        names=tuple(names),
        rounds=rounds,
        distance=by_round[-1] if by_round else distance_after(pack.cards, capacity, 0),
        by_round=by_round,
        timing=timing(names, sizes, rounds),
        exact_routine=exact_routine,
    )


# Exact mode (docs/exact-mode.md): the device's limits (firmware/exact.py), from their one home.
EXACT_MAX_CARDS = MAX_EXACT_MODE_CARDS
EXACT_MAX_LOADS = MAX_EXACT_MODE_LOADS
EXACT_METHOD = "exact: every order equally likely, by the proofs in docs/exact-mode.md"
EXACT_NAMES = {routes.RADIX: "whole-pack radix", routes.SPLIT: "split", routes.PIPELINED: "pipelined routine"}


@dataclass(frozen=True)
class ExactSchedule:
    """One exact routine for a pack (firmware/exact_routes.py): its rounds
    and passes, then exactly uniform; its modelled time from its steps; what
    an onlooker who counts its piles learns (shuffling/exact_mode/onlooker.py)."""

    routine: str  # routes.KINDS
    rounds: int
    passes: int
    loads: int  # in its first round
    parts: tuple[int, ...]  # the split's parts, top of the pack first; () for radix
    part_names: tuple[str, ...]  # the loads they make
    timing: Timing
    onlooker: Onlooker
    segments: tuple[tuple[tuple[str, ...], int], ...] = ()  # (the loads of a round, rounds in a row dealing them)
    distance: float = 0.0

    @property
    def name(self) -> str:
        return EXACT_NAMES[self.routine]

    def to_dict(self) -> dict[str, Any]:
        return {"routine": self.routine, "rounds": self.rounds, "passes": self.passes,
                "parts": [{"load": x, "cards": n} for x, n in zip(self.part_names, self.parts)],
                "passes_in_order": [{"loads": list(names), "each": n} for names, n in self.segments],
                "distance": {"value": self.distance, "kind": "exact", "method": EXACT_METHOD},
                "time": {"total_s": round(self.timing.total_s, 3), "machine_s": round(self.timing.machine_s, 3),
                         "handling_s": round(self.timing.handling_s, 3)},
                "onlooker": self.onlooker.to_dict()}


def _schedule(route: routes.Route) -> ExactSchedule:
    return ExactSchedule(routine=route.kind, rounds=route.rounds, passes=route.passes(), loads=route.loads[0],
                         parts=tuple(route.part_size), part_names=tuple(route.part_name(i) for i in
                                                                        range(len(route.part_size))),
                         timing=time_model.timing(x.step for x in device_steps(route)), onlooker=onlooker(route),
                         segments=segments(route))


def segments(route: routes.Route) -> tuple[tuple[tuple[str, ...], int], ...]:
    """The route's passes in the order dealt, rounds that deal the same loads
    run together: Samba's split is ((A, B), 1), ((P,), 7), ((Q,), 6)."""
    out: list[tuple[tuple[str, ...], int]] = []
    for r in range(route.rounds):
        names = tuple(route.name(r, j) for j in range(route.loads[r]))
        if out and out[-1][0] == names and route.kinds[r] == routes.SORT_ROUND:
            out[-1] = (names, out[-1][1] + 1)
        else:
            out.append((names, 1))
    return tuple(out)


def exact_schedules(cards: int, capacity: int) -> list[ExactSchedule]:
    """Every exact routine for this pack on this tray (whole-pack radix, and
    the split where the pack does not fit the tray); none when the device
    cannot run exact mode for it."""
    if not exact_possible(cards, capacity):
        return []
    split = routes.split_route(cards, capacity)
    pipe = routes.pipelined_route(cards, capacity)
    return [_schedule(r) for r in (routes.radix_route(cards, capacity), split, pipe) if r is not None]


def exact_possible(cards: int, capacity: int) -> bool:
    """Whether the device can run exact mode for this pack on this tray."""
    return 2 <= cards <= EXACT_MAX_CARDS and -(-cards // capacity) <= EXACT_MAX_LOADS


def check_exact_routine(cards: int, capacity: int, routine: str | None) -> None:
    """PlanError, in one line, unless `routine` (None: the shuffler's choice) is an
    exact routine the device can run for this pack on this tray."""
    if routine is None:
        return
    if routine not in routes.KINDS:
        raise PlanError(f"--routine must be {' or '.join(routes.KINDS)}, not {routine!r}")
    if not exact_possible(cards, capacity):
        raise PlanError(f"--routine {routine}: exact mode is not available for {cards} cards on a {capacity}-card "
                        f"machine (at most {EXACT_MAX_CARDS} cards in at most {EXACT_MAX_LOADS} loads)")
    try:
        routes.route(cards, capacity, routine)
    except ValueError as exc:
        own = EXACT_NAMES[routes.route(cards, capacity).kind]
        raise PlanError(f"--routine {routine}: {exc} ({cards} cards on a {capacity}-card machine); "
                        f"its exact routine is {'the ' if own != 'whole-pack radix' else ''}{own}") from None


def exact_schedule(cards: int, capacity: int, routine: str | None = None) -> ExactSchedule | None:
    """The exact routine `routine` (routes.KINDS), or (None) the one the device
    takes, the one with the least modelled time at the table (the split on a
    tie); None when the device cannot run one. PlanError for a routine the
    pack does not have (check_exact_routine)."""
    if not exact_possible(cards, capacity):
        if routine is not None:
            check_exact_routine(cards, capacity, routine)
        return None
    check_exact_routine(cards, capacity, routine)
    return _schedule(routes.route(cards, capacity, routine))


def exact_mode_dict(cards: int, capacity: int, routine: str | None = None) -> dict[str, Any] | None:
    """The plan's exact mode as JSON: the routine it describes (`routine`, or the
    device's choice), which one the device takes, and every routine beside it."""
    every = exact_schedules(cards, capacity)
    if not every:
        return None
    device = routes.route(cards, capacity).kind
    kind = device if routine is None else routine
    described = next(x for x in every if x.routine == kind)
    return {**described.to_dict(), "device_choice": device, "asked": routine,
            "routines": [x.to_dict() for x in every]}


def preset_names() -> list[str]:
    return sorted(PACKS)
