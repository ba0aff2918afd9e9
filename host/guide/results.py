"""How a guided run ends: its summary, or the stop that ended it."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from host.guide.ledger import record_dict
from host.guide.notices import Note, Where, note_words
from host.plan import METHOD

EXACT_METHOD = "exact mode: every order equally likely, by the proofs in docs/exact-mode.md"
RANDOM_AFTER_LOSS_METHOD = ("at most the exact Bayer-Diaconis figure of the random rounds, "
                            "which holds from any starting state")

# Summary.mode
RANDOM = "random"
EXACT = "exact"
EXACT_AGAIN = "exact, started again"  # exactness was lost and a fresh exact routine followed
EXACT_THEN_RANDOM = "exact, then random"

# Summary.distance_kind
EXACT_DISTANCE = "exact"  # the distance itself
AT_MOST = "at most"  # an upper bound


class GuideStopped(Exception):
    """The guide cannot go on; the message says why, `place` where,
    `reason` why as a record (host/guide/stop_reasons.py, or the port's
    record; None for a reason said in words alone), and `record`, where the
    stop has one, the fault of the device that stopped it (a note:
    DeviceContradicted, a fault's record)."""

    def __init__(self, message: str, place: Where | None, record: Note | None = None, reason: Any = None) -> None:
        super().__init__(message)
        self.place = place
        self.record = record
        self.reason = reason


@dataclass
class Summary:
    rounds: int
    passes: int
    seconds: float
    distance: float
    cards: int
    notes: list[Note] = field(default_factory=list)  # records (host/guide/notices.py Note), worded when shown
    loads: list[list[int]] = field(default_factory=list)  # cards dealt per load, per round (device counts)
    mode: str = RANDOM
    distance_kind: str = EXACT_DISTANCE  # or AT_MOST
    method: str = METHOD
    simulated: bool = False  # the time is a simulated shuffler's, faster than a real one
    exactness: list[dict[str, Any]] = field(default_factory=list)  # exact mode's ledger (host/guide/ledger.py)
    condition: str = ""  # what the claim rests on that the shuffler cannot see ("" outside exact mode)
    resumed: bool = False  # the run went on with a routine begun earlier: its time and passes are this run's
    onlooker: dict[str, Any] | None = None  # exact mode: what counting its piles told (shuffling/exact_mode/onlooker.py)
    table_seconds: float | None = None  # the time model's time at a real table for every pass dealt

    def note_words(self) -> list[str]:
        """The notes in their one wording (notice_words.note_words), as every front-end shows them."""
        return [note_words(n) for n in self.notes]

    def to_dict(self) -> dict[str, Any]:
        return {"mode": self.mode, "rounds": self.rounds, "passes": self.passes, "seconds": round(self.seconds, 2),
                "simulated": self.simulated,
                "distance": {"value": self.distance, "kind": self.distance_kind, "method": self.method},
                "cards": self.cards, "loads": self.loads, "notes": self.note_words(),
                "note_records": [record_dict(n) for n in self.notes], "exactness": self.exactness,
                "condition": self.condition, "resumed": self.resumed, "onlooker": self.onlooker}
