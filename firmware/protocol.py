"""The serial protocol, defined once for the firmware and the host.

One JSON object per line, ASCII only, at most MAX_LINE bytes including the
newline. Requests carry "cmd" and an optional integer "id"; replies carry
"re" (the command), the same "id" and "ok"; events carry "ev".

This module imports under MicroPython and CPython and needs no other
firmware module.
"""

try:
    import json
except ImportError:  # pragma: no cover - very small ports
    import ujson as json  # type: ignore

try:
    from micropython import const
except ImportError:  # CPython: the host
    def const(x):  # type: ignore[no-redef,misc]
        return x

# 2 added exact mode, 3 the count command, 4 read, feed, the calibration of
# the motor's direction, the exit beam and the battery, and the part a
# sensor fault names
PROTOCOL_VERSION = 4
FIRMWARE_VERSION = "0.2.0"
MAX_LINE = 256  # bytes, newline included
# The device's own input buffer: about two of the longest lines. A host keeps
# one request outstanding (waits for its reply or its timeout before the
# next), so it never comes near it; input beyond it is answered E_OVERFLOW.
IN_BUFFER = 2 * MAX_LINE
MAX_ID = 0x3FFFFFFF  # fits a MicroPython small int on 32-bit boards

# Field names.
F_CMD = "cmd"
F_ID = "id"
F_RE = "re"
F_OK = "ok"
F_EV = "ev"
F_ERR = "err"
F_NAME = "name"
F_MSG = "msg"
F_UID = "uid"  # hello: the board's stable identity, hex of machine.unique_id()
UID_MAX = 32  # hex digits; "" where the port has no unique id

# Commands (host -> device).
CMD_HELLO = "hello"
CMD_STATUS = "status"
CMD_START = "start"
CMD_ABORT = "abort"
CMD_RESUME = "resume"
CMD_CLEAR = "clear"
CMD_CALIBRATE = "calibrate"
CMD_CONFIG = "config"
CMD_EXACT = "exact"  # begin (n) or cancel an exact routine
CMD_COUNT = "count"  # read the tray's count without dealing
CMD_READ = "read"  # the sensors' raw readings, or the stored calibration
CMD_FEED = "feed"  # feed n cards to one side (bring-up and checks)
COMMANDS = (CMD_HELLO, CMD_STATUS, CMD_START, CMD_ABORT, CMD_RESUME,
            CMD_CLEAR, CMD_CALIBRATE, CMD_CONFIG, CMD_EXACT, CMD_COUNT,
            CMD_READ, CMD_FEED)
# Commands answered while a pass runs; the rest get E_BUSY.
MID_PASS_COMMANDS = (CMD_HELLO, CMD_STATUS, CMD_ABORT)
# Questions that change nothing, also answered mid-pass: (command, its flag).
MID_PASS_QUERIES = ((CMD_EXACT, "held"),)


def mid_pass_ok(cmd, obj):
    """True for a request the device answers while a pass runs."""
    if cmd in MID_PASS_COMMANDS:
        return True
    for name, flag in MID_PASS_QUERIES:
        if cmd == name and obj.get(flag) is True:
            return True
    return False

# Events (device -> host).
EV_HELLO = "hello"
EV_TOUCH = "touch"
EV_LOADED = "loaded"
EV_PROGRESS = "progress"
EV_DONE = "done"
EV_FAULT = "fault"
EV_WARN = "warn"
EV_ABORTED = "aborted"
EV_CLEARED = "cleared"
EV_STOPPED = "stopped"
EV_EXACT_NEXT = "exact_next"  # the load the exact routine expects next
EV_EXACT_ROUND = "exact_round"  # a round of the exact routine is complete
EV_EXACT_DONE = "exact_done"  # the exact routine is complete: the pack is uniform
EV_EXACT_LOST = "exact_lost"  # exactness lost; the device deals at random from now on
EVENTS = (EV_HELLO, EV_TOUCH, EV_LOADED, EV_PROGRESS, EV_DONE, EV_FAULT,
          EV_WARN, EV_ABORTED, EV_CLEARED, EV_STOPPED, EV_EXACT_NEXT,
          EV_EXACT_ROUND, EV_EXACT_DONE, EV_EXACT_LOST)

