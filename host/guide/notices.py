"""What the guide tells the person besides the steps, as data, and its one wording.

Every warning and status line the guide gives is one of the notice records
(host/guide/notice_records/); `words(notice)` is its only English
(host/guide/notice_words.py). The console, the page and the steps file
render notices as they render steps: the console styles them by `level`,
the page shows `to_dict(notice)`. Nothing parses the words back. The
summary's notes are records too (`Note`: most are the notice they tell),
worded by `note_words` when the summary is shown.

A notice also says what it claims about the run (`CLAIMS`): the guide's
transitions are checked so that no two notices given for one fact
contradict each other (tests/host/test_guide_machine.py).
"""
from __future__ import annotations

from dataclasses import asdict
from typing import Any, Union

# The records, read from here by the rest of the host.
from host.guide.notice_records import (BatteryRanDown, BatteryTooLowToStart, BatteryWarning, ClearUnanswered,
                                       ConnectionLost, DeviceBack, DeviceContradicted, DeviceFault, DeviceFound,
                                       EarlierRoundsCounted, EmptyTouch, ExactIntro,
                                       ExactLost, ExactNotConfirmed, ExactRoundDealt, ExitBlocked,
                                       ExitBlockedAtStart, FaultLeftOver, FinishAtRandom, FreshExactRun,
                                       HeldRoutineDropped, PassPaused, LoadCellCorrected, LoadDealtAsItIs,
                                       LoadDealtOff, LoadKept, LoadLong, LoadShort, LoadToMove, LoadsSwapped,
                                       NoOtherPackFound, NotAnswering, OtherPackCard, OtherPackKeptApart,
                                       PackHolds, PartDealtAgain, PassBeganOffSize, PassBeganUnplugged, PassGoesOn,
                                       PassNotInRoutine, Restarted, Resuming, RoundCountOff, RoundStart,
                                       RoutineHeader, SensorLost, StackDealtAgain, StacksSwapped, StartRefused,
                                       StepsTakenAsDone, StillWaiting, StrayPass, TooFullForTray, TooSoon,
                                       TrayEmptied, TrayReadsEmpty, TrayStillEmpty, TwoAsOne, UnknownFault,
                                       UnknownFaultHeld, VirtualStarted, WaitingForLoad, Where)
# The words, and what they take, read from here too.
from host.guide.notice_words import (ENTER, HAND, NOTE_KINDS, RESTART, duration, lost_cause,  # noqa: F401
                                     note_words, part_cause, reason_words, stack_cause, stack_then, words)

INFO = "info"
PROBLEM = "problem"
HEADING = "heading"
HINT = "hint"

Notice = Union[RoutineHeader, DeviceFound, VirtualStarted, RoundStart, WaitingForLoad, TrayStillEmpty, LoadKept, LoadToMove, LoadShort, LoadLong,
               OtherPackCard, PackHolds, LoadDealtAsItIs, PassBeganOffSize, StacksSwapped, LoadsSwapped, RoundCountOff, StepsTakenAsDone,
               PassNotInRoutine, EmptyTouch, TrayReadsEmpty, TooFullForTray, BatteryTooLowToStart, StartRefused,
               FaultLeftOver, BatteryWarning, LoadCellCorrected, PassPaused, ExitBlocked, TwoAsOne, ExitBlockedAtStart, TrayEmptied, BatteryRanDown,
               SensorLost, DeviceFault, UnknownFault, PassGoesOn, Restarted, PassBeganUnplugged, ConnectionLost, DeviceBack,
               NotAnswering, ClearUnanswered, ExactIntro, ExactRoundDealt, ExactLost, PartDealtAgain, StackDealtAgain,
               ExactNotConfirmed,
               FreshExactRun, FinishAtRandom, HeldRoutineDropped, Resuming, TooSoon, StillWaiting]

NOTICE_TYPES: tuple[type, ...] = Notice.__args__  # type: ignore[attr-defined]

# What the summary's notes are (Summary.notes): the notices it keeps, and
# the few records of its own; note_words words each.
Note = Union[PassPaused, Restarted, ConnectionLost, LoadCellCorrected, PackHolds, ExactNotConfirmed, RoundCountOff,
             ExitBlocked, TwoAsOne, TrayEmptied, BatteryRanDown, SensorLost, DeviceFault, OtherPackKeptApart,
             NoOtherPackFound, EarlierRoundsCounted, LoadDealtOff, StrayPass, UnknownFaultHeld, DeviceContradicted]
NOTE_TYPES: tuple[type, ...] = Note.__args__  # type: ignore[attr-defined]

# How a front-end shows each notice.
LEVELS: dict[type, str] = {
    RoutineHeader: HEADING, DeviceFound: INFO, VirtualStarted: INFO, RoundStart: HEADING, WaitingForLoad: HINT, TooSoon: HINT, StillWaiting: HINT,
    StepsTakenAsDone: INFO, ExactIntro: INFO, ExactRoundDealt: HINT, DeviceBack: INFO, FreshExactRun: INFO,
    FinishAtRandom: INFO, Resuming: INFO, PassGoesOn: INFO,
}

# What a notice claims about the run; CONFLICTS pairs claims no two notices
# given for one fact may make together.
CLAIMS: dict[type, frozenset[str]] = {
    ExactLost: frozenset({"exactness lost"}),
    PassGoesOn: frozenset({"pass goes on"}),
    Restarted: frozenset({"place kept"}),
    ConnectionLost: frozenset({"place kept"}),
    FreshExactRun: frozenset({"exactness lost"}),
    FinishAtRandom: frozenset({"exactness lost"}),
    ExactRoundDealt: frozenset({"exactness kept"}),
    PartDealtAgain: frozenset({"exactness kept"}),
    StackDealtAgain: frozenset({"exactness kept"}),
    Resuming: frozenset({"exactness kept"}),
    StacksSwapped: frozenset({"exactness kept"}),
    LoadsSwapped: frozenset({"exactness kept"}),
}
CONFLICTS: tuple[tuple[str, str], ...] = (("exactness lost", "exactness kept"),)


# Notices said once for the step on screen, however often their cause
# comes again while it is there (the machine keeps which it has said).
ONCE: frozenset[type] = frozenset({TooSoon, StillWaiting, WaitingForLoad})


def level(notice: Notice) -> str:
    return LEVELS.get(type(notice), PROBLEM)


def to_dict(notice: Notice) -> dict[str, Any]:
    """The notice as JSON-ready data: its kind, level, fields and words."""
    out: dict[str, Any] = {"kind": type(notice).__name__, "level": level(notice)}
    out.update(asdict(notice))
    out["words"] = words(notice)
    return out
