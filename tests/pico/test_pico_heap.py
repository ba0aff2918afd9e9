"""The heap on MicroPython's rp2 port: the per-card loop under
micropython.heap_lock() with the rp2 drivers, and the heap figures the
docs quote, measured on the emulated chip."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from firmware import protocol
from picotest_support import flashed_fs

pytestmark = [pytest.mark.slow, pytest.mark.pico]
DOC = Path(__file__).resolve().parents[2] / "docs" / "firmware.md"


def test_the_card_loop_runs_under_heap_lock_on_the_rp2_port(start_emulated_pico, open_pico_client) -> None:
    # The profile's heap_lock_pass on: every pass runs under
    # micropython.heap_lock(), so an allocation in the loop or in the rp2
    # drivers it calls would raise MemoryError and end the pass with fault 9.
    pico = start_emulated_pico(fs=flashed_fs(profile={"heap_lock_pass": True}))
    host = open_pico_client(pico)
    host.hello()
    pico.load(range(104))
    start = len(host.seen)
    assert host.call("start")["ok"] is True
    done = host.event(protocol.EV_DONE, start=start)
    assert done["k"] == 104
    assert not [m for m in host.seen[start:] if m.get("ev") == protocol.EV_FAULT]
    # The lock is real on this port: an allocation under it raises.
    host.write(b"\x03")
    host.event(protocol.EV_STOPPED, start=start)
    host.write(b"\r\nimport micropython\r\n")
    host.write(b'exec("micropython.heap_lock()\\ntry:\\n bytearray(8)\\nexcept MemoryError:\\n print(\'lock holds\')\\n'
               b'micropython.heap_unlock()")\r\n')
    host.expect_raw(b"lock holds")


def test_the_docs_quote_the_heap_measured_on_the_rp2_port(start_emulated_pico) -> None:
    from simulator.pico.heap import rp2_heap

    pico = start_emulated_pico(fs=flashed_fs())
    got = rp2_heap(pico, cards=104)
    assert got["dealt"] == 104
    doc = DOC.read_text()
    m = re.search(r"after boot ([\d.]+) KiB in use, ([\d.]+) KiB free", doc)
    assert m, "the rp2 heap line is missing from docs/firmware.md"
    assert abs(float(m.group(1)) - got["boot_alloc"] / 1024) <= 0.5
    assert abs(float(m.group(2)) - got["boot_free"] / 1024) <= 0.5
    m = re.search(r"after a 104-card pass ([\d.]+) KiB in use", doc)
    assert m, "the rp2 heap after a pass is missing from docs/firmware.md"
    assert abs(float(m.group(1)) - got["pass_alloc"] / 1024) <= 0.5
    # What the pass adds is, but for half a KiB, a pool of interned names (allocated once).
    pools = got["pass_qstr"][2] - got["boot_qstr"][2]
    assert got["pass_alloc"] - got["boot_alloc"] - pools <= 512
