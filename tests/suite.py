"""What the tests of every folder share, written once: the `shuffler`
command run as a person runs it, a clock that moves only when told, and
what a motor at rest is.

(The fixtures every folder shares, a runtime folder of each test's own and
the `shuffler sim-device` processes a test starts, are in conftest.py.)
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
# A command of the shuffler may wait on a busy machine: generous, never the test's own measure.
COMMAND_S = 300.0


def shuffler(*args: str, timeout: float = COMMAND_S, env: dict[str, str] | None = None,
             stdin: Any = subprocess.DEVNULL) -> subprocess.CompletedProcess[str]:
    """`shuffler ARGS` in a process of its own (this interpreter's, so the
    checkout under test), its output kept; nothing typed at it."""
    return subprocess.run([sys.executable, "-m", "host.cli", *args], capture_output=True, text=True, timeout=timeout,
                          env=dict(os.environ) if env is None else env, stdin=stdin, cwd=REPO)


def transcript(*args: str, timeout: float = COMMAND_S) -> list[str]:
    """`shuffler ARGS` as a page of the docs shows it: the command, then
    what it printed."""
    out = shuffler(*args, timeout=timeout)
    return [f"$ shuffler {' '.join(args)}"] + (out.stdout + out.stderr).splitlines()


class Clock:
    """A clock that moves only when told: the guide's and the page's waits
    run on it in the tests that walk them fact by fact."""

    def __init__(self, now: float = 1000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, s: float) -> None:
        self.now += s


def motor_off(board: Any) -> bool:
    """A motor at rest: no direction, no drive, and the driver asleep
    (nSLEEP low). `board`: a world as its `query` gives it, or what answers
    `query` (the emulated Pico, a world's client), or a firmware process
    with its world."""
    if not isinstance(board, dict):
        board = (board if hasattr(board, "query") else board.world).query()
    m = board["motor"]
    return m["dir"] == 0 and m["duty"] == 0 and board["driver_awake"] is False
