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
# sensor fault names, 5 the declaration table and its digest in hello, and
# codes without words (no name, msg or fault_name: the host words them), 6 a
# refusal's or a fault's reason as a number and values (`why`, `field`, `lo`,
# `hi`, `out`, `found`...) where a sentence was (`detail`: an internal
# error's own text only), 7 a request's fields checked on the board from
# this declaration (check_request), with the bounds a board sets named
# (BOUNDS), and the exact reply's routine as an object with its required
# fields, 8 the load cell's count found wrong by the exit's at the end of a
# pass, said in a `warn` naming it (WHY_MISCOUNTED: the counts, and the
# per-card figure before and after), and a part of the split dealt again
# from fresh codes when its order is lost (exact's `repair`, the
# exact_repair event, LOST_HAND)
PROTOCOL_VERSION = 8
FIRMWARE_VERSION = "0.4.0"
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
F_DETAIL = "detail"
# A field name echoed in a refusal (`field`) is the host's own key: one
# the declaration does not know may be long or not ASCII, so it is echoed
# shortened to FIELD_ECHO_MAX characters ending in "..." and with "?" for
# anything but printable ASCII, and the refusal keeps its `field`
# (docs/protocol.md, "Reasons").
F_FIELD = "field"
FIELD_ECHO_MAX = 40


def echo_name(name):
    """A field name as a refusal echoes it (F_FIELD above)."""
    out = ""
    for ch in name[:FIELD_ECHO_MAX]:
        out += ch if 32 <= ord(ch) < 127 else "?"
    if len(name) > FIELD_ECHO_MAX:
        out = out[:FIELD_ECHO_MAX - 3] + "..."
    return out
F_DIGEST = "digest"  # hello: the digest() of the declaration table the device was built with
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
# COMMANDS: every command's name, from the declaration (COMMAND_FIELDS below).
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
EV_EXACT_REPAIR = "exact_repair"  # a part's order lost: it is dealt again from fresh codes, the routine goes on
# EVENTS: every event's name, from the declaration (EVENT_FIELDS below).

# Dealing modes reported by status.
MODE_RANDOM = "random"
MODE_EXACT = "exact"
# The exact routines (firmware/exact_routes.py): the `routine` of the exact command and its replies.
ROUTINE_RADIX = "radix"
ROUTINE_SPLIT = "split"
ROUTINE_PIPELINED = "pipelined"
EXACT_ROUTINES = (ROUTINE_RADIX, ROUTINE_SPLIT, ROUTINE_PIPELINED)

# Machine states reported by status.
ST_IDLE = "idle"
ST_DEALING = "dealing"
ST_PAUSED = "paused"  # a jam stopped the pass; touch or resume continues it
ST_ALARM = "alarm"  # a latched fault; clear it first
STATES = (ST_IDLE, ST_DEALING, ST_PAUSED, ST_ALARM)

# Error codes (the `err` of a refused request). Numbers never change; the
# host words them (host/device_words.py): the device sends numbers only.
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
ERROR_CODES = (E_BAD_JSON, E_TOO_LONG, E_NOT_ASCII, E_NOT_OBJECT, E_UNKNOWN_CMD, E_BAD_FIELD, E_BAD_VALUE,
               E_BUSY, E_ALARM, E_STATE, E_PROTO, E_NOT_CALIBRATED, E_STORAGE, E_REFUSED, E_INTERNAL,
               E_OVERFLOW)

# Fault codes (the `code` of a fault or warn event). Numbers never change.
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
FAULT_CODES = (FAULT_JAM, FAULT_DOUBLE_FEED, FAULT_TRAY_EMPTIED, FAULT_BATTERY_LOW, FAULT_SENSOR, FAULT_EMPTY,
               FAULT_OVER_CAPACITY, FAULT_NOT_CALIBRATED, FAULT_INTERNAL)
# Faults that only refuse a pass: nothing moved, nothing to clear.
REFUSALS = (FAULT_EMPTY, FAULT_OVER_CAPACITY, FAULT_NOT_CALIBRATED, FAULT_BATTERY_LOW)
# Faults that pause a pass: touch or resume continues it.
RESUMABLE = (FAULT_JAM,)

