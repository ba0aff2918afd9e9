"""Fixtures for the virtual shuffler: every device is stopped and every port
closed at the end of its test, and every wait has a timeout."""
from __future__ import annotations

import time
from pathlib import Path
from typing import Callable, Iterator

import pytest
import serial

from simulator.virtual import VirtualShuffler


class Console:
    """A host on the serial port: write bytes, wait for expected output."""

    def __init__(self, port: str) -> None:
        self.ser = serial.Serial(port, baudrate=115200, timeout=0.05, exclusive=True)
        self.seen = b""

    def write(self, data: bytes) -> None:
        self.ser.write(data)

    def expect(self, pattern: bytes, timeout: float = 5.0) -> bytes:
        """Read until pattern arrives; return everything read up to and including it."""
        deadline = time.monotonic() + timeout
        while pattern not in self.seen:
            if time.monotonic() > deadline:
                raise AssertionError(f"waited {timeout} s for {pattern!r}; got {self.seen[-400:]!r}")
            self.seen += self.ser.read(256)
        at = self.seen.index(pattern) + len(pattern)
        got, self.seen = self.seen[:at], self.seen[at:]
        return got

    def read_exact(self, n: int, timeout: float = 5.0) -> bytes:
        deadline = time.monotonic() + timeout
        while len(self.seen) < n:
            if time.monotonic() > deadline:
                raise AssertionError(f"waited {timeout} s for {n} bytes; got {self.seen!r}")
            self.seen += self.ser.read(n - len(self.seen))
        got, self.seen = self.seen[:n], self.seen[n:]
        return got

    def quiet(self, seconds: float) -> bytes:
        """Everything that arrives within `seconds`."""
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            self.seen += self.ser.read(256)
        got, self.seen = self.seen, b""
        return got

    def close(self) -> None:
        self.ser.close()



@pytest.fixture
def flash(tmp_path: Path) -> Path:
    folder = tmp_path / "flash"
    folder.mkdir()
    return folder


@pytest.fixture
def start_virtual_shuffler() -> Iterator[Callable[..., VirtualShuffler]]:
    started: list[VirtualShuffler] = []

    def start(*args: object, **kwargs: object) -> VirtualShuffler:
        dev = VirtualShuffler(*args, **kwargs)  # type: ignore[arg-type]
        started.append(dev)
        return dev.start()

    yield start
    for dev in started:
        dev.stop()


@pytest.fixture
def open_console() -> Iterator[Callable[[str], Console]]:
    opened: list[Console] = []

    def open_(port: str) -> Console:
        console = Console(port)
        opened.append(console)
        return console

    yield open_
    for console in opened:
        console.close()


def _wait_for(predicate: Callable[[], bool], timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError("condition not reached in time")
        time.sleep(0.01)


@pytest.fixture
def wait_for() -> Callable[..., None]:
    return _wait_for
