"""The words for the numbers the shuffler sends: each error, fault and
reason exactness was lost, its short name and its sentence, and why a
request was refused or a fault raised (`why` and the values it names). The
device sends numbers only (firmware/protocol.py declares them); the host
words them from here, the one table of them (docs/protocol.md shows it).
"""
from __future__ import annotations

from typing import Any

from firmware import protocol
from host import device_messages, fault_catalogue

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

# The faults' names and sentences are the catalogue's (host/fault_catalogue.py), the one place a fault is worded.
FAULTS: dict[int, tuple[str, str]] = {code: (f.name, fault_catalogue.what_happened(code))
                                      for code, f in fault_catalogue.FAULTS.items()}

# Why exactness went, and the evidence: the person's words (the guide says
# "Exactness is lost: <this>"; the summary keeps it).
LOST: dict[int, tuple[str, str]] = {
    protocol.LOST_DOUBLE_FEED: ("double_feed", "More cards went out of the tray than the exit counted (the tray's count "
                                               "after the stop shows it): one of them may lie on the wrong pile."),
    protocol.LOST_COUNT: ("count", "The load in the tray is not the one the exact routine expects (its count is "
                                   "another): a stack or a pile was swapped, a load came in out of turn, or a card "
                                   "went missing."),
    protocol.LOST_ABORTED: ("aborted", "A pass was aborted before its last card."),
    protocol.LOST_CANCELLED: ("cancelled", "The exact routine was cancelled."),
    protocol.LOST_EXIT_COUNT: ("exit_count", "The exit counted one card fewer than the tray held: two cards went "
                                             "through as one somewhere in the pass."),
    protocol.LOST_REST: ("rest", "After the pass stopped, the tray held more cards than the pass had left: cards "
                                 "that were dealt came back in, or others joined them."),
    protocol.LOST_HAND: ("hand", "Cards of the load were moved by hand: where they lie is not known."),
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
    return fault_catalogue.name(code)


def lost_name(code: object) -> str:
    return _name(LOST, code)


def event_name(ev: Any) -> str:
    """The short name of an event record's code: a lost exactness's for
    exact_lost and exact_repair, else a fault's (a fault or a warning)."""
    if ev.kind in (protocol.EV_EXACT_LOST, protocol.EV_EXACT_REPAIR):
        return lost_name(ev.code)
    return fault_name(ev.code) if ev.code is not None else ""


def event_words(ev: Any) -> str:
    """The sentence for an event record's code, and why, when it says (the
    device sends numbers only)."""
    if ev.kind in (protocol.EV_EXACT_LOST, protocol.EV_EXACT_REPAIR):
        return lost_words(ev.code)
    if ev.code is None:
        return ""
    why = why_words(ev)
    return fault_words(ev.code) + (f" ({why})" if why else "")


def error_words(code: object) -> str:
    return _sentence(ERRORS, code, "error")


def fault_words(code: object) -> str:
    return fault_catalogue.what_happened(code)


def lost_words(code: object) -> str:
    return _sentence(LOST, code, "reason")


# why -> (short name, its words), the values it names in braces (the
# refusal's, the fault's or the warning's fields: field, lo, hi, part, n, by,
# mv, meter_mv, out, found, k, held, per_card, was).
WHYS: dict[int, tuple[str, str]] = {
    protocol.WHY_PAUSED: ("paused", "a pass is paused: resume or abort it"),
    protocol.WHY_EXACT_RUNNING: ("exact_running", "an exact routine is running: cancel it first"),
    protocol.WHY_NOTHING_TO_RESUME: ("nothing_to_resume", "no pass is paused: nothing to resume"),
    protocol.WHY_NO_PASS: ("no_pass", "there is no pass to abort"),
    protocol.WHY_RANGE: ("range", "{field}: {lo} to {hi}"),
    protocol.WHY_CHOICE: ("choice", "{field}: {choices}"),
    protocol.WHY_NO_ANSWER: ("no_answer", "{part} does not answer"),
    protocol.WHY_IMPLAUSIBLE: ("implausible", "{part} reads what no working one reads{reading}"),
    protocol.WHY_BLOCKED: ("blocked", "the exit beam is blocked{cards_out}: take out the card in the exit"),
    protocol.WHY_MISSED: ("missed", "the exit beam missed {out} cards that left the tray"),
    protocol.WHY_ONE_SHORT: ("one_short", "the exit counted one card fewer than the tray's reading: two went through as one"),
    protocol.WHY_MISSING: ("missing", "{out} cards left the tray and never reached the exit"),
    protocol.WHY_NOT_THE_LOAD: ("not_the_load", "the load does not fit the plan of the pass"),
    protocol.WHY_NO_ROUTINE: ("no_routine", "no exact routine of that kind for {n} cards on a tray of {hi}"),
    protocol.WHY_TARE_FIRST: ("tare_first", "calibrate the empty tray (n 0) first"),
    protocol.WHY_FALLS: ("falls", "the reading falls by {fall} for {n} cards: the load cell's signal wires are swapped"),
    protocol.WHY_GROWS_LITTLE: ("grows_little", "the reading grows by only {by} for {n} cards: nothing presses on the load cell"),
    protocol.WHY_NO_TOUCH: ("no_touch", "no touch seen since the baseline was measured"),
    protocol.WHY_NO_CARD: ("no_card", "no card through the exit beam since the board started: feed cards first"),
    protocol.WHY_METER: ("meter", "the board reads {mv} mV, the meter {meter_mv} mV: more than 10 % apart"),
    protocol.WHY_LONG_BLOCK: ("long_block", "a card blocked the exit too long: two cards went together"),
    protocol.WHY_EARLY_BLOCK: ("early_block", "the exit was blocked before the card was fed"),
    protocol.WHY_TRAY_HOLDS: ("tray_holds", "the tray holds only {n} cards"),
    protocol.WHY_SELF_TEST: ("self_test", "{found}"),
    protocol.WHY_MISCOUNTED: ("miscounted", "the load cell counted {n} cards where the load held {cards} "
                              "(the exit counted {k}{held_words}): its weight a card was {was}, now {per_card}"),
    protocol.WHY_NO_PART: ("no_part", "the load in hand is no part dealt alone: it cannot be dealt again alone"),
    protocol.WHY_NO_PARENT: ("no_parent", "no split round cut the stack in hand off a bigger one: there is no "
                             "stack to deal again from that round"),
    protocol.WHY_WHOLE_PACK: ("whole_pack", "the stack in hand was split off the whole pack: dealing it again is a "
                              "fresh routine"),
}

# The start-up check's findings, a bit each.
SELF_TEST: dict[int, str] = {
    protocol.SELF_STACK_NO_ANSWER: "the load cell's converter does not answer",
    protocol.SELF_STACK_RANGE: "the load cell reads out of range",
    protocol.SELF_EXIT_BLOCKED: "the exit beam is blocked at rest",
    protocol.SELF_BATTERY: "the battery reads what no battery reads",
    protocol.SELF_TOUCH: "the touch sensor is missing or reads implausibly",
}

PART_NAMES: dict[str, str] = {
    protocol.PART_STACK: "the load cell",
    protocol.PART_EXIT: "the exit beam",
    protocol.PART_TOUCH: "the touch sensor",
    protocol.PART_BATTERY: "the battery sensor",
    protocol.PART_MOTOR: "the feed motor",
}


def _choices(cmd: str, field: str) -> str:
    """A field's declared values (firmware/protocol.py), for a request that gave another."""
    spec = device_messages.COMMANDS.get(cmd)
    rule = spec.rules.get(field) if spec is not None else None
    if rule is not None and rule.kind == "set":
        return " or ".join(str(v) for v in rule.values)
    if rule is not None and rule.kind == "obj" and rule.fields is not None:
        return "one of " + ", ".join(rule.fields.names)
    return "not one this device knows"


def refusal_words(reply: dict[str, Any]) -> str:
    """A refusal (a reply with an error code) in one line: the request, the error, and why where it says."""
    detail = why_words(reply) or (fault_name(reply["fault"]) if "fault" in reply else None)
    msg = error_words(reply.get(protocol.F_ERR))
    return f"the shuffler refused {reply.get(protocol.F_RE)!r}: {msg}" + (f" ({detail})" if detail else "")


def why_words(msg: Any) -> str:
    """Why a request was refused or a fault raised, in words, from a
    message's `why` and the values it names (a message, or its typed
    record); "" when it gives none."""
    get = msg.get if isinstance(msg, dict) else (lambda key, default=None: getattr(msg, key, default))
    why = get("why")
    entry = WHYS.get(why) if isinstance(why, int) else None
    if entry is None:
        detail = get("detail")
        return str(detail) if detail else ("" if why is None else f"reason {why}")
    found = get("found") or 0
    mv = get("mv")
    out = get("out")
    by = get("by")
    k = get("k")
    held = get("held")
    values = {
        "field": get("field") or "a field", "lo": get("lo"), "hi": get("hi"), "n": get("n"), "by": by,
        "fall": -by if isinstance(by, int) else by, "mv": mv, "meter_mv": get("meter_mv"), "out": out,
        "part": PART_NAMES.get(get("part"), "a sensor"),
        "reading": f" ({mv} mV)" if isinstance(mv, int) else "",
        "cards_out": f" with {out} card{'s' * (out != 1)} out of the tray" if isinstance(out, int) else "",
        "choices": _choices(str(get(protocol.F_RE) or ""), str(get("field") or "")),
        "found": "; ".join(words for bit, words in SELF_TEST.items() if found & bit) or "a sensor reads implausibly",
        "k": k, "was": get("was"), "per_card": get("per_card"),
        "cards": (k or 0) + (held or 0),
        "held_words": f", {held} left in the tray" if held else "",
    }
    return entry[1].format(**values)


# What the shuffler said that cannot be true (the guide checks every fact
# against the cards, the session and the routine: host/guide/belief.py):
# a fault of the device, named plainly. name -> its words, the values it
# names in braces.
CONTRADICTIONS: dict[str, str] = {
    "more_out": "the shuffler counted {out} cards out of a load of {load}",
    "tray_over": "the shuffler began a pass of {out} cards on a tray that holds {capacity}",
    "count_back": "the shuffler's count of the pass went back from {was} to {now} cards",
    "done_early": "the shuffler said its exact routine was done after {passes} of its {of} passes",
    "done_rounds": "the shuffler said its exact routine of {was} rounds was done after {now} rounds",
    "next_rounds": "the shuffler's exact routine of {was} rounds became one of {now} rounds",
    "next_load": "the shuffler expects load {load} of round {round}, which its routine of {rounds} rounds does not have",
    "reflash": "the shuffler started again with other firmware ({changes})",
}


def contradiction_words(name: str, **values: object) -> str:
    """The words for a fact of the device that cannot be true."""
    return CONTRADICTIONS[name].format(**values)


# The settings files a board found unusable at start (the hello's `bad`
# bits): which file, what is wrong, how the board runs, what to run.
SETTINGS_FILES = {"cal.json": "the calibration", "config.json": "the configuration"}
BAD_FILES: tuple[tuple[int, str, str], ...] = (
    (protocol.BAD_CAL_DAMAGED, "cal.json", "is damaged (not readable JSON)"),
    (protocol.BAD_CAL_INVALID, "cal.json", "holds values no calibration has"),
    (protocol.BAD_CONFIG_DAMAGED, "config.json", "is damaged (not readable JSON)"),
    (protocol.BAD_CONFIG_INVALID, "config.json", "holds values no configuration has"),
)
BAD_FILE_RUNS = {"cal.json": "the board runs uncalibrated",
                 "config.json": "the board runs on the firmware's default settings (docs/protocol.md)"}


def bad_file_words(bad: object) -> list[str]:
    """One sentence for each unusable settings file `bad` names (its bits)."""
    bits = bad if isinstance(bad, int) and not isinstance(bad, bool) else 0
    return [f"{name} ({SETTINGS_FILES[name]}) {what}: {BAD_FILE_RUNS[name]} until `shuffler setup` stores a new "
            "one over it" for bit, name, what in BAD_FILES if bits & bit]