# Dealing modes reported by status.
MODE_RANDOM = "random"
MODE_EXACT = "exact"
# The exact routines (firmware/exact_routes.py): the `routine` of the exact command and its replies.
ROUTINE_RADIX = "radix"
ROUTINE_SPLIT = "split"
EXACT_ROUTINES = (ROUTINE_RADIX, ROUTINE_SPLIT)

# Machine states reported by status.
ST_IDLE = "idle"
ST_DEALING = "dealing"
ST_PAUSED = "paused"  # a jam stopped the pass; touch or resume continues it
ST_ALARM = "alarm"  # a latched fault; clear it first
STATES = (ST_IDLE, ST_DEALING, ST_PAUSED, ST_ALARM)

# Error codes: (number, short name, sentence). Numbers never change.
E_BAD_JSON = 1
E_TOO_LONG = 2
E_NOT_ASCII = 3
E_NOT_OBJECT = 4
E_UNKNOWN_CMD = 5
E_BAD_FIELD = 6
E_BAD_VALUE = 7
E_BUSY = 8
E_ALARM = 9
E_STATE = 10
E_PROTO = 11
E_NOT_CALIBRATED = 12
E_STORAGE = 13
E_REFUSED = 14
E_INTERNAL = 15
E_OVERFLOW = 16

ERRORS = {
    E_BAD_JSON: ("bad_json", "The line is not valid JSON."),
    E_TOO_LONG: ("too_long", "The line is longer than the protocol allows."),
    E_NOT_ASCII: ("not_ascii", "The line contains bytes that are not ASCII."),
    E_NOT_OBJECT: ("not_object", "The line is JSON but not an object with a string cmd."),
    E_UNKNOWN_CMD: ("unknown_cmd", "The command is not known."),
    E_BAD_FIELD: ("bad_field", "A field is missing or has the wrong type."),
    E_BAD_VALUE: ("bad_value", "A value is out of range."),
    E_BUSY: ("busy", "A pass is running; only hello, status and abort are answered."),
    E_ALARM: ("alarm", "A fault is latched; send clear first."),
    E_STATE: ("state", "The command does not apply in the current state."),
    E_PROTO: ("proto", "The protocol version is not supported."),
    E_NOT_CALIBRATED: ("not_calibrated", "The stack sensor is not calibrated."),
    E_STORAGE: ("storage", "Saving failed; the previous values are kept."),
    E_REFUSED: ("refused", "The pass was refused; see the fault event."),
    E_INTERNAL: ("internal", "An internal error occurred; the motor is off."),
    E_OVERFLOW: ("overflow", "Input came faster than the device reads it; lines were dropped."),
}

# Fault codes: (number, short name, sentence). Numbers never change.
FAULT_NONE = 0
FAULT_JAM = 1
FAULT_DOUBLE_FEED = 2
FAULT_TRAY_EMPTIED = 3
FAULT_BATTERY_LOW = 4
FAULT_SENSOR = 5
FAULT_EMPTY = 6
FAULT_OVER_CAPACITY = 7
FAULT_NOT_CALIBRATED = 8
FAULT_INTERNAL = 9

