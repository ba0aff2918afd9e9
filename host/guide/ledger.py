"""Exact mode's proof, kept as the run goes: what it needs, what happened
to it, and what was done about it.

The proof (docs/exact-mode.md) needs every load dealt as the device
modelled it (the cards in the tray are the load it expects, in the order it
tracks) and every stack put together as the steps say. The guide sees the
tray's count and the device's word, never a stack's order, so the claim it
makes at the end is as strong as this ledger and no stronger: "exactly 0"
only while nothing in it is lost, and always on the condition of what the
shuffler cannot see (CONDITION).

Each entry is a fact at a place in the routine (a Where, or None before the
first pass): KEPT (put right in a way the proof allows, and why), REPAIRED
(a part of the split dealt again from fresh codes: docs/exact-mode.md, "A
part dealt again"), LOST (the routine's claim is gone, and what followed: a
fresh routine, or a random finish). What happened and what was done are
records, a kind and its fields, nothing worded: host/guide/ledger_words.py
words them, once.
"""
from __future__ import annotations

from dataclasses import dataclass, field, fields, is_dataclass
from typing import Any, Union

from host.guide.notice_records import ExactLost, PartDealtAgain, StackDealtAgain, Where

KEPT = "kept"
REPAIRED = "repaired"
LOST = "lost"

# What no count shows: a stack put together in another order than the steps
# said, a card gone from one load into another and one put back in its place.
CONDITION = ("if every stack was put together as the steps said and no card went from one load into another "
             "(the shuffler counts cards; it cannot see a stack's order)")


# -- what happened ------------------------------------------------------------------------------

@dataclass(frozen=True)
class LoadOff:
    """A load held another count than the routine's (`first_pass`: at its
    part's first pass)."""

    load: str
    want: int
    n: int
    first_pass: bool = False


@dataclass(frozen=True)
class LoadsTakenForOneAnother:
    """The tray held load `other`'s count for `load`."""

    load: str
    other: str
    n: int


@dataclass(frozen=True)
class PackOff:
    """The pack holds another count than the game's."""

    held: int
    game: int


@dataclass(frozen=True)
class PassStopped:
    """A pass stopped part way, after `dealt` of `total` cards."""

    dealt: int
    total: int


@dataclass(frozen=True)
class DeviceContradiction:
    """A fact of the device that cannot be true: its name in
    host/device_words.py's CONTRADICTIONS and the values it was seen with."""

    name: str
    values: tuple[tuple[str, Any], ...] = ()


@dataclass(frozen=True)
class DeviceChanged:
    """Another shuffler, or another firmware, answered for the session's:
    `line` is the link's own line for it (host/guide/device.py's Stop)."""

    line: str


# -- what was done about it ---------------------------------------------------------------------

@dataclass(frozen=True)
class SwappedBack:
    """Two loads taken for one another, swapped back before either was dealt."""


@dataclass(frozen=True)
class PutBackAtBottom:
    """A part's missing cards, to be put back at its bottom before any pass
    of it, where cards of its own do not matter."""


@dataclass(frozen=True)
class PutRightUndealt:
    """Put right before any of its cards was dealt, where it does not matter."""


@dataclass(frozen=True)
class DealtOnFromCount:
    """The rest of a stopped pass dealt on from the tray's count."""


@dataclass(frozen=True)
class PartAgain:
    """A part dealt again from fresh codes."""

    part: str
    passes: int


@dataclass(frozen=True)
class StackAgain:
    """The stack a split round cut (a place of the table) put together again
    and dealt again from that round with fresh codes."""

    stack: str
    round: int
    passes: int


@dataclass(frozen=True)
class LookedForOtherPack:
    """Every card looked through for `cards` of another pack."""

    cards: int


@dataclass(frozen=True)
class FreshRoutine:
    """The whole pack (of `cards`, when it changed) through a fresh exact
    routine (of `rounds`, once known)."""

    rounds: int | None = None
    cards: int | None = None


@dataclass(frozen=True)
class RandomFinish:
    rounds: int


@dataclass(frozen=True)
class StoppedThere:
    """The guide stopped: nothing is claimed of the pack's order."""


What = Union[LoadOff, LoadsTakenForOneAnother, PackOff, PassStopped, DeviceContradiction, DeviceChanged, ExactLost,
             PartDealtAgain, StackDealtAgain]
Then = Union[SwappedBack, PutBackAtBottom, PutRightUndealt, DealtOnFromCount, PartAgain, StackAgain,
             LookedForOtherPack, FreshRoutine, RandomFinish, StoppedThere]


@dataclass(frozen=True)
class Entry:
    where: Where | None  # the place in the routine; None: before the first pass
    what: What  # what happened
    outcome: str  # KEPT, REPAIRED or LOST
    then: Then | None = None  # what was done about it


def record_dict(record: Any) -> dict[str, Any]:
    """A record as data: its kind and its fields (nested records alike)."""
    out: dict[str, Any] = {"kind": type(record).__name__}
    for f in fields(record):
        value = getattr(record, f.name)
        out[f.name] = record_dict(value) if is_dataclass(value) else value
    return out


@dataclass
class Ledger:
    entries: list[Entry] = field(default_factory=list)

    def add(self, where: Where | None, what: What, outcome: str, then: Then | None = None) -> Entry:
        entry = Entry(where, what, outcome, then)
        self.entries.append(entry)
        return entry

    def then(self, then: Then) -> None:
        """What followed the last loss (a fresh routine, a random finish)."""
        for i in range(len(self.entries) - 1, -1, -1):
            if self.entries[i].outcome == LOST:
                e = self.entries[i]
                self.entries[i] = Entry(e.where, e.what, e.outcome, then)
                return

    @property
    def lost(self) -> bool:
        return any(e.outcome == LOST for e in self.entries)
