"""What a well-behaved shuffler may send: each event's and each reply's
fields, with their types and ranges, read from the one declaration in
firmware/protocol.py (EVENT_FIELDS, REPLY_FIELDS, ERROR_FIELDS, OBJECTS,
SETS): no second list of fields here.

`problem(msg)` returns None for a message the host can believe, else a short
reason; the link turns such a message into a protocol fault instead of
letting an absurd number (a count of a billion, a string for a count) reach
the guide. Fields not declared are ignored, as the protocol promises.
"""
from __future__ import annotations

from dataclasses import dataclass, field, make_dataclass
from typing import Any, TypeGuard

from firmware import protocol

def pairs(table: tuple[Any, ...]) -> dict[Any, Any]:
    """A flat declaration table (name, value, name, value, ...) as a dict."""
    return dict(zip(table[::2], table[1::2]))


SETS: dict[str, tuple[Any, ...]] = pairs(protocol.SETS)
# Bounds a board sets (firmware/protocol.py BOUNDS): a message is held to
# the widest any board gives; the board's own figure is in its refusals.
BOUNDS: dict[str, int] = pairs(protocol.BOUNDS)


@dataclass(frozen=True)
class Rule:
    """One declared field: kind is "int", "set", "str", "bool", "uid",
    "load" or "obj"; lo..hi for an int, the set's values, the object's
    fields."""

    kind: str
    lo: int = 0
    hi: int = 0
    values: tuple[Any, ...] = ()
    fields: "Fields | None" = None
    lo_name: str = ""  # a bound the board sets (BOUNDS), where the declaration names one
    hi_name: str = ""


@dataclass(frozen=True)
class Fields:
    """A message's (or an object's) declared fields, in order."""

    rules: dict[str, Rule]
    required: tuple[str, ...]

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(self.rules)


def parse_type(text: str) -> Rule:
    """A declared type (firmware/protocol.py) as a Rule."""
    if ".." in text:
        lo, hi = text.split("..")
        return Rule("int", _bound(lo), _bound(hi), lo_name="" if _is_number(lo) else lo,
                    hi_name="" if _is_number(hi) else hi)
    if text.startswith("@"):
        return Rule("set", values=SETS[text[1:]])
    if text.startswith("{") and text.endswith("}"):
        return Rule("obj", fields=OBJECTS[text[1:-1]])
    kinds = {"s": "str", "b": "bool", "u": "uid", "L": "load"}
    if text not in kinds:
        raise ValueError(f"firmware/protocol.py declares an unknown type {text!r}")
    return Rule(kinds[text])


def _is_number(text: str) -> bool:
    return text.lstrip("-").isdigit()


def _bound(text: str) -> int:
    if _is_number(text):
        return int(text)
    if text not in BOUNDS:
        raise ValueError(f"firmware/protocol.py names a bound it does not declare: {text!r}")
    return BOUNDS[text]


def parse_fields(spec: str) -> Fields:
    """A declared field string ("name:type! ...") as Fields."""
    rules: dict[str, Rule] = {}
    required: list[str] = []
    for item in spec.split():
        name, _, typ = item.partition(":")
        if typ.endswith("!"):
            typ = typ[:-1]
            required.append(name)
        if name in rules:
            raise ValueError(f"firmware/protocol.py declares {name!r} twice in {spec!r}")
        rules[name] = parse_type(typ)
    return Fields(rules, tuple(required))


OBJECTS: dict[str, Fields] = {}
for _name, _spec in pairs(protocol.OBJECTS).items():  # in order: an object may hold one declared before it
    OBJECTS[_name] = parse_fields(_spec)
EVENTS: dict[str, Fields] = {name: parse_fields(spec) for name, spec in pairs(protocol.EVENT_FIELDS).items()}
REPLIES: dict[str, Fields] = {name: parse_fields(spec) for name, spec in pairs(protocol.REPLY_FIELDS).items()}
COMMANDS: dict[str, Fields] = {name: parse_fields(spec) for name, spec in pairs(protocol.COMMAND_FIELDS).items()}
ERROR: Fields = parse_fields(protocol.ERROR_FIELDS)
DIGEST = protocol.digest()  # of the table this host was built with


def _is_int(v: object) -> TypeGuard[int]:
    return isinstance(v, int) and not isinstance(v, bool)


def _field_problem(key: str, v: Any, rule: Rule) -> str | None:
    kind = rule.kind
    if kind == "int":
        if not _is_int(v):
            return f"{key} is {v!r}, not a whole number"
        if not rule.lo <= v <= rule.hi:
            return f"{key} {v} is outside {rule.lo} to {rule.hi}"
        return None
    if kind == "set":
        ints = all(_is_int(x) for x in rule.values)
        if (ints and not _is_int(v)) or (not ints and not isinstance(v, str)):
            return f"{key} is {v!r}, not {'a whole number' if ints else 'a string'}"
        return None if v in rule.values else f"{key} {v!r} is not one the protocol knows"
    if kind in ("str", "uid", "load"):
        if not isinstance(v, str):
            return f"{key} is {v!r}, not a string"
        if kind == "uid" and not protocol.is_uid(v):
            return f"{key} {v!r} is not a uid (lowercase hex, at most {protocol.UID_MAX} digits)"
        if kind == "load" and (not v.isascii() or not v.isalpha() or not v.isupper()):
            return f"{key} {v!r} is not a load name"
        return None
    if kind == "bool":
        return None if isinstance(v, bool) else f"{key} is {v!r}, not true or false"
    if kind == "obj":
        if not isinstance(v, dict):
            return f"{key} is {v!r}, not an object"
        assert rule.fields is not None
        why = fields_problem(v, rule.fields)
        if why is None:
            return None
        # The object's name before what is wrong inside it: "routine.next: count is missing".
        return f"{key}.{why}" if why.split(" ", 1)[0].endswith(":") else f"{key}: {why}"
    return None


