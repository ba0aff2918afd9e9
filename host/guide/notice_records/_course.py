"""The run's course as the guide tells it: what it will do, the device it
found, each round's start, the loads it waits for, a run taken up again,
and the person's answers that come too soon or not at all."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class RoutineHeader:
    """What the run will do, said first."""

    title: str
    cards: int
    exact: bool
    rounds: int
    passes: int
    loads: tuple[int, ...]
    quality: str
    threshold: float
    distance: float  # random mode: where the rounds bring the pack
    seconds: float | None = None  # the time model's estimate for the whole run
    on_loss: str = "exact"  # exact mode: what follows should exactness be lost


@dataclass(frozen=True)
class DeviceFound:
    port: str
    fw: str
    board: str
    proto: int
    capacity: int


@dataclass(frozen=True)
class VirtualStarted:
    port: str


@dataclass(frozen=True)
class RoundStart:
    round: int
    of_rounds: int
    exact: bool
    seconds_left: float | None = None  # the time model's estimate for this round and the rest


@dataclass(frozen=True)
class WaitingForLoad:
    load: str
    keyboard: bool  # the person can say with Enter that the cards are in


@dataclass(frozen=True)
class HeldRoutineDropped:
    """A fresh exact run on a shuffler that holds a routine from an earlier
    run (stopped part way): that routine is dropped, said first."""

    round: int | None
    of_rounds: int | None
    load: str | None
    resume: str | None  # the command that goes on with it instead


@dataclass(frozen=True)
class Resuming:
    round: int
    of_rounds: int
    load: str
    passes_left: int


@dataclass(frozen=True)
class TooSoon:
    """An answer that came before the step could be read."""

    number: int
    via: str = "Enter"  # how the person answers: "Enter", or the page's "Done"


@dataclass(frozen=True)
class StillWaiting:
    number: int
    minutes: int
