"""Moves bytes between the pty and the MicroPython process, as a board's USB
serial and C start-up code would.

What it adds to the unix port's own REPL:
- Ctrl-C while code runs becomes SIGINT (a KeyboardInterrupt in the program);
  at a prompt it stays a byte, which the REPL handles itself.
- The process ending is a reset: "MPY: soft reboot", then a fresh process that
  runs boot.py and main.py again (friendly REPL) or only boot.py and comes back
  in the raw REPL (raw REPL, as mpremote's soft reset expects). SystemExit in
  boot.py/main.py, which the start-up script reports with its marker, is a
  reset too. Exit code 77 (machine.reset), the sim board's watchdog (exit
  code 3) and a crash are hard resets.
- Output while no host has the port open is dropped.
"""
from __future__ import annotations

import collections
import select
import threading
import time
from typing import Callable

from simulator.virtual.interpreter import HARD_RESET_EXITS, MARKER_END, MARKER_START, MicroPythonProcess
from simulator.virtual.pty_port import PtyPort

CTRL_C = 0x03
RAW_BANNER = b"raw REPL; CTRL-B to exit\r\n"
FRIENDLY_BANNER_END = b'Type "help()" for more information.'
SOFT_REBOOT = b"MPY: soft reboot\r\n"
# At most one SIGINT per this many seconds: the unix port exits outright on a
# second SIGINT that arrives before the first was handled.
SIGINT_GAP_S = 0.25
# A board's receive buffer is finite; beyond this, unread input is dropped.
MAX_PENDING_INPUT = 256 * 1024
LOG_LIMIT = 256 * 1024

Spawner = Callable[[bool], MicroPythonProcess]


