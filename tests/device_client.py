"""The test suite's one protocol client: JSON requests out, replies and
events in, over a small transport (a process's pipes, a serial port or a
pseudo-terminal), for the firmware on the unix port (tests/firmware) and on
the emulated Pico (tests/pico)."""
from __future__ import annotations

import queue
import subprocess
import threading
import time
from typing import Any, Callable, Protocol

import serial

from firmware import protocol
from host import wire


class Transport(Protocol):
    """Bytes to and from a device."""

    def read(self, timeout: float) -> bytes:
        """What arrived within `timeout` (b"" if nothing did); raises once
        the device is gone for good."""

    def write(self, data: bytes) -> None: ...

    def close(self) -> None: ...


class PipeTransport:
    """A process's stdin and stdout: a thread reads stdout line by line."""

    def __init__(self, proc: subprocess.Popen[bytes], name: str = "firmware") -> None:
        self.proc = proc
        self.name = name
        self.lines: queue.Queue[bytes] = queue.Queue()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line)
        self.lines.put(b"")

    def read(self, timeout: float) -> bytes:
        try:
            line = self.lines.get(timeout=max(timeout, 0.0))
        except queue.Empty:
            return b""
        if line == b"":
            self.lines.put(b"")  # every later read sees the end too
            err = self.proc.stderr.read().decode() if self.proc.stderr else ""
            raise EOFError(f"{self.name} exited: " + err)
        return line

    def write(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def close(self) -> None:
        pass  # the process is its owner's to end


class SerialTransport:
    """A serial port (a pty or an emulated USB port) through pyserial;
    `alive()` raises when what is behind the port has stopped."""

    def __init__(self, port: str, alive: Callable[[], None] | None = None, **serial_kw: Any) -> None:
        serial_kw.setdefault("baudrate", 115200)
        serial_kw.setdefault("timeout", 0.05)
        self.ser = serial.Serial(port, **serial_kw)
        self.alive = alive or (lambda: None)

    def read(self, timeout: float) -> bytes:
        self.alive()
        # What has come, else the first byte within the port's read timeout: a
        # read of a fixed size would wait that timeout out for a shorter reply.
        return self.ser.read(max(1, self.ser.in_waiting))

    def write(self, data: bytes) -> None:
        self.ser.write(data)

    def close(self) -> None:
        self.ser.close()


class LineSplitter:
    """Whole lines (without their newline) out of bytes that arrive in pieces."""

    def __init__(self) -> None:
        self.rest = b""

    def feed(self, chunk: bytes) -> list[bytes]:
        *lines, self.rest = (self.rest + chunk).split(b"\n")
        return lines


class DeviceClient:
    """The protocol over a transport: `send`/`call` a command, `wait` for a
    message, `event` by name. Every protocol message received is kept in
    `seen`, every byte in `received` and every protocol line in `lines`.

    strict: every line must be a protocol message (the firmware's own
    stdout), else lines that are not (REPL text, banners) are passed over.
    consume: a wait without `start` looks only past the message the last
    wait returned (messages are taken in turn); else it looks at every
    message since the first (or since `start`)."""

    def __init__(self, transport: Transport, strict: bool = False, consume: bool = False,
                 wait_s: float = 10.0) -> None:
        self.transport = transport
        self.strict = strict
        self.consume = consume
        self.wait_s = wait_s
        self.splitter = LineSplitter()
        self.received = b""
        self.lines: list[bytes] = []
        self.seen: list[dict[str, Any]] = []
        self.taken = 0  # with consume: where the next wait starts
        self.next_id = 1

    def write(self, data: bytes) -> None:
        self.transport.write(data)

    def read_some(self, timeout: float = 0.05) -> None:
        """Read what arrives within `timeout` and parse its whole lines."""
        chunk = self.transport.read(timeout)
        self.received += chunk
        for line in self.splitter.feed(chunk):
            try:
                msg = wire.parse_message(line)
            except ValueError:
                if self.strict:
                    raise
                continue  # REPL text, banners
            self.lines.append(line + b"\n")
            self.seen.append(msg)

    def _timeout(self) -> TimeoutError:
        return TimeoutError(f"no matching message; last seen: {self.seen[-5:]!r}, "
                            f"raw tail {self.received[-300:]!r}")

    def wait(self, pred: Callable[[dict[str, Any]], bool], timeout: float | None = None,
             start: int | None = None) -> dict[str, Any]:
        deadline = time.monotonic() + (self.wait_s if timeout is None else timeout)
        i = (self.taken if self.consume else 0) if start is None else start
        while True:
            while i < len(self.seen):
                if pred(self.seen[i]):
                    if self.consume and start is None:
                        self.taken = i + 1
                    return self.seen[i]
                i += 1
            left = deadline - time.monotonic()
            if left <= 0:
                if self.consume and start is None:
                    self.taken = len(self.seen)
                raise self._timeout()
            self.read_some(left)

    def expect_raw(self, pattern: bytes, timeout: float | None = None, start: int | None = None) -> None:
        """Wait until `pattern` arrives (in any bytes, protocol or not): in
        the bytes from `start` (a length of `received` taken before the
        bytes that should bring it were sent), by default from now."""
        deadline = time.monotonic() + (self.wait_s if timeout is None else timeout)
        start = max(0, len(self.received) - len(pattern)) if start is None else start
        while pattern not in self.received[start:]:
            if time.monotonic() > deadline:
                raise TimeoutError(f"waited for {pattern!r}; raw tail {self.received[-300:]!r}")
            self.read_some()

    def event(self, name: str, timeout: float | None = None, start: int | None = None) -> dict[str, Any]:
        return self.wait(lambda m: m.get("ev") == name, timeout, start)

    def send(self, cmd: str, **fields: Any) -> int:
        rid = self.next_id
        self.next_id += 1
        self.write(protocol.encode(wire.request(cmd, rid, **fields)).encode())
        return rid

    def reply(self, rid: int, timeout: float | None = None) -> dict[str, Any]:
        return self.wait(lambda m: "re" in m and m.get("id") == rid, timeout)

    def call(self, cmd: str, timeout: float | None = None, **fields: Any) -> dict[str, Any]:
        return self.reply(self.send(cmd, **fields), timeout)

    def hello(self, timeout: float | None = None) -> dict[str, Any]:
        """Ask hello until answered (a request sent while the board boots is lost)."""
        deadline = time.monotonic() + (self.wait_s if timeout is None else timeout)
        while True:
            rid = self.send(protocol.CMD_HELLO)
            try:
                return self.wait(lambda m: m.get("re") == protocol.CMD_HELLO and m.get("id") == rid, 3.0)
            except TimeoutError:
                if time.monotonic() > deadline:
                    raise

    def events_between(self, first: int) -> list[dict[str, Any]]:
        return [m for m in self.seen[first:] if "ev" in m]

    def close(self) -> None:
        self.transport.close()
