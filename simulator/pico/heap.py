"""The firmware's heap on MicroPython's rp2 port (32-bit, the emulated Pico):
in use and free after boot and after a 104-card pass, measured on the chip
with gc.mem_alloc()/gc.mem_free() after gc.collect()."""
from __future__ import annotations

import time
from typing import Any

import serial

from simulator.pico.emulator import EmulatedPico

# Run at the REPL after Ctrl-C has stopped the firmware: the same start-up as
# app.main(), then the main loop stepped until a pass has dealt every card.
# The controller drains the serial input whenever it waits (its boot
# included), so each REPL line goes only once the REPL prompts for it.
BOOT = (
    "import gc, boardsel\r\n"
    "from controller import Controller\r\n"
    "from link import Link\r\n"
    "p = boardsel.load_profile(boardsel.profile_name()); b = boardsel.open_board(p); "
    "c = Controller(b, p, Link()); c.boot()\r\n"
)
MEASURE_BOOT = "gc.collect(); print('HEAP boot', gc.mem_alloc(), gc.mem_free())\r\n"
LOOP = "exec('while c.dealer.k < %d:\\n c.step()')\r\n"
AFTER = "gc.collect(); print('HEAP pass', gc.mem_alloc(), gc.mem_free())\r\n"


def rp2_heap(pico: EmulatedPico, cards: int = 104, timeout: float = 600) -> dict[str, Any]:
    """Bytes in use and free, after boot and after a pass of `cards` cards,
    on a running emulated Pico with the firmware and calibration flashed."""
    ser = serial.Serial(pico.port, 115200, timeout=0.05)
    try:
        seen = bytearray()
        _wait(ser, seen, b'"board"', pico, timeout)  # the firmware said hello
        ser.write(b"\x03")
        _wait(ser, seen, b'"stopped"', pico, timeout)
        seen.clear()
        ser.write(b"\r\n" + BOOT.encode())
        _wait_prompt_after(ser, seen, b'"hello"', pico, timeout)
        ser.write(MEASURE_BOOT.encode())
        boot = _wait_line(ser, seen, b"HEAP boot ", pico, timeout)
        pico.load(range(cards))
        ser.write((LOOP % cards).encode())
        _wait(ser, seen, b"c.step()')", pico, timeout)  # the loop runs: lines go to the firmware now
        ser.write(b'{"cmd":"start","id":1}\n')
        _wait_prompt_after(ser, seen, b'"done"', pico, timeout)
        ser.write(AFTER.encode())
        after = _wait_line(ser, seen, b"HEAP pass ", pico, timeout)
    finally:
        ser.close()
    q = pico.query()
    return {
        "boot_alloc": boot[0], "boot_free": boot[1],
        "pass_alloc": after[0], "pass_free": after[1],
        "dealt": q["counts"]["left"] + q["counts"]["right"],
    }


def _wait(ser: serial.Serial, seen: bytearray, pattern: bytes, pico: EmulatedPico, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while pattern not in seen:
        if time.monotonic() > deadline or not pico.running:
            raise TimeoutError(f"waited for {pattern!r}; got {bytes(seen[-300:])!r}")
        seen += ser.read(4096)


def _wait_prompt_after(ser: serial.Serial, seen: bytearray, pattern: bytes, pico: EmulatedPico,
                       timeout: float) -> None:
    """Wait for pattern, then for the REPL's prompt after it."""
    _wait(ser, seen, pattern, pico, timeout)
    deadline = time.monotonic() + timeout
    while b">>> " not in seen[seen.rfind(pattern):]:
        if time.monotonic() > deadline or not pico.running:
            raise TimeoutError(f"waited for the prompt after {pattern!r}; got {bytes(seen[-300:])!r}")
        seen += ser.read(4096)


def _wait_line(ser: serial.Serial, seen: bytearray, tag: bytes, pico: EmulatedPico,
               timeout: float) -> tuple[int, int]:
    """The two numbers of the printed line starting with tag (the echoed
    command holds the tag in quotes, so it never starts a line)."""
    deadline = time.monotonic() + timeout
    while True:
        for line in bytes(seen).replace(b"\r", b"").split(b"\n")[:-1]:
            if line.startswith(tag):
                a, f = line[len(tag):].split()[:2]
                return int(a), int(f)
        if time.monotonic() > deadline or not pico.running:
            raise TimeoutError(f"waited for {tag!r}; got {bytes(seen[-300:])!r}")
        seen += ser.read(4096)


def rp2_heap_lines(cards: int = 104) -> list[str]:
    """The budget benchmark's lines for the rp2 port."""
    from simulator.pico import EmulatorError, ImageMissing
    from simulator.pico.flash_fs import build_fs, calibration, firmware_files

    try:
        pico = EmulatedPico(fs=build_fs(firmware_files({"cal.json": calibration()})), mechanism="fast")
    except (ImageMissing, EmulatorError) as exc:
        return [f"MicroPython's rp2 port: not measured ({exc})"]
    with pico:
        got = rp2_heap(pico, cards)
    kib = 1024
    return [
        "the firmware on MicroPython's rp2 port (emulated Pico, 32-bit, .mpy as flashed; gc after collect):",
        f"  heap in use after boot: {got['boot_alloc'] / kib:.1f} KiB, free {got['boot_free'] / kib:.1f} KiB",
        f"  heap in use after a {cards}-card pass: {got['pass_alloc'] / kib:.1f} KiB,"
        f" free {got['pass_free'] / kib:.1f} KiB ({got['dealt']} cards dealt)",
    ]
