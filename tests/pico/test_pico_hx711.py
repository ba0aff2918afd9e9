"""The firmware's HX711 driver on the rp2 port, read at random moments of
idle, when a word is already waiting and may be almost a conversion
period old: every reading is the weight of the cards in the tray. (Begun
late in the period, the read used to straddle the next conversion: about
3 % of such reads were refused or wrong.)"""
from __future__ import annotations

import re

import pytest

from firmware import load_cell
from firmware import profile_rp2
from picotest_support import to_repl
from simulator.pico.emulator import load_world_module

pytestmark = [pytest.mark.load_cell, pytest.mark.slow, pytest.mark.pico]

READS = 300
LOADED = 40

# Waits of 13 to 25.8 ms: each longer than a conversion period (12.5 ms), so
# a word is always waiting when read() begins, of a random age.
PROGRAM = """import os, time
from hx711 import HX711
h = HX711(%d, %d)
got = []
for i in range(%d):
    time.sleep_us(13000 + os.urandom(1)[0] * 50)
    got.append(h.read())
print('READINGS', ' '.join(str(v) for v in got), 'END')
""" % (profile_rp2.PROFILE["pins"]["hx711_dout"], profile_rp2.PROFILE["pins"]["hx711_sck"], READS)


def test_reads_begun_at_any_moment_give_the_weight_in_the_tray(emulated_pico) -> None:
    pico, host = emulated_pico
    host.hello()
    pico.load(range(LOADED))
    to_repl(host)  # sensor power stays on
    host.write(b"exec(%r)\r\n" % PROGRAM.encode())
    host.expect_raw(b" END")
    found = re.findall(rb"READINGS ([-0-9 None]+) END", host.raw)
    assert found, host.raw[-300:]
    readings = found[-1].split()
    assert len(readings) == READS
    world = load_world_module()
    counts = [load_cell.count_from_raw(int(v), world.STACK_TARE, world.STACK_PER_CARD) if v != b"None" else None
              for v in readings]
    assert [c for c in counts if c != LOADED] == []
