"""What the guide says and has done about a fault that stopped a pass part
way, one row per fault code: its notice (what happened, where, and the
device's own reason, worded as `shuffler check` words it) and its fix
(the step that puts it right). A jam is the one fault that pauses the pass
instead (host/guide/dealing.py); a fault that only refuses a pass is a
refusal (host/guide/waiting.py)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from firmware import protocol
from host import device_words
from host.device_messages import Event
from host.guide import notices
from shuffling import steps

# A sensor fault's part (firmware/protocol.py PARTS): its name in the guide's words, and its fix.
SENSORS = {protocol.PART_EXIT: ("the exit sensor", "exit_sensor"), protocol.PART_STACK: ("the count sensor", "count_sensor"),
           protocol.PART_TOUCH: ("the touch sensor", "touch_sensor"),
           protocol.PART_BATTERY: ("the battery sensor", "battery_sensor")}


def sensor_name(ev: Event) -> str:
    """Which sensor a fault names, in the guide's words."""
    return SENSORS.get(ev.part, ("a sensor", "sensor"))[0]


def sensor_fix(ev: Event) -> str:
    return SENSORS.get(ev.part, ("a sensor", "sensor"))[1]


def missing(ev: Event) -> int:
    """Cards a tray-emptied fault says left the tray and never reached the exit."""
    return ev.out if ev.out is not None else (ev.n or 0) - (ev.k or 0)


@dataclass(frozen=True)
class FaultKind:
    """notice(where, dealt, of, ev): what to say; fix(ev): the step that puts
    it right (None: nothing to put right)."""

    notice: Callable[[notices.Where, int, int, Event], notices.Notice]
    fix: Callable[[Event], steps.Step | None]


def _double_feed(where: notices.Where, dealt: int, of: int, ev: Event) -> notices.Notice:
    if ev.why == protocol.WHY_ONE_SHORT:
        # Found at the pass's end: two cards went through as one; nothing is caught.
        return notices.TwoAsOne(where, ev.k or 0, ev.n or of)
    return notices.ExitBlocked(where, dealt, of, device_words.why_words(ev))


FAULTS: dict[int, FaultKind] = {
    protocol.FAULT_DOUBLE_FEED: FaultKind(
        _double_feed, lambda ev: None if ev.why == protocol.WHY_ONE_SHORT else steps.Fix("exit")),
    protocol.FAULT_TRAY_EMPTIED: FaultKind(
        lambda where, dealt, of, ev: notices.TrayEmptied(where, dealt, of, missing(ev)),
        lambda ev: steps.Fix("put_back", missing(ev))),
    protocol.FAULT_BATTERY_LOW: FaultKind(
        lambda where, dealt, of, ev: notices.BatteryRanDown(where, dealt, of),
        lambda ev: steps.Fix("battery")),
    protocol.FAULT_SENSOR: FaultKind(
        lambda where, dealt, of, ev: notices.SensorLost(sensor_name(ev), dealt, of, device_words.why_words(ev)),
        lambda ev: steps.Fix(sensor_fix(ev))),
}
# Any other (an internal stop): the device's words; whatever is caught in the exit goes back.
OTHER = FaultKind(lambda where, dealt, of, ev: notices.DeviceFault(device_words.event_words(ev)),
                  lambda ev: steps.Fix("exit"))


def fault_kind(ev: Event) -> FaultKind:
    return FAULTS.get(ev.code, OTHER)
