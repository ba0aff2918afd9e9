"""One DC motor on a DRV8833 H-bridge channel, driven by PWM."""

from machine import PWM, Pin

FULL = 65535


class Motor:
    def __init__(self, in1, in2, sleep_pin, hz):
        self.sleep = Pin(sleep_pin, Pin.OUT, value=0)
        self.p1 = PWM(Pin(in1), freq=hz, duty_u16=FULL)
        self.p2 = PWM(Pin(in2), freq=hz, duty_u16=FULL)
        self.sleep.value(1)

    def drive(self, direction, duty_pct):
        # Slow decay: one input held high, the other pulsed low. Between
        # pulses the bridge brakes, which keeps the roller speed steady
        # under the varying drag of a card.
        low = FULL - duty_pct * FULL // 100
        if direction > 0:
            self.p1.duty_u16(FULL)
            self.p2.duty_u16(low)
        elif direction < 0:
            self.p1.duty_u16(low)
            self.p2.duty_u16(FULL)
        else:
            self.brake()

    def brake(self):
        # Both inputs high: the windings are shorted and the roller stops.
        self.p1.duty_u16(FULL)
        self.p2.duty_u16(FULL)