FAULTS = {
    FAULT_JAM: ("jam", "No card reached the exit in time; free the card, then touch or send resume."),
    FAULT_DOUBLE_FEED: ("double_feed", "Two cards fed together; take the piles and send clear."),
    FAULT_TRAY_EMPTIED: ("tray_emptied", "The tray ran out before the loaded count; take the piles and send clear."),
    FAULT_BATTERY_LOW: ("battery_low", "The battery is low; replace it."),
    FAULT_SENSOR: ("sensor", "A sensor is missing or reads implausibly; check the wiring and send clear."),
    FAULT_EMPTY: ("empty", "The tray is empty."),
    FAULT_OVER_CAPACITY: ("over_capacity", "The tray holds more cards than the machine can deal."),
    FAULT_NOT_CALIBRATED: ("not_calibrated", "The stack sensor is not calibrated."),
    FAULT_INTERNAL: ("internal", "An unexpected error stopped the pass; the motor is off; send clear."),
}
# Faults that only refuse a pass: nothing moved, nothing to clear.
REFUSALS = (FAULT_EMPTY, FAULT_OVER_CAPACITY, FAULT_NOT_CALIBRATED, FAULT_BATTERY_LOW)
# Faults that pause a pass: touch or resume continues it.
RESUMABLE = (FAULT_JAM,)

# Why exactness was lost: (number, short name, sentence). Numbers never change.
LOST_DOUBLE_FEED = 1
LOST_COUNT = 2
LOST_ABORTED = 3
LOST_CANCELLED = 4
LOST_EXIT_COUNT = 5
LOST_REST = 6

LOST = {
    LOST_DOUBLE_FEED: ("double_feed", "More cards went out than the beam counted: one may be on the wrong pile."),
    LOST_COUNT: ("count", "The load in the tray is not the one the exact routine expects (wrong count)."),
    LOST_ABORTED: ("aborted", "The pass was aborted before its last card."),
    LOST_CANCELLED: ("cancelled", "The exact routine was cancelled."),
    LOST_EXIT_COUNT: ("exit_count", "The exit counted one card fewer than the tray held: two went through as one."),
    LOST_REST: ("rest", "After the pass stopped, the tray held more cards than the pass had left."),
}

# Pile names used in events and by the simulated world.
LEFT = "left"
RIGHT = "right"
SIDES = (LEFT, RIGHT)

# The parts a sensor fault (and the bring-up) names, in the `part` field.
PART_STACK = "stack"  # the load cell and its HX711
PART_EXIT = "exit"  # the exit beam: IR emitter and receiver
PART_TOUCH = "touch"  # the touch pad or module
PART_BATTERY = "battery"  # the battery and its divider
PART_MOTOR = "motor"  # the feed motor and its driver
PARTS = (PART_STACK, PART_EXIT, PART_TOUCH, PART_BATTERY, PART_MOTOR)

# What `calibrate` sets (docs/protocol.md).
CAL_STACK = "stack"  # n=0 on the empty tray: the tare; n>0: counts per card
CAL_TOUCH = "touch"  # the untouched baseline; confirm=true once a touch was seen
CAL_BEAM = "beam"  # the exit beam saw cards: their time in the beam is kept
CAL_MOTOR = "motor"  # flip=0|1: which way the motor turns for the person's left
CAL_BATTERY = "battery"  # mv: the battery as a meter reads it
CAL_WHATS = (CAL_STACK, CAL_TOUCH, CAL_BEAM, CAL_MOTOR, CAL_BATTERY)
# The battery reading's correction from a meter, per mille, within this.
TRIM_MIN = 900
TRIM_MAX = 1100

# Configuration keys a host may set: key -> (min, max). All integers.
CONFIG_LIMITS = {
    "motor_duty": (20, 100),  # percent PWM
    "card_timeout_ms": (100, 5000),  # no card at the exit within this: jam
    "block_max_ms": (10, 1000),  # exit blocked longer than this: double feed
    "brake_ms": (0, 200),  # brake time after each card
    "idle_sleep_s": (0, 86400),  # 0 = never sleep
    "touch_pct": (10, 95),  # touched when reading < baseline * pct / 100
    "debounce_ms": (5, 500),
    "progress_every": (0, 104),  # progress event every k cards; 0 = none
}


def error_name(code):
    entry = ERRORS.get(code)
    return entry[0] if entry else "unknown"


def lost_name(code):
    entry = LOST.get(code)
    return entry[0] if entry else "unknown"


def fault_name(code):
    entry = FAULTS.get(code)
    return entry[0] if entry else "unknown"


