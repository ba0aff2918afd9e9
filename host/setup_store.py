"""What the bring-up's steps held on the board, stored in one write when
every step passed, else dropped: the board's files are as they were
(`calibrate` with hold, then store or drop; docs/protocol.md)."""
from __future__ import annotations

from firmware import protocol as wire
from host import device_messages
from host.device_link import LinkError
from host.setup_records import Stored, Unstored
from host.setup_session import Session


def keep(s: Session, failed: list[str]) -> None:
    """Store what the steps held, in one write, when no step failed
    (`failed`: the parts' names); else go back to what the board had stored."""
    if failed:
        s.req(wire.CMD_CALIBRATE, what=wire.CAL_DROP)
        s.tell(Unstored(tuple(failed)))
        return
    s.req(wire.CMD_CALIBRATE, what=wire.CAL_STORE)
    config = bool(int(device_messages.hello_view(s.hello).bad or 0) & wire.BAD_CONFIG)
    if config:
        s.req(wire.CMD_CONFIG, set={})  # the defaults it runs on, stored over the unusable file
    s.tell(Stored(config))


def drop(s: Session) -> None:
    """What the steps held on the board dropped, if it still answers (a
    reset dropped it already)."""
    if s.link is None or s.link.closed:
        return
    try:
        s.link.request(wire.CMD_CALIBRATE, timeout=s.link.wait_s(1.0), what=wire.CAL_DROP)
    except LinkError:
        pass
