"""Every fault and warning the shuffler reports that a person must act on,
by its declared code (firmware/protocol.py): what happened, in one sentence;
what the person does, as step data; what becomes of the pass in hand and of
exact mode's proof; and what `shuffler check` and `shuffler setup` advise
while it is latched. The guide, setup, check, the console and the page read
it; nothing else words a fault.

A code that is not here is an unknown fault: shown with its code, part and
reason, and the guide holds (it stops, and `--resume` goes on once the
shuffler is put right). It is never taken for a jam, the battery or the
exit, whatever its number.

Adding a fault: its code in firmware/protocol.py's declaration, the place in
the firmware that raises it, its entry here, and tests
(tests/host/test_fault_catalogue.py walks the declaration).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from firmware import protocol
from shuffling import steps

# What a fault does to the pass in hand.
PAUSES = "pauses"  # held part way: put right, then a touch goes on with it
STOPS = "stops"  # stopped part way: put right, cleared, the rest counted and dealt
REFUSES = "refuses"  # only refuses a pass: nothing moved, nothing latched

# What becomes of exact mode's proof.
KEPT = "kept"  # no card moved out of its turn: the pass goes on where it stopped
JUDGED = "judged"  # the shuffler judges by its counts and says so (exact_lost) when the proof is gone
UNTOUCHED = "untouched"  # nothing was dealt


@dataclass(frozen=True)
class Fault:
    """One fault the shuffler reports. `happened` is a clause (no capital,
    no full stop) that a sentence can hold: what_happened() makes it one.
    `fix` is the Fix step's kind when the fault stops a pass part way (None:
    nothing to put right, or the event decides: fix_in_pass()); `fix_at_start`
    the same before any card moved (None: the guide's own steps, such as
    putting the load in again)."""

    code: int
    name: str
    happened: str
    noted: str  # what the summary's note says happened, a short clause
    in_pass: str
    can_refuse: bool
    fix: str | None
    fix_at_start: str | None
    exactness: str
    advice: str


def _fault(code: int, name: str, happened: str, in_pass: str, *, can_refuse: bool = False, fix: str | None = None,
           fix_at_start: str | None = None, exactness: str = JUDGED, advice: str, noted: str | None = None) -> Fault:
    return Fault(code, name, happened, noted or happened.split(":")[0], in_pass, can_refuse, fix, fix_at_start,
                 exactness, advice)


FAULTS: dict[int, Fault] = {f.code: f for f in (
    _fault(protocol.FAULT_JAM, "jam", "a card is stuck in the feed: none reached the exit in time, and the motor "
           "has stopped", PAUSES, fix="jam", exactness=KEPT, noted="a card stuck in the feed",
           advice="free the card, then touch the pad to go on with the pass (`shuffler check --clear` ends it)"),
    _fault(protocol.FAULT_DOUBLE_FEED, "double_feed", "two cards went through the exit together, or a card is "
           "caught in it", STOPS, fix="exit",
           advice="take any card caught in the exit, then `shuffler check --clear`"),
    _fault(protocol.FAULT_TRAY_EMPTIED, "tray_emptied", "the tray ran out before the count it had loaded: cards "
           "left it and never reached the exit", STOPS, fix="put_back",
           advice="find the cards that left the tray, then `shuffler check --clear`"),
    _fault(protocol.FAULT_BATTERY_LOW, "battery_low", "the battery is too low for the motor to deal", STOPS,
           can_refuse=True, fix="battery", fix_at_start="battery_idle",
           advice="replace the battery, then `shuffler check --clear`"),
    _fault(protocol.FAULT_SENSOR, "sensor", "a sensor does not answer or reads what no working one reads", STOPS,
           can_refuse=True, fix="sensor", fix_at_start="sensor",
           advice="check the wiring of the part the other lines name, then `shuffler check --clear` (the board "
                  "tests its sensors again)"),
    _fault(protocol.FAULT_EMPTY, "empty", "the tray is empty", REFUSES, can_refuse=True, exactness=UNTOUCHED,
           advice="put the load in the tray"),
    _fault(protocol.FAULT_OVER_CAPACITY, "over_capacity", "the tray holds more cards than the machine deals at "
           "once", REFUSES, can_refuse=True, exactness=UNTOUCHED,
           advice="take cards off the load until the tray holds what it deals"),
    _fault(protocol.FAULT_NOT_CALIBRATED, "not_calibrated", "the load cell is not calibrated", REFUSES,
           can_refuse=True, exactness=UNTOUCHED, advice="run `shuffler setup` to calibrate it"),
    _fault(protocol.FAULT_INTERNAL, "internal", "an unexpected error stopped the pass; the motor is off", STOPS,
           fix="exit", advice="`shuffler check --clear`; if it comes again, `shuffler flash` puts the firmware "
                              "on afresh (the calibration stays)"),
)}

# A sensor fault's part (firmware/protocol.py PARTS): its name in the guide's words, and its fix.
SENSORS: dict[str, tuple[str, str]] = {
    protocol.PART_EXIT: ("the exit sensor", "exit_sensor"),
    protocol.PART_STACK: ("the count sensor", "count_sensor"),
    protocol.PART_TOUCH: ("the touch sensor", "touch_sensor"),
    protocol.PART_BATTERY: ("the battery sensor", "battery_sensor"),
}

# Warnings (the warn event): nothing stopped, the person is told. Keyed by
# (code, why); a warn of any other kind is an unknown warning, said as such.
BATTERY_RUNNING_LOW = "battery_running_low"
LOAD_CELL_CORRECTED = "load_cell_corrected"
WARNINGS: dict[tuple[int, int | None], str] = {
    (protocol.FAULT_BATTERY_LOW, None): BATTERY_RUNNING_LOW,
    (protocol.FAULT_SENSOR, protocol.WHY_MISCOUNTED): LOAD_CELL_CORRECTED,
}


def known(code: object) -> Fault | None:
    """The catalogue's entry for a fault code; None for a code it does not know."""
    return FAULTS.get(code) if isinstance(code, int) else None


