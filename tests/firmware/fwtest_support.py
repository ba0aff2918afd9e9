"""Support for the firmware tests: run the firmware on the MicroPython unix
port over the simulated board, talk to it through its serial protocol and
the world's control endpoint."""

from __future__ import annotations

import json
import os
import queue
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, Callable, Iterator

import pytest

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from firmware import protocol as P  # noqa: E402
from simulator.virtual.world_client import WorldClient, sim_command  # noqa: E402

FIRMWARE = REPO / "firmware"
MICROPYTHON = shutil.which("micropython") or str(Path(sys.executable).parent / "micropython")
SPEED = 50.0  # simulated ms per real ms


def have_micropython() -> bool:
    return Path(MICROPYTHON).exists()


def require_micropython() -> None:
    """The unix port is a pinned dependency: without it the install is
    broken, and the firmware tests fail rather than skip."""
    if not have_micropython():
        pytest.fail(f"the micropython unix port is missing ({MICROPYTHON}): "
                    "install the project with its pinned dependencies")


class Device:
    """A running firmware process: protocol over stdin/stdout, world over
    the control socket."""

    def __init__(self, proc: subprocess.Popen[bytes], world: WorldClient | None) -> None:
        self.proc = proc
        self.world = world
        self.lines: queue.Queue[bytes] = queue.Queue()
        self.seen: list[dict[str, Any]] = []
        self.raw: list[bytes] = []
        self.next_id = 1
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line)
        self.lines.put(b"")

    def write(self, raw: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(raw)
        self.proc.stdin.flush()

    def message(self, timeout: float = 10.0) -> dict[str, Any]:
        """The next protocol line, parsed (every line must parse)."""
        line = self.lines.get(timeout=timeout)
        if line == b"":
            err = self.proc.stderr.read().decode() if self.proc.stderr else ""
            raise EOFError("firmware exited: " + err)
        self.raw.append(line)
        msg = P.parse_message(line)
        self.seen.append(msg)
        return msg

    def wait(self, pred: Callable[[dict[str, Any]], bool], timeout: float = 10.0) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("no matching message; last seen: %r" % self.seen[-5:])
            try:
                msg = self.message(left)
            except queue.Empty:
                raise TimeoutError("no matching message; last seen: %r" % self.seen[-5:]) from None
            if pred(msg):
                return msg

    def event(self, name: str, timeout: float = 10.0) -> dict[str, Any]:
        return self.wait(lambda m: m.get("ev") == name, timeout)

    def send(self, cmd: str, **fields: Any) -> int:
        rid = self.next_id
        self.next_id += 1
        self.write(P.encode(P.request(cmd, rid, **fields)).encode())
        return rid

    def reply(self, rid: int, timeout: float = 10.0) -> dict[str, Any]:
        return self.wait(lambda m: "re" in m and m.get("id") == rid, timeout)

    def call(self, cmd: str, timeout: float = 10.0, **fields: Any) -> dict[str, Any]:
        return self.reply(self.send(cmd, **fields), timeout)

    def events_between(self, first: int) -> list[dict[str, Any]]:
        return [m for m in self.seen[first:] if "ev" in m]

    def close(self) -> int:
        if self.world is not None:
            self.world.close()
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
        return self.proc.wait(timeout=10)


def deal_order(load: list[Any], sides: list[int]) -> tuple[list[Any], list[Any]]:
    """Expected piles (top to bottom) per docs/mechanism.md, written out
    independently of the firmware: the bottom card is fed first and each
    card lands on top of its pile. sides[k] is the k-th fed card's side."""
    left: list[Any] = []
    right: list[Any] = []
    for k in range(len(load)):
        card = load[len(load) - 1 - k]
        (left if sides[k] == 0 else right).insert(0, card)
    return left, right


def json_line(obj: Any) -> bytes:
    return (json.dumps(obj) + "\n").encode()
