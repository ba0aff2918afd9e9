"""What the bring-up asks of the person at the machine, as data, and its one
wording (as shuffling/steps.py does for the shuffle): the
terminal prints `words(step)`, a page may draw `to_dict(step)`, and the
person model of the tests carries out the data. `reply(step)` says what the
person answers: Enter, a number, a side, a voltage, yes or no, or nothing
(the step waits for a fact on the board: a touch)."""
from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Union

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


def words(step: Step) -> str:
    """The one English wording of a step."""
    if isinstance(step, FlashOffer):
        have = f"firmware {step.have}" if step.have else "no shuffler firmware"
        why = " (it speaks another protocol: nothing else works until it is flashed)" if step.protocol else ""
        return (f"The board runs {have}{why}; this tool brings firmware {step.want}. Flash it now? "
                "Its calibration and configuration stay on the board. Type y or n, then Enter.")
    if isinstance(step, EmptyTray):
        return ("Take every card out of the tray and off the machine, keep your hands off it, "
                "then press Enter.")
    if isinstance(step, LoadCards):
        if step.again:
            return (f"Take the cards out, count out exactly {cards(step.cards)} one by one and put them face down "
                    "in the tray, then press Enter.")
        return f"Put exactly {cards(step.cards)} face down in the tray (one full deck), then press Enter."
    if isinstance(step, TrayEmpty):
        return (f"The tray reads as it did empty ({step.raw}, the tare {step.tare}): the {cards(step.cards)} are not "
                "in it (or not resting on it). Put them in the tray, then press Enter.")
    if isinstance(step, TooFewCards):
        return (f"The tray reads {cards(step.n)}: the shuffler feeds only from {step.least} or more. Put them in, "
                "then press Enter.")
    if isinstance(step, SecondCount):
        return (f"Take them out, count out another number of cards from {step.least} to {step.most} (a full "
                "tray counts best) and put them in the tray; type how many, then press Enter.")
    if isinstance(step, HandsOff):
        return "Take the cards out of the tray, keep your hands away from the touch pad, then press Enter."
    if isinstance(step, HandAway):
        return (f"The pad reads as touched ({step.reading}): a hand is on it or near it. Take your hand away "
                "from the pad, then press Enter.")
    if isinstance(step, TouchPad):
        return f"Touch the pad on the lid once (within {step.seconds} s)."
    if isinstance(step, FeedCards):
        return (f"Put {step.least} or more cards face down in the tray, then press Enter: "
                f"the shuffler feeds {cards(step.cards)} to your left.")
    if isinstance(step, WhereLanded):
        them = "it" if step.cards == 1 else "they"
        return (f"Which pile did the {cards(step.cards)} land on, as you face the shuffler? Where {them} "
                "landed: type l (left) or r (right), then Enter.")
    if isinstance(step, Meter):
        return ("Measure the battery with a meter and type its voltage (for example 9.12), "
                "or press Enter to skip.")
    if isinstance(step, Again):
        if step.passed:
            return "Press Enter for the next step (or type r and Enter to do this one again)."
        return "Type r and Enter to try this step again, or press Enter to go on without it."
    raise TypeError(f"not a set-up step: {step!r}")


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


# -- what the bring-up says of the board's stored files (each worded once) --
NOTHING_STORED = "nothing from this set-up was stored: the board's calibration (cal.json) is as it was"


def stored_words(config: bool) -> str:
    """Every step passed, and what they measured stored in one write."""
    also = "; its configuration (config.json), which was unusable, now holds the defaults" if config else ""
    return f"Stored on the board in one write: the calibration (cal.json){also}."


def unstored_words(steps: list[str]) -> str:
    """Some step did not pass, so nothing was stored."""
    return (f"{NOTHING_STORED[0].upper()}{NOTHING_STORED[1:]} (not passed: {', '.join(steps)}); "
            "it is stored only when every step passes.")


def stopped_words(why: str, port: str) -> str:
    """The bring-up stopped part way: why, the files as they were, what to run."""
    return f"{why}; {NOTHING_STORED}; run `shuffler setup --port {port}` again"


INTERRUPTED = "stopped (Ctrl-C)"


def restarted_words(port: str) -> str:
    return (f"the board on {port} restarted (reset, or its power went) during the set-up; what a step measured "
            "was held only until then")


def lost_words(why: str) -> str:
    return f"{why}: the board was unplugged, reset or stopped answering"


# -- a person's slips, told from the wiring by what the board reads --------
def tenths(x: float) -> str:
    """x to a tenth, never "-0.0"."""
    return f"{round(x, 1) + 0.0:.1f}"


def second_empty_words(typed: int) -> str:
    return (f"The tray reads as empty, and you typed {typed}: the cards you counted are not in it. "
            "Put them in the tray and type how many again.")


def meter_words(board_mv: int, meter_mv: int) -> str:
    off = abs(meter_mv - board_mv) * 100 // max(board_mv, 1)
    return (f"The board reads {board_mv / 1000:.2f} V and you typed {meter_mv / 1000:.2f} V: {off} % apart, more than "
            "a meter and a working divider differ (10 %). Measure again across the battery's two terminals, on the "
            "meter's DC volts range, and type what it shows.")
