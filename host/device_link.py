"""A small client of the shuffler's serial protocol (firmware/protocol.py).

One reader thread splits the byte stream into lines: replies go to the
request waiting for their id and command, events into a queue, anything that
is not a protocol line is counted and kept as garbage (boot banners, noise).
Each link draws its own ids from a random start, so a reply left over from
an earlier run (a host killed mid-request) never answers this one, and what
the device sent before the handshake is thrown away with it. Every message
is checked against the protocol's fields, types and ranges
(host/device_messages.py): one that breaks it reaches the caller as a
ProtocolFault naming the device and what it sent, never as a number to
believe. Every wait has a timeout. One request is outstanding at a time,
whatever the threads: the next is written only after the reply to the last
or its timeout, so the device's receive ring (260 bytes on an ESP32, which
drops what does not fit) always holds what was sent (docs/protocol.md,
"Flow"). The raw REPL is not spoken here; that is flashing's job.
"""
from __future__ import annotations

import itertools
import os
import queue
import random
import threading
import time
from dataclasses import dataclass
from typing import Any, Protocol

import serial

from firmware import protocol
from host import wire
from host import device_messages, device_words, port_words
from host import port_records as said

BAUD = 115200
# How long a real board takes at most to answer. A device that runs its
# firmware slower than real time (the emulated Pico) advertises a slowdown
# with its port (simulator/virtual/registry.py); whoever opens a Link on
# that port passes it, and the Link multiplies these by it. A real board's
# port is never advertised, so its timeouts stay these.
REQUEST_TIMEOUT_S = 2.0
HELLO_EVERY_S = 0.5  # a hello sent while the board boots is lost: ask again this often
HANDSHAKE_S = 5.0
READ_SLICE_S = 0.05  # how long one read may block, so close() is never kept waiting
READ_CHUNK = 4096  # the most one read takes from the port
MAX_BUFFER = 4 * protocol.MAX_LINE  # a line longer than this is garbage, not a reason to grow forever


class LinkError(Exception):
    """Something went wrong talking to the shuffler: its record
    (host/port_records.py) when it has one, said in its words."""

    def __init__(self, what: object) -> None:
        self.record = None if isinstance(what, str) else what
        super().__init__(what if isinstance(what, str) else port_words.words(what))


class LinkTimeout(LinkError):
    pass


class LinkClosed(LinkError):
    """The port went away: unplugged, reset with a new port, or closed."""


class ProtocolMismatch(LinkError):
    """The device speaks another protocol: another version, or a declaration
    table (firmware/protocol.py) whose digest is not this tool's."""


class ProtocolFault(LinkError):
    """The device sent a message that breaks the protocol."""


class DeviceError(LinkError):
    """The shuffler answered a request with an error code."""

    def __init__(self, reply: dict[str, Any]) -> None:
        self.reply = reply
        self.code = reply.get(protocol.F_ERR)
        self.name = device_words.error_name(self.code)
        super().__init__(device_words.refusal_words(reply))


class Transport(Protocol):
    """What the link needs from a port (pyserial's Serial has it)."""

    def read(self, size: int = 1) -> bytes: ...
    def write(self, data: bytes) -> int | None: ...
    def close(self) -> None: ...


@dataclass(frozen=True)
class Garbage:
    """A line from the device that is not a protocol message."""

    line: bytes


@dataclass(frozen=True)
class BadMessage:
    """A protocol line whose fields break the protocol."""

    line: bytes
    why: str

    def fault(self, name: str) -> ProtocolFault:
        shown = self.line.decode("ascii", "replace")[:120]
        return ProtocolFault(said.ProtocolBroken(name, shown, self.why))


def open_serial(port: str) -> serial.Serial:
    if not os.path.exists(port):
        raise LinkError(said.NoSuchPort(port))
    try:
        return serial.Serial(port, baudrate=BAUD, timeout=READ_SLICE_S, exclusive=True)
    except serial.SerialException as exc:
        text = str(exc)
        if "Inappropriate ioctl" in text or "(25," in text:
            raise LinkError(said.NotASerialPort(port)) from None
        if "No such file" in text:
            raise LinkError(said.NoSuchPort(port)) from None
        if "Permission denied" in text:
            raise LinkError(said.NoPermission(port)) from None
        if "lock" in text or "busy" in text.lower():
            raise LinkError(said.PortBusy(port)) from None
        raise LinkError(said.CannotOpen(port, ' '.join(text.split())[:160])) from None