# Why, beyond its code (the `why` of a refusal or a fault): a number and the
# values it names, never a sentence; the host words it (host/device_words.py).
# Numbers never change.
WHY_PAUSED = 1  # a pass is paused: resume or abort it
WHY_EXACT_RUNNING = 2  # an exact routine is running: cancel it first
WHY_NOTHING_TO_RESUME = 3  # no pass is paused
WHY_NO_PASS = 4  # no pass to abort
WHY_RANGE = 5  # `field` is outside `lo` to `hi`
WHY_CHOICE = 6  # `field` is missing or not one of its declared values
WHY_NO_ANSWER = 7  # `part` does not answer (the load cell's converter)
WHY_IMPLAUSIBLE = 8  # `part` reads what no working one reads (`mv`: the battery's reading)
WHY_BLOCKED = 9  # the exit beam is blocked (`out`: cards out of the tray, when a pass stopped)
WHY_MISSED = 10  # the exit beam missed `out` cards that left the tray
WHY_ONE_SHORT = 11  # the exit counted one card fewer than the tray's reading: two went as one
WHY_MISSING = 12  # `out` cards left the tray and never reached the exit
WHY_NOT_THE_LOAD = 13  # the load does not fit the plan of the pass (the exact routine's)
WHY_NO_ROUTINE = 14  # no exact routine (of the kind asked for) for `n` cards on a tray of `hi`
WHY_TARE_FIRST = 15  # calibrate the empty tray (n 0) first
WHY_FALLS = 16  # the reading changed by `by` for `n` cards: it falls (the load cell wired the wrong way)
WHY_GROWS_LITTLE = 17  # the reading grew only by `by` for `n` cards (no load on the cell)
WHY_NO_TOUCH = 18  # no touch since the baseline was measured
WHY_NO_CARD = 19  # no card through the exit beam since the start: feed cards first
WHY_METER = 20  # the board reads `mv`, the meter `meter_mv`: more than 10 % apart
WHY_LONG_BLOCK = 21  # a card blocked the exit too long: two cards together
WHY_EARLY_BLOCK = 22  # the exit was blocked before the card was fed
WHY_TRAY_HOLDS = 23  # the tray holds only `n` cards
WHY_SELF_TEST = 24  # the start-up check found the problems `found` (SELF_* bits)
# The load cell counted `n` cards where the pass held `k` (the exit's count)
# and `held` (left in the tray): its per-card figure `was` is now `per_card`.
WHY_MISCOUNTED = 25
WHY_NO_PART = 26  # the load in hand is no part dealt alone (radix, a split round): it cannot be dealt again alone
WHY_CODES = (WHY_PAUSED, WHY_EXACT_RUNNING, WHY_NOTHING_TO_RESUME, WHY_NO_PASS, WHY_RANGE, WHY_CHOICE,
             WHY_NO_ANSWER, WHY_IMPLAUSIBLE, WHY_BLOCKED, WHY_MISSED, WHY_ONE_SHORT, WHY_MISSING,
             WHY_NOT_THE_LOAD, WHY_NO_ROUTINE, WHY_TARE_FIRST, WHY_FALLS, WHY_GROWS_LITTLE, WHY_NO_TOUCH,
             WHY_NO_CARD, WHY_METER, WHY_LONG_BLOCK, WHY_EARLY_BLOCK, WHY_TRAY_HOLDS, WHY_SELF_TEST,
             WHY_MISCOUNTED, WHY_NO_PART)
# The start-up check's findings (the bits of a fault's `found`).
SELF_STACK_NO_ANSWER = 1
SELF_STACK_RANGE = 2
SELF_EXIT_BLOCKED = 4
SELF_BATTERY = 8
SELF_TOUCH = 16
SELF_BITS = (SELF_STACK_NO_ANSWER, SELF_STACK_RANGE, SELF_EXIT_BLOCKED, SELF_BATTERY, SELF_TOUCH)

