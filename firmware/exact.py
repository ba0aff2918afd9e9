"""Exact mode on the device: the codes, the pack's order, the next load.

The device gives every pack position a code from a fixed code set in a
uniformly random arrangement (Fisher-Yates on its own random bytes,
exact_codes.shuffle_codes) and deals each card by bit r of its code in
round r. With pile trade every round is one pass of a radix sort, so after
b = ceil(log2 N) rounds the pack is in an exactly uniform order
(docs/exact-mode.md).

State is two arrays of N codes (the code at each pack position, and a
scratch array for the next round's order), allocated when a routine
begins; side(k) reads one code and allocates nothing, so it runs inside
the heap-locked deal loop. Nothing here is ever sent over the wire: the
controller reports only the round, the load and its count, which the
public code set fixes.
"""

from array import array

import exact_codes as X

MAX_CARDS = 512  # codes of at most 9 bits fit array("H")
MAX_LOADS = 26  # loads are named A to Z

# What pass_done returns.
NEXT_LOAD = 0
ROUND_DONE = 1
ALL_DONE = 2


class ExactRoutine:
    """A side source (prepare(n), side(k)) that also tracks the whole pack."""

    def __init__(self, capacity):
        self.capacity = capacity
        self.active = False
        self.codes = array("H")
        self.scratch = array("H")
        self.sizes = array("H")
        self.n = 0
        self.bits = 0
        self.loads = 0
        self.uneven = False
        self.round = 0  # 0-based
        self.load = 0  # 0-based index of the next load in this round
        self.start = 0  # pack position of the next load's top card
        self.top = 0  # pack position of the top card of the load being dealt
        self.pass_n = 0

    def begin(self, n, randbytes):
        """Draw fresh codes for an n-card pack. ValueError when it cannot run."""
        if n < 2 or n > MAX_CARDS:
            raise ValueError("exact mode takes 2 to %d cards" % MAX_CARDS)
        loads = X.n_loads(n, self.capacity)
        if loads > MAX_LOADS:
            raise ValueError("more than %d loads" % MAX_LOADS)
        self.end()
        # The uneven set lets the count sensor catch a swapped stack or pile;
        # it needs a little room, so fall back to the balanced one.
        try:
            codes = X.code_set(n, self.capacity, True)
            uneven = True
        except ValueError:
            codes = X.code_set(n, self.capacity, False)
            uneven = False
        X.shuffle_codes(codes, randbytes)
        self.codes = codes
        self.scratch = array("H", codes)
        self.sizes = array("H", [0] * loads)
        self.n = n
        self.bits = X.n_bits(n)
        self.loads = loads
        self.uneven = uneven
        self.round = 0
        self.load = 0
        self.start = 0
        self.active = True
        self._plan_round()

    def end(self):
        """Forget the codes (overwritten, not just dropped)."""
        for i in range(len(self.codes)):
            self.codes[i] = 0
        for i in range(len(self.scratch)):
            self.scratch[i] = 0
        self.active = False

    def _plan_round(self):
        L = self.loads
        if self.round > 0 and L == 2:
            # The loads are the left and the right stack: their sizes are the
            # bit counts of the last round's bit, fixed by the code set.
            zeros, ones = X.bit_counts(self.codes, self.round - 1)
            self.sizes[0] = zeros
            self.sizes[1] = ones
            return
        q, r = divmod(self.n, L)
        for j in range(L):
            self.sizes[j] = q + 1 if j < r else q

    def fixed_counts(self):
        """True when this round's load sizes are fixed (stacks, not cuts)."""
        return self.round > 0 and self.loads == 2

    def expected(self):
        """Cards the next load should hold."""
        if self.load == self.loads - 1:
            return self.n - self.start
        return self.sizes[self.load]

    def load_name(self):
        return chr(65 + self.load)

    def check(self, n):
        """True when a load of n cards keeps the tracked order.

        Where the person cuts the loads (the first round, or three or more
        loads) a miscut does no harm as long as the loads come in order and
        every later load keeps at least one card; the stacks of a two-load
        round and the last load of any round must match exactly.
        """
        if self.fixed_counts() or self.load == self.loads - 1:
            return n == self.expected()
        return 1 <= n <= self.n - self.start - (self.loads - 1 - self.load)

    # ----- the side-source interface --------------------------------------
    def prepare(self, n):
        if not self.active or not self.check(n):
            raise ValueError("load does not match the exact routine")
        self.pass_n = n
        self.top = self.start + n - 1

    def side(self, k):
        # The k-th card fed is the load's bottom card first (docs/mechanism.md).
        return (self.codes[self.top - k] >> self.round) & 1

    # ----- after a whole pass ----------------------------------------------
    def pass_done(self):
        self.start += self.pass_n
        self.load += 1
        if self.load < self.loads:
            return NEXT_LOAD
        # Pile trade: every left card (in pack order) above every right card.
        X.next_round(self.codes, self.scratch, self.round)
        self.codes, self.scratch = self.scratch, self.codes
        self.round += 1
        self.load = 0
        self.start = 0
        if self.round == self.bits:
            return ALL_DONE
        self._plan_round()
        return ROUND_DONE
