"""A virtual shuffler whose hosting process ends, however it ends (SIGKILL
included), goes with it: its interpreter stops instead of running on,
unseen, at full speed."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from firmware import build

pytestmark = pytest.mark.micropython

HOST = """
import sys, time
from simulator.virtual import VirtualShuffler
dev = VirtualShuffler(sys.argv[1], time_scale=0, advertise=False)
dev.start()
dev.world(timeout=20).close()  # the firmware is up and dealing with its world
print(dev.interpreter_pid, flush=True)
time.sleep(600)
"""


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


def test_the_board_stops_when_the_process_hosting_it_is_killed(tmp_path: Path) -> None:
    flash = tmp_path / "flash"
    build.install_to_dir(build.build_image("sim", tmp_path / "image"), flash)
    host = subprocess.Popen([sys.executable, "-c", HOST, str(flash)], stdout=subprocess.PIPE, text=True,
                            env=dict(os.environ, SHUFFLER_RUNTIME_DIR=str(tmp_path / "runtime")))
    board: int | None = None
    try:
        assert host.stdout is not None
        board = int(host.stdout.readline())
        assert alive(board)
        host.send_signal(signal.SIGKILL)  # no clean-up runs in the host
        host.wait(timeout=10)
        deadline = time.monotonic() + 30
        while alive(board) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not alive(board), "the board's interpreter runs on without its host"
    finally:
        if host.poll() is None:
            host.kill()
            host.wait(timeout=10)
        if board is not None and alive(board):
            os.kill(board, signal.SIGKILL)  # never leave it spinning, even when the test fails
