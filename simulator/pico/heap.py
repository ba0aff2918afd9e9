"""The firmware's heap on MicroPython's rp2 port (32-bit, the emulated Pico):
in use and free after boot and after a 104-card pass, measured on the chip
with gc.mem_alloc()/gc.mem_free() after gc.collect()."""
from __future__ import annotations

import re
import time
from typing import Any

import serial

from simulator.pico.emulator import EmulatedPico
from simulator.pico.repl import boot_at_repl, flashed_pico, wait, wait_line, wait_prompt_after

MEASURE_BOOT = "gc.collect(); print('HEAP boot', gc.mem_alloc(), gc.mem_free())\r\n"
LOOP = "exec('while c.dealer.k < %d:\\n c.step()')\r\n"
AFTER = "gc.collect(); print('HEAP pass', gc.mem_alloc(), gc.mem_free())\r\n"
# Interned names live in pools on the heap; a full pool makes MicroPython
# allocate a bigger one, once: that is not the firmware's running state.
QSTR = "micropython.qstr_info()\r\n"
QSTR_LINE = re.compile(rb"qstr pool: n_pool=(\d+), n_qstr=(\d+), n_str_data_bytes=\d+, n_total_bytes=(\d+)")


def qstr_pools(ser: serial.Serial, seen: bytearray, pico: EmulatedPico, timeout: float) -> tuple[int, ...]:
    """(pools, names, bytes) of the interned names."""
    seen.clear()
    ser.write(QSTR.encode())
    deadline = time.monotonic() + timeout
    while not (m := QSTR_LINE.search(bytes(seen))):
        if time.monotonic() > deadline or not pico.running:
            raise TimeoutError(f"waited for qstr_info; got {bytes(seen[-300:])!r}")
        seen += ser.read(max(1, ser.in_waiting))  # what has come, not a wait for 4 KiB
    return tuple(int(x) for x in m.groups())


def rp2_heap(pico: EmulatedPico, cards: int = 104, timeout: float = 600) -> dict[str, Any]:
    """Bytes in use and free, after boot and after a pass of `cards` cards,
    on a running emulated Pico with the firmware and calibration flashed."""
    ser = serial.Serial(pico.port, 115200, timeout=0.05)
    try:
        seen = bytearray()
        boot_at_repl(ser, seen, pico, timeout)
        ser.write(MEASURE_BOOT.encode())
        boot = wait_line(ser, seen, b"HEAP boot ", pico, timeout)
        ser.write(b"import micropython\r\n")
        boot_q = qstr_pools(ser, seen, pico, timeout)
        pico.load(range(cards))
        ser.write((LOOP % cards).encode())
        wait(ser, seen, b"c.step()')", pico, timeout)  # the loop runs: lines go to the firmware now
        ser.write(b'{"cmd":"start","id":1}\n')
        wait_prompt_after(ser, seen, b'"done"', pico, timeout)
        ser.write(AFTER.encode())
        after = wait_line(ser, seen, b"HEAP pass ", pico, timeout)
        pass_q = qstr_pools(ser, seen, pico, timeout)
    finally:
        ser.close()
    q = pico.query()
    return {
        "boot_alloc": boot[0], "boot_free": boot[1],
        "pass_alloc": after[0], "pass_free": after[1],
        "boot_qstr": boot_q, "pass_qstr": pass_q,
        "dealt": q["counts"]["left"] + q["counts"]["right"],
    }


def rp2_heap_lines(cards: int = 104) -> list[str]:
    """The budget benchmark's lines for the rp2 port."""
    pico = flashed_pico("fast")
    if isinstance(pico, str):
        return [pico]
    with pico:
        got = rp2_heap(pico, cards)
    kib = 1024
    return [
        "the firmware on MicroPython's rp2 port (emulated Pico, 32-bit, .mpy as flashed; gc after collect):",
        f"  heap in use after boot: {got['boot_alloc'] / kib:.1f} KiB, free {got['boot_free'] / kib:.1f} KiB",
        f"  heap in use after a {cards}-card pass: {got['pass_alloc'] / kib:.1f} KiB,"
        f" free {got['pass_free'] / kib:.1f} KiB ({got['dealt']} cards dealt)",
        "  interned names (micropython.qstr_info), after boot and after the pass:"
        " {} and {} pools, {} and {} names, {:.1f} and {:.1f} KiB".format(
            got["boot_qstr"][0], got["pass_qstr"][0], got["boot_qstr"][1], got["pass_qstr"][1],
            got["boot_qstr"][2] / kib, got["pass_qstr"][2] / kib),
    ]
