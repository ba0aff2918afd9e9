"""Reading a board for the bring-up and the checks, over the link: what it
answers at one moment (host/check.py's Snapshot), a feed of a few cards to
its end, and the events between."""
from __future__ import annotations

import time
from typing import Any, Iterable

from firmware import protocol
from host import device_messages
from host.check import Snapshot
from host.device_link import BadMessage, Garbage, Link, LinkError

FEED_WAIT_S = 10.0  # a real board: a few cards, or the longest jam wait and the count after it


class BoardRestarted(LinkError):
    """The board started again (its hello event came): a reset, or its power went."""


def is_hello(item: Any) -> bool:
    return isinstance(item, dict) and item.get(protocol.F_EV) == protocol.EV_HELLO


def snapshot(link: Link, feed: Any = None, touches_before: int | None = None) -> Snapshot:
    """The board's answers now, as typed records; `feed`: a feed's end (feed() below)."""
    hello = device_messages.hello_view(link.request(protocol.CMD_HELLO))
    status = device_messages.reply_view(link.request(protocol.CMD_STATUS))
    sensors = device_messages.reply_view(link.request(protocol.CMD_READ))
    cal = device_messages.reply_view(link.request(protocol.CMD_READ, what="cal")).cal
    return Snapshot(hello, status, sensors, cal if cal is not None else device_messages.object_record("cal", {}),
                    feed, touches_before)


def wait_event(link: Link, names: Iterable[str], seconds: float) -> dict[str, Any] | None:
    """The next event of one of `names` within `seconds` (a real board's
    seconds, longer on a slow device), or None; garbage is skipped, a message
    that breaks the protocol raises its fault."""
    wanted = set(names)
    deadline = time.monotonic() + link.wait_s(seconds)
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            return None
        item = link.next_event(left)
        if item is None or isinstance(item, Garbage):
            continue
        if isinstance(item, BadMessage):
            raise item.fault(link.name)
        if item.get(protocol.F_EV) in wanted:
            return item


def feed(link: Link, n: int, side: str) -> Any:
    """Feed n cards to `side` and wait for the pass's end: its Done or
    Fault event record (None: neither came)."""
    if any(is_hello(item) for item in link.drain()):
        raise BoardRestarted(f"{link.name} restarted")
    link.request(protocol.CMD_FEED, n=n, side=side)
    end = wait_event(link, (protocol.EV_DONE, protocol.EV_FAULT, protocol.EV_HELLO), FEED_WAIT_S)
    if is_hello(end):
        raise BoardRestarted(f"{link.name} restarted during the feed")
    return None if end is None else device_messages.event_view(end)
