"""What the bring-up asks of the person at the machine, as data, and its one
wording (as shuffling/steps.py does for the shuffle): the
terminal prints `words(step)`, a page may draw `to_dict(step)`, and the
person model of the tests carries out the data. `reply(step)` says what the
person answers: Enter, a number, a side, a voltage, yes or no, or nothing
(the step waits for a fact on the board: a touch)."""
from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Callable, Union

from shuffling.steps import cards

ENTER = "enter"
NUMBER = "number"
SIDE = "side"
VOLTS = "volts"
YES_NO = "yes_no"
NOTHING = "nothing"


@dataclass(frozen=True)
class FlashOffer:
    """The board runs other firmware (or none): flash this tool's?"""

    have: str  # what answers: a version, or "" for none
    want: str
    protocol: bool  # the protocols differ too: nothing else works until it is flashed


@dataclass(frozen=True)
class EmptyTray:
    """Take every card out of the tray and off the machine: the tare."""


@dataclass(frozen=True)
class LoadCards:
    """Put exactly `cards` cards in the tray: the known count (`again`: after
    a count the board's weight contradicted)."""

    cards: int
    again: bool = False


@dataclass(frozen=True)
class TrayEmpty:
    """The tray reads as it did empty (`raw`, the tare `tare`) where `cards`
    cards should be: put them in (a person's slip, not the load cell's)."""

    cards: int
    raw: int
    tare: int


@dataclass(frozen=True)
class SecondCount:
    """Count out another number of cards, from `least` to `most`, put them in
    the tray and type how many: the check of the known count."""

    least: int
    most: int


@dataclass(frozen=True)
class HandsOff:
    """The tray empty and no hand near the touch pad: its baseline."""


@dataclass(frozen=True)
class HandAway:
    """The pad reads as touched (`reading`) when no hand should be near:
    take the hand away."""

    reading: int


@dataclass(frozen=True)
class TouchPad:
    """Touch the pad once; the bring-up waits up to `seconds` for the board to see it."""

    seconds: int


@dataclass(frozen=True)
class FeedCards:
    """Put `least` or more cards in the tray; the shuffler then feeds `cards` of them to its left."""

    least: int
    cards: int


@dataclass(frozen=True)
class TooFewCards:
    """The tray reads `n` cards where the feed needs `least` or more: put them in."""

    n: int
    least: int


@dataclass(frozen=True)
class WhereLanded:
    """Which pile did the `cards` cards just fed land on?"""

    cards: int


@dataclass(frozen=True)
class Meter:
    """The battery's voltage from a meter, if the person has one."""


@dataclass(frozen=True)
class Again:
    """Go on, or do the step just done again (`passed`: it went well)."""

    passed: bool


Step = Union[FlashOffer, EmptyTray, LoadCards, TrayEmpty, SecondCount, HandsOff, HandAway, TouchPad, FeedCards,
             TooFewCards, WhereLanded, Meter, Again]
STEP_TYPES: tuple[type, ...] = (FlashOffer, EmptyTray, LoadCards, TrayEmpty, SecondCount, HandsOff, HandAway, TouchPad,
                                FeedCards, TooFewCards, WhereLanded, Meter, Again)


def _flash_offer(step: FlashOffer) -> str:
    have = f"firmware {step.have}" if step.have else "no shuffler firmware"
    why = " (it speaks another protocol: nothing else works until it is flashed)" if step.protocol else ""
    return (f"The board runs {have}{why}; this tool brings firmware {step.want}. Flash it now? "
            "Its calibration and configuration stay on the board. Type y or n, then Enter.")


def _load_cards(step: LoadCards) -> str:
    if step.again:
        return (f"Take the cards out, count out exactly {cards(step.cards)} one by one and put them face down "
                "in the tray, then press Enter.")
    return f"Put exactly {cards(step.cards)} face down in the tray (one full deck), then press Enter."


def _where_landed(step: WhereLanded) -> str:
    them = "it" if step.cards == 1 else "they"
    return (f"Which pile did the {cards(step.cards)} land on, as you face the shuffler? Where {them} "
            "landed: type l (left) or r (right), then Enter.")


_WORDING: dict[type, Callable[[Any], str]] = {
    FlashOffer: _flash_offer,
    EmptyTray: lambda step: ("Take every card out of the tray and off the machine, keep your hands off it, "
                             "then press Enter."),
    LoadCards: _load_cards,
    TrayEmpty: lambda step: (f"The tray reads as it did empty ({step.raw}, the tare {step.tare}): the "
                             f"{cards(step.cards)} are not in it (or not resting on it). Put them in the tray, then "
                             "press Enter."),
    TooFewCards: lambda step: (f"The tray reads {cards(step.n)}: the shuffler feeds only from {step.least} or more. "
                               "Put them in, then press Enter."),
    SecondCount: lambda step: (f"Take them out, count out another number of cards from {step.least} to {step.most} "
                               "(a full tray counts best) and put them in the tray; type how many, then press Enter."),
    HandsOff: lambda step: "Take the cards out of the tray, keep your hands away from the touch pad, then press Enter.",
    HandAway: lambda step: (f"The pad reads as touched ({step.reading}): a hand is on it or near it. Take your hand "
                            "away from the pad, then press Enter."),
    TouchPad: lambda step: f"Touch the pad on the lid once (within {step.seconds} s).",
    FeedCards: lambda step: (f"Put {step.least} or more cards face down in the tray, then press Enter: "
                             f"the shuffler feeds {cards(step.cards)} to your left."),
    WhereLanded: _where_landed,
    Meter: lambda step: ("Measure the battery with a meter and type its voltage (for example 9.12), "
                         "or press Enter to skip."),
    Again: lambda step: ("Press Enter for the next step (or type r and Enter to do this one again)." if step.passed
                         else "Type r and Enter to try this step again, or press Enter to go on without it."),
}


def words(step: Step) -> str:
    """The one English wording of a step."""
    fn = _WORDING.get(type(step))
    if fn is None:
        raise TypeError(f"not a set-up step: {step!r}")
    return fn(step)


def reply(step: Step) -> str:
    """What the person answers."""
    if isinstance(step, FlashOffer):
        return YES_NO
    if isinstance(step, SecondCount):
        return NUMBER
    if isinstance(step, TouchPad):
        return NOTHING
    if isinstance(step, WhereLanded):
        return SIDE
    if isinstance(step, Meter):
        return VOLTS
    return ENTER


def to_dict(step: Step) -> dict[str, Any]:
    out: dict[str, Any] = {"kind": type(step).__name__.lower()}
    out.update(asdict(step))
    out["words"] = words(step)
    out["reply"] = reply(step)
    return out


def kind_names() -> list[str]:
    return [t.__name__.lower() for t in STEP_TYPES]