# Why exactness was lost (the `code` of exact_lost). Numbers never change.
LOST_DOUBLE_FEED = 1
LOST_COUNT = 2
LOST_ABORTED = 3
LOST_CANCELLED = 4
LOST_EXIT_COUNT = 5
LOST_REST = 6
LOST_HAND = 7  # cards of the load in hand were moved by hand: where they lie is not known (the host says)
LOST_CODES = (LOST_DOUBLE_FEED, LOST_COUNT, LOST_ABORTED, LOST_CANCELLED, LOST_EXIT_COUNT, LOST_REST, LOST_HAND)

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
# With hold=true each of the above is used at once but not stored: a bring-up
# stores what it held in one write once every step passed (store), or goes
# back to what is stored (drop); a reset drops it too.
CAL_STORE = "store"
CAL_DROP = "drop"
CAL_WHATS = (CAL_STACK, CAL_TOUCH, CAL_BEAM, CAL_MOTOR, CAL_BATTERY, CAL_STORE, CAL_DROP)
# The settings files the board found unusable at start (the hello's `bad`,
# bits): not readable JSON, or values no such file holds. The board then
# runs without them: uncalibrated, or on the configuration's defaults.
BAD_CAL_DAMAGED = 1
BAD_CAL_INVALID = 2
BAD_CONFIG_DAMAGED = 4
BAD_CONFIG_INVALID = 8
BAD_CAL = BAD_CAL_DAMAGED | BAD_CAL_INVALID
BAD_CONFIG = BAD_CONFIG_DAMAGED | BAD_CONFIG_INVALID
# The battery reading's correction from a meter, per mille, within this.
TRIM_MIN = 900
TRIM_MAX = 1100

# Configuration keys a host may set, all integers (the `config` object below).
OBJ_CONFIG = ("motor_duty:20..100"  # percent PWM
              " card_timeout_ms:100..wait_max"  # no card at the exit within this: jam
              " block_max_ms:10..1000"  # exit blocked longer than this: double feed
              " brake_ms:0..200"  # brake time after each card
              " idle_sleep_s:0..86400"  # 0 = never sleep
              " touch_pct:10..95"  # touched when reading < baseline * pct / 100
              " debounce_ms:5..500"
              " progress_every:0..104")  # progress event every k cards; 0 = none
# Waits the firmware bounds by a config value: each must end well inside
# the board's watchdog timeout (at most half of it, the bound `wait_max`),
# so a jam is reported and never turned into a watchdog reset
# (tests/firmware/test_fw_hardware.py holds every board's figures to it).
WAIT_KEYS = ("card_timeout_ms", "block_max_ms", "brake_ms", "debounce_ms")

# Bounds a board sets (a request's range names them where a number would
# stand): each board gives its own value at boot (Controller.limits); a
# reader that does not know the board takes the widest value any board may
# give, here. name, widest, in pairs.
BOUNDS = (
    "capacity", 10000,  # cards the tray holds
    "exact_max", 10000,  # cards an exact routine takes (firmware/exact.py MAX_CARDS)
    "battery_min", 100000,  # mV: below, no battery or a broken divider
    "meter_max", 100000,  # mV: the most a meter may read against the battery
    "wait_max", 5000,  # ms: half the board's watchdog timeout
)


# ----- the declaration: every message, its fields, their types ------------
# Each table is flat, a name then its string (a tuple per entry would cost
# the board RAM). One string per message: its fields in order, "name:type",
# "!" after the type when the field is always there. A type is
#   lo..hi   an integer in that range (a bound may be a name of BOUNDS: the board's own figure)
#   b        true or false
#   s        ASCII text (a detail)            u  a uid (see is_uid)
#   L        a load name (capital letters)    @set  one of a set below
#   {obj}    an object declared below
# The device builds every line from these (firmware/report.py, each field
# by its name) and checks every request against them (check_request); the
# host checks every line against them (host/device_messages.py); the
# hello's `digest` is of this table, so a host refuses a device that
# declares anything differently.
# (Each a literal: a string of more than 10 characters costs the board its
# bytes once, where pieces joined at import would cost each piece too.)
_PASS = "k:0..10000! n:0..10000! left:0..10000 right:0..10000"  # counts: a pass; its piles
_COUNTS = "k:0..10000 n:0..10000 left:0..10000 right:0..10000"  # the same, where there may be no pass
_NEXT = "round:1..1000! rounds:1..1000 load:L! count:0..10000!"  # the load an exact routine expects next
_HELLO = "fw:s proto:0..1000000! board:s capacity:1..10000! cal:{hello} state:@state uid:u digest:0..4194301! bad:0..15"

