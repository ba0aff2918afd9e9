"""Hardware watchdog fed from a timer only while the main loop shows a
heartbeat, so a hung loop resets the board, while the REPL after Ctrl-C
(which no longer beats) can be kept alive by releasing the guard."""

from machine import WDT, Timer

CHECK_MS = 250


class Guard:
    def __init__(self, timer_id):
        self.timer_id = timer_id
        self.wdt = None
        self.timer = None
        self.beats = 0
        self.seen = 0
        self.released = False

    def start(self, timeout_ms):
        self.wdt = WDT(timeout=timeout_ms)
        self.timer = Timer(self.timer_id)
        self.timer.init(period=CHECK_MS, mode=Timer.PERIODIC, callback=self._check)

    def _check(self, _t):
        # Runs as a scheduled callback between bytecodes: a Python loop
        # that no longer calls beat() stops feeding; a stuck C call stops
        # everything. Either way the hardware watchdog resets the board.
        wdt = self.wdt
        if wdt is None:
            return
        if self.released or self.beats != self.seen:
            self.seen = self.beats
            wdt.feed()

    def beat(self):
        self.beats = (self.beats + 1) & 0xFFFF

    def release(self):
        self.released = True
