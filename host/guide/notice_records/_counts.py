"""A load's count against the plan's: off its size, put right, swapped
for another's, or a pass the routine has none for. The tray's count is
the evidence the guide trusts, so each way it can differ has a record."""
from __future__ import annotations

from dataclasses import dataclass

from shuffling import steps as step_kinds


@dataclass(frozen=True)
class TrayStillEmpty:
    """Enter said the cards are in, and the tray reads empty."""

    load: str


@dataclass(frozen=True)
class LoadKept:
    """Random mode: a load off its size within tolerance, dealt as it is."""

    load: str
    want: int
    n: int
    next_load: str
    began: bool = False  # the pass had already begun with it


@dataclass(frozen=True)
class LoadToMove:
    """A load off its size that cards moved to or from the next load put right."""

    load: str
    want: int
    n: int
    about: bool
    capacity: int
    move: step_kinds.Move


@dataclass(frozen=True)
class LoadShort:
    """The last load of a round (or one with no load below it) is short."""

    load: str
    want: int
    n: int


@dataclass(frozen=True)
class LoadLong:
    load: str
    want: int
    n: int
    capacity: int


@dataclass(frozen=True)
class OtherPackCard:
    """The last load of a round holds more than the pack has left for it:
    not a card gone missing, one come in (a card of another pack)."""

    load: str
    want: int
    n: int


@dataclass(frozen=True)
class PackHolds:
    """The pack is not the game's: asked once for the cards, it is shuffled
    as the pack it is (`fresh`: exact mode's fresh routine for it)."""

    held: int
    game: int
    fresh: bool = False


@dataclass(frozen=True)
class LoadDealtAsItIs:
    """Put right several times and still off: dealt as it is."""

    load: str
    want: int
    n: int


@dataclass(frozen=True)
class PassBeganOffSize:
    """The last load's pass began with a count other than the plan's."""

    load: str
    want: int
    n: int


@dataclass(frozen=True)
class StacksSwapped:
    load: str
    want: int
    n: int
    stack: str  # "left" or "right": the stack that is this load
    other_stack: str


@dataclass(frozen=True)
class LoadsSwapped:
    """Exact mode's split: the tray holds another load's count (the loads
    of its parts look taken for one another)."""

    load: str
    want: int
    n: int
    other: str


@dataclass(frozen=True)
class RoundCountOff:
    round: int
    dealt: int
    cards: int


@dataclass(frozen=True)
class StepsTakenAsDone:
    """A fact the shuffler saw (a load in the tray, a pass begun) shows the
    person has gone on: the steps shown before it count as done."""

    by: str  # "load" or "pass"
    load: str
    steps: int
    cards: int | None = None


@dataclass(frozen=True)
class PassNotInRoutine:
    """A pass began where the routine has none."""

    cards: int
