"""A place in the routine, as every notice of a pass says it."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Where:
    """A place in the routine, as a notice says it: 'round 2 of 8, load A
    (pass 3 of 16)', or after its pass 'round 2 of 8, after load A's pass
    (3 of 16 passes done)'."""

    round: int
    of_rounds: int
    load: str
    pass_number: int
    of_passes: int
    after: bool = False

    def __str__(self) -> str:
        if self.after:
            return (f"round {self.round} of {self.of_rounds}, after load {self.load}'s pass "
                    f"({self.pass_number} of {self.of_passes} passes done)")
        return f"round {self.round} of {self.of_rounds}, load {self.load} (pass {self.pass_number} of {self.of_passes})"
