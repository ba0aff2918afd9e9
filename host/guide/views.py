"""Typed views of what the shuffler says, for the guide.

The link has already checked every message against the protocol's fields,
types and ranges (host/device_messages.py); here each event and each reply
the guide reads becomes a small frozen record, so the guide reads fields,
never raw keys. A reply missing a field the guide needs is a protocol fault
(ProtocolFault), said in one line, never a KeyError.
"""
from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

from firmware import protocol
from host import device_words
from host.device_link import ProtocolFault


def _need(msg: dict[str, Any], what: str, keys: tuple[str, ...], device: str) -> None:
    missing = [k for k in keys if k not in msg]
    if missing:
        raise ProtocolFault(f"{device} broke the protocol: its {what} has no {', '.join(missing)}")


@dataclass(frozen=True)
class Event:
    """One event from the device: `kind` is the protocol's event name."""

    kind: str
    k: int | None = None
    n: int | None = None
    left: int | None = None
    right: int | None = None
    code: int | None = None
    latched: bool | None = None
    capacity: int | None = None
    mv: int | None = None
    part: str = ""  # a sensor fault: which part (firmware/protocol.py PARTS)
    state: str = ""
    uid: str | None = None
    round: int | None = None
    rounds: int | None = None
    load: str = ""
    count: int | None = None
    expected: int | None = None

    @property
    def name(self) -> str:
        """The short name of a fault's, a warning's or a lost exactness's code."""
        if self.kind == protocol.EV_EXACT_LOST:
            return device_words.lost_name(self.code)
        return device_words.fault_name(self.code) if self.code is not None else ""

    @property
    def words(self) -> str:
        """The host's sentence for that code (the device sends the number only)."""
        if self.kind == protocol.EV_EXACT_LOST:
            return device_words.lost_words(self.code)
        return device_words.fault_words(self.code) if self.code is not None else ""

    @property
    def refusal(self) -> bool:
        """A fault that only refused a pass: nothing moved, nothing latched."""
        return self.kind == protocol.EV_FAULT and (self.latched is False or (self.code in protocol.REFUSALS and self.k is None))


# The declared fields (firmware/protocol.py EVENT_FIELDS) this view keeps.
_EVENT_KEYS = tuple(f.name for f in fields(Event) if f.name != "kind")


def event(msg: dict[str, Any]) -> Event:
    kept = {k: msg[k] for k in _EVENT_KEYS if k in msg}
    return Event(kind=str(msg.get(protocol.F_EV)), **kept)


@dataclass(frozen=True)
class Next:
    """The load an exact routine expects next."""

    round: int
    load: str
    count: int
    rounds: int | None = None


@dataclass(frozen=True)
class Status:
    state: str
    fault: int = 0
    k: int | None = None
    n: int | None = None
    left: int | None = None
    right: int | None = None
    mode: str = protocol.MODE_RANDOM
    next: Next | None = None

    @property
    def fault_name(self) -> str:
        """The latched fault's short name ("" with none latched)."""
        return device_words.fault_name(self.fault) if self.fault else ""


def status(msg: dict[str, Any], device: str) -> Status:
    _need(msg, "status", ("state",), device)
    nxt = msg.get("next")
    view = None
    if isinstance(nxt, dict):
        _need(nxt, "status's next load", ("round", "load", "count"), device)
        view = Next(nxt["round"], nxt["load"], nxt["count"], nxt.get("rounds"))
    return Status(state=msg["state"], fault=msg.get("fault", 0),
                  k=msg.get("k"), n=msg.get("n"), left=msg.get("left"), right=msg.get("right"),
                  mode=msg.get("mode", protocol.MODE_RANDOM), next=view)


@dataclass(frozen=True)
class ExactBegun:
    n: int
    loads: int
    uneven: bool
    rounds: int
    next: Next
    dealt: int | None = None  # held: cards of the next load already out (its pass stopped part way)
    routine: str = protocol.ROUTINE_RADIX  # which exact routine (a device that does not say runs whole-pack radix)


def exact_begun(msg: dict[str, Any], device: str) -> ExactBegun:
    _need(msg, "reply to exact", ("n", "loads", "round", "rounds", "load", "count"), device)
    return ExactBegun(n=msg["n"], loads=msg["loads"], uneven=bool(msg.get("uneven", False)), rounds=msg["rounds"],
                      next=Next(msg["round"], msg["load"], msg["count"], msg["rounds"]), dealt=msg.get("dealt"),
                      routine=msg.get("routine", protocol.ROUTINE_RADIX))


def count(msg: dict[str, Any], device: str) -> int:
    _need(msg, "reply to count", ("n",), device)
    return int(msg["n"])
