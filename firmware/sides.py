"""Side sources: which pile each card of a pass goes to (0 left, 1 right).

None allocates in side(k), inside the deal loop: RandomSides keeps its bits
in a buffer allocated once. Exact mode's side source is exact.ExactRoutine."""

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


class FixedSides:
    """Every card to one side: a feed of a few cards for the bring-up and
    the checks."""

    def __init__(self):
        self.value = LEFT

    def prepare(self, n):
        pass

    def side(self, k):
        return self.value