# Sets a field's value is one of: name, values, in pairs.
SETS = (
    "state", STATES,
    "mode", (MODE_RANDOM, MODE_EXACT),
    "routine", EXACT_ROUTINES,
    "part", PARTS,
    "side", SIDES,
    "calibrate", CAL_WHATS,
    "read", ("sensors", "cal"),
    "stack", ("calibrated", "factory", "none"),
    "touch", ("measured", "calibrated"),
    "stopped", ("interrupt",),
    "flip", (0, 1),
    "fault", FAULT_CODES,
    "fault0", (FAULT_NONE,) + FAULT_CODES,
    "lost", LOST_CODES,
    "err", ERROR_CODES,
    "why", WHY_CODES,
)
# Objects a field may hold: name, its fields, in pairs.
OBJECTS = (
    "hello", "stack:@stack touch:@touch",
    "next", _NEXT,
    "cal", "tare:-16777216..16777216 per_card:-16777216..16777216 touch_baseline:0..1000000 touch_seen:@flip"
        " beam_ms:1..60000 flip:@flip mv_trim:900..1100",
    "config", OBJ_CONFIG,
    # The exact routine a device runs (the reply to exact): `dealt`, when
    # the load it expects next is part dealt, its cards known to be out.
    "routine", "n:2..exact_max! loads:1..1000! uneven:b! kind:@routine! rounds:1..1000! next:{next}! dealt:0..10000",
)
# Events (device -> host, "ev").
EVENT_FIELDS = (
    EV_HELLO, _HELLO,
    EV_TOUCH, "state:@state",
    EV_LOADED, "n:0..10000!",
    EV_PROGRESS, _PASS,
    EV_DONE, _PASS,
    EV_ABORTED, _PASS,
    EV_FAULT, "code:@fault! latched:b resume:b k:0..10000 n:0..10000 left:0..10000 right:0..10000"
        " capacity:1..10000 mv:0..100000 need_mv:0..100000 part:@part why:@why found:0..31 out:0..10000"
        " detail:s",
    EV_WARN, "code:@fault! mv:0..100000 part:@part why:@why n:0..10000 k:0..10000 held:0..10000"
        " per_card:1..16777216 was:1..16777216",
    EV_CLEARED, "",
    EV_STOPPED, "reason:@stopped",
    EV_EXACT_NEXT, _NEXT,
    EV_EXACT_ROUND, "round:1..1000! rounds:1..1000",
    EV_EXACT_DONE, "rounds:1..1000",
    EV_EXACT_LOST, "code:@lost! round:0..1000 load:s n:0..10000 expected:0..10000",
    # A part's order lost (code, and the load count that showed it): `part` is
    # dealt again from its first round, `round`, with fresh codes, once the
    # pass in hand is over (`after`: a pass is in hand, dealt at random).
    EV_EXACT_REPAIR, "part:L! code:@lost! round:1..1000! rounds:1..1000! after:b n:0..10000 expected:0..10000",
)
# Replies (device -> host, "re" and "ok": true), by command.
REPLY_FIELDS = (
    CMD_HELLO, _HELLO,
    CMD_STATUS, "state:@state! fault:@fault0 mode:@mode k:0..10000 n:0..10000 left:0..10000 right:0..10000"
                 " mv:0..100000 uptime_ms:0..9223372036854775808 next:{next}",
    CMD_START, "n:0..10000",
    CMD_ABORT, "",
    CMD_RESUME, _COUNTS,
    CMD_CLEAR, "state:@state fault:@fault0",
    CMD_CALIBRATE, "cal:{cal}! held:b",
    CMD_CONFIG, "config:{config}!",
    CMD_EXACT, "mode:@mode! routine:{routine}",
    CMD_COUNT, "n:0..10000! capacity:1..10000",
    CMD_READ, "cal:{cal} raw:-16777216..16777216 spread:0..33554432 n:-10000..10000 touch:-1..1000000 touched:b"
        " touches:0..2147483648 beam:b mv:0..100000 card_ms:0..60000 feed_ms:0..60000 flip:@flip",
    CMD_FEED, "n:0..10000!",
)
# A refused request ("re" and "ok": false): fault, the fault that refused a
# pass; why and the values it names; detail, an internal error's own text.
ERROR_FIELDS = ("err:@err! fault:@fault why:@why field:s lo:0..1073741823 hi:0..1073741823 part:@part"
                " n:0..10000 by:-16777216..16777216 mv:0..100000 meter_mv:0..100000 proto:0..1000000 detail:s")
