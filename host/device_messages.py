"""What a well-behaved shuffler may send: each event's and each reply's
fields, with their types and ranges, from docs/protocol.md (the names come
from firmware/protocol.py, defined once there).

`problem(msg)` returns None for a message the host can believe, else a short
reason; the link turns such a message into a protocol fault instead of
letting an absurd number (a count of a billion, a string for a count) reach
the guide. Fields not listed are ignored, as the protocol promises.
"""
from __future__ import annotations

from typing import Any, TypeGuard

from firmware import protocol as P

# Generous bounds: far above any real tray or routine, far below nonsense.
MAX_COUNT = 10_000  # cards in a tray, a pass or a pile
MAX_CAPACITY = 10_000
MAX_MV = 100_000
MAX_EXACT_ROUNDS = 1000
MAX_UPTIME_MS = 2 ** 63
MAX_RAW = 2 ** 24  # an HX711 word, either sign
MAX_CARD_MS = 60_000

INT = "int"
STR = "str"
BOOL = "bool"
DICT = "dict"

COUNT = (INT, 0, MAX_COUNT)
PASS_FIELDS = {"k": COUNT, "n": COUNT, "left": COUNT, "right": COUNT}
HELLO_FIELDS: dict[str, tuple[Any, ...]] = {
    "fw": (STR,), "proto": (INT, 0, 1_000_000), "board": (STR,), "capacity": (INT, 1, MAX_CAPACITY),
    "cal": (DICT,), "state": (STR, P.STATES), P.F_UID: (STR, "uid"),
}
REQUIRED_HELLO = ("proto", "capacity")

EVENTS: dict[str, tuple[dict[str, tuple[Any, ...]], tuple[str, ...]]] = {
    P.EV_HELLO: (HELLO_FIELDS, REQUIRED_HELLO),
    P.EV_TOUCH: ({"state": (STR, P.STATES)}, ()),
    P.EV_LOADED: ({"n": COUNT}, ("n",)),
    P.EV_PROGRESS: (PASS_FIELDS, ("k", "n")),
    P.EV_DONE: (PASS_FIELDS, ("k", "n")),
    P.EV_ABORTED: (PASS_FIELDS, ()),
    P.EV_FAULT: ({"code": (INT, tuple(P.FAULTS)), "name": (STR,), "msg": (STR,), "latched": (BOOL,),
                  "resume": (BOOL,), **PASS_FIELDS, "capacity": (INT, 1, MAX_CAPACITY), "mv": (INT, 0, MAX_MV),
                  "need_mv": (INT, 0, MAX_MV), "detail": (STR,), "part": (STR, P.PARTS)}, ("code",)),
    P.EV_WARN: ({"code": (INT, 0, 1000), "name": (STR,), "msg": (STR,), "mv": (INT, 0, MAX_MV)}, ()),
    P.EV_CLEARED: ({}, ()),
    P.EV_STOPPED: ({"reason": (STR,)}, ()),
    P.EV_EXACT_NEXT: ({"round": (INT, 1, MAX_EXACT_ROUNDS), "rounds": (INT, 1, MAX_EXACT_ROUNDS), "load": (STR, "load"),
                       "count": COUNT}, ("round", "load", "count")),
    P.EV_EXACT_ROUND: ({"round": (INT, 1, MAX_EXACT_ROUNDS), "rounds": (INT, 1, MAX_EXACT_ROUNDS)}, ("round",)),
    P.EV_EXACT_DONE: ({"rounds": (INT, 1, MAX_EXACT_ROUNDS)}, ()),
    P.EV_EXACT_LOST: ({"code": (INT, tuple(P.LOST)), "name": (STR,), "msg": (STR,), "round": (INT, 0, MAX_EXACT_ROUNDS),
                       "load": (STR,), "n": COUNT, "expected": COUNT}, ()),
}

NEXT = (DICT, {"round": (INT, 1, MAX_EXACT_ROUNDS), "rounds": (INT, 1, MAX_EXACT_ROUNDS), "load": (STR, "load"),
               "count": COUNT})
# The stored calibration: every key optional (a fresh board has none).
CAL = (DICT, {"tare": (INT, -MAX_RAW, MAX_RAW), "per_card": (INT, -MAX_RAW, MAX_RAW),
              "touch_baseline": (INT, 0, 1_000_000), "touch_seen": (INT, (0, 1)), "beam_ms": (INT, 1, MAX_CARD_MS),
              "flip": (INT, (0, 1)), "mv_trim": (INT, P.TRIM_MIN, P.TRIM_MAX)}, ())
