"""The shuffler as the guide sees it: replies and events as the typed
records generated from the protocol's declaration (host/device_messages.py),
and the port reopened when it goes away.

Everything the device sends is checked against the declaration before it
is read (host/device_link.py), its required fields included; lines that
are not protocol at all (a boot banner, the firmware's own debug output)
are counted here and never shown to the person.
"""
from __future__ import annotations

import time
from typing import Any, Callable

from firmware import protocol
from host import device_messages
from host.device_messages import Event, Reply
from host.guide import stop_words
from host.guide.stop_reasons import PROTOCOL, TABLE, VERSION, Changed, NotBack, OtherFirmware, OtherShuffler
from host.device_link import (HANDSHAKE_S, REQUEST_TIMEOUT_S, BadMessage, DeviceError, Garbage, Link, LinkClosed, LinkError,
                       LinkTimeout, ProtocolFault, ProtocolMismatch)

REOPEN_PAUSE_S = 0.5


class Stop(Exception):
    """The device cannot be worked with: its reason (`record`, host/guide/stop_reasons.py
    or the port's record), said in its one line (host/guide/stop_words.py)."""

    def __init__(self, what: Any) -> None:
        self.record = None if isinstance(what, str) else what
        super().__init__(what if isinstance(what, str) else stop_words.words(what))