def uid_hex(raw):
    """The hello `uid` of a unique_id() value (bytes): lowercase hex,
    at most UID_MAX digits."""
    return "".join("%02x" % b for b in raw)[:UID_MAX]


def is_uid(v):
    """True for a well-formed hello `uid`: a string of lowercase hex digits,
    at most UID_MAX of them ("" = the board has no unique id)."""
    if not isinstance(v, str) or len(v) > UID_MAX:
        return False
    for ch in v:
        if ch not in "0123456789abcdef":
            return False
    return True


def encode(obj):
    """One protocol line (str, newline included). Raises ValueError if the
    result is not ASCII or is longer than MAX_LINE."""
    line = json.dumps(obj) + "\n"
    for ch in line:
        if ord(ch) > 127:
            raise ValueError("not ascii")
    if len(line) > MAX_LINE:
        raise ValueError("too long")
    return line


def request(cmd, rid=None, **fields):
    """A request object for the host side."""
    obj = {F_CMD: cmd}
    if rid is not None:
        obj[F_ID] = rid
    for key in fields:
        obj[key] = fields[key]
    return obj


def reply(cmd, rid, **fields):
    obj = {F_RE: cmd, F_OK: True}
    if rid is not None:
        obj[F_ID] = rid
    for key in fields:
        obj[key] = fields[key]
    return obj


def error_reply(cmd, rid, code, detail=None):
    name, msg = ERRORS.get(code, ("unknown", "Unknown error."))
    obj = {F_RE: cmd, F_OK: False, F_ERR: code, F_NAME: name, F_MSG: msg}
    if rid is not None:
        obj[F_ID] = rid
    if detail:
        obj["detail"] = detail
    return obj


def fault_event(code, **fields):
    name, msg = FAULTS.get(code, ("unknown", "Unknown fault."))
    obj = {F_EV: EV_FAULT, "code": code, F_NAME: name, F_MSG: msg}
    for key in fields:
        obj[key] = fields[key]
    return obj


def _is_int(v):
    # bool is an int subclass under CPython; the protocol wants real integers.
    return isinstance(v, int) and not isinstance(v, bool)


# ----- strict JSON ------------------------------------------------------
# MicroPython's json.loads is lenient (it skips commas and colons, stops at a
# NUL, takes any escape and a list closed by a brace), so a line is first
# checked against the strict JSON grammar (RFC 8259) by a table-driven
# recogniser: one table lookup per byte, a byte per open bracket, nothing
# built. Only a line that passes is handed to json.loads.

# Byte classes (const: no module attribute, no RAM on the device).
_C_WS = const(0)
_C_LCURB = const(1)
_C_RCURB = const(2)
_C_LSQRB = const(3)
_C_RSQRB = const(4)
_C_COLON = const(5)
_C_COMMA = const(6)
_C_QUOTE = const(7)
_C_BACKS = const(8)
_C_SLASH = const(9)
_C_PLUS = const(10)
_C_MINUS = const(11)
_C_POINT = const(12)
_C_ZERO = const(13)
_C_DIGIT = const(14)
_C_A = const(15)
_C_B = const(16)
_C_CD = const(17)
_C_E = const(18)
_C_F = const(19)
_C_L = const(20)
_C_N = const(21)
_C_R = const(22)
_C_S = const(23)
_C_T = const(24)
_C_U = const(25)
_C_HEXUC = const(26)
_C_EUC = const(27)
_C_ETC = const(28)
_C_CTRL = const(29)
_C_WSCTRL = const(30)
_NCLS = const(31)

