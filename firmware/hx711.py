"""HX711 24-bit load-cell converter, bit-banged (channel A, gain 128)."""

import time

import machine
from machine import Pin

try:
    from micropython import const
except ImportError:  # CPython: the tests and the host import this module too
    const = int  # type: ignore[assignment,misc]

# RATE is tied high (hardware/README.md): 80 samples/s, a conversion every
# 12.5 ms. Four periods without DOUT going low means no chip is answering.
READY_TIMEOUT_MS = const(50)
# The converter clips at the ends of its range: such a reading says nothing
# about the weight on the cell (overload, or an open bridge wire).
_CLIP_HIGH = const(0x7FFFFF)
_CLIP_LOW = const(-0x800000)
# Stale words clocked out unused before giving up on a DOUT that stays low.
_FLUSH_TRIES = const(3)


class HX711:
    def __init__(self, dout, sck):
        self.dout = Pin(dout, Pin.IN, Pin.PULL_UP)
        self.sck = Pin(sck, Pin.OUT, value=0)

    def read(self):
        """One signed reading, or None when it cannot be trusted: no chip
        (DOUT, pulled up, never goes low), DOUT stuck low (the chip pulls it
        high after the 25th clock, so a line still low is not the chip's),
        or a clipped reading.

        Only a fresh conversion is read. The chip replaces its output word
        at every conversion whether or not it was read, so a word already
        waiting when read() is called may be almost a period old, and
        shifting it out could straddle the next conversion and mix two
        words (a wrong weight, or DOUT low after the 25th clock). Such a
        word is clocked out unused; the next one is read within a
        millisecond of DOUT falling, a whole period before the following
        conversion."""
        tries = 0
        while not self.dout.value():
            if tries == _FLUSH_TRIES:
                return None  # DOUT stuck low
            self._shift()
            tries += 1
        t0 = time.ticks_ms()
        while self.dout.value():
            if time.ticks_diff(time.ticks_ms(), t0) > READY_TIMEOUT_MS:
                return None
            time.sleep_ms(1)
        v = self._shift()
        if v is None:
            return None  # DOUT shorted low: every reading would be 0
        if v & 0x800000:
            v -= 0x1000000
        if v == _CLIP_HIGH or v == _CLIP_LOW:
            return None
        return v

    def _shift(self):
        """Clock out one word (24 bits, then the 25th pulse that selects
        channel A, gain 128, next time); None when DOUT is not released
        high after it."""
        v = 0
        sck, dout = self.sck, self.dout
        # SCK held high for more than 60 us powers the chip down: no
        # interrupt may stretch a pulse.
        irq = machine.disable_irq()
        try:
            for _ in range(24):
                sck.value(1)
                sck.value(0)
                v = (v << 1) | dout.value()
            sck.value(1)
            sck.value(0)
            released = dout.value()
        finally:
            machine.enable_irq(irq)
        return v if released else None