def name(code: object) -> str:
    entry = known(code)
    return entry.name if entry else "unknown"


def what_happened(code: object) -> str:
    """The fault's sentence; an unknown one says its code."""
    entry = known(code)
    if entry is None:
        return f"Unknown fault {code}."
    return entry.happened[0].upper() + entry.happened[1:] + "."


def noted(code: object) -> str:
    """The fault as the summary's note says it; an unknown one by its code."""
    entry = known(code)
    return entry.noted if entry is not None else f"unknown fault {code}"


def pauses(code: object) -> bool:
    entry = known(code)
    return entry is not None and entry.in_pass == PAUSES


def warning_kind(code: object, why: object) -> str | None:
    """BATTERY_RUNNING_LOW, LOAD_CELL_CORRECTED, or None for a warning not in the catalogue."""
    if not isinstance(code, int) or not (why is None or isinstance(why, int)):
        return None
    return WARNINGS.get((code, why))


def sensor_name(part: object) -> str:
    """Which sensor a fault names, in the guide's words."""
    return SENSORS.get(part, ("a sensor", "sensor"))[0] if isinstance(part, str) else "a sensor"


def missing(ev: Any) -> int:
    """Cards a tray-emptied fault says left the tray and never reached the exit."""
    return ev.out if ev.out is not None else (ev.n or 0) - (ev.k or 0)


def fix_in_pass(ev: Any) -> steps.Fix | None:
    """What the person does about a known fault that stopped a pass part
    way: the step, with what the event tells (cards, the sensor); None when
    nothing is to be put right."""
    entry = known(ev.code)
    if entry is None or entry.fix is None:
        return None
    if entry.code == protocol.FAULT_DOUBLE_FEED and ev.why == protocol.WHY_ONE_SHORT:
        return None  # found at the pass's end: two went through as one, nothing is caught
    if entry.fix == "put_back":
        return steps.Fix("put_back", missing(ev))
    return _fix_step(entry.fix, ev)


def _fix_step(what: str, ev: Any) -> steps.Fix:
    """The fix step of kind `what`; a sensor's is the fix of the part the event names."""
    return steps.Fix(SENSORS.get(ev.part, ("", "sensor"))[1] if what == "sensor" else what)


def fix_at_start(ev: Any) -> steps.Fix | None:
    """What the person does about a known fault that refused a pass before
    any card moved; None when the guide's own steps put it right."""
    entry = known(ev.code)
    if entry is None or entry.fix_at_start is None:
        return None
    return _fix_step(entry.fix_at_start, ev)


def advice(code: object) -> str:
    """What check and setup advise while the fault is latched."""
    entry = known(code)
    if entry is None:
        return (f"the board reports fault {code}, which this tool does not know: `shuffler flash` brings the "
                "firmware this tool knows (the calibration stays), then `shuffler check --clear`")
    return entry.advice