class SerialBridge:
    def __init__(self, port: PtyPort, spawn: Spawner, on_boot: Callable[[], None] | None = None) -> None:
        self.port = port
        self._spawn = spawn
        self._on_boot = on_boot
        self._child: MicroPythonProcess | None = None
        self._pending = bytearray()
        self._stop = threading.Event()
        self._reset_request: str | None = None
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._last_sigint = 0.0
        self._written = 0  # bytes written to the current process's stdin
        # Stream position (1-based) of a Ctrl-C passed on as a byte while no
        # code ran; if code starts before reading it, it becomes SIGINT.
        self._ctrl_c_at: int | None = None
        self._raw_repl = False
        self._scan_tail = b""
        # start-up output filter: "marker" until the start-up marker, then
        # "hide" (raw start: hide the friendly banner) or "pass".
        self._filter = "pass"
        self._filter_buf = b""
        self._exit_request: int | None = None
        self._log: collections.deque[bytes] = collections.deque()
        self._log_size = 0
        self._log_lock = threading.Lock()
        self.boots = 0
        self.error: BaseException | None = None

    # -- control, from any thread --------------------------------------------
    def start(self) -> None:
        self._boot(raw=False)
        self._thread = threading.Thread(target=self._run, name="virtual-shuffler-serial", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
        if self._child is not None:
            self._child.kill()
            self._child = None

    def request_reset(self, kind: str) -> None:
        """Ask for a "hard" reset (the reset button) or a "soft" one (as Ctrl-D)."""
        with self._lock:
            self._reset_request = kind

    def output(self) -> bytes:
        """Everything the board sent (the last LOG_LIMIT bytes), host connected or not."""
        with self._log_lock:
            return b"".join(self._log)

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    @property
    def child_pid(self) -> int | None:
        return self._child.pid if self._child else None

    # -- the loop -------------------------------------------------------------
    def _run(self) -> None:
        try:
            while not self._stop.is_set():
                self._step()
        except BaseException as exc:  # keep the reason for stop()/status
            self.error = exc

    def _step(self) -> None:
        child = self._child
        assert child is not None
        with self._lock:
            request, self._reset_request = self._reset_request, None
        if request is not None:
            self._reset(hard=request == "hard")
            return
        connected = self.port.host_connected()
        poller = select.poll()
        poller.register(child.stdout_fd, select.POLLIN)
        if connected:
            poller.register(self.port.master_fd, select.POLLIN)
        if self._pending:
            poller.register(child.stdin_fd, select.POLLOUT)
        # A hung-up master polls ready at once, so it is left out and we come
        # back every 20 ms to see whether a host has opened the port.
        events = poller.poll(100 if connected else 20)
        for fd, ev in events:
            if fd == self.port.master_fd and ev & select.POLLIN:
                self._from_host(self.port.read())
            elif fd == child.stdout_fd:
                out = child.read()
                if out == b"":
                    self._child_ended()
                    return
                if out:
                    self._to_host(out)
                if self._exit_request is not None:
                    code, self._exit_request = self._exit_request, None
                    self._reset(hard=code in HARD_RESET_EXITS)
                    return
        self._flush_input()
        self._deferred_ctrl_c()

    # -- input ----------------------------------------------------------------
    def _from_host(self, data: bytes) -> None:
        parts = data.split(bytes([CTRL_C]))
        for i, part in enumerate(parts):
            self._queue(part)
            if i < len(parts) - 1:
                self._ctrl_c()

    def _ctrl_c(self) -> None:
        child = self._child
        if child is not None and child.executing():
            now = time.monotonic()
            if now - self._last_sigint >= SIGINT_GAP_S:
                self._flush_input()
                child.interrupt()
                self._last_sigint = now
        else:
            self._queue(bytes([CTRL_C]))
            # E.g. sent while the board boots: a program that starts before
            # the REPL reads the byte must still be interrupted.
            self._ctrl_c_at = self._written + len(self._pending)

    def _deferred_ctrl_c(self) -> None:
        child = self._child
        if self._ctrl_c_at is None or child is None:
            return
        # Ask whether code runs before looking at what it has read: a program
        # that takes the byte itself (the firmware, with kbd_intr(-1)) may read
        # it and install the handler again in between; asked the other way
        # round, that looks like code that never read the byte, and the
        # SIGINT lands on a program already handling that very Ctrl-C.
        executing = child.executing()
        consumed = self._written - child.unread_input()
        if consumed >= self._ctrl_c_at:
            self._ctrl_c_at = None  # the REPL (or the program) read it
        elif executing:
            self._ctrl_c_at = None
            child.interrupt()
            self._last_sigint = time.monotonic()

    def _queue(self, data: bytes) -> None:
        room = MAX_PENDING_INPUT - len(self._pending)
        self._pending += data[: max(room, 0)]

    def _flush_input(self) -> None:
        if self._pending and self._child is not None:
            sent = self._child.write(bytes(self._pending))
            del self._pending[:sent]
            self._written += sent

    # -- output ---------------------------------------------------------------
    def _emit(self, data: bytes) -> None:
        if not data:
            return
        self._track_mode(data)
        with self._log_lock:
            self._log.append(data)
            self._log_size += len(data)
            while self._log_size > LOG_LIMIT and len(self._log) > 1:
                self._log_size -= len(self._log.popleft())
        self.port.write(data)

    def _track_mode(self, data: bytes) -> None:
        text = self._scan_tail + data
        raw_at = text.rfind(RAW_BANNER)
        friendly_at = text.rfind(FRIENDLY_BANNER_END)
        if raw_at >= 0 or friendly_at >= 0:
            self._raw_repl = raw_at > friendly_at
        self._scan_tail = text[-64:]

    def _to_host(self, out: bytes) -> None:
        if self._filter == "pass":
            self._emit(out)
            return
        buf = self._filter_buf + out
        if self._filter in ("marker-raw", "marker-friendly"):
            at = buf.find(MARKER_START)
            if at < 0:
                keep = _marker_prefix_len(buf, MARKER_START)
                self._emit(buf[: len(buf) - keep])
                self._filter_buf = buf[len(buf) - keep:]
                return
            self._emit(buf[:at])
            end = buf.find(MARKER_END, at + len(MARKER_START))
            if end < 0:
                self._filter_buf = buf[at:]
                return
            status = buf[at + len(MARKER_START):end]
            rest = buf[end + len(MARKER_END):]
            self._filter_buf = b""
            if status.startswith(b"exit="):
                # boot.py or main.py raised SystemExit: a reset, as on a board
                # (the unix port's -i would go on to its REPL instead).
                code = int(status[5:]) if status[5:].isdigit() else 0
                self._exit_request = code
                return
            if self._filter == "marker-friendly":
                self._filter = "pass"
                self._emit(rest)
                return
            self._filter = "hide"
            buf = rest
        # "hide": a raw-REPL start shows no friendly banner, only the raw one.
        at = buf.find(RAW_BANNER)
        if at < 0:
            self._filter_buf = buf[-4096:]
            return
        self._filter = "pass"
        self._filter_buf = b""
        self._emit(buf[at:])

    # -- resets ---------------------------------------------------------------
    def _boot(self, raw: bool) -> None:
        self._child = self._spawn(raw)
        self.boots += 1
        self._written = 0
        self._ctrl_c_at = None
        self._filter = "marker-raw" if raw else "marker-friendly"
        self._filter_buf = b""
        self._raw_repl = raw
        if raw:
            # Into the raw REPL before anything the host sends.
            self._pending[:0] = b"\x01"
        if self._on_boot is not None:
            self._on_boot()

    def _child_ended(self) -> None:
        child = self._child
        assert child is not None
        status = child.exit_status()
        if self._filter_buf and self._filter != "hide":
            self._emit(self._filter_buf)
        hard = status in HARD_RESET_EXITS or status < 0
        self._reset(hard=hard)

    def _reset(self, hard: bool) -> None:
        if self._child is not None:
            self._child.kill()  # ends it if asked to, reaps it, closes the pipes
        self._filter_buf = b""
        if self._stop.is_set():
            return
        if hard:
            # Power-on: the receive buffer is lost and the board starts in the
            # friendly REPL.
            self._pending.clear()
            self._boot(raw=False)
        else:
            raw = self._raw_repl
            self._emit(SOFT_REBOOT)
            self._boot(raw=raw)


def _marker_prefix_len(buf: bytes, marker: bytes) -> int:
    """Length of the longest end of buf that could be the start of marker."""
    for n in range(min(len(buf), len(marker) - 1), 0, -1):
        if marker.startswith(buf[-n:]):
            return n
    return 0
