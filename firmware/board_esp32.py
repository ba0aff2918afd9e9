"""Board driver: ESP32 reference board (pins and parts in profile_esp32)."""

import time

import esp32
import machine
from machine import ADC, Pin, TouchPad

from drv8833 import Motor
from hx711 import HX711
from watchdog import Guard


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
        self.uart_rx = Pin(profile["uart_rx_pin"])  # left as UART0 RX: no mode given
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
        self.guard.release()

    def light_sleep(self, threshold, wake):
        """Sleep until a touch or the serial line; True when the line woke it.

        Wake on touch (the pad's own threshold), on a start bit on UART0 RX
        (the UART itself is stopped in light sleep: that byte is lost, the
        host asks again and the controller then stays awake), or after a
        slice, to keep the watchdog fed."""
        self.pad.config(threshold)
        esp32.wake_on_touch(True)
        if self.uart_rx.value():
            # Only from an idle (high) line: a line held low, say by an
            # unpowered USB bridge, would wake the board at once, every time.
            esp32.wake_on_gpio((self.uart_rx,), esp32.WAKEUP_ALL_LOW)
        self.motor_drv.off()  # the driver sleeps too (about 1.7 mA awake)
        self.sensor_power.value(0)  # HX711 and IR emitter off while asleep
        try:
            while True:
                self.guard.beat()
                machine.lightsleep(1000)
                reason = machine.wake_reason()
                if reason == machine.TOUCHPAD_WAKE or self.pad.read() < threshold:
                    return False
                if wake():
                    return True
                if reason != machine.TIMER_WAKE:
                    return True  # the GPIO wake: a start bit on RX
        finally:
            esp32.wake_on_gpio(None, esp32.WAKEUP_ALL_LOW)
            self.sensor_power.value(1)
            time.sleep_ms(self.settle_ms)

    def pending(self):
        return False

    def service(self):
        pass
