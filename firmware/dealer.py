"""The per-card loop. Nothing here allocates: all state is in attributes set
before the pass, the progress line is a preallocated template, and faults are
returned as small integers instead of raised."""

import time

try:
    from micropython import const
except ImportError:  # CPython: the tests import this module too
    const = int  # type: ignore[assignment,misc]

import protocol
import report
from sides import LEFT

DONE = 0
R_TIMEOUT = 1  # no card reached the exit in time
R_LONG = 2  # the exit stayed blocked too long
R_ABORT = 3
R_BATTERY = 4
R_SENSOR = 5  # the battery reads implausibly low: the divider, not the battery
R_BLOCKED = 6  # the exit beam was blocked before the card was fed
# The serial input is drained at least this often in every wait: 115200
# baud fills an ESP32's 260-byte receive ring in 22 ms. Not on every 1 ms
# poll: polling the port costs more than a poll of the beam (the rp2 port
# runs its USB stack), and the beam's polls must stay tight.
LISTEN_MS = 10

# The progress line's numbers are this wide (the template: report.template).
_W = const(3)


def put_int(buf, end, width, value):
    """Write value right-aligned in buf[end-width:end], space padded."""
    i = end - 1
    stop = end - width
    if value == 0:
        buf[i] = 48
        i -= 1
    while value > 0 and i >= stop:
        buf[i] = 48 + value % 10
        value //= 10
        i -= 1
    while i >= stop:
        buf[i] = 32
        i -= 1


