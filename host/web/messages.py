"""What a page may send, checked before anything acts on it.

Every message is one JSON object with an "op". The fields each op takes,
with their types and limits, are data below; anything else (not JSON, not
an object, an unknown op, a missing or extra field, a wrong type, a number
out of range, a name too long) is refused with one line and changes
nothing. The server answers the refusal to the page that sent it.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from shuffling.limits import MAX_PACK_CARDS

MAX_BYTES = 2048
MAX_NAME = 40
MAX_STEP = 10**9

PILES = ("left", "right", "tray", "throat", "removed")

# op -> {field: (kind, required)}; kinds: step (a step number), cards (1..MAX_PACK_CARDS),
# name (a stack's name), pile, flag, fault (a fault spec), ms (touch length)
FIELDS: dict[str, dict[str, tuple[str, bool]]] = {
    "done": {"step": ("step", True)},
    "close": {},
    "do_step": {"step": ("step", True)},  # carry out step N on the virtual table
    "put": {"stack": ("name", True), "n": ("cards", False), "under": ("flag", False)},
    "touch": {"ms": ("ms", False)},
    "lift": {"pile": ("pile", True), "onto": ("name", True), "under": ("flag", False), "n": ("cards", False)},
    "stack": {"what": ("name", True), "onto": ("name", True), "under": ("flag", False)},
    "cut": {"stack": ("name", True), "n": ("cards", False)},
    "move": {"n": ("cards", True), "from": ("name", True), "to": ("name", True),
             "from_bottom": ("flag", False), "to_bottom": ("flag", False)},
    "fault": {"spec": ("fault", True)},
    "clear": {},
}
TABLE_OPS = frozenset(FIELDS) - {"done", "close"}
# Every table control names the step it was pressed at, so the server can
# refuse a press meant for a step that has gone and a second press of the
# same control at the same step (a double click, a held key).
for _op in TABLE_OPS:
    FIELDS[_op] = {"step": ("step", True), **FIELDS[_op]}
del _op


class Refused(ValueError):
    """A message the page must not have sent; the text says why."""


@dataclass(frozen=True)
class Message:
    op: str
    args: dict[str, Any]


def _int(value: Any, lo: int, hi: int, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise Refused(f"{what} must be a whole number")
    if not lo <= value <= hi:
        raise Refused(f"{what} must be between {lo} and {hi}")
    return value


def _check(kind: str, value: Any, name: str) -> Any:
    if kind == "step":
        return _int(value, 1, MAX_STEP, name)
    if kind == "cards":
        return _int(value, 1, MAX_PACK_CARDS, name)
    if kind == "ms":
        return _int(value, 1, 10000, name)
    if kind == "flag":
        if not isinstance(value, bool):
            raise Refused(f"{name} must be true or false")
        return value
    if kind == "pile":
        if value not in PILES:
            raise Refused(f"{name} must be one of {', '.join(PILES)}")
        return value
    if kind in ("name", "fault"):
        if not isinstance(value, str) or not value.strip():
            raise Refused(f"{name} must be a name")
        if len(value) > MAX_NAME or not value.isprintable():
            raise Refused(f"{name} must be at most {MAX_NAME} printable characters")
        if kind == "name" and value.startswith("_"):
            raise Refused(f"{name}: names starting with _ are the hands' own")
        return value.strip()
    raise AssertionError(kind)


def parse(raw: str | bytes) -> Message:
    """The message, or Refused with one line."""
    if isinstance(raw, bytes):
        try:
            raw = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise Refused("a message must be UTF-8 JSON") from None
    if len(raw) > MAX_BYTES:
        raise Refused(f"a message must be at most {MAX_BYTES} characters")
    try:
        data = json.loads(raw, parse_constant=_no_constant)
    except (ValueError, RecursionError):
        raise Refused("a message must be one JSON object") from None
    if not isinstance(data, dict):
        raise Refused("a message must be one JSON object")
    op = data.get("op")
    if not isinstance(op, str) or op not in FIELDS:
        raise Refused(f"unknown op {str(op)[:MAX_NAME]!r}")
    spec = FIELDS[op]
    extra = sorted(set(data) - set(spec) - {"op"})
    if extra:
        raise Refused(f"{op} takes no {str(extra[0])[:MAX_NAME]!r}")
    args: dict[str, Any] = {}
    for name, (kind, required) in spec.items():
        if name not in data or data[name] is None:
            if required:
                raise Refused(f"{op} needs {name}")
            continue
        args[name] = _check(kind, data[name], name)
    return Message(op, args)


def _no_constant(name: str) -> float:
    raise ValueError(f"{name} is not JSON")
