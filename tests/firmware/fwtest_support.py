"""Support for the firmware tests: run the firmware on the MicroPython unix
port over the simulated board, talk to it through its serial protocol and
the world's control endpoint."""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from device_client import DeviceClient, PipeTransport  # noqa: E402
from simulator.virtual.world_client import WorldClient  # noqa: E402

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


class FwProcess(DeviceClient):
    """A running firmware process: protocol over stdin/stdout (every line
    must parse, messages taken in turn), world over the control socket."""

    def __init__(self, proc: subprocess.Popen[bytes], world: WorldClient | None) -> None:
        super().__init__(PipeTransport(proc), strict=True, consume=True, wait_s=10.0)
        self.proc = proc
        self.world = world

    @property
    def raw(self) -> list[bytes]:
        """Every line the firmware wrote, as written."""
        return self.lines

    def close(self) -> int:  # type: ignore[override]
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
