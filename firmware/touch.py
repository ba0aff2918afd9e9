"""Debounced touch with a threshold relative to a measured baseline."""


class Touch:
    def __init__(self, kind, pct, debounce_ms):
        self.kind = kind  # "capacitive": raw falls when touched; "digital": 1 = touched
        self.pct = pct
        self.debounce_ms = debounce_ms
        self.baseline = 0
        self.since = -1  # tick when the raw state last changed to pressed
        self.pressed = False  # debounced state
        self.raw_pressed = False

    def reset(self):
        """Forget the samples so far (an implausible reading came between)."""
        self.since = -1
        self.pressed = False
        self.raw_pressed = False

    def consume(self, now):
        """A press handled elsewhere (the one that woke the board): it
        must be released before the next one counts."""
        self.since = now
        self.pressed = True
        self.raw_pressed = True

    def is_touched(self, raw):
        if self.kind == "digital":
            return raw == 1
        return raw * 100 < self.baseline * self.pct

    def threshold(self):
        return self.baseline * self.pct // 100

    def update(self, raw, now, diff):
        """Feed one sample; True exactly once per debounced press.
        diff(a, b) is time.ticks_diff."""
        t = self.is_touched(raw)
        if t != self.raw_pressed:
            self.raw_pressed = t
            self.since = now
            return False
        if t == self.pressed:
            return False
        if diff(now, self.since) >= self.debounce_ms:
            self.pressed = t
            return t
        return False


def plausible(kind, raw, baseline, hi):
    """A reading a working sensor can give. A capacitive pad reads between
    a twentieth of its baseline (a finger on it) and twice its largest
    plausible baseline; 0, a short or a broken pad, is a fault and never a
    touch. A touch module gives 0 or 1."""
    if raw is None:
        return False
    if kind == "digital":
        return raw == 0 or raw == 1
    return baseline // 20 < raw <= 2 * hi


def baseline_ok(kind, value, lo, hi):
    if kind == "digital":
        return value == 0
    return lo <= value <= hi
