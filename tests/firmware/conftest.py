"""Fixtures for the firmware tests (support code lives in fwtest_support.py)."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any, Callable, Iterator

import pytest

from fwtest_support import FIRMWARE, MICROPYTHON, SPEED, FwProcess, WorldClient, require_micropython
from simulator.virtual.world_client import sim_command


@pytest.fixture
def start_fw_process(tmp_path: Path) -> Iterator[Callable[..., FwProcess]]:
    """Factory: start_fw_process(missing=(), battery_mv=None, data_dir=None, env={...}, ...)."""
    require_micropython()
    started: list[FwProcess] = []
    sock_dir = Path(tempfile.mkdtemp(prefix="shw"))  # short path: sun_path holds 108 bytes

    def start(firmware_dir: Path = FIRMWARE, data_dir: Path | None = None,
              script: str = "main.py", world: bool = True, **kw: Any) -> FwProcess:
        control = str(sock_dir / f"w{len(started)}.sock")
        extra_env = kw.pop("env", None) or {}
        argv, env = sim_command(
            firmware_dir=firmware_dir, control=control, speed=kw.pop("speed", SPEED),
            data_dir=data_dir or tmp_path, micropython=MICROPYTHON, script=script, **kw)
        # The fast mechanism (twice hardware/mechanism.py's speed) unless a
        # test asks for the plausible one: the firmware handles both alike.
        env["SHUFFLER_SIM_MECHANISM"] = "fast"
        # Serial input through a receive ring of an ESP32's size, which drops
        # what arrives while it is full (simulator/virtual/board/sim_uart.py).
        env["SHUFFLER_SIM_UART"] = "esp32"
        env.update(extra_env)
        proc = subprocess.Popen(argv, env=env, cwd=str(firmware_dir), stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        client = WorldClient.connect(control, timeout=10) if world else None
        dev = FwProcess(proc, client)
        started.append(dev)
        return dev

    yield start
    for dev in started:
        dev.close()
    shutil.rmtree(sock_dir, ignore_errors=True)


@pytest.fixture
def fw_process(start_fw_process: Callable[..., FwProcess]) -> FwProcess:
    dev = start_fw_process()
    hello = dev.event("hello")
    assert hello["board"] == "sim"
    return dev


