"""Ports that are not a quiet board: one that never stops sending, and a
board's port another program has open. Each command answers in one line
naming the port and what to do, within the time it was given, as the
outside world shows it (a real pseudo-terminal, a real program holding it)."""
from __future__ import annotations

import os
import subprocess
import sys
import threading
import time

from firmware import protocol
from host import port_words, setup_steps
from host import port_records as said
from pty_device import FakePort
from suite import shuffler


def program(pid: int) -> str:
    """The name a running program goes by (Linux's /proc)."""
    with open(f"/proc/{pid}/comm") as f:
        return f.read().strip()


def refusal(record: object) -> str:
    """The one line the command line prints for a refusal, from its record."""
    return f"shuffler: {port_words.words(record)}"

# A serial monitor left open on the port: it reads in raw mode as fast as
# bytes come (several readers, so it takes most of what the board sends).
MONITOR = ("import sys, threading, serial; s = serial.Serial(sys.argv[1], 115200)\n"
           "def read():\n    while True: s.read(1)\n"
           "for _ in range(4): threading.Thread(target=read, daemon=True).start()\n"
           "print('open', flush=True); threading.Event().wait()")
SENTENCE = b"$GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,*47"  # a GPS receiver's


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
    assert out.stderr.strip().splitlines() == [refusal(said.SendsWithoutStopping(port.port, 2.0))], out.stderr
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
        # The monitor has it, and this process (which holds the board's end open) too.
        held = said.HeldByOthers(board.port, tuple(said.Holder(program(pid), pid)
                                                   for pid in sorted((monitor.pid, os.getpid()))))
        flash_offer = setup_steps.words(setup_steps.FlashOffer("", protocol.FIRMWARE_VERSION, True))
        for cmd in ("check", "setup"):
            out = subprocess.run([sys.executable, "-m", "host.cli", cmd, "--port", board.port], input="n\n",
                                 capture_output=True, text=True, timeout=300)
            assert out.returncode == 1, out.stdout + out.stderr
            assert out.stderr.strip().splitlines() == [refusal(held)], (cmd, out.stdout, out.stderr)
            assert flash_offer not in out.stdout, (cmd, out.stdout)
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
            assert out.returncode == 1 and out.stderr == refusal(said.EchoesBack(loop.port)) + "\n", out.stdout + out.stderr
    finally:
        loop.close()
    gps = FakePort()
    stop = threading.Event()

    def talk() -> None:  # a GPS receiver's sentences, once a second as they come
        while not stop.wait(0.2):
            gps.emit(SENTENCE + b"\r\n")

    talker = threading.Thread(target=talk, daemon=True)
    talker.start()
    try:
        out = shuffler("check", "--port", gps.port, timeout=120)
    finally:
        stop.set()
        talker.join(timeout=5)
        gps.close()
    shown = SENTENCE.decode()[:60]  # the last line that came, its start
    assert out.returncode == 1 and out.stderr == refusal(said.OtherLines(gps.port, shown)) + "\n", out.stderr


def test_a_link_s_trouble_is_its_record_unless_another_program_holds_the_port() -> None:
    """What check, setup and the guide say of a failed link (ports.link_trouble):
    the error's own record while no other program has the port; an error
    that came with words of its own, those words."""
    from host import ports
    from host.device_link import LinkError, LinkTimeout

    board = FakePort()
    try:
        silent = LinkTimeout(said.NoAnswer(board.port, protocol.CMD_STATUS, 2.0))
        assert ports.link_trouble(board.port, silent) == said.NoAnswer(board.port, protocol.CMD_STATUS, 2.0)
        assert ports.link_words(board.port, silent) == port_words.words(silent.record)
        worded = LinkError("the board restarted")
        assert ports.link_trouble(board.port, worded) == ports.link_words(board.port, worded) == str(worded)
    finally:
        board.close()
