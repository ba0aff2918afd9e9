"""Board driver: Raspberry Pi Pico (pins and parts in profile_rp2)."""

import time

import machine
from machine import ADC, Pin

from drv8833 import Motor
from hx711 import HX711
from watchdog import Guard

SETTLE_SLICE_MS = 10  # the serial input is drained this often while the sensors settle

# RP2040 datasheet 4.7.6: the watchdog's CTRL register, its ENABLE bit, and
# the register block's atomic bit-clear alias (2.1.2).
WATCHDOG_CTRL = 0x40058000
WATCHDOG_ENABLE = 1 << 30
ATOMIC_CLEAR = 0x3000


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
        self.touch_pin = Pin(pins["touch"], Pin.IN, Pin.PULL_DOWN)
        self.motor_drv = Motor(pins["motor_in1"], pins["motor_in2"],
                               pins["motor_sleep"], profile["pwm_hz"])
        self.scale = HX711(pins["hx711_dout"], pins["hx711_sck"])
        self.exit_pin = Pin(pins["exit"], Pin.IN, Pin.PULL_UP)
        self.adc = ADC(pins["battery_adc"])
        self.div_total, self.div_low = profile["battery_divider"]
        self.led_pin = Pin(pins["led"], Pin.OUT, value=0)
        time.sleep_ms(self.settle_ms)  # let the HX711 wake before the self-test
        self.guard = Guard(-1)

    def ticks_ms(self):
        return time.ticks_ms()

    def sleep_ms(self, ms):
        time.sleep_ms(ms)

    def touch_raw(self):
        return self.touch_pin.value()  # TTP223: 1 while touched

    def stack_raw(self):
        return self.scale.read()

    def exit_blocked(self):
        return self.exit_pin.value() == self.blocked_level

    def battery_mv(self):
        mv_at_pin = self.adc.read_u16() * 3300 // 65535
        return mv_at_pin * self.div_total // self.div_low

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
        # machine.WDT has no stop, and the soft reset mpremote (and `shuffler
        # flash`) asks for ends the guard's timer, so a released guard would
        # let the watchdog reset the board 4 s into the session. The chip's
        # watchdog can be stopped, as pico-sdk's watchdog_disable() does:
        # the REPL then lives through soft resets; app.main() starts it again.
        self.guard.stop()
        machine.mem32[WATCHDOG_CTRL + ATOMIC_CLEAR] = WATCHDOG_ENABLE

    def light_sleep(self, threshold, wake):
        """Sleep until a touch or serial input; True when the line woke it."""
        # The RP2040 port wakes from lightsleep on its timer: sleep in short
        # slices and look at the touch module between them.
        self.motor_drv.off()  # the driver sleeps too (about 1.7 mA awake)
        self.sensor_power.value(0)  # HX711 and IR emitter off while asleep
        try:
            while True:
                self.guard.beat()
                machine.lightsleep(100)
                if self.touch_pin.value():
                    return False
                if wake():
                    return True
        finally:
            self.sensor_power.value(1)
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
