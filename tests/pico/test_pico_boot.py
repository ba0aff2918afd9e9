"""The emulated Pico: MicroPython's stock rp2 image boots in rp2040js, its
USB port opens like a board's, and the firmware on its flash answers."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

from firmware import protocol
from simulator.pico import image as img


def test_a_missing_image_fails_in_one_line_saying_where_to_put_it(tmp_path) -> None:
    code = "from simulator.pico import find_image; find_image()"
    env = dict(os.environ, **{img.ENV: str(tmp_path)})
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert proc.returncode != 0
    last = proc.stderr.strip().splitlines()[-1]
    assert str(tmp_path) in last and img.UF2 in last and img.ENV in last


@pytest.mark.slow
@pytest.mark.pico
def test_the_stock_image_boots_to_the_repl_and_mounts_littlefs(start_emulated_pico, open_pico_client) -> None:
    # An erased filesystem: MicroPython formats it at first boot, which
    # only works because the ROM's flash erase and program are emulated.
    pico = start_emulated_pico()
    host = open_pico_client(pico)
    host.write(b"\r\x03\x02\r\n")  # Ctrl-C, Ctrl-B: the friendly REPL
    host.expect_raw(b">>> ")
    host.write(b"import os, sys; print('P=', sys.platform, os.statvfs('/')[2])\r\n")
    host.expect_raw(b"P= rp2 352")
    host.write(b"f = open('t.txt', 'w'); f.write('kept'); f.close()\r\n")
    host.write(b"print('R=' + open('t.txt').read())\r\n")
    host.expect_raw(b"R=kept")


@pytest.mark.slow
@pytest.mark.pico
def test_the_flashed_firmware_answers_hello_as_an_rp2_board(emulated_pico) -> None:
    pico, host = emulated_pico
    msg = host.hello()
    assert msg["ok"] is True and msg["board"] == "rp2"
    assert msg["fw"] == protocol.FIRMWARE_VERSION and msg["proto"] == protocol.PROTOCOL_VERSION
    assert msg["cal"]["stack"] == "calibrated"
    assert pico.boots == 1
