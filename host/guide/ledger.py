"""Exact mode's proof, kept as the run goes: what it needs, what happened
to it, and what was done about it.

The proof (docs/exact-mode.md) needs every load dealt as the device
modelled it (the cards in the tray are the load it expects, in the order it
tracks) and every stack put together as the steps say. The guide sees the
tray's count and the device's word, never a stack's order, so the claim it
makes at the end is as strong as this ledger and no stronger: "exactly 0"
only while nothing in it is lost, and always on the condition of what the
shuffler cannot see (CONDITION).

Each entry is a fact at a place in the routine: KEPT (put right in a way
the proof allows, and why), REPAIRED (a part of the split dealt again from
fresh codes: docs/exact-mode.md, "A part dealt again"), LOST (the routine's
claim is gone, and what followed: a fresh routine, or a random finish).
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

KEPT = "kept"
REPAIRED = "repaired"
LOST = "lost"

# What no count shows: a stack put together in another order than the steps
# said, a card gone from one load into another and one put back in its place.
CONDITION = ("if every stack was put together as the steps said and no card went from one load into another "
             "(the shuffler counts cards; it cannot see a stack's order)")


@dataclass(frozen=True)
class Entry:
    where: str  # the place in the routine, as a notice says it
    what: str  # what happened, in words
    outcome: str  # KEPT, REPAIRED or LOST
    then: str = ""  # what was done about it, in words

    def words(self) -> str:
        then = f"; {self.then}" if self.then else ""
        return f"{self.where}: {self.what}{then}"


@dataclass
class Ledger:
    entries: list[Entry] = field(default_factory=list)

    def add(self, where: object, what: str, outcome: str, then: str = "") -> Entry:
        entry = Entry(str(where) if where is not None else "before the first pass", what, outcome, then)
        self.entries.append(entry)
        return entry

    def then(self, text: str) -> None:
        """What followed the last loss (a fresh routine, a random finish)."""
        for i in range(len(self.entries) - 1, -1, -1):
            if self.entries[i].outcome == LOST:
                e = self.entries[i]
                self.entries[i] = Entry(e.where, e.what, e.outcome, text)
                return

    @property
    def lost(self) -> bool:
        return any(e.outcome == LOST for e in self.entries)

    def to_list(self) -> list[dict[str, Any]]:
        return [asdict(e) | {"words": e.words()} for e in self.entries]