class Device:
    def __init__(self, link: Link, reopen: Callable[[], Link] | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.link = link
        self.reopen = reopen
        self.clock = clock
        self.name = link.name
        hello = device_messages.hello_view(link.hello) if link.hello else None
        self.uid = hello.uid if hello else None
        # The firmware the session began with: a hello with another is a reflash.
        self.firmware = (hello.fw, hello.proto, hello.digest) if hello else None
        self.capacity = (hello.capacity if hello else 0) or None
        self.garbage = 0  # lines that were not protocol: never shown, said only when they stop the guide

    def wait_s(self, seconds: float) -> float:
        return self.link.wait_s(seconds)

    # -- events --------------------------------------------------------------------
    def next_event(self, timeout: float) -> Event | None | str:
        """The next event, None after `timeout`, or "garbage" for a line that
        is not protocol. LinkClosed when the port has gone."""
        ev = self.link.next_event(timeout)
        if ev is None:
            return None
        if isinstance(ev, Garbage):
            self.garbage += 1
            return "garbage"
        if isinstance(ev, BadMessage):
            raise ev.fault(self.name)
        return device_messages.event_view(ev)

    def drain(self) -> None:
        """Forget what the device said before the routine (a fault left over is read from its status)."""
        for ev in self.link.drain():
            if isinstance(ev, BadMessage):
                raise ev.fault(self.name)

    # -- requests ------------------------------------------------------------------
    def status(self, timeout: float | None = None) -> Reply:
        """The status reply's record (StatusReply: state, fault, mode, k, n, left, right, mv, next)."""
        return device_messages.reply_view(self.link.status(timeout=timeout))

    def count(self) -> int | None:
        """The tray's count, or None when the device cannot count now (a pass
        has begun, a fault is latched, no calibration). LinkClosed passes."""
        try:
            return int(device_messages.reply_view(self.link.request(protocol.CMD_COUNT)).n)
        except (DeviceError, LinkTimeout):
            return None

    def waiting(self) -> int:
        """How many events have come in and wait to be read."""
        return self.link.events.qsize()

    def events_waiting(self) -> bool:
        """Events came in that are older than a reply just read: they are looked at first."""
        return not self.link.events.empty()

    def clear(self) -> bool:
        """Clear a latched fault; False when the device did not answer."""
        try:
            self.link.request(protocol.CMD_CLEAR)
        except DeviceError:
            pass  # nothing latched any more
        except LinkTimeout:
            return False
        return True

    def exact_begin(self, cards: int, kind: str | None = None) -> Reply:
        """The routine the device begins for `cards` (a RoutineObject: n, loads,
        uneven, kind, rounds, next): `kind` (radix or split), or its own choice."""
        fields = {"routine": kind} if kind is not None else {}
        routine = self._routine(self.link.request(protocol.CMD_EXACT, n=cards, **fields))
        if routine is None:
            raise ProtocolFault(f"{self.name} broke the protocol: it began no exact routine, yet said yes")
        return routine

    def start(self) -> bool:
        """Start a pass of what the tray holds (with an empty tray, after an
        exact pass stopped at its last card: that pass is whole). False when
        refused (its fault event follows and says why)."""
        try:
            self.link.request(protocol.CMD_START)
        except DeviceError:
            return False
        except LinkTimeout:
            pass  # unanswered: the status will tell
        return True

    def exact_held(self) -> Reply | None:
        """The exact routine the device holds (None: none), from the load it
        expects next, with how many of that load's cards are out (dealt)."""
        return self._routine(self.link.request(protocol.CMD_EXACT, held=True))

    def _routine(self, msg: dict[str, object]) -> Reply | None:
        """The routine of a reply to exact: None in random mode; in exact
        mode it must come with its routine (the declaration makes that
        object's own fields required)."""
        reply = device_messages.reply_view(msg)
        if reply.mode != protocol.MODE_EXACT:
            return None
        if reply.routine is None:
            raise ProtocolFault(f"{self.name} broke the protocol: it says exact mode and gives no routine")
        return reply.routine

    def exact_repair(self, parent: bool = False) -> Reply:
        """The part in hand is dealt again from fresh codes (cards of its load
        moved by hand): the routine as the device now runs it. DeviceError when
        the load in hand is no part of the split. parent: the stack it was
        cut from is dealt again from the split round that cut it instead (a
        wrong set); DeviceError where there is none or it is the whole pack."""
        fields = {"parent": True} if parent else {}
        routine = self._routine(self.link.request(protocol.CMD_EXACT, repair=True, **fields))
        if routine is None:
            raise ProtocolFault(f"{self.name} broke the protocol: it dealt a part again and left exact mode")
        return routine

    def exact_cancel(self) -> None:
        self.link.request(protocol.CMD_EXACT, cancel=True)

    def keep_awake(self) -> None:
        """A line now and then keeps the board out of light sleep, in which a
        board loses what the host sends."""
        try:
            self.link.status()
        except LinkTimeout:
            pass

    # -- the port coming back ------------------------------------------------------------
    def reconnect(self, within_s: float, why: str) -> Reply:
        """Wait up to within_s for the same shuffler (its uid) to answer on the
        port again; its status. Stop when it does not, or another answers."""
        self.link.close()
        deadline = self.clock() + within_s
        last = why
        while self.reopen is not None and self.clock() < deadline:
            try:
                link = self.reopen()
            except LinkError as exc:
                last = str(exc)
                time.sleep(min(REOPEN_PAUSE_S, max(0.0, deadline - self.clock())))
                continue
            try:
                return self._greet(link, deadline)
            except ProtocolMismatch:  # it came back speaking another protocol: reflashed
                link.close()
                got = link.offered or {}
                self.check_firmware(got.get("fw"), got.get("proto"), got.get(protocol.F_DIGEST), partial=True)
                raise Stop(OtherFirmware(self.name)) from None
            except ProtocolFault as exc:  # something answers, and not as a shuffler does
                link.close()
                raise Stop(exc.record if exc.record is not None else str(exc)) from None
            except Stop:
                link.close()
                raise
            except LinkError as exc:
                link.close()
                last = str(exc)
                time.sleep(min(REOPEN_PAUSE_S, max(0.0, deadline - self.clock())))
        raise Stop(NotBack(within_s, last))

    def _greet(self, link: Link, deadline: float) -> Reply:
        left = max(0.2, deadline - self.clock())
        hello = link.handshake(timeout=min(link.wait_s(HANDSHAKE_S), left))
        self.check_uid(hello.get(protocol.F_UID))
        self.check_firmware(hello.get("fw"), hello.get("proto"), hello.get(protocol.F_DIGEST))
        st = device_messages.reply_view(link.status(timeout=min(link.wait_s(REQUEST_TIMEOUT_S),
                                                                max(0.2, deadline - self.clock()))))
        self.link = link
        return st

    def check_uid(self, uid: str | None) -> None:
        if self.uid is not None and uid != self.uid:
            raise Stop(OtherShuffler(self.name, uid, self.uid))

    def check_firmware(self, fw: object, proto: object, digest: object, partial: bool = False) -> None:
        """The shuffler answers with the firmware the session began with
        (its version, protocol and declaration's digest), or Stop: it was
        reflashed, and nothing it holds or says belongs to this run.
        partial: a refusal gave only some of them (the others not compared)."""
        if self.firmware is None:
            return
        was_fw, was_proto, was_digest = self.firmware
        changes = []
        if proto != was_proto:
            changes.append(Changed(PROTOCOL, was_proto, proto))
        if digest != was_digest and not (partial and digest is None):
            changes.append(Changed(TABLE, was_digest, digest))
        if fw != was_fw and not (partial and fw is None):
            changes.append(Changed(VERSION, was_fw, fw))
        if changes:
            raise Stop(OtherFirmware(self.name, tuple(changes)))

    def close(self) -> None:
        self.link.close()


__all__ = ["Device", "Stop", "LinkClosed", "LinkTimeout", "LinkError", "ProtocolFault"]
