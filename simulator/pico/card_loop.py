"""The firmware's per-card loop on MicroPython's rp2 port (the emulated
Pico, the world at the Lotus speed of hardware/mechanism.py): how long a
card takes and how much of it is the firmware's own work, measured on the
chip with time.ticks_us (the emulated RP2040's clock) around a whole pass
and around every sleep the loop makes between its polls of the beam."""
from __future__ import annotations

from typing import Any

import serial

from simulator.pico.emulator import EmulatedPico
from simulator.pico.repl import boot_at_repl, flashed_pico, wait_line

# Typed at the REPL as exec() strings: the friendly REPL would indent a
# def's body itself. The board's sleep_ms is wrapped to add up the time
# slept and count the polls (one sleep a poll in the card waits).
WRAP = "exec(%r)\r\n" % (
    "import time\n"
    "slept = [0, 0]\n"
    "_s = b.sleep_ms\n"
    "def sl(ms):\n t = time.ticks_us(); _s(ms); slept[0] += time.ticks_diff(time.ticks_us(), t); slept[1] += 1\n"
    "b.sleep_ms = sl\n"
)
# The wrapper's own work a call, outside the time it counts as slept (and
# the loop's `for` around it): 200 calls, subtracted from the loop's work.
OWN = "exec(%r)\r\n" % (
    "slept[0] = 0; t = time.ticks_us()\nfor i in range(200): sl(0)\n"
    "print('OWN', time.ticks_diff(time.ticks_us(), t) - slept[0])\n"
)
RUN = "exec(%r)\r\n" % (
    "d = c.dealer; c.sides.prepare(%d)\n"
    "d.begin(c.sides, %d, c.cfg, p['battery_cutoff_mv'], p['poll_ms'])\n"
    "slept[0] = slept[1] = 0; t = time.ticks_us(); r = d.run(); total = time.ticks_diff(time.ticks_us(), t)\n"
    "print('LOOP', r, d.k, total, slept[0], slept[1], d.clear_ms, d.expected_ms())\n"
)


def card_loop(pico: EmulatedPico, cards: int = 104, timeout: float = 900) -> dict[str, Any]:
    """A pass of `cards` cards run at the REPL on a running emulated Pico with
    the firmware and calibration flashed: its time and the time slept."""
    ser = serial.Serial(pico.port, 115200, timeout=0.05)
    try:
        seen = bytearray()
        boot_at_repl(ser, seen, pico, timeout)
        pico.load(range(cards))
        ser.write(WRAP.encode())
        ser.write(OWN.encode())
        (own,) = wait_line(ser, seen, b"OWN ", pico, timeout)
        ser.write((RUN % (cards, cards)).encode())
        r, k, total, slept, polls, clear_ms, card_ms = wait_line(ser, seen, b"LOOP ", pico, timeout)
    finally:
        ser.close()
    return {"result": r, "dealt": k, "total_us": total, "slept_us": slept, "polls": polls,
            "clear_ms": clear_ms, "card_ms": card_ms, "wrapper_us": own / 200}


def card_loop_lines(cards: int = 104) -> list[str]:
    from hardware import mechanism
    pico = flashed_pico("plausible")
    if isinstance(pico, str):
        return [pico]
    with pico:
        got = card_loop(pico, cards)
    n = max(1, got["dealt"])
    card = got["total_us"] / n / 1000
    polls = got["polls"] / n
    # The loop's time awake, less the measuring wrapper's own work in every poll.
    busy_us = (got["total_us"] - got["slept_us"] - got["wrapper_us"] * got["polls"]) / n
    per_poll = busy_us / polls if polls else float("nan")
    return [
        f"the per-card loop on MicroPython's rp2 port (emulated RP2040, .mpy as flashed; the world at the Lotus "
        f"speed; {got['dealt']} of {cards} cards dealt, result {got['result']}):",
        f"  a card takes {card:.1f} ms (hardware/mechanism.py: {mechanism.card_ms(8700, 65)} ms of motor time at 8.7 V "
        f"under load, 65 % duty)",
        f"  the firmware's own work: {busy_us / 1000:.2f} ms a card, {busy_us / 10 / card:.1f} % of it: "
        f"a margin of {card * 1000 / busy_us:.0f} times (the measuring wrapper's own {got['wrapper_us']:.0f} us "
        f"a poll taken out)",
        f"  {polls:.0f} polls of the beam a card, {per_poll:.1f} us of work a poll against the 1 ms poll and the "
        f"beam's {got['clear_ms']} ms clear debounce ({got['clear_ms'] * 1000 / per_poll:.0f} times a poll's work)",
    ]
