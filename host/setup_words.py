"""The one English wording of each thing the bring-up tells the person
(host/setup_records.py): a function of its fields. The console prints these
words and the steps file carries them with the record; nothing parses them
back. The steps the bring-up asks are worded in host/setup_steps.py."""
from __future__ import annotations

from typing import Any, Callable

from host import finding_words, setup_steps
from host.setup_records import *  # noqa: F403 - every record is worded here
from host.setup_records import Told

NOTHING_STORED = "nothing from this set-up was stored: the board's calibration (cal.json) is as it was"


def tenths(x: float) -> str:
    """x to a tenth, never "-0.0"."""
    return f"{round(x, 1) + 0.0:.1f}"


def count_read(typed: int, read: float, known: int) -> str:
    """What a second count read by the first count's weight (a finding's value too)."""
    return f"{typed} cards read as {tenths(read)} by the weight of the {known}"


_AGAIN = {
    setup_steps.YES_NO: lambda n: "Type y or n, then Enter.",
    setup_steps.NUMBER: lambda n: f"Type a whole number from {n.least} to {n.most}, then Enter.",
    setup_steps.SIDE: lambda n: "Type l or r, then Enter.",
    setup_steps.VOLTS: lambda n: "Type the voltage in volts (for example 9.12), or just Enter.",
}


def _impossible(n: CountImpossible) -> str:
    return (f"As {n.cards} cards that is {n.per_card:.0f} a card, and a card of any stock weighs {n.least} to "
            f"{n.most} on this load cell: the tray does not hold {n.cards} cards (or something presses on it). "
            "Count them again.")


def _disagree(n: CountsDisagree) -> str:
    off = abs(n.read - n.typed)
    return (f"{count_read(n.typed, n.read, n.known)}: the two counts disagree "
            f"by {off:.1f} card{'s' * (f'{off:.1f}' != '1.0')} ({off / n.typed * 100:.1f} %). "
            "The board cannot see which count is off: count both again; nothing is stored yet.")


def _contradict(n: SidesContradict) -> str:
    return (f"Your answer and where the cards landed disagree: these {n.cards} cards went the other way from the "
            f"{n.cards} before (the exit beam counted both), so they cannot have landed on the same pile. One of "
            f"the two answers was a slip: {n.cards} more cards go the way your last answer puts on your left; look "
            "where they land.")


def _meter(n: MeterApart) -> str:
    off = abs(n.meter_mv - n.board_mv) * 100 // max(n.board_mv, 1)
    return (f"The board reads {n.board_mv / 1000:.2f} V and you typed {n.meter_mv / 1000:.2f} V: {off} % apart, more "
            "than a meter and a working divider differ (10 %). Measure again across the battery's two terminals, "
            "on the meter's DC volts range, and type what it shows.")


def _stored(n: Stored) -> str:
    also = "; its configuration (config.json), which was unusable, now holds the defaults" if n.config else ""
    return f"Stored on the board in one write: the calibration (cal.json){also}."


def _unstored(n: Unstored) -> str:
    return (f"{NOTHING_STORED[0].upper()}{NOTHING_STORED[1:]} (not passed: {', '.join(n.parts)}); "
            "it is stored only when every step passes.")


_WHY_STOPPED: dict[str, Callable[[Stopped], str]] = {
    INTERRUPTED: lambda n: "stopped (Ctrl-C)",
    RESTARTED: lambda n: (f"the board on {n.port} restarted (reset, or its power went) during the set-up; what a "
                          "step measured was held only until then"),
    LOST: lambda n: f"{n.detail}: the board was unplugged, reset or stopped answering",
    LINK: lambda n: n.detail,
}


def _stopped(n: Stopped) -> str:
    return f"{_WHY_STOPPED[n.cause](n)}; {NOTHING_STORED}; run `shuffler setup --port {n.port}` again"


_WORDING: dict[type, Callable[[Any], str]] = {
    AnswerAgain: lambda n: _AGAIN[n.reply](n),
    Tared: lambda n: f"Empty tray: {n.tare} (the tare).",
    CountImpossible: _impossible,
    FirstCount: lambda n: f"{n.cards} cards: {n.per_card:.0f} a card (stored once a second count agrees).",
    SecondEmpty: lambda n: (f"The tray reads as empty, and you typed {n.typed}: the cards you counted are not in it. "
                            "Put them in the tray and type how many again."),
    CountsDisagree: _disagree,
    RestWasAHand: lambda n: (f"The pad read {n.rest} when no hand was to be near and reads {n.now} now: a hand was "
                             "on it then, not a fault of the pad. Its rest reading is taken again."),
    SidesContradict: _contradict,
    SidesAgree: lambda n: "Your answers and where the cards landed agree now.",
    MotorOtherWay: lambda n: (f"Then the motor is wired the other way round: the next {n.cards} cards go the other "
                              "way and should land on your left."),
    MeterApart: _meter,
    Found: lambda n: n.finding.line(n.board),
    BoardNow: lambda n: "The board now:",
    Verdict: lambda n: ("Ready to shuffle: put a load in the tray and touch the pad (or `shuffler guide`)."
                        if n.ready else "Not ready to shuffle: put right the lines marked FAIL, then "
                                        "`shuffler setup` again (or `shuffler check` to look)."),
    Stored: _stored,
    Unstored: _unstored,
    Stopped: _stopped,
    PortHeld: lambda n: n.detail,
    NoFirmware: lambda n: (f"no shuffler firmware this tool speaks on {n.port}: run `shuffler flash --port {n.port}`, "
                           "then `shuffler setup` again"),
    StillOtherFirmware: lambda n: (f"the board on {n.port} still does not answer with firmware {n.want} after "
                                   "flashing"),
    FlashFailed: lambda n: n.detail,
}


def words(told: Told) -> str:
    """The one English wording of what the bring-up tells."""
    fn = _WORDING.get(type(told))
    if fn is None:
        raise TypeError(f"not a thing the set-up tells: {told!r}")
    return fn(told)


def to_dict(told: Told) -> dict[str, Any]:
    """The record as a line of the steps file: its kind, its fields and its
    words (a finding by its part, verdict, whether it names the wiring, and
    its diagnosis, with the records it is worded from as `shuffler check
    --json` carries them: `read`, `working`, `why`, None for words of setup's
    own). No `reply`: nothing is answered to it."""
    out: dict[str, Any] = {"kind": type(told).__name__.lower()}
    if isinstance(told, Found):
        f = told.finding
        out.update(part=f.part, verdict=f.verdict, wiring=f.wiring, diagnosis=f.diagnosis, board=told.board,
                   read=finding_words.as_dict(f.read), working=finding_words.as_dict(f.working),
                   why=finding_words.as_dict(f.why))
    else:
        out.update(vars(told))
    out["words"] = words(told)
    return out