class Dealer:
    def __init__(self, board, host, write_raw, sides, profile):
        self.board = board
        self.host = host  # has listen(), pending() and service()
        self.write_raw = write_raw
        # k, n, left, right; in exact mode the pile counts would tell the
        # codes' bits, so that line has k and n only.
        self.line, (self.end_k, self.end_n, self.end_l, self.end_r) = report.template(protocol.EV_PROGRESS, 4, _W)
        self.line_hidden, (self.end_hk, self.end_hn) = report.template(protocol.EV_PROGRESS, 2, _W)
        self.hide = False  # leave the pile counts out of progress lines
        self.sides = sides  # replaced per pass by begin()
        self.n = 0
        self.k = 0
        self.left = 0
        self.right = 0
        self.abort = False
        self.tray0 = 0  # the tray's count when the pass began (n, or more for a feed)
        self.duty = 80
        self.left_dir = 1  # the motor direction that sends a card to the person's left
        self.timeout_ms = 400
        self.block_max_ms = 30
        self.brake_ms = 5
        self.poll_ms = 1
        self.cutoff_mv = 0
        self.trim = 1000  # the battery reading's correction, per mille (from a meter)
        self.block_norm = 0  # learned single-card block time at ref_mvd, ms (0: none yet)
        self.feed_norm = 0  # learned time from the motor's start to the beam, at ref_mvd
        self.clear_ms = 2  # this card's: the beam must read clear this long to end it
        self.mv = 9000  # last battery reading
        self.limit_ms = 0
        self.jam_ms = 0
        self.last_block_ms = 0
        self.last_feed_ms = 0
        self.seen = 0  # cards the beam has seen since boot
        self.progress_every = 1
        self.since_progress = 0
        self.heard = 0  # when the serial input was last drained (ticks_ms)
        self.setup(profile)

    def setup(self, profile):
        """The mechanism's figures from the board profile. The card times
        are learned from the cards dealt, kept as at ref_mv x ref_duty (the
        *_norm figures) and scaled by the drive voltage, since the motor
        slows as the battery falls. Double feed: a card that blocks the beam
        longer than double_pct % of its expected time. Jam: no card at the
        beam within jam_pct % of the expected feed time (at least
        jam_min_ms; card_timeout_ms, the configured longest wait, until a
        card has been seen). A card has left once the beam reads clear for
        clear_pct % of its time (at least clear_min_ms): longer than a
        flicker at an edge, shorter than the gap to the next card."""
        self.ref_mvd = profile["block_ref_mv"] * profile["block_ref_duty"] // 100
        self.block_prior = profile["block_ref_ms"]  # expected before anything is learned
        self.double_pct = profile["double_pct"]
        self.jam_pct = profile["jam_pct"]
        self.jam_min_ms = profile["jam_min_ms"]
        self.clear_pct = profile["beam_clear_pct"]
        self.clear_min_ms = profile["beam_clear_min_ms"]
        self.drain_moving = profile.get("serial_drain_moving", True)  # drain while the motor turns
        self.min_mv = profile["battery_min_mv"]  # below: the divider is broken, not a flat battery

    def scaled(self, norm):
        """A learned figure (kept as at the reference drive) at the present battery and duty."""
        mvd = self.mv * self.duty // 100
        if mvd <= 0:
            return norm
        return norm * self.ref_mvd // mvd

    def expected_ms(self):
        """A single card's block time at the present battery and duty."""
        return self.scaled(self.block_norm or self.block_prior)

    def expected_feed_ms(self):
        """From the motor's start to the beam, at the present battery and duty (0: none learned)."""
        return self.scaled(self.feed_norm) if self.feed_norm else 0

    def learn(self, block, feed):
        mvd = self.mv * self.duty // 100
        norm = block * mvd // self.ref_mvd
        fnorm = feed * mvd // self.ref_mvd
        if not self.block_norm:
            self.block_norm = norm
            self.feed_norm = fnorm
        else:
            self.block_norm += (norm - self.block_norm) // 4
            self.feed_norm += (fnorm - self.feed_norm) // 4
        self.seen += 1

    def battery(self):
        """The battery in mV, corrected by the meter's trim (no allocation)."""
        return self.board.battery_mv() * self.trim // 1000

    def limits(self):
        """This card's limits, from the learned times."""
        exp = self.expected_ms()
        # (plus 1 ms: the beam is polled every millisecond)
        lim = exp * self.double_pct // 100 + 1
        self.limit_ms = lim if lim < self.block_max_ms else self.block_max_ms
        c = exp * self.clear_pct // 100
        self.clear_ms = c if c > self.clear_min_ms else self.clear_min_ms
        j = self.expected_feed_ms() * self.jam_pct // 100
        if not j:
            j = self.timeout_ms  # nothing learned yet: the configured longest wait
        elif j < self.jam_min_ms:
            j = self.jam_min_ms
        self.jam_ms = j if j < self.timeout_ms else self.timeout_ms

    def begin(self, sides, n, cfg, cutoff_mv, poll_ms, hide=False, tray=0):
        """tray: the tray's count (n unless only part of it is fed)."""
        self.sides = sides
        self.hide = hide
        self.n = n
        self.tray0 = tray if tray > n else n
        self.k = 0
        self.left = 0
        self.right = 0
        self.abort = False
        self.duty = cfg["motor_duty"]
        self.timeout_ms = cfg["card_timeout_ms"]
        self.block_max_ms = cfg["block_max_ms"]
        self.brake_ms = cfg["brake_ms"]
        self.progress_every = cfg["progress_every"]
        self.since_progress = 0
        self.cutoff_mv = cutoff_mv
        self.poll_ms = poll_ms

    def run(self):
        """Deal cards k..n-1. Returns DONE or a stop reason; the motor is off
        when it returns or raises."""
        b = self.board
        try:
            while self.k < self.n:
                if self.abort:
                    return R_ABORT
                side = self.sides.side(self.k)
                self.limits()
                r = self.card(side)
                if r == R_LONG or r == R_TIMEOUT:
                    # A card that came too late or blocked too long: the
                    # motor slowed because the battery failed, or its
                    # sensor reads nothing.
                    mv = self.battery()
                    if mv < self.min_mv:
                        r = R_SENSOR
                    elif mv < self.cutoff_mv:
                        r = R_BATTERY
                if r:
                    return r
                if side == LEFT:
                    self.left += 1
                else:
                    self.right += 1
                self.k += 1
                b.wdt_feed()
                self.progress()
                mv = self.battery()
                if mv < self.cutoff_mv:
                    return R_SENSOR if mv < self.min_mv else R_BATTERY
                self.mv = mv
                if self.host.pending():
                    self.host.service()
            return DONE
        finally:
            b.motor_stop()

    def card(self, side):
        """Feed one card towards `side` until the exit sees it leave. Both
        waits (for the card to reach the beam, then through_beam) beat the
        heartbeat: they end by their own limits, and a jam must be reported,
        not reset by the watchdog. Both drain the serial input, which a
        port's ring would drop."""
        b = self.board
        poll = self.poll_ms
        if self.beam_blocked():
            # Something is in the exit before this card moved: it would be
            # counted as this card.
            return R_BLOCKED
        b.motor(self.left_dir if side == LEFT else -self.left_dir, self.duty)
        try:
            t0 = b.ticks_ms()
            while not b.exit_blocked():
                if time.ticks_diff(b.ticks_ms(), t0) > self.jam_ms:
                    return R_TIMEOUT
                b.wdt_feed()
                b.sleep_ms(poll)
                if self.drain_moving:
                    self.hear()
            r = self.through_beam(t0)
        finally:
            # Brake, not coast: the roller stops at once, so the next card
            # is not dragged into the throat and the direction change starts
            # from rest.
            b.motor_brake()
        if r:
            return r
        self.learn(self.last_block_ms, self.last_feed_ms)
        if self.brake_ms:
            b.sleep_ms(self.brake_ms)
        return DONE

    def through_beam(self, t0):
        """Wait for the card in the beam (fed at t0) to leave it: DONE, with its times in
        last_block_ms and last_feed_ms, or R_LONG. Debounced: the card has
        left once the beam has read clear for clear_ms; a flicker at an
        edge is not the end of a card."""
        b = self.board
        poll = self.poll_ms
        t1 = b.ticks_ms()
        clear_since = t1
        clear = False
        while True:
            now = b.ticks_ms()
            if b.exit_blocked():
                clear = False
                if time.ticks_diff(now, t1) > self.limit_ms:
                    return R_LONG
            elif not clear:
                clear = True
                clear_since = now
            elif time.ticks_diff(now, clear_since) >= self.clear_ms:
                break
            b.wdt_feed()
            b.sleep_ms(poll)
            if self.drain_moving:
                self.hear()
        self.last_block_ms = time.ticks_diff(clear_since, t1)
        self.last_feed_ms = time.ticks_diff(t1, t0)
        return DONE

    def beam_blocked(self):
        """True when the beam reads blocked for clear_ms (not a flicker)."""
        b = self.board
        t0 = b.ticks_ms()
        while b.exit_blocked():
            if time.ticks_diff(b.ticks_ms(), t0) >= self.clear_ms:
                return True
            b.sleep_ms(self.poll_ms)
            self.hear()
        return False

    def hear(self):
        """Drain the serial input if LISTEN_MS have passed since the last
        time (host.listen() raises KeyboardInterrupt for a Ctrl-C)."""
        now = self.board.ticks_ms()
        if time.ticks_diff(now, self.heard) >= LISTEN_MS:
            self.heard = now
            self.host.listen()

    def progress(self):
        if not self.progress_every:
            return
        self.since_progress += 1
        if self.since_progress < self.progress_every and self.k < self.n:
            return
        self.since_progress = 0
        if self.hide:
            buf = self.line_hidden
            put_int(buf, self.end_hk, _W, self.k)
            put_int(buf, self.end_hn, _W, self.n)
            self.write_raw(buf)
            return
        buf = self.line
        put_int(buf, self.end_k, _W, self.k)
        put_int(buf, self.end_n, _W, self.n)
        put_int(buf, self.end_l, _W, self.left)
        put_int(buf, self.end_r, _W, self.right)
        self.write_raw(buf)