# States, then actions (from _A_BASE).
_GO = const(0)
_OK = const(1)
_OB = const(2)
_KE = const(3)
_CO = const(4)
_VA = const(5)
_AR = const(6)
_ST = const(7)
_ES = const(8)
_U1 = const(9)
_U2 = const(10)
_U3 = const(11)
_U4 = const(12)
_MI = const(13)
_ZE = const(14)
_IN = const(15)
_FR = const(16)
_FS = const(17)
_E1 = const(18)
_E2 = const(19)
_E3 = const(20)
_T1 = const(21)
_T2 = const(22)
_T3 = const(23)
_F1 = const(24)
_F2 = const(25)
_F3 = const(26)
_F4 = const(27)
_N1 = const(28)
_N2 = const(29)
_N3 = const(30)
_NST = const(31)
_A_BASE = const(200)
_A_OBJ = const(200)
_A_ARR = const(201)
_A_END_OBJ = const(202)
_A_END_ARR = const(203)
_A_COMMA = const(204)
_A_KEY = const(205)
_A_STR = const(206)
_A_STR_END = const(207)
_ERR = const(255)
_OBJ = const(1)
_ARR = const(2)


# The byte classes and the transitions, row by state: generated by
# tests/firmware/json_grammar.py, where the grammar is written out.
_CLS = (
    b'\x1d\x1d\x1d\x1d\x1d\x1d\x1d\x1d\x1d\x1e\x1e\x1d\x1d\x1e\x1d\x1d'
    b'\x1d\x1d\x1d\x1d\x1d\x1d\x1d\x1d\x1d\x1d\x1d\x1d\x1d\x1d\x1d\x1d'
    b'\x00\x1c\x07\x1c\x1c\x1c\x1c\x1c\x1c\x1c\x1c\x0a\x06\x0b\x0c\x09'
    b'\x0d\x0e\x0e\x0e\x0e\x0e\x0e\x0e\x0e\x0e\x05\x1c\x1c\x1c\x1c\x1c'
    b'\x1c\x1a\x1a\x1a\x1a\x1b\x1a\x1c\x1c\x1c\x1c\x1c\x1c\x1c\x1c\x1c'
    b'\x1c\x1c\x1c\x1c\x1c\x1c\x1c\x1c\x1c\x1c\x1c\x03\x08\x04\x1c\x1c'
    b'\x1c\x0f\x10\x11\x11\x12\x13\x1c\x1c\x1c\x1c\x1c\x14\x1c\x15\x1c'
    b'\x1c\x1c\x16\x17\x18\x19\x1c\x1c\x1c\x1c\x1c\x01\x1c\x02\x1c\x1c'
)
_TAB = (
    b'\x00\xc8\xff\xc9\xff\xff\xff\xce\xff\xff\xff\x0d\xff\x0e\x0f\xff'
    b'\xff\xff\xff\x18\xff\x1c\xff\xff\x15\xff\xff\xff\xff\xff\x00\x01'
    b'\xff\xca\xff\xcb\xff\xcc\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff'
    b'\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01\x02\xff'
    b'\xca\xff\xff\xff\xff\xcd\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff'
    b'\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x02\x03\xff\xff'
    b'\xff\xff\xff\xff\xcd\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff'
    b'\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x03\x04\xff\xff\xff'
    b'\xff\x05\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff'
    b'\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x04\x05\xc8\xff\xc9\xff'
    b'\xff\xff\xce\xff\xff\xff\x0d\xff\x0e\x0f\xff\xff\xff\xff\x18\xff'
    b'\x1c\xff\xff\x15\xff\xff\xff\xff\xff\x05\x06\xc8\xff\xc9\xcb\xff'
    b'\xff\xce\xff\xff\xff\x0d\xff\x0e\x0f\xff\xff\xff\xff\x18\xff\x1c'
    b'\xff\xff\x15\xff\xff\xff\xff\xff\x06\x07\x07\x07\x07\x07\x07\x07'
    b'\xcf\x08\x07\x07\x07\x07\x07\x07\x07\x07\x07\x07\x07\x07\x07\x07'
    b'\x07\x07\x07\x07\x07\x07\xff\xff\xff\xff\xff\xff\xff\xff\xff\x07'
    b'\x07\x07\xff\xff\xff\xff\xff\xff\x07\xff\xff\x07\xff\x07\x07\xff'
    b'\x07\x09\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff'
    b'\xff\xff\xff\xff\x0a\x0a\x0a\x0a\x0a\x0a\x0a\xff\xff\xff\xff\xff'
    b'\xff\x0a\x0a\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff'
    b'\xff\xff\xff\x0b\x0b\x0b\x0b\x0b\x0b\x0b\xff\xff\xff\xff\xff\xff'
    b'\x0b\x0b\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff'
    b'\xff\xff\x0c\x0c\x0c\x0c\x0c\x0c\x0c\xff\xff\xff\xff\xff\xff\x0c'
    b'\x0c\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff'
    b'\xff\x07\x07\x07\x07\x07\x07\x07\xff\xff\xff\xff\xff\xff\x07\x07'
    b'\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff'
    b'\x0e\x0f\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff'
    b'\xff\xff\x01\xff\xca\xff\xcb\xff\xcc\xff\xff\xff\xff\xff\x10\xff'
    b'\xff\xff\xff\xff\x12\xff\xff\xff\xff\xff\xff\xff\xff\x12\xff\xff'
    b'\x01\x01\xff\xca\xff\xcb\xff\xcc\xff\xff\xff\xff\xff\x10\x0f\x0f'
    b'\xff\xff\xff\x12\xff\xff\xff\xff\xff\xff\xff\xff\x12\xff\xff\x01'
    b'\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x11\x11\xff'
    b'\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01'
    b'\xff\xca\xff\xcb\xff\xcc\xff\xff\xff\xff\xff\xff\x11\x11\xff\xff'
    b'\xff\x12\xff\xff\xff\xff\xff\xff\xff\xff\x12\xff\xff\x01\xff\xff'
    b'\xff\xff\xff\xff\xff\xff\xff\xff\x13\x13\xff\x14\x14\xff\xff\xff'
    b'\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff'
    b'\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x14\x14\xff\xff\xff\xff'
    b'\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01\xff\xca\xff'
    b'\xcb\xff\xcc\xff\xff\xff\xff\xff\xff\x14\x14\xff\xff\xff\xff\xff'
    b'\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01\xff\xff\xff\xff\xff'
    b'\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff'
    b'\xff\x16\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff'
    b'\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff'
    b'\xff\xff\xff\x17\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff'
    b'\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01\xff\xff\xff\xff'
    b'\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff'
    b'\xff\xff\xff\xff\xff\xff\xff\x19\xff\xff\xff\xff\xff\xff\xff\xff'
    b'\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff'
    b'\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x1a\xff\xff\xff\xff'
    b'\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff'
    b'\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x1b\xff\xff'
    b'\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff'
    b'\xff\xff\xff\xff\xff\xff\xff\x01\xff\xff\xff\xff\xff\xff\xff\xff'
    b'\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff'
    b'\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x1d\xff\xff'
    b'\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff'
    b'\xff\xff\xff\xff\xff\xff\xff\x1e\xff\xff\xff\xff\xff\xff\xff\xff'
    b'\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff'
    b'\xff\xff\xff\xff\xff\xff\x01\xff\xff\xff\xff\xff\xff\xff\xff\xff'
    b'\xff'
)

