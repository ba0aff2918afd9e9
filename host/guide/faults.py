"""What the guide says about a fault the shuffler reports, as notices, from
the catalogue (host/fault_catalogue.py: what happened, the fix, what becomes
of the pass). A fault that stopped a pass part way is told where it stopped;
a jam is the one that pauses the pass instead (host/guide/dealing.py); a
fault that only refuses a pass is a refusal (host/guide/waiting.py). A code
the catalogue does not know holds the guide (UnknownFault), never taken for
another fault."""
from __future__ import annotations

from typing import Any, Union

from firmware import protocol
from host import fault_catalogue
from host.device_messages import Event
from host.guide import notices
from shuffling import steps


# The notices of a fault that stopped a pass part way: the summary notes them as told.
StoppedPass = Union[notices.TwoAsOne, notices.ExitBlocked, notices.TrayEmptied, notices.BatteryRanDown,
                    notices.SensorLost, notices.DeviceFault]


def stopped_pass(where: notices.Where, dealt: int, of: int, ev: Event) -> StoppedPass:
    """The notice for a known fault that stopped a pass part way."""
    code = ev.code
    if code == protocol.FAULT_DOUBLE_FEED and ev.why == protocol.WHY_ONE_SHORT:
        # Found at the pass's end: two cards went through as one; nothing is caught.
        return notices.TwoAsOne(where, ev.k or 0, ev.n or of)
    if code == protocol.FAULT_DOUBLE_FEED:
        return notices.ExitBlocked(where, dealt, of, ev)
    if code == protocol.FAULT_TRAY_EMPTIED:
        return notices.TrayEmptied(where, dealt, of, fault_catalogue.missing(ev))
    if code == protocol.FAULT_BATTERY_LOW:
        return notices.BatteryRanDown(where, dealt, of)
    if code == protocol.FAULT_SENSOR:
        return notices.SensorLost(ev.part, dealt, of, ev)
    return notices.DeviceFault(code, where, dealt, of, ev)


def paused_by(st: Any) -> int:
    """The fault that holds a paused pass, from a status: the one it names;
    a status that names none is held by the declaration's one pausing fault
    (protocol.RESUMABLE), as a paused state means nothing else."""
    return st.fault if st.fault else protocol.RESUMABLE[0]


def unknown(ev: Event) -> notices.UnknownFault:
    """A fault the catalogue does not know: its code, part and reason, as sent."""
    return notices.UnknownFault(ev.kind, ev.code, ev.part, ev)


def is_known(ev: Event) -> bool:
    return fault_catalogue.known(ev.code) is not None


def sensor_notice_and_fix(ev: Event) -> list[notices.Notice | steps.Fix]:
    """A sensor lost before any card moved: what is wrong, then its fix."""
    if ev.part == protocol.PART_EXIT:
        return [notices.ExitBlockedAtStart(), steps.Fix("exit_sensor")]
    fix = fault_catalogue.fix_at_start(ev)
    return [notices.SensorLost(ev.part, reason=ev),
            *([fix] if fix else [])]

