"""The guide's phases, the facts that drive it, and its handlers by phase and fact.

A phase is a small record: which of the machine's phases it is, and the
data only that phase needs (a pass being dealt keeps when it last showed a
sign of life; the wait after an exact pass keeps which pass it follows and
until when). `HANDLERS[(phase, kind)]` is the handler for a fact of `kind` in
`phase` (a phase record's class); `HANDLERS[(ANY, kind)]` is that kind's
default in every other phase, and a fact nobody handles is ignored. A
handler takes the machine and the fact and returns the next phase. Handlers
register themselves with `on` (host/guide/waiting.py, dealing.py,
exact_events.py), each saying which phases it may lead to, so `HANDLERS` can
be drawn (host/guide/diagram.py).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, ClassVar, Union

from firmware import protocol
from host.device_messages import Event

if TYPE_CHECKING:
    from host.guide.results import Summary


# -- the phases ---------------------------------------------------------------------------

@dataclass
class Phase:
    """What the machine is doing now. `key` names the phase in the diagram,
    `means` says it in words."""

    key: ClassVar[str] = ""
    means: ClassVar[str] = ""
    waits_for_person: ClassVar[bool] = False


@dataclass
class Handling(Phase):
    """A table step is on screen: the person works and says when it is done."""

    key: ClassVar[str] = "handling"
    means: ClassVar[str] = "handling at the table"
    waits_for_person: ClassVar[bool] = True


@dataclass
class Loading(Phase):
    """A load's step is on screen: the machine watches the tray's count."""

    key: ClassVar[str] = "loading"
    means: ClassVar[str] = "waiting for a load"
    waits_for_person: ClassVar[bool] = True


@dataclass
class AwaitingTouch(Phase):
    """The load is judged: the touch that begins its pass is awaited."""

    key: ClassVar[str] = "touch"
    means: ClassVar[str] = "waiting for the touch"
    waits_for_person: ClassVar[bool] = True


@dataclass
class Dealing(Phase):
    """A part of the pass runs. `quiet_since`: the last event that was a
    sign of life; `moved_at`: the last card known to have gone through."""

    quiet_since: float = 0.0
    moved_at: float = 0.0
    key: ClassVar[str] = "dealing"
    means: ClassVar[str] = "dealing"


@dataclass
class Paused(Phase):
    """A fault holds the pass part way (a jam): its fix and touch are on screen."""

    key: ClassVar[str] = "paused"
    means: ClassVar[str] = "paused by a fault"
    waits_for_person: ClassVar[bool] = True


@dataclass
class AfterPass(Phase):
    """An exact pass is over: the device's word on its routine is awaited
    (which load next, or done, or lost). `dealt`: (round, load) of the pass
    just dealt; `until`: when to ask the device instead."""

    dealt: tuple[int, str] = (0, "")
    until: float = 0.0
    key: ClassVar[str] = "after_pass"
    means: ClassVar[str] = "after the pass"


@dataclass
class Stopped(Phase):
    """The guide cannot go on: `why`, in one line."""

    why: str = ""
    key: ClassVar[str] = "stopped"
    means: ClassVar[str] = "stopped"


@dataclass
class Finished(Phase):
    """The last step is done: the run's summary."""

    summary: "Summary | None" = None
    key: ClassVar[str] = "finished"
    means: ClassVar[str] = "finished"


PHASES: tuple[type[Phase], ...] = (Handling, Loading, AwaitingTouch, Dealing, Paused, AfterPass, Stopped, Finished)
WAITING_FOR_PERSON = tuple(p for p in PHASES if p.waits_for_person)
# Where the machine may be once a pass is over: the table work after it, the
# next load or touch, the device's word (exact mode), the end.
PASS_OVER: tuple[type[Phase], ...] = (Handling, Loading, AwaitingTouch, AfterPass, Finished)
# Where going on from a step may lead: any waiting phase, a pass taken up
# again (going on with an exact routine), the end of the run.
ONWARD: tuple[type[Phase], ...] = PASS_OVER + (Paused, Dealing, Stopped)
# Phases in which the machine walks on through its queue of steps; in the
# others it waits for the device, or the run is over.
WALKING: tuple[type[Phase], ...] = (Handling, Loading, AwaitingTouch, Paused)


# -- the facts ----------------------------------------------------------------------------

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
    machine's action that needed the count goes on (`then`, which returns
    the phase it leads to, or HOLD)."""

    then: Callable[[], Any]
    kind: str = "settled"


Fact = Union[Event, Answer, Tray, Tick, Closed, Noise, Settled]
FACT_KINDS: tuple[str, ...] = tuple(protocol.EVENTS) + ("answer", "tray", "tick", "closed", "garbage", "settled")


def refusal(ev: Event) -> bool:
    """A fault that only refused a pass: nothing moved, nothing latched."""
    return ev.kind == protocol.EV_FAULT and (ev.latched is False or (ev.code in protocol.REFUSALS and ev.k is None))


# -- the machine's own actions, queued among the steps ---------------------------------------

class _Hold:
    """What an action returns when it waits for the device's events that
    came before it (a Settled fact takes it up again)."""

    def __repr__(self) -> str:
        return "HOLD"


HOLD = _Hold()


@dataclass(frozen=True)
class Do:
    """An action of the machine's own, queued among the steps: called when
    the walk through the queue reaches it; it returns the phase it leads
    to, None to walk on in the same phase, or HOLD."""

    action: Callable[[], Any]
    name: str = ""


# -- the handlers -------------------------------------------------------------------------

Handler = Callable[[Any, Any], Phase]


@dataclass(frozen=True)
class Transition:
    handler: Handler  # (machine, fact) -> the next phase
    goes: tuple[type[Phase], ...]  # the phases it may lead to

    @property
    def name(self) -> str:
        return self.handler.__name__


ANY = None
HANDLERS: dict[tuple[type[Phase] | None, str], Transition] = {}


def on(kind: str, *phases: type[Phase], goes: tuple[type[Phase], ...] = ()) -> Callable[[Handler], Handler]:
    """Register the decorated function for facts of `kind` in `phases` (none
    given: its default in every phase)."""
    if kind not in FACT_KINDS:
        raise ValueError(f"no such fact: {kind}")

    def register(fn: Handler) -> Handler:
        for phase in phases or (ANY,):
            key = (phase, kind)
            if key in HANDLERS:
                raise ValueError(f"two handlers for {kind} in {phase}")
            HANDLERS[key] = Transition(fn, goes)
        return fn
    return register


def ignore(m: Any, fact: Any) -> Phase:
    """What a phase has no use for."""
    return m.phase


def transition(phase: Phase | type[Phase], kind: str) -> Transition:
    cls = phase if isinstance(phase, type) else type(phase)
    return HANDLERS.get((cls, kind)) or HANDLERS.get((ANY, kind)) or Transition(ignore, ())
