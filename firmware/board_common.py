"""Board drivers: what the ESP32 and the Pico drivers share. The motor on a
DRV8833, the HX711 load cell, the exit beam, the LED, the watchdog and the
sensors' settling after power-up are alike on both; board_esp32.py and
board_rp2.py hold only what differs (the touch sensor, the battery ADC,
light sleep, the watchdog's hand-over to the REPL), and the pins and parts
are data in the board's profile."""

import time

from machine import Pin
from micropython import const

from drv8833 import Motor
from hx711 import HX711
from watchdog import Guard

_SETTLE_SLICE_MS = const(10)  # the serial input is drained this often while the sensors settle


class Board:
    # What differs as data: more arguments of the exit receiver's Pin (its
    # pull), and the timer that feeds the watchdog (0: the ESP32's hardware
    # timer 0).
    EXIT_PIN_ARGS: tuple = ()
    GUARD_TIMER = 0

    def __init__(self, profile):
        pins = profile["pins"]
        self.profile = profile
        # Sensors first: the HX711 needs time after power-up.
        self.sensor_power = Pin(pins["sensor_power"], Pin.OUT, value=1)
        self.blocked_level = profile["exit_blocked_level"]
        self.settle_ms = profile["sensor_settle_ms"]
        self.name = profile["name"]
        self.data_dir = ""
        self.open_inputs(pins)
        self.motor_drv = Motor(pins["motor_in1"], pins["motor_in2"],
                               pins["motor_sleep"], profile["pwm_hz"])
        self.scale = HX711(pins["hx711_dout"], pins["hx711_sck"])
        self.exit_pin = Pin(pins["exit"], Pin.IN, *self.EXIT_PIN_ARGS)
        self.div_total, self.div_low = profile["battery_divider"]
        self.led_pin = Pin(pins["led"], Pin.OUT, value=0)
        time.sleep_ms(self.settle_ms)  # let the HX711 wake before the self-test
        self.guard = Guard(self.GUARD_TIMER)
        # The card loop calls these at every poll of the beam. Bound here,
        # they are found on the instance (not through the board's class and
        # then this one) and run with no Python call of their own.
        self.ticks_ms = time.ticks_ms
        self.sleep_ms = time.sleep_ms
        self.wdt_feed = self.guard.beat

    def open_inputs(self, pins):
        """The board's own sensors: the touch and the battery ADC."""

    def stack_raw(self):
        return self.scale.read()

    def exit_blocked(self):
        return self.exit_pin.value() == self.blocked_level

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

    def light_sleep(self, threshold, wake):
        """Sleep until a touch or serial input; True when the line woke it."""
        self.motor_drv.off()  # the driver sleeps too (about 1.7 mA awake)
        self.sensor_power.value(0)  # HX711 and IR emitter off while asleep
        try:
            return self.doze(threshold, wake)
        finally:
            # Sensors first: nothing after this line can leave them off.
            self.sensor_power.value(1)
            self.woken()
            self.settle(wake)

    def doze(self, threshold, wake):
        """The board's own sleep, sensors off: True when the line woke it."""

    def woken(self):
        """Undo what doze armed (after the sensors are powered again)."""

    def settle(self, wake):
        """Wait for the HX711 after power-up, draining the serial input."""
        t0 = time.ticks_ms()
        while time.ticks_diff(time.ticks_ms(), t0) < self.settle_ms:
            wake()
            time.sleep_ms(_SETTLE_SLICE_MS)

    def pending(self):
        return False

    def service(self):
        pass
