"""Pseudo-terminals for the tests: `open_pty` opens one (for a program's
terminal or a fake serial port), and `FakePort` is a fake device on one,
a thread at the far end answering what the host writes."""
from __future__ import annotations

import fcntl
import os
import select
import struct
import termios
import threading
import tty
from typing import Callable


def open_pty(raw: bool = False, cols: int | None = None, rows: int | None = None) -> tuple[int, int]:
    """A new pseudo-terminal's (master, slave) descriptors. raw: the slave
    passes bytes as they are, as a serial port does (no echo, no line
    editing); cols and rows: its window size."""
    master, slave = os.openpty()
    if raw:
        tty.setraw(slave)
    if cols is not None and rows is not None:
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
    return master, slave


class FakePort:
    """A raw pty whose far end is a device: a thread hands every chunk the
    host writes to `on_data(port, chunk)`, and `emit` writes to the host.
    `port` is the path the host opens."""

    def __init__(self, on_data: Callable[[FakePort, bytes], None] | None = None) -> None:
        self.master, slave = open_pty(raw=True)
        self.port = os.ttyname(slave)
        self._slave = slave
        self._on_data = on_data
        self._emit_lock = threading.Lock()
        self._unplugged = False
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def on_data(self, chunk: bytes) -> None:
        """What the device does with bytes from the host (a subclass may say)."""
        if self._on_data is not None:
            self._on_data(self, chunk)

    def emit(self, data: bytes) -> None:
        with self._emit_lock:  # never write to a closed descriptor: its number may be reused
            if self._unplugged:
                return
            try:
                os.write(self.master, data)
            except OSError:
                pass

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                # A short select, so unplug() never closes the fd under a blocked read.
                ready, _, _ = select.select([self.master], [], [], 0.05)
                if not ready:
                    continue
                chunk = os.read(self.master, 1024)
            except (OSError, ValueError):
                return
            self.on_data(chunk)

    def unplug(self) -> None:
        """The cable comes out: the host's end of the port fails."""
        self._stop.set()
        self._thread.join(timeout=2)
        with self._emit_lock:
            self._unplugged = True
            os.close(self.master)

    def close(self) -> None:
        if not self._stop.is_set():
            self.unplug()
        try:
            os.close(self._slave)
        except OSError:
            pass
