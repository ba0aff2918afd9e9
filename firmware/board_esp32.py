"""Board driver: ESP32 reference board (pins and parts in profile_esp32)."""

import hashlib
import os
import time

import esp32
import machine
from machine import ADC, WDT, Pin, TouchPad

from drv8833 import Motor
from hx711 import HX711
from watchdog import Guard

SETTLE_SLICE_MS = 10  # the serial input is drained this often while the sensors settle


class Board:
    def __init__(self, profile):
        pins = profile["pins"]
        self.profile = profile
        # Sensors first: the HX711 needs time after power-up.
        self.sensor_power = Pin(pins["sensor_power"], Pin.OUT, value=1)
        self.blocked_level = profile["exit_blocked_level"]
        self.settle_ms = profile["sensor_settle_ms"]
        self.name = profile["name"]
        self.data_dir = ""
        self.pad = TouchPad(Pin(pins["touch"]))
        self.motor_drv = Motor(pins["motor_in1"], pins["motor_in2"],
                               pins["motor_sleep"], profile["pwm_hz"])
        self.scale = HX711(pins["hx711_dout"], pins["hx711_sck"])
        self.exit_pin = Pin(pins["exit"], Pin.IN)
        self.adc = ADC(Pin(pins["battery_adc"]), atten=ADC.ATTN_11DB)
        self.div_total, self.div_low = profile["battery_divider"]
        self.led_pin = Pin(pins["led"], Pin.OUT, value=0)
        self.slice_ms = profile["sleep_slice_ms"]
        self.listen_ms = profile["sleep_listen_ms"]
        self.noise_samples = profile["noise_samples"]
        time.sleep_ms(self.settle_ms)  # let the HX711 wake before the self-test
        self.guard = Guard(0)

    def ticks_ms(self):
        return time.ticks_ms()

    def sleep_ms(self, ms):
        time.sleep_ms(ms)

    def touch_raw(self):
        try:
            return self.pad.read()
        except ValueError:
            return None

    def stack_raw(self):
        return self.scale.read()

    def exit_blocked(self):
        return self.exit_pin.value() == self.blocked_level

    def battery_mv(self):
        return self.adc.read_uv() * self.div_total // self.div_low // 1000

    def motor(self, direction, duty):
        self.motor_drv.drive(direction, duty)

    def motor_brake(self):
        self.motor_drv.brake()

    def motor_stop(self):
        self.motor_drv.off()  # braked, then nSLEEP low

    def led(self, on):
        self.led_pin.value(1 if on else 0)

    def wdt_start(self, ms):
        self.guard.start(ms)

    def wdt_feed(self):
        self.guard.beat()

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

    def light_sleep(self, threshold, wake):
        """Sleep until a touch, or until wake() (True then: the serial line).

        The wake sources the classic ESP32 port offers together are the
        touch pad and a timer: wake_on_gpio and wake_on_ext0 raise
        ValueError("no resources") once wake_on_touch is set, and there is
        no wake on UART (ports/esp32/modesp32.c). The UART is stopped while
        asleep, so the board sleeps in slices of sleep_slice_ms and after
        each listens sleep_listen_ms for a line (a host repeats hello)."""
        self.pad.config(threshold)
        self.motor_drv.off()  # the driver sleeps too (about 1.7 mA awake)
        self.sensor_power.value(0)  # HX711 and IR emitter off while asleep
        try:
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
        finally:
            # Sensors first: nothing after this line can leave them off.
            self.sensor_power.value(1)
            esp32.wake_on_touch(False)
            self.settle(wake)

    def settle(self, wake):
        """Wait for the HX711 after power-up, draining the serial input."""
        t0 = time.ticks_ms()
        while time.ticks_diff(time.ticks_ms(), t0) < self.settle_ms:
            wake()
            time.sleep_ms(SETTLE_SLICE_MS)

    def pending(self):
        return False

    def service(self):
        pass