def fields_problem(msg: dict[str, Any], fields: Fields) -> str | None:
    for key in fields.required:
        if key not in msg:
            return f"{key} is missing"
    for key, rule in fields.rules.items():
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
    if protocol.F_EV in msg:
        ev = msg[protocol.F_EV]
        if not isinstance(ev, str):
            return f"ev is {ev!r}, not a string"
        fields = EVENTS.get(ev)
        if fields is None:
            return None  # an event this host does not know: ignored, as the protocol allows
        return fields_problem(msg, fields)
    cmd = msg.get(protocol.F_RE)
    if not isinstance(cmd, str):
        return f"re is {cmd!r}, not a string"
    ok = msg.get(protocol.F_OK)
    if not isinstance(ok, bool):
        return f"ok is {ok!r}, not true or false"
    if not ok:
        return fields_problem(msg, ERROR)
    return fields_problem(msg, REPLIES.get(cmd, Fields({}, ())))



# ----- typed views -------------------------------------------------------
# One frozen record per declared event and reply, made from the same table:
# its fields in order, each None where the message leaves it out, an object
# field as its own record. The host reads these, never raw keys. An event's
# record also says which event it is (`kind`, the protocol's name), so the
# guide can take it as one of its facts.

def _class_name(name: str, suffix: str) -> str:
    return "".join(part.capitalize() for part in name.split("_")) + suffix


def _record(name: str, fields: Fields, suffix: str, kind: str | None = None) -> type:
    namespace = {"kind": kind} if kind is not None else {}
    return make_dataclass(_class_name(name, suffix), [(f, Any, field(default=None)) for f in fields.names],
                          frozen=True, namespace=namespace)


OBJECT_VIEWS: dict[str, type] = {name: _record(name, f, "Object") for name, f in OBJECTS.items()}
EVENT_VIEWS: dict[str, type] = {name: _record(name, f, "", kind=name) for name, f in EVENTS.items()}
REPLY_VIEWS: dict[str, type] = {name: _record(name, f, "Reply") for name, f in REPLIES.items()}

# What a record is, for annotations: an event's (its class one of
# EVENT_VIEWS), a reply's (REPLY_VIEWS) or an object's (OBJECT_VIEWS).
Event = Any
Reply = Any


def _view(cls: type, msg: dict[str, Any], fields: Fields) -> Any:
    values: dict[str, Any] = {}
    for key, rule in fields.rules.items():
        if key not in msg:
            continue
        v = msg[key]
        if rule.kind == "obj" and isinstance(v, dict) and rule.fields is not None:
            obj_name = next(n for n, f in OBJECTS.items() if f is rule.fields)
            v = _view(OBJECT_VIEWS[obj_name], v, rule.fields)
        values[key] = v
    return cls(**values)


def event_view(msg: dict[str, Any]) -> Any:
    """The record of a declared event (its class: EVENT_VIEWS[ev], e.g. Done(k, n, left, right))."""
    ev = msg[protocol.F_EV]
    return _view(EVENT_VIEWS[ev], msg, EVENTS[ev])


def reply_view(msg: dict[str, Any]) -> Any:
    """The record of a reply that said yes (its class: REPLY_VIEWS[re], e.g. HelloReply)."""
    cmd = msg[protocol.F_RE]
    return _view(REPLY_VIEWS[cmd], msg, REPLIES[cmd])


def hello_view(msg: dict[str, Any]) -> Any:
    """The record of a hello reply or event (a HelloReply): fw, proto, board, capacity, cal, state, uid, digest."""
    return _view(REPLY_VIEWS[protocol.CMD_HELLO], msg, REPLIES[protocol.CMD_HELLO])


def reply_record(cmd: str, msg: dict[str, Any]) -> Any:
    """The record of `cmd`'s reply from its fields alone (a reply kept without its `re`)."""
    return _view(REPLY_VIEWS[cmd], msg, REPLIES[cmd])


def object_record(name: str, msg: dict[str, Any]) -> Any:
    """The record of a declared object (its class: OBJECT_VIEWS[name], e.g. CalObject)."""
    return _view(OBJECT_VIEWS[name], msg, OBJECTS[name])


def is_event(record: Any, ev: str) -> bool:
    """Whether `record` is the record of event `ev`."""
    return isinstance(record, EVENT_VIEWS[ev])


def make_event(ev: str, **fields: Any) -> Any:
    """The record of event `ev` with these fields, for what the host
    learns another way (a status that shows a pass paused is a jam's
    fault); the fields must keep to the declaration, as a device's must."""
    msg = {protocol.F_EV: ev, **{k: v for k, v in fields.items() if v is not None}}
    why = problem(msg)
    if why is not None:
        raise ValueError(f"not a {ev} event: {why}")
    return event_view(msg)


def make_reply(cmd: str, **fields: Any) -> Any:
    """The record of a reply to `cmd` with these fields (an object field as a
    dict), held to the declaration as a device's reply is."""
    msg = {protocol.F_RE: cmd, protocol.F_OK: True, **{k: v for k, v in fields.items() if v is not None}}
    why = problem(msg)
    if why is not None:
        raise ValueError(f"not a reply to {cmd}: {why}")
    return reply_view(msg)
