"""What the guide tells the person besides the steps, as records: a kind
and its fields, nothing worded (host/guide/notice_words.py words them, once;
host/guide/notices.py is the one place the rest of the host reads them
from).

The records live in private modules, one idea each; every public name is
here, so `from host.guide.notice_records import X` never names a module:

* _where.py: a place in the routine, as the notices of a pass say it;
* _course.py: the run's course (what it will do, the device, each round,
  the loads waited for, a run taken up again, answers too soon or missing);
* _counts.py: a load's count against the plan's, and what puts it right;
* _starts.py: a start refused, or one that moved nothing;
* _faults.py: the device's faults and warnings during a pass;
* _link.py: the link to the shuffler (a restart, the cable, no answer);
* _exact.py: exact mode's rounds, exactness lost and what mends it;
* _notes.py: what the summary keeps that no notice tells as it is.
"""
from __future__ import annotations

from host.guide.notice_records._counts import (LoadDealtAsItIs, LoadKept, LoadLong, LoadShort, LoadsSwapped,
                                               LoadToMove, OtherPackCard, PackHolds, PassBeganOffSize,
                                               PassNotInRoutine, RoundCountOff, StacksSwapped, StepsTakenAsDone,
                                               TrayStillEmpty)
from host.guide.notice_records._course import (DeviceFound, HeldRoutineDropped, Resuming, RoundStart,
                                               RoutineHeader, StillWaiting, TooSoon, VirtualStarted,
                                               WaitingForLoad)
from host.guide.notice_records._exact import (ExactIntro, ExactLost, ExactNotConfirmed, ExactRoundDealt,
                                              FinishAtRandom, FreshExactRun, PartDealtAgain, StackDealtAgain)
from host.guide.notice_records._faults import (BatteryRanDown, BatteryWarning, DeviceFault, ExitBlocked,
                                               LoadCellCorrected, PassGoesOn, PassPaused, SensorLost, TrayEmptied,
                                               TwoAsOne, UnknownFault)
from host.guide.notice_records._link import (ClearUnanswered, ConnectionLost, DeviceBack, NotAnswering,
                                             PassBeganUnplugged, Restarted)
from host.guide.notice_records._notes import (DeviceContradicted, EarlierRoundsCounted, LoadDealtOff,
                                              NoOtherPackFound, OtherPackKeptApart, StrayPass, UnknownFaultHeld)
from host.guide.notice_records._starts import (BatteryTooLowToStart, EmptyTouch, ExitBlockedAtStart,
                                               FaultLeftOver, StartRefused, TooFullForTray, TrayReadsEmpty)
from host.guide.notice_records._where import Where

__all__ = ["Where", "RoutineHeader", "DeviceFound", "VirtualStarted", "RoundStart", "WaitingForLoad",
           "TrayStillEmpty", "LoadKept", "LoadToMove", "LoadShort", "LoadLong", "OtherPackCard", "PackHolds",
           "LoadDealtAsItIs", "PassBeganOffSize", "StacksSwapped", "LoadsSwapped", "RoundCountOff",
           "StepsTakenAsDone", "PassNotInRoutine", "EmptyTouch", "TrayReadsEmpty", "TooFullForTray",
           "BatteryTooLowToStart", "StartRefused", "FaultLeftOver", "BatteryWarning", "LoadCellCorrected", "PassPaused",
           "ExitBlocked", "TwoAsOne", "ExitBlockedAtStart", "TrayEmptied", "BatteryRanDown", "SensorLost",
           "DeviceFault", "UnknownFault", "PassGoesOn", "Restarted", "PassBeganUnplugged", "ConnectionLost",
           "DeviceBack", "NotAnswering", "ClearUnanswered", "ExactIntro", "ExactRoundDealt", "ExactLost",
           "PartDealtAgain", "StackDealtAgain", "ExactNotConfirmed", "FreshExactRun", "FinishAtRandom",
           "HeldRoutineDropped", "Resuming", "TooSoon", "StillWaiting", "OtherPackKeptApart", "NoOtherPackFound",
           "EarlierRoundsCounted", "LoadDealtOff", "StrayPass", "UnknownFaultHeld", "DeviceContradicted"]
