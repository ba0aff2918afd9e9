"""A start that did not happen: the device refused it, or nothing moved.
Nothing was dealt, so these carry no place in the routine."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class EmptyTouch:
    """The sensor was touched with the tray empty: nothing moved."""


@dataclass(frozen=True)
class TrayReadsEmpty:
    """A start refused: the shuffler reads the tray as empty."""

    load: str


@dataclass(frozen=True)
class TooFullForTray:
    load: str
    n: int
    capacity: int


@dataclass(frozen=True)
class BatteryTooLowToStart:
    pass


@dataclass(frozen=True)
class StartRefused:
    """A start the device refused: `event` is its fault event, which
    notice_words says (device_words.event_words)."""

    event: Any


@dataclass(frozen=True)
class FaultLeftOver:
    name: str


@dataclass(frozen=True)
class ExitBlockedAtStart:
    """A start refused: the exit reads blocked before any card moved."""
