"""Board driver: ESP32 reference board (pins and parts in profile_esp32;
what both boards share in board_common)."""

import hashlib
import os
import time

import esp32
import machine
from machine import ADC, WDT, Pin, TouchPad

import board_common


class Board(board_common.Board):
    # The exit receiver's pin (GPIO 34) is input only, with no pulls; the
    # guard's timer is hardware timer 0: board_common's figures.

    def __init__(self, profile):
        super().__init__(profile)
        self.slice_ms = profile["sleep_slice_ms"]
        self.listen_ms = profile["sleep_listen_ms"]
        self.noise_samples = profile["noise_samples"]

    def open_inputs(self, pins):
        self.pad = TouchPad(Pin(pins["touch"]))
        self.adc = ADC(Pin(pins["battery_adc"]), atten=ADC.ATTN_11DB)

    def touch_raw(self):
        try:
            return self.pad.read()
        except ValueError:
            return None

    def battery_mv(self):
        return self.adc.read_uv() * self.div_total // self.div_low // 1000

    def wdt_release(self):
        # The port cannot stop a machine.WDT, and a soft reset (mpremote
        # asks for one) ends the guard's timer. WDT() again reconfigures the
        # one task watchdog (ports/esp32/machine_wdt.c), which a soft reset
        # leaves as it is: a long timeout lets a REPL session live through
        # soft resets; after it the board resets into the firmware.
        self.guard.stop()
        WDT(timeout=self.profile["wdt_handover_ms"]).feed()

    def randbytes(self, n):
        """Random bytes for exact mode. With the radio off os.urandom is a
        pseudo-random generator, so each 32-byte block is the SHA-256 of
        os.urandom's 32 bytes and noise_samples samples of the battery ADC,
        the touch pad and the microsecond clock."""
        out = bytearray()
        buf = bytearray(6)
        while len(out) < n:
            h = hashlib.sha256(os.urandom(32))
            i = 0
            while i < self.noise_samples:
                a = self.adc.read_u16()
                t = self.pad.read()
                u = time.ticks_diff(time.ticks_us(), 0)  # as an int
                buf[0] = a & 255
                buf[1] = a >> 8
                buf[2] = t & 255
                buf[3] = (t >> 8) & 255
                buf[4] = u & 255
                buf[5] = (u >> 8) & 255
                h.update(buf)
                i += 1
            out.extend(h.digest())
        return bytes(out[:n])

    def doze(self, threshold, wake):
        """Sleep until a touch, or until wake() (True then: the serial line).

        The wake sources the classic ESP32 port offers together are the
        touch pad and a timer: wake_on_gpio and wake_on_ext0 raise
        ValueError("no resources") once wake_on_touch is set, and there is
        no wake on UART (ports/esp32/modesp32.c). The UART is stopped while
        asleep, so the board sleeps in slices of sleep_slice_ms and after
        each listens sleep_listen_ms for a line (a host repeats hello)."""
        self.pad.config(threshold)
        esp32.wake_on_touch(True)
        while True:
            self.guard.beat()
            machine.lightsleep(self.slice_ms)
            if machine.wake_reason() == machine.TOUCHPAD_WAKE or self.pad.read() < threshold:
                return False
            t0 = time.ticks_ms()
            while time.ticks_diff(time.ticks_ms(), t0) < self.listen_ms:
                if wake():
                    return True
                time.sleep_ms(2)

    def woken(self):
        esp32.wake_on_touch(False)