# Requests (host -> device, "cmd" and an optional "id"). The board checks
# every request against its line before its handler reads it
# (check_request): a field of the wrong type or a required one missing is
# E_BAD_FIELD, a value outside its range or set E_BAD_VALUE, each with why
# (WHY_RANGE with field, lo, hi; WHY_CHOICE with field), and an object's
# keys must be ones it declares. Fields a request does not declare are
# ignored. A field a handler needs only with some values of another (n for
# calibrating the stack) is required there, by the same line (need()).
COMMAND_FIELDS = (
    CMD_HELLO, "proto:0..1000000",
    CMD_STATUS, "",
    CMD_START, "",
    CMD_ABORT, "",
    CMD_RESUME, "",
    CMD_CLEAR, "",
    CMD_CALIBRATE, "what:@calibrate! n:0..capacity confirm:b flip:@flip mv:battery_min..meter_max hold:b",
    CMD_CONFIG, "set:{config}",
    CMD_EXACT, "n:2..exact_max routine:@routine held:b cancel:b repair:b",
    CMD_COUNT, "",
    CMD_READ, "what:@read",
    CMD_FEED, "n:1..capacity! side:@side!",
)
EVENTS = tuple(EVENT_FIELDS[i] for i in range(0, len(EVENT_FIELDS), 2))
COMMANDS = tuple(COMMAND_FIELDS[i] for i in range(0, len(COMMAND_FIELDS), 2))


def fields_of(table, name):
    """The field string a declaration table (name, fields, in pairs) gives
    `name`; None if it has none."""
    for i in range(0, len(table), 2):
        if table[i] == name:
            return table[i + 1]
    return None


_HASH_MOD = const(4194301)  # a prime below 2**22: the running hash stays a small int on 32-bit boards


def _fold(h, text):
    for c in text.encode():  # bytes: each step an int, no string made per character
        h = (h * 131 + c) % _HASH_MOD
    return (h * 131 + 10) % _HASH_MOD  # a separator after each item


def digest():
    """A number of the whole declaration: its messages, fields, types,
    objects, sets and codes, and the version, in their declared order. Two
    copies of this module agree on it only when they declare the same."""
    h = _fold(0, str(PROTOCOL_VERSION))
    for table in (EVENT_FIELDS, REPLY_FIELDS, COMMAND_FIELDS, OBJECTS):
        for text in table:
            h = _fold(h, text)
    h = _fold(h, ERROR_FIELDS)
    for i in range(0, len(BOUNDS), 2):
        h = _fold(h, BOUNDS[i])
        h = _fold(h, str(BOUNDS[i + 1]))
    for i in range(0, len(SETS), 2):
        h = _fold(h, SETS[i])
        for v in SETS[i + 1]:
            h = _fold(h, str(v))
    return h


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


def error_reply(cmd, rid, code, **fields):
    """A refusal: the error's number and the fields that say why (the host words them)."""
    obj = {F_RE: cmd, F_OK: False, F_ERR: code}
    if rid is not None:
        obj[F_ID] = rid
    for key in fields:
        if fields[key] is not None:
            obj[key] = fields[key]
    return obj


def fault_event(code, **fields):
    obj = {F_EV: EV_FAULT, "code": code}
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


# ----- a request checked against its declared line -----------------------
# Each check reads the line it checks (a few short strings split, outside
# the card loop): one range per field, written once, in the declaration.

def bound(text, limits):
    """A declared bound: a number, or the name of one of BOUNDS (the board's
    own figure in `limits`; without it, the widest any board gives)."""
    c = text[0]
    if c == "-" or "0" <= c <= "9":
        return int(text)
    if limits is not None and text in limits:
        return limits[text]
    return fields_of(BOUNDS, text)


def field_type(spec, name):
    """The declared type of field `name` in a field string (its "!" kept),
    or None."""
    for item in spec.split():
        colon = item.find(":")
        if item[:colon] == name:
            return item[colon + 1:]
    return None


