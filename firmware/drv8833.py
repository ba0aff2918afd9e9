"""One DC motor on a DRV8833 H-bridge channel, driven by PWM.

nSLEEP is low whenever the motor is not turning: awake, the driver draws
about 1.7 mA (3 mA at most) from the battery even with its bridges idle;
asleep, under 2.5 uA (hardware/power-budget.md)."""

import time

from machine import PWM, Pin

try:
    from micropython import const
except ImportError:  # CPython: the tests and the host import this module too
    const = int  # type: ignore[assignment,misc]

_FULL = const(65535)
_WAKE_US = const(1000)  # datasheet: up to 1 ms from nSLEEP high to a working bridge
STOP_MS = const(20)  # braked this long before sleep lets the outputs float


class Motor:
    def __init__(self, in1, in2, sleep_pin, hz):
        self.sleep = Pin(sleep_pin, Pin.OUT, value=0)  # asleep from power-up
        self.awake = False
        self.p1 = PWM(Pin(in1), freq=hz, duty_u16=_FULL)
        self.p2 = PWM(Pin(in2), freq=hz, duty_u16=_FULL)

    def wake(self):
        if not self.awake:
            self.sleep.value(1)
            time.sleep_us(_WAKE_US)
            self.awake = True

    def drive(self, direction, duty_pct):
        # Slow decay: one input held high, the other pulsed low. Between
        # pulses the bridge brakes, which keeps the roller speed steady
        # under the varying drag of a card.
        if direction == 0:
            self.brake()
            return
        self.wake()
        low = _FULL - duty_pct * _FULL // 100
        if direction > 0:
            self.p1.duty_u16(_FULL)
            self.p2.duty_u16(low)
        else:
            self.p1.duty_u16(low)
            self.p2.duty_u16(_FULL)

    def brake(self):
        # Both inputs high: the windings are shorted and the roller stops.
        self.p1.duty_u16(_FULL)
        self.p2.duty_u16(_FULL)

    def off(self):
        """Stop and put the driver to sleep (idle, asleep, or a fault)."""
        self.brake()
        if self.awake:
            # Asleep the outputs float and the roller would coast: brake first.
            time.sleep_ms(STOP_MS)
            self.sleep.value(0)
            self.awake = False
        # Inputs low while asleep: held high, each would source about 33 uA
        # into its internal 100 kOhm pull-down for nothing.
        self.p1.duty_u16(0)
        self.p2.duty_u16(0)
