"""A side source for tests (MicroPython and CPython): a plan written before
the pass, one byte per card. The device has no use for it (exact mode's
side source, exact.ExactRoutine, reads its codes directly), so it stays
off the board; the tests use it to put each card where they say."""

from sides import LEFT, RIGHT


class PlannedSides:
    def __init__(self, capacity):
        self.buf = bytearray(capacity)
        self.n = 0

    def prepare(self, n):
        if n != self.n:
            raise ValueError("plan length differs from the loaded count")

    def load(self, plan):
        """plan: a str of 'L'/'R' or a sequence of 0/1."""
        if len(plan) > len(self.buf):
            raise ValueError("plan longer than capacity")
        for k in range(len(plan)):
            v = plan[k]
            if v == "L" or v == 0:
                self.buf[k] = LEFT
            elif v == "R" or v == 1:
                self.buf[k] = RIGHT
            else:
                raise ValueError("plan entries are L/R or 0/1")
        self.n = len(plan)

    def side(self, k):
        return self.buf[k]