def _set_values(name):
    for i in range(0, len(SETS), 2):
        if SETS[i] == name:
            return SETS[i + 1]
    raise ValueError("undeclared set " + name)


def refusal(name, typ, code, limits):
    """What a refusal of field `name` (of declared type `typ`) carries:
    (err, why, field, lo, hi), lo and hi None unless it is a range."""
    if typ[-1] == "!":
        typ = typ[:-1]
    dots = typ.find("..")
    if dots > 0:
        return code, WHY_RANGE, name, bound(typ[:dots], limits), bound(typ[dots + 2:], limits)
    return code, WHY_CHOICE, name, None, None


def _value_code(v, typ, limits):
    """0 when v is a value of the declared type, else E_BAD_FIELD (the
    wrong kind of value) or E_BAD_VALUE (the right kind, not allowed);
    for an object, (code, field, type) of its first bad key."""
    dots = typ.find("..")
    if dots > 0:
        if not _is_int(v):
            return E_BAD_FIELD
        if v < bound(typ[:dots], limits) or v > bound(typ[dots + 2:], limits):
            return E_BAD_VALUE
        return 0
    c = typ[0]
    if c == "@":
        values = _set_values(typ[1:])
        if _is_int(values[0]):
            if not _is_int(v):
                return E_BAD_FIELD
        elif not isinstance(v, str):
            return E_BAD_FIELD
        return 0 if v in values else E_BAD_VALUE
    if c == "b":
        return 0 if isinstance(v, bool) else E_BAD_FIELD
    if c == "{":
        if not isinstance(v, dict):
            return E_BAD_FIELD
        spec = fields_of(OBJECTS, typ[1:-1])
        for key in v:
            inner = field_type(spec, key)
            if inner is None:
                return E_BAD_FIELD, key, None
        bad = check_fields(spec, v, limits)
        if bad:
            return bad[0], bad[2], field_type(spec, bad[2])
        return 0
    if c == "L":
        return 0 if isinstance(v, str) and v.isalpha() and v.isupper() else E_BAD_FIELD
    # s (text), u (a uid)
    if not isinstance(v, str):
        return E_BAD_FIELD
    return 0 if c == "s" or is_uid(v) else E_BAD_VALUE


def check_fields(spec, obj, limits):
    """None when obj keeps to the field string `spec` (every field there of
    its type and range, every required one present), else the refusal of
    the first that does not: (err, why, field, lo, hi)."""
    for item in spec.split():
        colon = item.find(":")
        name = item[:colon]
        typ = item[colon + 1:]
        if name not in obj:
            if typ[-1] == "!":
                return refusal(name, typ, E_BAD_FIELD, limits)
            continue
        code = _value_code(obj[name], typ[:-1] if typ[-1] == "!" else typ, limits)
        if code == 0:
            continue
        if isinstance(code, tuple):  # a bad key inside an object: that key is named
            code, inner, inner_typ = code
            if inner_typ is None:
                return code, WHY_CHOICE, inner, None, None
            return refusal(inner, inner_typ, code, limits)
        return refusal(name, typ, code, limits)
    return None


def object_problem(name, v, limits):
    """None when v is a declared object `name` (every key one it declares,
    each value of its type), else the refusal of its first bad key."""
    return check_fields("o:{" + name + "}", {"o": v}, limits)


def stored_problem(name, v, limits):
    """None when v is a usable stored object `name` (cal.json, config.json):
    a declared object whose figures can be used (a count per card above 0)."""
    bad = object_problem(name, v, limits)
    if bad is None and isinstance(v, dict) and v.get("per_card", 1) < 1:
        return (E_BAD_VALUE, WHY_RANGE, "per_card", 1, 16777216)
    return bad


def check_request(cmd, obj, limits):
    """None when request `obj` keeps to command `cmd`'s declared fields,
    else its refusal: (err, why, field, lo, hi)."""
    return check_fields(fields_of(COMMAND_FIELDS, cmd) or "", obj, limits)


def need(cmd, obj, name, limits):
    """None when request `obj` has field `name` (required here by what the
    request asks), else the refusal of a missing field of its declared type."""
    if name in obj:
        return None
    return refusal(name, field_type(fields_of(COMMAND_FIELDS, cmd), name), E_BAD_FIELD, limits)
