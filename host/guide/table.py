"""The guide's phases, the facts that drive it, and its one table of handlers.

`TABLE[(phase, kind)]` names the handler for a fact of `kind` in `phase`;
`TABLE[(ANY, kind)]` is that kind's default in every other phase, and a
fact nobody handles is ignored. Handlers register themselves with `on`
(host/guide/waiting.py, dealing.py, exact_events.py), each saying which
phases it may lead to, so the table can be drawn (host/guide/diagram.py).
"""
from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any, Callable, Union

from firmware import protocol
from host.device_messages import Event


class Phase(enum.Enum):
    HANDLING = "handling at the table"
    LOADING = "waiting for a load"
    TOUCH = "waiting for the touch"
    DEALING = "dealing"
    PAUSED = "paused by a fault"
    AFTER_PASS = "after the pass"
    STOPPED = "stopped"
    FINISHED = "finished"


WAITING_FOR_PERSON = (Phase.HANDLING, Phase.LOADING, Phase.TOUCH, Phase.PAUSED)
# Where the machine may be once a pass is over: the table work after it, the
# next load or touch, the device's word (exact mode), the end.
PASS_OVER = (Phase.HANDLING, Phase.LOADING, Phase.TOUCH, Phase.AFTER_PASS, Phase.FINISHED)
# Where going on from a step may lead: any waiting phase, a pass taken up
# again (going on with an exact routine), the end of the run.
ONWARD = PASS_OVER + (Phase.PAUSED, Phase.DEALING, Phase.STOPPED)


@dataclass(frozen=True)
class Answer:
    """The person said the step numbered `number` is done (or, for a load, that its cards are in)."""

    number: int
    via: str = "Enter"
    kind: str = "answer"


@dataclass(frozen=True)
class Tray:
    """The tray's count, read from the device."""

    n: int
    kind: str = "tray"


@dataclass(frozen=True)
class Tick:
    """The clock: a few times a second, whatever else comes."""

    kind: str = "tick"


@dataclass(frozen=True)
class Closed:
    """The port went away."""

    why: str
    kind: str = "closed"


@dataclass(frozen=True)
class Noise:
    """A line from the device that is not protocol (a boot banner, debug output)."""

    kind: str = "garbage"


@dataclass(frozen=True)
class Settled:
    """The device's events that came before a count are looked at: the
    machine's action that needed the count (its method's name) goes on."""

    then: str
    kind: str = "settled"


Fact = Union[Event, Answer, Tray, Tick, Closed, Noise, Settled]


def refusal(ev: Event) -> bool:
    """A fault that only refused a pass: nothing moved, nothing latched."""
    return ev.kind == protocol.EV_FAULT and (ev.latched is False or (ev.code in protocol.REFUSALS and ev.k is None))
FACT_KINDS: tuple[str, ...] = tuple(protocol.EVENTS) + ("answer", "tray", "tick", "closed", "garbage", "settled")


@dataclass(frozen=True)
class Do:
    """An action of the machine's own, queued among the steps (its method's name)."""

    name: str


@dataclass(frozen=True)
class Transition:
    handler: str  # a method of the machine
    goes: tuple[Phase, ...]  # the phases it may lead to


ANY = None
TABLE: dict[tuple[Phase | None, str], Transition] = {}


def on(kind: str, *phases: Phase, goes: tuple[Phase, ...] = ()) -> Callable[[Any], Any]:
    """Register the decorated method for facts of `kind` in `phases` (none
    given: its default in every phase)."""
    if kind not in FACT_KINDS:
        raise ValueError(f"no such fact: {kind}")

    def register(fn: Any) -> Any:
        for phase in phases or (ANY,):
            key = (phase, kind)
            if key in TABLE:
                raise ValueError(f"two handlers for {kind} in {phase}")
            TABLE[key] = Transition(fn.__name__, goes)
        return fn
    return register


def transition(phase: Phase, kind: str) -> Transition:
    return TABLE.get((phase, kind)) or TABLE.get((ANY, kind)) or Transition("ignore", ())
