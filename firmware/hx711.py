"""HX711 24-bit load-cell converter, bit-banged (channel A, gain 128)."""

import time

import machine
from machine import Pin

READY_TIMEOUT_MS = 200  # at 10 samples/s a reading is ready within 100 ms


class HX711:
    def __init__(self, dout, sck):
        self.dout = Pin(dout, Pin.IN, Pin.PULL_UP)
        self.sck = Pin(sck, Pin.OUT, value=0)

    def read(self):
        """One signed reading, or None when the chip does not answer
        (DOUT never goes low: unplugged or unpowered)."""
        t0 = time.ticks_ms()
        while self.dout.value():
            if time.ticks_diff(time.ticks_ms(), t0) > READY_TIMEOUT_MS:
                return None
            time.sleep_ms(1)
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
            sck.value(1)  # 25th pulse selects channel A, gain 128, next time
            sck.value(0)
        finally:
            machine.enable_irq(irq)
        if v & 0x800000:
            v -= 0x1000000
        if v == -1 or v == 0x7FFFFF:
            return None  # stuck line: a floating or shorted DOUT
        return v
