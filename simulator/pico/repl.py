"""Talking to MicroPython's REPL on the emulated Pico's USB port, for the
scripts that measure the firmware on the chip (heap.py, card_loop.py): the
firmware stopped with Ctrl-C, started again at the REPL as app.main()
starts it, lines typed once the prompt asks, figures read off the lines
printed."""
from __future__ import annotations

import time

import serial

from simulator.pico.emulator import EmulatedPico

# Run at the REPL after Ctrl-C has stopped the firmware: the same start-up as
# app.main(). The controller drains the serial input whenever it waits (its
# boot included), so each REPL line goes only once the REPL prompts for it.
BOOT = (
    "import gc, boardsel\r\n"
    "from controller import Controller\r\n"
    "from link import Link\r\n"
    "p = boardsel.load_profile(boardsel.profile_name()); b = boardsel.open_board(p); "
    "c = Controller(b, p, Link()); c.boot(); b.wdt_release()\r\n"
)
# The watchdog released: at the REPL no loop beats it, and a reset part way
# through a measurement would hand the lines typed next to the firmware.


def wait(ser: serial.Serial, seen: bytearray, pattern: bytes, pico: EmulatedPico, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while pattern not in seen:
        if time.monotonic() > deadline or not pico.running:
            raise TimeoutError(f"waited for {pattern!r}; got {bytes(seen[-300:])!r}")
        seen += ser.read(max(1, ser.in_waiting))  # what has come, not a wait for 4 KiB


def wait_prompt_after(ser: serial.Serial, seen: bytearray, pattern: bytes, pico: EmulatedPico,
                       timeout: float) -> None:
    """Wait for pattern, then for the REPL's prompt after it."""
    wait(ser, seen, pattern, pico, timeout)
    deadline = time.monotonic() + timeout
    while b">>> " not in seen[seen.rfind(pattern):]:
        if time.monotonic() > deadline or not pico.running:
            raise TimeoutError(f"waited for the prompt after {pattern!r}; got {bytes(seen[-300:])!r}")
        seen += ser.read(max(1, ser.in_waiting))  # what has come, not a wait for 4 KiB


def wait_line(ser: serial.Serial, seen: bytearray, tag: bytes, pico: EmulatedPico,
               timeout: float) -> tuple[int, ...]:
    """The numbers of the printed line starting with tag (the echoed
    command holds the tag in quotes, so it never starts a line)."""
    deadline = time.monotonic() + timeout
    while True:
        for line in bytes(seen).replace(b"\r", b"").split(b"\n")[:-1]:
            if line.startswith(tag):
                return tuple(int(x) for x in line[len(tag):].split())
        if time.monotonic() > deadline or not pico.running:
            raise TimeoutError(f"waited for {tag!r}; got {bytes(seen[-300:])!r}")
        seen += ser.read(max(1, ser.in_waiting))  # what has come, not a wait for 4 KiB


def boot_at_repl(ser: serial.Serial, seen: bytearray, pico: EmulatedPico, timeout: float) -> None:
    """The running firmware stopped with Ctrl-C and started again at the REPL
    (a controller `c` over the board `b` with the profile `p`), the prompt back."""
    wait(ser, seen, b'"board"', pico, timeout)  # the firmware said hello
    ser.write(b"\x03")
    wait(ser, seen, b'"stopped"', pico, timeout)
    seen.clear()
    ser.write(b"\r\n" + BOOT.encode())
    wait_prompt_after(ser, seen, b'"hello"', pico, timeout)


def flashed_pico(mechanism: str) -> EmulatedPico | str:
    """An emulated Pico with the firmware and the calibration on its flash, for
    a measurement; or why there is none here (one line)."""
    from simulator.pico import EmulatorError, ImageMissing
    from simulator.pico.flash_fs import build_fs, calibration, firmware_files

    try:
        return EmulatedPico(fs=build_fs(firmware_files({"cal.json": calibration()})), mechanism=mechanism)
    except (ImageMissing, EmulatorError) as exc:
        return f"MicroPython's rp2 port: not measured ({exc})"
