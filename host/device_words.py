"""The words for the numbers the shuffler sends: each error, fault and
reason exactness was lost, its short name and its sentence. The device
sends the code only (firmware/protocol.py declares the codes); the host
words it from here, the one table of them (docs/protocol.md shows it).
"""
from __future__ import annotations

from firmware import protocol

# code -> (short name, sentence). Numbers never change.
ERRORS: dict[int, tuple[str, str]] = {
    protocol.E_BAD_JSON: ("bad_json", "The line is not valid JSON."),
    protocol.E_TOO_LONG: ("too_long", "The line is longer than the protocol allows."),
    protocol.E_NOT_ASCII: ("not_ascii", "The line contains bytes that are not ASCII."),
    protocol.E_NOT_OBJECT: ("not_object", "The line is JSON but not an object with a string cmd."),
    protocol.E_UNKNOWN_CMD: ("unknown_cmd", "The command is not known."),
    protocol.E_BAD_FIELD: ("bad_field", "A field is missing or has the wrong type."),
    protocol.E_BAD_VALUE: ("bad_value", "A value is out of range."),
    protocol.E_BUSY: ("busy", "A pass is running; only hello, status and abort are answered."),
    protocol.E_ALARM: ("alarm", "A fault is latched; send clear first."),
    protocol.E_STATE: ("state", "The command does not apply in the current state."),
    protocol.E_PROTO: ("proto", "The protocol version is not supported."),
    protocol.E_NOT_CALIBRATED: ("not_calibrated", "The stack sensor is not calibrated."),
    protocol.E_STORAGE: ("storage", "Saving failed; the previous values are kept."),
    protocol.E_REFUSED: ("refused", "The pass was refused; see the fault event."),
    protocol.E_INTERNAL: ("internal", "An internal error occurred; the motor is off."),
    protocol.E_OVERFLOW: ("overflow", "Input came faster than the device reads it; lines were dropped."),
}

FAULTS: dict[int, tuple[str, str]] = {
    protocol.FAULT_JAM: ("jam", "No card reached the exit in time; free the card, then touch or send resume."),
    protocol.FAULT_DOUBLE_FEED: ("double_feed", "Two cards fed together; take the piles and send clear."),
    protocol.FAULT_TRAY_EMPTIED: ("tray_emptied", "The tray ran out before the loaded count; take the piles and send clear."),
    protocol.FAULT_BATTERY_LOW: ("battery_low", "The battery is low; replace it."),
    protocol.FAULT_SENSOR: ("sensor", "A sensor is missing or reads implausibly; check the wiring and send clear."),
    protocol.FAULT_EMPTY: ("empty", "The tray is empty."),
    protocol.FAULT_OVER_CAPACITY: ("over_capacity", "The tray holds more cards than the machine can deal."),
    protocol.FAULT_NOT_CALIBRATED: ("not_calibrated", "The stack sensor is not calibrated."),
    protocol.FAULT_INTERNAL: ("internal", "An unexpected error stopped the pass; the motor is off; send clear."),
}

LOST: dict[int, tuple[str, str]] = {
    protocol.LOST_DOUBLE_FEED: ("double_feed", "More cards went out than the beam counted: one may be on the wrong pile."),
    protocol.LOST_COUNT: ("count", "The load in the tray is not the one the exact routine expects (wrong count)."),
    protocol.LOST_ABORTED: ("aborted", "The pass was aborted before its last card."),
    protocol.LOST_CANCELLED: ("cancelled", "The exact routine was cancelled."),
    protocol.LOST_EXIT_COUNT: ("exit_count", "The exit counted one card fewer than the tray held: two went through as one."),
    protocol.LOST_REST: ("rest", "After the pass stopped, the tray held more cards than the pass had left."),
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