class Link:
    def __init__(self, transport: Transport, name: str = "the shuffler", slowdown: float = 1.0) -> None:
        self.transport = transport
        self.name = name
        self.slowdown = slowdown
        self.events: queue.Queue[dict[str, Any] | Garbage | BadMessage | LinkClosed] = queue.Queue()
        self.garbage: list[bytes] = []
        self.hello: dict[str, Any] | None = None
        self.offered: dict[str, Any] | None = None  # the last hello answered, agreed or not (what a mismatch offered)
        # This link's own id space: a random start, so stale replies match nothing.
        self._ids = itertools.count(random.SystemRandom().randrange(1, protocol.MAX_ID // 2))
        self._waiting: dict[int, tuple[str, queue.Queue[dict[str, Any] | BadMessage | LinkClosed]]] = {}
        self._greet_ids: set[int] = set()  # the hellos whose reply ends what came before
        self._lock = threading.Lock()
        self._closed = threading.Event()
        self.error: LinkClosed | None = None
        self._write_lock = threading.Lock()
        self._turn = threading.Lock()  # held by the one outstanding request
        self._reader = threading.Thread(target=self._read_loop, name="shuffler-link", daemon=True)
        self._reader.start()

    @classmethod
    def open(cls, port: str, slowdown: float = 1.0) -> "Link":
        """The link on a port; `slowdown`: how many times slower than a real
        board the device runs (the caller knows: an emulator says so where
        it is listed, simulator/virtual/registry.py)."""
        return cls(open_serial(port), name=port, slowdown=slowdown)

    def wait_s(self, seconds: float) -> float:
        """A wait for a real board, as long as this device needs."""
        return seconds * self.slowdown

    # -- the reader thread -----------------------------------------------------
    def _read_loop(self) -> None:
        buf = b""
        while not self._closed.is_set():
            try:
                chunk = self.transport.read(self._read_size())
            except (serial.SerialException, OSError, TypeError, AttributeError) as exc:
                # pyserial raises TypeError/AttributeError when the port is closed under it.
                if not self._closed.is_set():
                    self._fail(self._lost(exc))
                return
            if not chunk:
                continue
            buf += chunk
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                self._dispatch(line.rstrip(b"\r"))
            if len(buf) > MAX_BUFFER:
                self._dispatch(buf)
                buf = b""

    def _read_size(self) -> int:
        """What the port holds now, or 1 when it holds nothing yet: a read of
        a fixed size waits out the whole read slice for a reply shorter than
        that, and one of 1 returns as soon as the first byte comes."""
        return max(1, min(READ_CHUNK, int(getattr(self.transport, "in_waiting", 0))))

    def _dispatch(self, line: bytes) -> None:
        if not line.strip():
            return
        try:
            msg = wire.parse_message(line)
        except ValueError:
            self.garbage.append(line[:protocol.MAX_LINE])
            self.events.put(Garbage(line[:protocol.MAX_LINE]))
            return
        why = device_messages.problem(msg)
        if msg.get(protocol.F_RE) == protocol.CMD_HELLO and msg.get(protocol.F_OK) is True and msg.get("proto") != protocol.PROTOCOL_VERSION:
            why = None  # another protocol version, with its own fields: the handshake names the version
        if protocol.F_RE in msg:
            rid = msg.get(protocol.F_ID)
            with self._lock:
                entry = self._waiting.get(rid) if isinstance(rid, int) and not isinstance(rid, bool) else None
            if entry is None or entry[0] != msg.get(protocol.F_RE):
                return  # a reply nobody waits for (late, stale, or to someone else's line): drop it
            if rid in self._greet_ids and why is None and msg.get(protocol.F_OK):
                self._forget_earlier()
            entry[1].put(BadMessage(line[:protocol.MAX_LINE], why) if why else msg)
            return
        if why:
            self.events.put(BadMessage(line[:protocol.MAX_LINE], why))
            return
        self.events.put(msg)

    def _forget_earlier(self) -> None:
        """The handshake's reply came: whatever the device sent before it
        belongs to an earlier run (or a boot) and is thrown away."""
        while True:
            try:
                item = self.events.get_nowait()
            except queue.Empty:
                return
            if isinstance(item, LinkClosed):
                self.events.put(item)
                return

    def _lost(self, exc: BaseException) -> LinkClosed:
        return LinkClosed(said.LinkLost(self.name, ' '.join(str(exc).split())[:80]))

    def _write(self, cmd: str, rid: int, fields: dict[str, Any]) -> None:
        """Write one request line; a failed write closes the link."""
        line = protocol.encode(wire.request(cmd, rid, **fields)).encode()
        try:
            with self._write_lock:
                self.transport.write(line)
        except (serial.SerialException, OSError, TypeError, AttributeError) as exc:
            err = self._lost(exc)
            self._fail(err)
            raise err from None

    def _fail(self, exc: LinkClosed) -> None:
        self.error = exc
        self._closed.set()
        with self._lock:
            waiters = list(self._waiting.values())
        for _, w in waiters:
            w.put(exc)
        self.events.put(exc)

    # -- what callers use ------------------------------------------------------
    @property
    def closed(self) -> bool:
        return self._closed.is_set()

    def close(self) -> None:
        self._closed.set()
        try:
            self.transport.close()
        except Exception:
            pass
        self._reader.join(timeout=1.0)

    def request(self, cmd: str, timeout: float | None = None, **fields: Any) -> dict[str, Any]:
        """Send a request and wait for its reply (REQUEST_TIMEOUT_S for a real
        board by default); DeviceError when the reply says no, ProtocolFault
        when it breaks the protocol."""
        if timeout is None:
            timeout = self.wait_s(REQUEST_TIMEOUT_S)
        box: queue.Queue[dict[str, Any] | BadMessage | LinkClosed] = queue.Queue()
        with self._turn:  # one request outstanding: wait for the last one's reply or timeout
            if self.error is not None:
                raise self.error
            # Register before sending, so a fast reply is never missed.
            rid = next(self._ids) % protocol.MAX_ID
            with self._lock:
                self._waiting[rid] = (cmd, box)
            try:
                self._write(cmd, rid, fields)
                try:
                    got = box.get(timeout=timeout)
                except queue.Empty:
                    raise LinkTimeout(said.NoAnswer(self.name, cmd, timeout)) from None
            finally:
                with self._lock:
                    self._waiting.pop(rid, None)
        return self._answer(got)

    def _answer(self, got: dict[str, Any] | BadMessage | LinkClosed) -> dict[str, Any]:
        """A reply as the caller takes it: raised when it says no, breaks
        the protocol or the port went."""
        if isinstance(got, LinkClosed):
            raise got
        if isinstance(got, BadMessage):
            raise got.fault(self.name)
        if not got.get(protocol.F_OK, False):
            raise DeviceError(got)
        return got

    def _hello(self, timeout: float, attempts_every: float) -> dict[str, Any]:
        """hello asked every `attempts_every` until one is answered or
        `timeout`: every attempt's id stays waiting until the end, so a
        reply that comes late (a board busy booting, a slow port) to an
        earlier attempt is taken as well as one to the last."""
        box: queue.Queue[dict[str, Any] | BadMessage | LinkClosed] = queue.Queue()
        deadline = time.monotonic() + timeout
        sent: list[int] = []
        with self._turn:
            try:
                while True:
                    if self.error is not None:
                        raise self.error
                    left = deadline - time.monotonic()
                    if left <= 0:
                        raise LinkTimeout(said.NoHello(self.name, timeout))
                    rid = next(self._ids) % protocol.MAX_ID
                    with self._lock:
                        self._waiting[rid] = (protocol.CMD_HELLO, box)
                        self._greet_ids.add(rid)
                    sent.append(rid)
                    self._write(protocol.CMD_HELLO, rid, {"proto": protocol.PROTOCOL_VERSION})
                    try:
                        return self._answer(box.get(timeout=min(attempts_every, left)))
                    except queue.Empty:
                        continue
            finally:
                with self._lock:
                    for rid in sent:
                        self._waiting.pop(rid, None)
                        self._greet_ids.discard(rid)

    def handshake(self, timeout: float | None = None, attempts_every: float | None = None) -> dict[str, Any]:
        """hello with our protocol version, asked again until `timeout`; checks
        that the device speaks the same version."""
        timeout = self.wait_s(HANDSHAKE_S) if timeout is None else timeout
        attempts_every = self.wait_s(HELLO_EVERY_S) if attempts_every is None else attempts_every
        try:
            reply = self._hello(timeout, attempts_every)
        except DeviceError as exc:
            if exc.code == protocol.E_PROTO:
                self.offered = {"proto": exc.reply.get("proto")}
                raise ProtocolMismatch(said.OtherProtocol(self.name, exc.reply.get("proto"),
                                                          protocol.PROTOCOL_VERSION)) from None
            raise
        # Read raw, not as a typed record: the records are made from this
        # tool's table, which a device is held to only once it agrees.
        self.offered = reply
        proto = reply.get("proto")
        if proto != protocol.PROTOCOL_VERSION:
            raise ProtocolMismatch(said.OtherProtocol(self.name, proto, protocol.PROTOCOL_VERSION))
        digest = reply.get(protocol.F_DIGEST)
        if digest != device_messages.DIGEST:
            raise ProtocolMismatch(said.OtherDeclaration(self.name, digest, device_messages.DIGEST))
        self.hello = reply
        return reply

    def status(self, timeout: float | None = None) -> dict[str, Any]:
        return self.request(protocol.CMD_STATUS, timeout=timeout)

    def next_event(self, timeout: float) -> dict[str, Any] | Garbage | BadMessage | None:
        """The next event or garbage line, or None after `timeout` seconds.
        Raises LinkClosed once the port has gone and the queue is drained."""
        try:
            item = self.events.get(timeout=max(0.0, timeout))
        except queue.Empty:
            return None
        if isinstance(item, LinkClosed):
            self.events.put(item)  # keep telling every later caller
            raise item
        return item

    def drain(self) -> list[dict[str, Any] | Garbage | BadMessage]:
        """Events waiting now, without blocking."""
        out: list[dict[str, Any] | Garbage | BadMessage] = []
        while True:
            try:
                item = self.events.get_nowait()
            except queue.Empty:
                return out
            if isinstance(item, LinkClosed):
                self.events.put(item)
                return out
            out.append(item)