CONFIG = (DICT, {key: (INT, lo, hi) for key, (lo, hi) in P.CONFIG_LIMITS.items()}, ())
READ_FIELDS: dict[str, tuple[Any, ...]] = {
    "raw": (INT, -MAX_RAW, MAX_RAW), "spread": (INT, 0, 2 * MAX_RAW), "n": (INT, -MAX_COUNT, MAX_COUNT),
    "touch": (INT, -1, 1_000_000), "touched": (BOOL,), "touches": (INT, 0, 2 ** 31), "beam": (BOOL,),
    "mv": (INT, 0, MAX_MV), "card_ms": (INT, 0, MAX_CARD_MS), "feed_ms": (INT, 0, MAX_CARD_MS), "flip": (INT, (0, 1)),
    "cal": CAL,
}
REPLIES: dict[str, tuple[dict[str, tuple[Any, ...]], tuple[str, ...]]] = {
    P.CMD_HELLO: (HELLO_FIELDS, REQUIRED_HELLO),
    P.CMD_STATUS: ({"state": (STR, P.STATES), "fault": (INT, (0, *P.FAULTS)), "fault_name": (STR,), **PASS_FIELDS,
                    "mv": (INT, 0, MAX_MV), "uptime_ms": (INT, 0, MAX_UPTIME_MS), "mode": (STR, (P.MODE_EXACT,
                                                                                                   P.MODE_RANDOM)),
                    "next": NEXT}, ("state",)),
    P.CMD_START: ({"n": COUNT}, ()),
    P.CMD_RESUME: (PASS_FIELDS, ()),
    P.CMD_CLEAR: ({"state": (STR, P.STATES)}, ()),
    P.CMD_COUNT: ({"n": COUNT, "capacity": (INT, 1, MAX_CAPACITY)}, ("n",)),
    P.CMD_READ: (READ_FIELDS, ()),
    P.CMD_FEED: ({"n": COUNT}, ("n",)),
    P.CMD_CALIBRATE: ({"cal": CAL}, ("cal",)),
    P.CMD_CONFIG: ({"config": CONFIG}, ("config",)),
    P.CMD_EXACT: ({"n": COUNT, "loads": (INT, 1, 1000), "uneven": (BOOL,), "round": (INT, 1, MAX_EXACT_ROUNDS),
                   "rounds": (INT, 1, MAX_EXACT_ROUNDS), "load": (STR, "load"), "count": COUNT,
                   "mode": (STR, (P.MODE_EXACT, P.MODE_RANDOM)), "dealt": COUNT, "routine": (STR, P.EXACT_ROUTINES)},
                  ()),
}
ERROR_FIELDS: dict[str, tuple[Any, ...]] = {"err": (INT, 0, 1000), "name": (STR,), "msg": (STR,), "detail": (STR,)}


def _is_int(v: object) -> TypeGuard[int]:
    return isinstance(v, int) and not isinstance(v, bool)


def _field_problem(key: str, v: Any, rule: tuple[Any, ...]) -> str | None:
    kind = rule[0]
    if kind == INT:
        if not _is_int(v):
            return f"{key} is {v!r}, not a whole number"
        if len(rule) == 2 and v not in rule[1]:
            return f"{key} {v} is not one the protocol knows"
        if len(rule) == 3 and not rule[1] <= v <= rule[2]:
            return f"{key} {v} is outside {rule[1]} to {rule[2]}"
        return None
    if kind == STR:
        if not isinstance(v, str):
            return f"{key} is {v!r}, not a string"
        if len(rule) == 2:
            if rule[1] == "uid":
                if not P.is_uid(v):
                    return f"{key} {v!r} is not a uid (lowercase hex, at most {P.UID_MAX} digits)"
            elif rule[1] == "load":
                if not v.isascii() or not v.isalpha() or not v.isupper():
                    return f"{key} {v!r} is not a load name"
            elif v not in rule[1]:
                return f"{key} {v!r} is not one the protocol knows"
        return None
    if kind == BOOL:
        return None if isinstance(v, bool) else f"{key} is {v!r}, not true or false"
    if kind == DICT:
        if not isinstance(v, dict):
            return f"{key} is {v!r}, not an object"
        if len(rule) >= 2:  # its own fields; all required unless a third entry names them
            return _fields_problem(v, rule[1], rule[2] if len(rule) == 3 else tuple(rule[1]))
        return None
    return None


def _fields_problem(msg: dict[str, Any], rules: dict[str, tuple[Any, ...]], required: tuple[str, ...]) -> str | None:
    for key in required:
        if key not in msg:
            return f"{key} is missing"
    for key, rule in rules.items():
        if key in msg:
            why = _field_problem(key, msg[key], rule)
            if why:
                return why
    # Counts of one pass that cannot both be true.
    k, n = msg.get("k"), msg.get("n")
    if _is_int(k) and _is_int(n) and k > n:
        return f"k {k} is more than n {n}"
    left, right = msg.get("left"), msg.get("right")
    if _is_int(k) and _is_int(left) and _is_int(right) and left + right != k:
        return f"left {left} and right {right} do not add up to k {k}"
    return None


def problem(msg: dict[str, Any]) -> str | None:
    """None when `msg` (a parsed device line) keeps to the protocol, else why not."""
    if P.F_EV in msg:
        ev = msg[P.F_EV]
        if not isinstance(ev, str):
            return f"ev is {ev!r}, not a string"
        entry = EVENTS.get(ev)
        if entry is None:
            return None  # an event this host does not know: ignored, as the protocol allows
        return _fields_problem(msg, *entry)
    cmd = msg.get(P.F_RE)
    if not isinstance(cmd, str):
        return f"re is {cmd!r}, not a string"
    ok = msg.get(P.F_OK)
    if not isinstance(ok, bool):
        return f"ok is {ok!r}, not true or false"
    if not ok:
        return _fields_problem(msg, ERROR_FIELDS, ("err",))
    rules, required = REPLIES.get(cmd, ({}, ()))
    return _fields_problem(msg, rules, required)
