"""The serial line as a real port has it: a receive ring of an ESP32's size
that drops what arrives while it is full (simulator/virtual/board/sim_uart.py,
the figures in firmware/profile_esp32.py), and 0x03 bytes. The firmware drains
the ring in every wait into its own buffer, answers an overflow of that
buffer with an error, and takes 0x03 itself: inside a line it is a bad line,
alone it hands the board to the REPL."""

from __future__ import annotations

import os
import subprocess
from typing import Any

import pytest

from firmware import profile_esp32
from firmware import protocol
from host import wire
from fwtest_support import MICROPYTHON, REPO, FwProcess, require_micropython

pytestmark = [pytest.mark.micropython, pytest.mark.serial_garbage]

BOARD_DIR = REPO / "simulator" / "virtual" / "board"
RING = profile_esp32.PROFILE["uart_rx_ring"]
BAUD = profile_esp32.PROFILE["uart_baud"]


def padded_request(cmd: str, rid: int, size: int) -> bytes:
    """A request line of `size` bytes, newline included (an unknown field
    is ignored by the command)."""
    base = protocol.encode(wire.request(cmd, rid, pad="")).encode()
    line = protocol.encode(wire.request(cmd, rid, pad="x" * (size - len(base)))).encode()
    assert len(line) == size
    return line


def mid_pass(start_fw_process: Any, cards: int = 12) -> FwProcess:
    # The plausible mechanism: a card takes about 55 ms (at the sim board's
    # 80 % duty), in which the wire carries twice what the ring holds.
    dev = start_fw_process(env={"SHUFFLER_SIM_MECHANISM": "plausible"})
    dev.event("hello")
    dev.world.load(list(range(cards)))
    dev.send("start")
    dev.wait(lambda m: m.get("ev") == "progress" and m["k"] >= 1)
    return dev


UART_SCRIPT = r"""
import sim_uart
t = [0]
u = sim_uart.Uart(lambda: t[0], %d, %d)
u.any()
got = bytearray()
one = bytearray(1)
while True:
    t[0] += %d
    if not u.any():
        continue
    while u.any():
        if not u.readinto(one):
            break
        got.append(one[0])
    if u.eof:
        break
print(len(got), u.dropped, got == bytes(range(256)) * 4)
"""


@pytest.mark.parametrize("every_ms, kept, dropped", [
    (100, RING, 1024 - RING),  # read every 100 ms: the ring keeps its size and drops the rest
    (10, 1024, 0),  # read every 10 ms: 115 bytes at most wait, nothing is lost
])
def test_the_ring_drops_what_arrives_while_it_is_full(every_ms: int, kept: int, dropped: int) -> None:
    require_micropython()
    env = dict(os.environ, MICROPYPATH=str(BOARD_DIR))
    out = subprocess.run([MICROPYTHON, "-c", UART_SCRIPT % (RING, BAUD, every_ms)], env=env,
                         input=bytes(range(256)) * 4, capture_output=True, timeout=60)
    assert out.returncode == 0, out.stderr
    n, lost, whole = out.stdout.decode().split()
    assert (int(n), int(lost)) == (kept, dropped)
    assert (whole == "True") == (dropped == 0)


def test_two_requests_sent_together_mid_pass_are_both_answered(start_fw_process: Any) -> None:
    """More than the ring holds arrives during one card: the firmware drains
    it in the card's waits, so nothing is dropped and both are answered."""
    dev = mid_pass(start_fw_process)
    a, b = padded_request("status", 501, 200), padded_request("hello", 502, 200)
    assert len(a + b) > RING
    dev.write(a + b)
    assert dev.reply(501)["ok"] is True and dev.reply(502)["ok"] is True
    assert dev.event("done")["k"] == 12
    assert dev.world.query()["uart_dropped"] == 0


def test_more_than_the_firmware_buffers_is_an_overflow_error_never_a_silent_loss(start_fw_process: Any) -> None:
    dev = mid_pass(start_fw_process, cards=20)
    lines = [padded_request("status", 600 + i, 200) for i in range(6)]
    assert sum(map(len, lines)) > protocol.IN_BUFFER
    first = len(dev.seen)
    dev.write(b"".join(lines))
    err = dev.wait(lambda m: m.get("ok") is False)
    assert err["err"] == protocol.E_OVERFLOW
    answered = [m["id"] for m in dev.seen[first:] if m.get("re") == "status"]
    # What the buffer held is answered, in order; the rest is covered by the error.
    assert answered == [600 + i for i in range(len(answered))] and 1 <= len(answered) < 6
    assert dev.world.query()["uart_dropped"] == 0  # the port's ring never dropped a byte
    assert dev.call("status")["ok"] is True
    assert dev.event("done")["k"] == 20


def test_a_ctrl_c_inside_a_line_is_a_bad_line_and_the_pass_goes_on(start_fw_process: Any) -> None:
    dev = mid_pass(start_fw_process)
    dev.write(b'{"cmd":"sta\x03tus","id":7}\n')
    err = dev.wait(lambda m: m.get("ok") is False)
    assert err["err"] == protocol.E_BAD_JSON
    assert dev.event("done")["k"] == 12
    assert dev.call("status")["state"] == "idle"
    assert dev.proc.poll() is None
    assert not [m for m in dev.seen if m.get("ev") == "stopped"]


def test_a_lone_ctrl_c_between_lines_stops_the_pass_for_the_repl(start_fw_process: Any) -> None:
    dev = mid_pass(start_fw_process)
    dev.write(b'{"cmd":"status","id":8}\r\x03')
    assert dev.event("stopped")["reason"] == "interrupt"
    assert dev.proc.wait(timeout=10) == 0
