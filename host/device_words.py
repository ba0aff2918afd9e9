"""The words for the numbers the shuffler sends: each error, fault and
reason exactness was lost, its short name and its sentence. The device
sends the code only (firmware/protocol.py declares the codes); the host
words it from here, the one table of them (docs/protocol.md shows it).
"""
from __future__ import annotations

from firmware import protocol as P

# code -> (short name, sentence). Numbers never change.
ERRORS: dict[int, tuple[str, str]] = {
    P.E_BAD_JSON: ("bad_json", "The line is not valid JSON."),
    P.E_TOO_LONG: ("too_long", "The line is longer than the protocol allows."),
    P.E_NOT_ASCII: ("not_ascii", "The line contains bytes that are not ASCII."),
    P.E_NOT_OBJECT: ("not_object", "The line is JSON but not an object with a string cmd."),
    P.E_UNKNOWN_CMD: ("unknown_cmd", "The command is not known."),
    P.E_BAD_FIELD: ("bad_field", "A field is missing or has the wrong type."),
    P.E_BAD_VALUE: ("bad_value", "A value is out of range."),
    P.E_BUSY: ("busy", "A pass is running; only hello, status and abort are answered."),
    P.E_ALARM: ("alarm", "A fault is latched; send clear first."),
    P.E_STATE: ("state", "The command does not apply in the current state."),
    P.E_PROTO: ("proto", "The protocol version is not supported."),
    P.E_NOT_CALIBRATED: ("not_calibrated", "The stack sensor is not calibrated."),
    P.E_STORAGE: ("storage", "Saving failed; the previous values are kept."),
    P.E_REFUSED: ("refused", "The pass was refused; see the fault event."),
    P.E_INTERNAL: ("internal", "An internal error occurred; the motor is off."),
    P.E_OVERFLOW: ("overflow", "Input came faster than the device reads it; lines were dropped."),
}

FAULTS: dict[int, tuple[str, str]] = {
    P.FAULT_JAM: ("jam", "No card reached the exit in time; free the card, then touch or send resume."),
    P.FAULT_DOUBLE_FEED: ("double_feed", "Two cards fed together; take the piles and send clear."),
    P.FAULT_TRAY_EMPTIED: ("tray_emptied", "The tray ran out before the loaded count; take the piles and send clear."),
    P.FAULT_BATTERY_LOW: ("battery_low", "The battery is low; replace it."),
    P.FAULT_SENSOR: ("sensor", "A sensor is missing or reads implausibly; check the wiring and send clear."),
    P.FAULT_EMPTY: ("empty", "The tray is empty."),
    P.FAULT_OVER_CAPACITY: ("over_capacity", "The tray holds more cards than the machine can deal."),
    P.FAULT_NOT_CALIBRATED: ("not_calibrated", "The stack sensor is not calibrated."),
    P.FAULT_INTERNAL: ("internal", "An unexpected error stopped the pass; the motor is off; send clear."),
}

LOST: dict[int, tuple[str, str]] = {
    P.LOST_DOUBLE_FEED: ("double_feed", "More cards went out than the beam counted: one may be on the wrong pile."),
    P.LOST_COUNT: ("count", "The load in the tray is not the one the exact routine expects (wrong count)."),
    P.LOST_ABORTED: ("aborted", "The pass was aborted before its last card."),
    P.LOST_CANCELLED: ("cancelled", "The exact routine was cancelled."),
    P.LOST_EXIT_COUNT: ("exit_count", "The exit counted one card fewer than the tray held: two went through as one."),
    P.LOST_REST: ("rest", "After the pass stopped, the tray held more cards than the pass had left."),
}


def _name(table: dict[int, tuple[str, str]], code: object) -> str:
    entry = table.get(code) if isinstance(code, int) else None
    return entry[0] if entry else "unknown"


def _sentence(table: dict[int, tuple[str, str]], code: object, what: str) -> str:
    entry = table.get(code) if isinstance(code, int) else None
    return entry[1] if entry else f"Unknown {what} {code}."


def error_name(code: object) -> str:
    return _name(ERRORS, code)


def fault_name(code: object) -> str:
    return _name(FAULTS, code)


def lost_name(code: object) -> str:
    return _name(LOST, code)


def error_words(code: object) -> str:
    return _sentence(ERRORS, code, "error")


def fault_words(code: object) -> str:
    return _sentence(FAULTS, code, "fault")


def lost_words(code: object) -> str:
    return _sentence(LOST, code, "reason")