_FINAL = (_OK, _ZE, _IN, _FS, _E3)


def strict_json(raw, stack):
    """True when the ASCII bytes `raw` are one strict JSON text. `stack` is a
    bytearray at least as long as raw (the open brackets); nothing else is
    allocated."""
    cls = _CLS
    tab = _TAB
    st = _GO
    depth = 0
    key = False
    for c in raw:
        if c > 127:
            return False
        to = tab[st * _NCLS + cls[c]]
        if to < _A_BASE:
            st = to
            continue
        if to == _ERR:
            return False
        if to == _A_STR_END:
            st = _CO if key else _OK
        elif to == _A_STR or to == _A_KEY:
            key = to == _A_KEY
            st = _ST
        elif to == _A_OBJ or to == _A_ARR:
            stack[depth] = _OBJ if to == _A_OBJ else _ARR
            depth += 1
            st = _OB if to == _A_OBJ else _AR
        elif to == _A_COMMA:
            if depth == 0:
                return False
            st = _KE if stack[depth - 1] == _OBJ else _VA
        else:  # a closing bracket
            if depth == 0 or stack[depth - 1] != (_OBJ if to == _A_END_OBJ else _ARR):
                return False
            depth -= 1
            st = _OK
    return depth == 0 and st in _FINAL


_STACK = bytearray(MAX_LINE)


