"""What the summary keeps that no notice tells as it is. Most of the
summary's notes are the notices they tell (Summary.notes holds the notice
itself); these are the few that are not."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from host.guide.notice_records._where import Where


@dataclass(frozen=True)
class OtherPackKeptApart:
    """Cards of another pack were found and kept out of the shuffled pack."""

    cards: int


@dataclass(frozen=True)
class NoOtherPackFound:
    """The person looked for cards of another pack and found none."""


@dataclass(frozen=True)
class EarlierRoundsCounted:
    """A run that went on with a routine begun earlier: the distance counts
    rounds 1 to `rounds` as dealt as guided."""

    rounds: int


@dataclass(frozen=True)
class LoadDealtOff:
    """A load dealt with a count other than the plan's (LoadDealtAsItIs),
    with the round it was in."""

    load: str
    round: int | None
    want: int
    n: int


@dataclass(frozen=True)
class StrayPass:
    """A pass where the routine has none (PassNotInRoutine), with where."""

    cards: int | None
    where: Where | None


@dataclass(frozen=True)
class UnknownFaultHeld:
    """The guide held on a fault this tool does not know (UnknownFault), with where."""

    code: int | None
    where: Where | None


@dataclass(frozen=True)
class DeviceContradicted:
    """The guide held on a fact of the device that cannot be true
    (host/device_words.py CONTRADICTIONS: `name`, with its values)."""

    name: str
    values: tuple[tuple[str, Any], ...]
