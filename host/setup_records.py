"""What the bring-up tells the person besides the steps it asks
(host/setup_steps.py), as records: a kind and its fields, nothing worded.
host/setup_words.py words each once; the console prints those words, the
steps file (`shuffler setup --steps-file`) carries the record with them,
and the tests judge the bring-up by the records."""
from __future__ import annotations

from dataclasses import dataclass

from host.parts import Finding


# -- an answer the step cannot take ----------------------------------------------------

@dataclass(frozen=True)
class AnswerAgain:
    """The answer typed is none the step takes (`reply`, setup_steps.YES_NO,
    NUMBER, SIDE or VOLTS; a number's range from `least` to `most`)."""

    reply: str
    least: int = 0
    most: int = 0


# -- the load cell ----------------------------------------------------------------------

@dataclass(frozen=True)
class Tared:
    """The empty tray's steady reading, held as the tare."""

    tare: int


@dataclass(frozen=True)
class CountImpossible:
    """`cards` cards would weigh `per_card` each, which no card of any stock
    weighs on this load cell (`least` to `most`): the tray does not hold them."""

    cards: int
    per_card: float
    least: int
    most: int


@dataclass(frozen=True)
class FirstCount:
    """The known count read `per_card` a card; stored once a second count agrees."""

    cards: int
    per_card: float


@dataclass(frozen=True)
class SecondEmpty:
    """The tray reads empty after the person typed `typed` cards for the second count."""

    typed: int


@dataclass(frozen=True)
class CountsDisagree:
    """The second count, `typed` cards, read as `read` by the weight of the
    first count of `known`: more than half a card apart."""

    typed: int
    read: float
    known: int


# -- the touch pad -----------------------------------------------------------------------

@dataclass(frozen=True)
class RestWasAHand:
    """The pad's rest reading (`rest`) reads as a touch against what it reads
    now (`now`): a hand was near when it was taken, so it is taken again."""

    rest: int
    now: int


# -- the feed: which way is left ------------------------------------------------------------

@dataclass(frozen=True)
class SidesContradict:
    """The `cards` cards just fed went the other way from those before (the
    beam counted both), yet the answers put them on the same pile."""

    cards: int


@dataclass(frozen=True)
class SidesAgree:
    """After a contradiction, the answers and the piles agree."""


@dataclass(frozen=True)
class MotorOtherWay:
    """Fed to the left, landed on the right: the next `cards` go the other way."""

    cards: int


# -- the battery ----------------------------------------------------------------------------

@dataclass(frozen=True)
class MeterApart:
    """The meter's reading (`meter_mv`) and the board's (`board_mv`) more than 10 % apart."""

    board_mv: int
    meter_mv: int


# -- what a step found, and the end ---------------------------------------------------------

@dataclass(frozen=True)
class Found:
    """A finding about one part (host/parts.py), on `board` (its wiring table)."""

    finding: Finding
    board: str


@dataclass(frozen=True)
class BoardNow:
    """The board read at the end as `shuffler check` reads it: its findings follow."""


@dataclass(frozen=True)
class Verdict:
    """Ready to shuffle, or not (the findings marked FAIL say why)."""

    ready: bool


@dataclass(frozen=True)
class Stored:
    """Every step passed: what they measured stored in one write (`config`:
    the unusable configuration file replaced by the defaults too)."""

    config: bool


@dataclass(frozen=True)
class Unstored:
    """Some step did not pass (`parts`, by name): nothing stored."""

    parts: tuple[str, ...]


# -- the bring-up stopped (the command's last line; its exit code is the Stop's) -------------

INTERRUPTED = "interrupted"  # Ctrl-C
RESTARTED = "restarted"  # the board restarted: a reset, or its power went
LOST = "lost"  # the port closed (`detail`: the link's words)
LINK = "link"  # the link failed otherwise (`detail`: the port's words for it)
CAUSES = (INTERRUPTED, RESTARTED, LOST, LINK)


@dataclass(frozen=True)
class Stopped:
    """Stopped part way by `cause`: nothing from this set-up was stored."""

    cause: str
    port: str
    detail: str = ""


@dataclass(frozen=True)
class PortHeld:
    """The board's answers go to another program (`detail`: the port's words for it)."""

    port: str
    detail: str


@dataclass(frozen=True)
class NoFirmware:
    """No firmware this tool speaks, and the person would not flash it."""

    port: str


@dataclass(frozen=True)
class StillOtherFirmware:
    """Flashed, and the board still does not answer with firmware `want`."""

    port: str
    want: str


@dataclass(frozen=True)
class FlashFailed:
    """The flash the person agreed to could not be made (`detail`: why, as the image's builder says)."""

    detail: str


Told = (AnswerAgain | Tared | CountImpossible | FirstCount | SecondEmpty | CountsDisagree | RestWasAHand
        | SidesContradict | SidesAgree | MotorOtherWay | MeterApart | Found | BoardNow | Verdict | Stored | Unstored
        | Stopped | PortHeld | NoFirmware | StillOtherFirmware | FlashFailed)
TOLD_TYPES: tuple[type, ...] = Told.__args__  # type: ignore[attr-defined]
