"""What `shuffler check` finds about each part, as records: a kind and its
fields, nothing worded (host/finding_words.py words them, once). A finding
(host/parts.py) holds three: what was read now (`read`), what a working part
reads (`working`) and why it is judged so, with what to do (`why`).
`shuffler check --json` carries them beside their words."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

# -- what was read ------------------------------------------------------------------------


@dataclass(frozen=True)
class FirmwareRead:
    fw: Any
    proto: Any
    board: Any


@dataclass(frozen=True)
class StateRead:
    state: Any
    fault: Any = None  # the fault latched (alarm) or pausing the pass (paused)


@dataclass(frozen=True)
class NoAnswer:
    """The part gave no reading at all."""


@dataclass(frozen=True)
class StackRead:
    """The load cell's reading; with the count it makes (n), the stored
    calibration it counts by, or how far below its empty-tray tare it reads."""

    raw: int
    spread: int
    n: int | None = None
    tare: int | None = None
    per_card: int | None = None
    below_tare: int | None = None


@dataclass(frozen=True)
class TouchRead:
    raw: int
    touched: bool


@dataclass(frozen=True)
class BeamAtRest:
    blocked: bool
    now: bool = True  # read now (False: said of a feed's beam)


@dataclass(frozen=True)
class BeamSawFed:
    cards: int  # the cards fed now, every one seen


@dataclass(frozen=True)
class BeamMissedFed:
    out: int  # the cards that left the tray now with the beam seeing none


@dataclass(frozen=True)
class BeamFeedEnded:
    end: Any  # the feed's end: its Fault event record


@dataclass(frozen=True)
class NotTried:
    feed_ended: bool = False  # a feed was asked for and ended first


@dataclass(frozen=True)
class NoCardReached:
    """The feed ran the motor and no card reached the beam."""


@dataclass(frozen=True)
class NotRun:
    """The motor was not run now (the feed was refused)."""


@dataclass(frozen=True)
class NotJudged:
    """The motor ran, but the feed ended before it could be judged."""


@dataclass(frozen=True)
class MotorRead:
    """A card's time in the beam: fed now (fed cards), learned since the board
    started (since_s seconds ago), or none; flip: the stored direction."""

    card_ms: int
    fed: int | None = None
    since_s: int | None = None
    flip: int | None = None


@dataclass(frozen=True)
class BatteryRead:
    mv: int
    trim: int | None = None  # the stored trim to a meter, in tenths of a per cent over 1000


# -- what a working part reads ------------------------------------------------------------------


@dataclass(frozen=True)
class ThisToolsFirmware:
    version: str


@dataclass(frozen=True)
class SettingsReadable:
    """Its settings files readable."""


@dataclass(frozen=True)
class Idle:
    """Nothing latched, no pass paused."""


@dataclass(frozen=True)
class ReadingRate:
    per_second: int  # the HX711's rate


@dataclass(frozen=True)
class RawRange:
    lo: int
    hi: int


@dataclass(frozen=True)
class CardsOrMore:
    steady: bool = False  # and a spread under half a card


@dataclass(frozen=True)
class SpreadUnder:
    half_card: int


@dataclass(frozen=True)
class TareOrMore:
    """The empty tray's tare or more."""


@dataclass(frozen=True)
class CalibratedCount:
    """A count by a stored calibration."""


@dataclass(frozen=True)
class TouchDigital:
    """0 at rest, 1 touched."""


@dataclass(frozen=True)
class TouchBaseline:
    lo: int
    hi: int


@dataclass(frozen=True)
class BeamWorks:
    """Clear at rest, blocked by each card."""


@dataclass(frozen=True)
class CardTime:
    ms: int  # a card's time in the beam the mechanism gives at the battery's voltage


@dataclass(frozen=True)
class FullPass:
    mv: int  # the least a full pass needs


@dataclass(frozen=True)
class VoltsRange:
    lo: int
    hi: int


@dataclass(frozen=True)
class NothingExpected:
    """Nothing judged now, so nothing to compare."""


# -- why: what it means, what to do ------------------------------------------------------------


@dataclass(frozen=True)
class BadSettings:
    bad: int  # the hello's bits: the settings files the board found unusable


@dataclass(frozen=True)
class UpToDate:
    pass


@dataclass(frozen=True)
class FlashOffered:
    """Other firmware than this tool's: `shuffler flash` brings it."""


@dataclass(frozen=True)
class FaultHeld:
    code: Any  # the fault latched or pausing (host/fault_catalogue.py advises)


@dataclass(frozen=True)
class NothingLatched:
    pass


@dataclass(frozen=True)
class HX711Silent:
    """Its DOUT never goes low."""


