"""Side sources: which pile each card of a pass goes to (0 left, 1 right).

Both keep their per-card data in a buffer allocated once, so side(k) never
allocates inside the deal loop."""

import os

LEFT = 0
RIGHT = 1


class RandomSides:
    """One fresh random bit per card from os.urandom. A single bit of a
    uniform byte is itself uniform, so no modulo bias arises."""

    def __init__(self, capacity):
        self.buf = bytearray((capacity + 7) // 8)

    def prepare(self, n):
        nbytes = (n + 7) // 8
        self.buf[0:nbytes] = os.urandom(nbytes)

    def side(self, k):
        return (self.buf[k >> 3] >> (k & 7)) & 1


class PlannedSides:
    """Sides planned on the device: one byte per card, written by firmware
    code before the pass. The host never sends sides; exact mode plans them
    on the device from its own codes (exact.ExactRoutine, a side source of
    its own that reads the codes directly)."""

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


class FixedSides:
    """Every card to one side: a feed of a few cards for the bring-up and
    the checks."""

    def __init__(self):
        self.value = LEFT

    def prepare(self, n):
        pass

    def side(self, k):
        return self.value
