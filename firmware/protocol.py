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
# Each version's changes: docs/protocol.md, *Versions*.
PROTOCOL_VERSION = 10
FIRMWARE_VERSION = "0.5.0"
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
# EVENTS: every event's name, from the declaration (EVENT_FIELDS below; host only).

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
# exact repair with parent: the stack in hand was made by no split round
# (radix, the pipelined routine, the split's first round, no routine held).
WHY_NO_PARENT = 27
WHY_WHOLE_PACK = 28  # the stack in hand was split off the whole pack: dealing its parent again is a fresh routine
WHY_CODES = (WHY_PAUSED, WHY_EXACT_RUNNING, WHY_NOTHING_TO_RESUME, WHY_NO_PASS, WHY_RANGE, WHY_CHOICE,
             WHY_NO_ANSWER, WHY_IMPLAUSIBLE, WHY_BLOCKED, WHY_MISSED, WHY_ONE_SHORT, WHY_MISSING,
             WHY_NOT_THE_LOAD, WHY_NO_ROUTINE, WHY_TARE_FIRST, WHY_FALLS, WHY_GROWS_LITTLE, WHY_NO_TOUCH,
             WHY_NO_CARD, WHY_METER, WHY_LONG_BLOCK, WHY_EARLY_BLOCK, WHY_TRAY_HOLDS, WHY_SELF_TEST,
             WHY_MISCOUNTED, WHY_NO_PART, WHY_NO_PARENT, WHY_WHOLE_PACK)
# The start-up check's findings (the bits of a fault's `found`).
SELF_STACK_NO_ANSWER = 1
SELF_STACK_RANGE = 2
SELF_EXIT_BLOCKED = 4
SELF_BATTERY = 8
SELF_TOUCH = 16

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
    # `parent`: the stack that split round `round` split, the one `part` was
    # cut from, is dealt again from that round (its set of cards was wrong).
    EV_EXACT_REPAIR, "part:L! code:@lost! round:1..1000! rounds:1..1000! after:b n:0..10000 expected:0..10000"
        " parent:b",
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
    CMD_EXACT, "n:2..exact_max routine:@routine held:b cancel:b repair:b parent:b",
    CMD_COUNT, "",
    CMD_READ, "what:@read",
    CMD_FEED, "n:1..capacity! side:@side!",
)
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


def error_reply(cmd, rid, code, **fields):
    """A refusal: the error's number and the fields that say why (the host words them)."""
    obj = {F_RE: cmd, F_OK: False, F_ERR: code}
    if rid is not None:
        obj[F_ID] = rid
    for key in fields:
        if fields[key] is not None:
            obj[key] = fields[key]
    return obj


def is_int(v):
    # bool is an int subclass under CPython; the protocol wants real integers.
    return isinstance(v, int) and not isinstance(v, bool)


# ----- host only ------------------------------------------------------------
# Names only the host reads: firmware/build.py leaves everything from the
# line above to the end out of the board's image (HOST_ONLY_MARK), so they
# cost the board nothing; the host imports this module whole.
F_DIGEST = "digest"  # hello: the digest() of the declaration table the device was built with
F_UID = "uid"  # hello: the board's stable identity, hex of machine.unique_id()
# Faults that only refuse a pass: nothing moved, nothing to clear.
REFUSALS = (FAULT_EMPTY, FAULT_OVER_CAPACITY, FAULT_NOT_CALIBRATED, FAULT_BATTERY_LOW)
# The start-up check's findings, every bit of a fault's `found`.
SELF_BITS = (SELF_STACK_NO_ANSWER, SELF_STACK_RANGE, SELF_EXIT_BLOCKED, SELF_BATTERY, SELF_TOUCH)
# Waits the firmware bounds by a config value: each must end well inside
# the board's watchdog timeout (at most half of it, the bound `wait_max`),
# so a jam is reported and never turned into a watchdog reset
# (tests/firmware/test_fw_hardware.py holds every board's figures to it).
WAIT_KEYS = ("card_timeout_ms", "block_max_ms", "brake_ms", "debounce_ms")
EVENTS = tuple(EVENT_FIELDS[i] for i in range(0, len(EVENT_FIELDS), 2))
