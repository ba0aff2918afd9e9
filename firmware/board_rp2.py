"""Board driver: Raspberry Pi Pico (pins and parts in profile_rp2; what both
boards share in board_common)."""

import machine
from machine import ADC, Pin
from micropython import const

import board_common

# RP2040 datasheet 4.7.6: the watchdog's CTRL register, its ENABLE bit, and
# the register block's atomic bit-clear alias (2.1.2).
_WATCHDOG_CTRL = const(0x40058000)
_WATCHDOG_ENABLE = const(1 << 30)
_ATOMIC_CLEAR = const(0x3000)


class Board(board_common.Board):
    EXIT_PIN_ARGS = (Pin.PULL_UP,)
    GUARD_TIMER = -1  # a virtual timer

    def open_inputs(self, pins):
        self.touch_pin = Pin(pins["touch"], Pin.IN, Pin.PULL_DOWN)
        self.adc = ADC(pins["battery_adc"])

    def touch_raw(self):
        return self.touch_pin.value()  # TTP223: 1 while touched

    def battery_mv(self):
        mv_at_pin = self.adc.read_u16() * 3300 // 65535
        return mv_at_pin * self.div_total // self.div_low

    def wdt_release(self):
        # machine.WDT has no stop, and the soft reset mpremote (and `shuffler
        # flash`) asks for ends the guard's timer, so a released guard would
        # let the watchdog reset the board 4 s into the session. The chip's
        # watchdog can be stopped, as pico-sdk's watchdog_disable() does:
        # the REPL then lives through soft resets; app.main() starts it again.
        self.guard.stop()
        machine.mem32[_WATCHDOG_CTRL + _ATOMIC_CLEAR] = _WATCHDOG_ENABLE

    def doze(self, threshold, wake):
        # The RP2040 port wakes from lightsleep on its timer: sleep in short
        # slices and look at the touch module between them.
        while True:
            self.guard.beat()
            machine.lightsleep(100)
            if self.touch_pin.value():
                return False
            if wake():
                return True
