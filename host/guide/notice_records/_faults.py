"""What the device reports during a pass (faults and warnings), with where
it stopped the pass: what the fault catalogue (host/fault_catalogue.py)
says of each code is worded by notice_words, not kept here."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from host.guide.notice_records._where import Where


@dataclass(frozen=True)
class BatteryWarning:
    mv: int | None


@dataclass(frozen=True)
class LoadCellCorrected:
    """The load cell's count of a load was wrong by the exit's: the shuffler
    corrected its weight a card (the device's warn, said once)."""

    counted: int  # the load cell's count at the pass's start
    held: int  # what the load held: the exit's count and any cards left in the tray
    was: int | None
    per_card: int | None


@dataclass(frozen=True)
class PassPaused:
    """A fault that pauses a pass (the catalogue's PAUSES: a jam) stopped it
    after `dealt` of `of` cards: put right, a touch takes it up again."""

    where: Where
    dealt: int
    of: int
    code: int  # the fault's declared code: the catalogue says what happened


@dataclass(frozen=True)
class ExitBlocked:
    """The exit beam stayed blocked too long: two cards together, or a card
    caught in the exit. Nothing is said of where they went: the tray's count
    tells, once the caught cards are back."""

    where: Where
    dealt: int
    of: int
    reason: Any = None  # the device's fault record, whose reason notice_words says (device_words.why_words)


@dataclass(frozen=True)
class TwoAsOne:
    """At a pass's end the tray was empty one card before the exit's count:
    two cards went through as one somewhere in it. Nothing is caught."""

    where: Where
    counted: int
    of: int


@dataclass(frozen=True)
class TrayEmptied:
    where: Where
    dealt: int
    of: int
    missing: int


@dataclass(frozen=True)
class BatteryRanDown:
    where: Where
    dealt: int
    of: int


@dataclass(frozen=True)
class SensorLost:
    part: str | None  # the part the device named (protocol.PART_*; fault_catalogue.sensor_name words it)
    dealt: int | None = None
    of: int | None = None
    reason: Any = None  # the device's fault record, whose reason notice_words says


@dataclass(frozen=True)
class DeviceFault:
    """A fault of the catalogue's with no notice of its own (an internal
    stop), said in its words, with where it stopped the pass when it did."""

    code: int
    where: Where | None = None
    dealt: int | None = None
    of: int | None = None
    reason: Any = None  # the device's fault record, whose reason notice_words says


@dataclass(frozen=True)
class UnknownFault:
    """A fault or warning this tool does not know (another firmware's, or a
    device that breaks the protocol): its code, part and reason as sent. A
    fault holds the guide; nothing is guessed about it."""

    event: str  # "fault" or "warn": the event that carried it
    code: int | None
    part: str | None = None
    reason: Any = None  # the event as sent, whose reason notice_words says


@dataclass(frozen=True)
class PassGoesOn:
    """After a stop part way, the tray's count shows where it stopped."""

    load: str
    dealt: int
    rest: int
