"""Ports that are not a quiet board: one that never stops sending, and a
board's port another program has open. Each command answers in one line
naming the port and what to do, within the time it was given, as the
outside world shows it (a real pseudo-terminal, a real program holding it)."""
from __future__ import annotations

import subprocess
import sys
import threading
import time

from pty_device import FakePort
from suite import shuffler

# A serial monitor left open on the port: it reads in raw mode as fast as
# bytes come (several readers, so it takes most of what the board sends).
MONITOR = ("import sys, threading, serial; s = serial.Serial(sys.argv[1], 115200)\n"
           "def read():\n    while True: s.read(1)\n"
           "for _ in range(4): threading.Thread(target=read, daemon=True).start()\n"
           "print('open', flush=True); threading.Event().wait()")


def test_flash_on_a_port_that_never_stops_sending_gives_up_within_its_connect_timeout() -> None:
    port = FakePort()
    stop = threading.Event()

    def babble() -> None:  # a boot ROM's noise, without end
        while not stop.is_set():
            port.emit(b"rst:0x1 (POWERON_RESET),boot:0x13 ets_main.c 371 \r\n")
            time.sleep(0.002)

    talker = threading.Thread(target=babble, daemon=True)
    talker.start()
    try:
        began = time.monotonic()
        out = shuffler("flash", "--port", port.port, "--connect-timeout", "2", timeout=170)
        took = time.monotonic() - began
    finally:
        stop.set()
        talker.join(timeout=5)
        port.close()
    assert out.returncode == 1, out.stderr
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and "internal error" not in lines[0], out.stderr
    assert f"{port.port} did not answer like a MicroPython board within 2 s" in lines[0]
    assert "nothing was written" in lines[0]
    assert took < 60, took  # the time given (and the start of a Python), never the 180 s overall limit


def test_a_board_whose_port_another_program_reads_is_said_so() -> None:
    # The monitor takes every byte the board sends: to the command the
    # board is silent, and flashing it (the advice for a silent board) would
    # not help; the other program is named instead.
    board = FakePort()
    monitor = subprocess.Popen([sys.executable, "-c", MONITOR, board.port], stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL)
    try:
        assert monitor.stdout is not None and monitor.stdout.readline() == b"open\n"  # it has the port
        for cmd in ("check", "setup"):
            out = subprocess.run([sys.executable, "-m", "host.cli", cmd, "--port", board.port], input="n\n",
                                 capture_output=True, text=True, timeout=300)
            assert out.returncode == 1, out.stdout + out.stderr
            line = out.stderr.strip().splitlines()
            assert len(line) == 1, (cmd, out.stdout, out.stderr)
            assert f"{board.port} is open in another program too (" in line[0], line
            assert f"(pid {monitor.pid})" in line[0] and "close it, then run this command again" in line[0]
            assert "shuffler flash" not in out.stdout + out.stderr
    finally:
        monitor.kill()
        monitor.wait()
        board.close()


def test_a_looped_back_port_and_another_serial_device_are_told_from_a_board() -> None:
    def echo(port: FakePort, chunk: bytes) -> None:  # a loopback plug: every byte comes back
        port.emit(chunk)

    loop = FakePort(echo)
    try:
        for cmd in ("check", "setup"):
            out = shuffler(cmd, "--port", loop.port, timeout=120)
            assert out.returncode == 1 and out.stderr.count("\n") == 1, out.stdout + out.stderr
            assert f"{loop.port} sends back what it is sent (a loopback, or a program that echoes)" in out.stderr
    finally:
        loop.close()
    gps = FakePort()
    stop = threading.Event()

    def talk() -> None:  # a GPS receiver's sentences, once a second as they come
        while not stop.wait(0.2):
            gps.emit(b"$GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,*47\r\n")

    talker = threading.Thread(target=talk, daemon=True)
    talker.start()
    try:
        out = shuffler("check", "--port", gps.port, timeout=120)
    finally:
        stop.set()
        talker.join(timeout=5)
        gps.close()
    assert out.returncode == 1 and out.stderr.count("\n") == 1, out.stdout + out.stderr
    assert f"{gps.port} sends lines that are not the shuffler's (\"$GPGGA," in out.stderr
    assert "is the shuffler firmware on it" not in out.stderr