@dataclass(frozen=True)
class StackClipped:
    """A load cell wire open."""


@dataclass(frozen=True)
class StackBelowEmpty:
    """Fewer than no cards: its signal wires swapped, or a tare taken with cards."""


@dataclass(frozen=True)
class StackNoisy:
    pass


@dataclass(frozen=True)
class Calibrated:
    pass


@dataclass(frozen=True)
class FactoryCalibrated:
    pass


@dataclass(frozen=True)
class StackSwapped:
    """The reading falls as cards go on: A+ and A- swapped."""


@dataclass(frozen=True)
class NotCalibrated:
    pass


@dataclass(frozen=True)
class PadSilent:
    """No pad answers: a broken lead, or a short."""


@dataclass(frozen=True)
class TouchSeenNow:
    pass


@dataclass(frozen=True)
class TouchConfirmed:
    """Confirmed at set-up, none seen now; `option` tries it."""

    option: str
    watching: bool  # the watch is on: the touch may come yet


@dataclass(frozen=True)
class TouchUnconfirmed:
    option: str


@dataclass(frozen=True)
class BeamBlocked:
    """Blocked with no card fed."""


@dataclass(frozen=True)
class BeamSilent:
    """Cards left the tray unseen: the receiver."""


@dataclass(frozen=True)
class BeamStaysBlocked:
    """The emitter or its power."""


@dataclass(frozen=True)
class CountsEveryCard:
    pass


@dataclass(frozen=True)
class FeedRefused:
    reply: dict[str, Any] = field(hash=False)  # the board's refusal (an error reply): its fields


@dataclass(frozen=True)
class FeedEndedFirst:
    end: Any  # the feed's end: an event record
    run: bool = False  # said of the motor: not run


@dataclass(frozen=True)
class CardsSeen:
    """Cards seen since the board started, none fed now; `option` feeds one."""

    card_ms: int
    since_s: int
    option: str


@dataclass(frozen=True)
class CardsSeenAtSetUp:
    beam_ms: int
    option: str


@dataclass(frozen=True)
class NoCardSeen:
    option: str


@dataclass(frozen=True)
class RollerStill:
    """No card reached the beam with every card in the tray."""


@dataclass(frozen=True)
class DirectionAwaitsBeam:
    """Which way it deals is judged once the beam counts the cards."""


@dataclass(frozen=True)
class MotorSlow:
    pass


@dataclass(frozen=True)
class DirectionUnconfirmed:
    pass


@dataclass(frozen=True)
class Direction:
    """The stored direction (flip 1: wired the other way round);
    `option`: the option that runs the motor, when it was not run now."""

    flip: int
    option: str | None = None


@dataclass(frozen=True)
class BatteryDivider:
    """No battery reads so."""


@dataclass(frozen=True)
class BatteryTooLow:
    pass


@dataclass(frozen=True)
class BatteryLow:
    pass


@dataclass(frozen=True)
class BatteryGood:
    pass


# -- the verdict ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Ready:
    """Nothing failed; the parts not tried now, grouped by the option that tries them."""

    untried: tuple[tuple[str, tuple[str, ...]], ...] = ()  # (option, its parts' keys)


@dataclass(frozen=True)
class NotReady:
    """A part failed."""


__all__ = ["FirmwareRead", "StateRead", "NoAnswer", "StackRead", "TouchRead", "BeamAtRest", "BeamSawFed",
           "BeamMissedFed", "BeamFeedEnded", "NotTried", "NoCardReached", "NotRun", "NotJudged", "MotorRead",
           "BatteryRead", "ThisToolsFirmware", "SettingsReadable", "Idle", "ReadingRate", "RawRange", "CardsOrMore",
           "SpreadUnder", "TareOrMore", "CalibratedCount", "TouchDigital", "TouchBaseline", "BeamWorks", "CardTime",
           "FullPass", "VoltsRange", "NothingExpected", "BadSettings", "UpToDate", "FlashOffered", "FaultHeld",
           "NothingLatched", "HX711Silent", "StackClipped", "StackBelowEmpty", "StackNoisy", "Calibrated",
           "FactoryCalibrated", "StackSwapped", "NotCalibrated", "PadSilent", "TouchSeenNow", "TouchConfirmed",
           "TouchUnconfirmed", "BeamBlocked", "BeamSilent", "BeamStaysBlocked", "CountsEveryCard", "FeedRefused",
           "FeedEndedFirst", "CardsSeen", "CardsSeenAtSetUp", "NoCardSeen", "RollerStill", "DirectionAwaitsBeam",
           "MotorSlow", "DirectionUnconfirmed", "Direction", "BatteryDivider", "BatteryTooLow", "BatteryLow",
           "BatteryGood", "Ready", "NotReady"]
