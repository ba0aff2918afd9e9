"""Hardware watchdog fed from a timer only while the main loop shows a
heartbeat, so a hung loop resets the board. The REPL after Ctrl-C (which no
longer beats) is kept alive by each board's wdt_release: the guard stopped,
the watchdog given a long timeout or stopped."""

from machine import WDT, Timer
from micropython import const

_CHECK_MS = const(250)

# The guard whose timer runs now. Neither port can stop a machine.WDT, and a
# timer outlives the app that started it (until a soft reset): a second
# app.main() from the REPL stops the first guard's timer, which would
# otherwise run on beside the new one.
_running = None


class Guard:
    def __init__(self, timer_id):
        self.timer_id = timer_id
        self.wdt = None
        self.timer = None
        self.beats = 0
        self.seen = 0

    def start(self, timeout_ms):
        global _running
        if _running is not None:
            _running.stop()
        self.wdt = WDT(timeout=timeout_ms)
        self.timer = Timer(self.timer_id)
        self.timer.init(period=_CHECK_MS, mode=Timer.PERIODIC, callback=self._check)
        _running = self

    def _check(self, _t):
        # Runs as a scheduled callback between bytecodes: a Python loop
        # that no longer calls beat() stops feeding; a stuck C call stops
        # everything. Either way the hardware watchdog resets the board.
        wdt = self.wdt
        if wdt is None:
            return
        if self.beats != self.seen:
            self.seen = self.beats
            wdt.feed()

    def beat(self):
        self.beats = (self.beats + 1) & 0xFFFF

    def stop(self):
        """End this guard's timer: nothing here feeds the watchdog any more."""
        global _running
        if self.timer is not None:
            self.timer.deinit()
            self.timer = None
        self.wdt = None
        if _running is self:
            _running = None