def check_line(raw):
    """Validate one raw line (bytes, newline stripped) before JSON parsing.
    Returns 0 or an error code."""
    if len(raw) + 1 > MAX_LINE:
        return E_TOO_LONG
    for b in raw:
        if b > 127:
            return E_NOT_ASCII
    return 0


BAD_ID = object()  # an id that is there but not an integer 0..MAX_ID


def parse_request(raw):
    """Parse one raw line (bytes without the newline).

    Returns (code, cmd, rid, obj): code 0 with the request, or an error code
    with whatever of cmd/rid could be read (so the reply can carry the id).
    """
    code = check_line(raw)
    if code:
        return code, None, None, None
    if not strict_json(raw, _STACK):
        return E_BAD_JSON, None, None, None
    try:
        obj = json.loads(raw)
    except (ValueError, TypeError):
        return E_BAD_JSON, None, None, None
    if not isinstance(obj, dict):
        return E_NOT_OBJECT, None, None, None
    rid = obj.get(F_ID)
    if rid is not None and not (_is_int(rid) and 0 <= rid <= MAX_ID):
        rid = BAD_ID
    cmd = obj.get(F_CMD)
    if not isinstance(cmd, str):
        return E_NOT_OBJECT, None, None if rid is BAD_ID else rid, obj
    if cmd not in COMMANDS:
        # Echo only a known name: an unknown one may be long or not ASCII.
        return E_UNKNOWN_CMD, "", None if rid is BAD_ID else rid, obj
    if rid is BAD_ID:
        return E_BAD_FIELD, cmd, None, obj
    return 0, cmd, rid, obj


def parse_message(line):
    """Host side: parse one line from the device into a dict, or raise
    ValueError. Accepts str or bytes."""
    if isinstance(line, str):
        line = line.encode()
    line = line.strip()
    if check_line(line):
        raise ValueError("line too long or not ascii")
    obj = json.loads(line)
    if not isinstance(obj, dict) or not (F_EV in obj or F_RE in obj):
        raise ValueError("not a protocol message")
    return obj


def get_int(obj, key, lo, hi, default=None):
    """Read an integer field for a handler: returns (code, value)."""
    if key not in obj:
        if default is None:
            return E_BAD_FIELD, None
        return 0, default
    v = obj[key]
    if not _is_int(v):
        return E_BAD_FIELD, None
    if v < lo or v > hi:
        return E_BAD_VALUE, None
    return 0, v


# Waits the firmware bounds by a config value: each must end well inside
# the board's watchdog timeout (at most half of it), so a jam is reported
# and never turned into a watchdog reset.
WAIT_KEYS = ("card_timeout_ms", "block_max_ms", "brake_ms", "debounce_ms")


def check_config(updates, wdt_ms=0):
    """Validate a config update object: returns (code, key-with-problem).
    wdt_ms: the board's watchdog timeout (0: no watchdog to fit under)."""
    if not isinstance(updates, dict):
        return E_BAD_FIELD, None
    for key in updates:
        if key not in CONFIG_LIMITS:
            return E_BAD_FIELD, key
        v = updates[key]
        if not _is_int(v):
            return E_BAD_FIELD, key
        lo, hi = CONFIG_LIMITS[key]
        if v < lo or v > hi:
            return E_BAD_VALUE, key
        if wdt_ms and key in WAIT_KEYS and 2 * v > wdt_ms:
            return E_BAD_VALUE, key
    return 0, None
