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

A pass that stops part way (a double feed, the tray emptied, a sensor, the
battery, a restart) keeps the routine: once what was caught is back in the
tray, the tray's count says how many of the load's cards have gone out,
and the rest of the pass deals on from there when that count shows every
card gone out on its own pile (`rest_start`). The judgement looks at counts
only, never at the codes: going on only where two cards happened to share
a bit would make the pack's order depend on that bit, and the pack would
no longer be exactly uniform (docs/exact-mode.md, "A pass that stops part
way"). The routine is kept in the board's flash while it runs (`to_dict`,
`from_dict`), so a restart does not lose it.
"""

from array import array

import exact_codes as X

MAX_CARDS = 512  # codes of at most 9 bits fit array("H")
MAX_LOADS = 26  # loads are named A to Z

# What pass_done returns.
NEXT_LOAD = 0
ROUND_DONE = 1
ALL_DONE = 2

# What rest_start returns when the rest cannot be dealt exactly.
REST_COUNT = -1  # the tray holds more cards than the pass had left: some were put back in, or came from elsewhere
REST_MORE = -2  # more cards went out than the one the beam was counting: one may lie on the wrong pile
SAVE_VERSION = 1


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
        self.in_pass = False  # a pass of the load in hand has begun and not finished
        self.offset = 0  # cards of that load dealt before the part being dealt now
        self.stopped_at = -1  # the pass stopped after this many of its cards (-1: not known)

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
        self.in_pass = False
        self.active = True
        self._plan_round()

    def end(self):
        """Forget the codes (overwritten, not just dropped)."""
        for i in range(len(self.codes)):
            self.codes[i] = 0
        for i in range(len(self.scratch)):
            self.scratch[i] = 0
        self.active = False
        self.in_pass = False

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
        """A pass of the next load, n cards, begins."""
        if not self.active or not self.check(n):
            raise ValueError("load does not match the exact routine")
        self.pass_n = n
        self.top = self.start + n - 1
        self.in_pass = True
        self.offset = 0
        self.stopped_at = -1

    def side(self, k):
        # The k-th card fed of this part of the pass.
        return self.card_side(self.offset + k)

    def card_side(self, i):
        # The load's i-th card fed is its bottom card first (docs/mechanism.md).
        return (self.codes[self.top - i] >> self.round) & 1

    # ----- a pass that stopped part way ------------------------------------
    def stopped(self, k):
        """The part being dealt stopped after k of its cards went through the beam."""
        self.stopped_at = self.offset + k

    def rest_start(self, t):
        """With t cards in the tray (what was caught put back), the card the
        rest of the pass in hand starts at, or REST_COUNT / REST_MORE when a
        card gone out may lie on the wrong pile. Past the k cards the beam
        counted, one more may have gone out: the card it was feeding, driven
        to that card's own side. Two or more beyond the count went out
        together on one side, right or wrong by their codes, which are not
        looked at (see the module's note). After a restart the beam's count
        is not known: every card went out in a run of its own, so the count
        alone says where the pass stopped. With nothing left (t = 0) the
        pass is whole: its start is pass_n, and no card follows."""
        dealt = self.pass_n - t
        if t < 0 or dealt < self.offset:
            return REST_COUNT
        k = self.stopped_at
        if k < 0:
            return dealt
        if dealt < k:
            return REST_COUNT
        if dealt > k + 1:
            return REST_MORE
        return dealt

    def prepare_rest(self, start):
        """The rest of the pass in hand, from its card `start`."""
        self.offset = start
        self.stopped_at = -1

    # ----- after a whole pass ----------------------------------------------
    def pass_done(self):
        self.in_pass = False
        self.offset = 0
        self.stopped_at = -1
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

    # ----- kept in flash -----------------------------------------------------
    def to_dict(self):
        """Everything the routine needs after a restart (the board's flash
        keeps it while the routine runs)."""
        return {"v": SAVE_VERSION, "n": self.n, "bits": self.bits, "loads": self.loads, "uneven": self.uneven,
                "round": self.round, "load": self.load, "start": self.start, "sizes": list(self.sizes),
                "codes": list(self.codes), "in_pass": self.in_pass, "pass_n": self.pass_n,
                "offset": self.offset, "stopped_at": self.stopped_at}

    def from_dict(self, d):
        """Take up a routine saved by to_dict; False (and nothing changed)
        when it is not one this routine can run."""
        try:
            n, loads = int(d["n"]), int(d["loads"])
            if d["v"] != SAVE_VERSION or X.n_loads(n, self.capacity) != loads or d["bits"] != X.n_bits(n):
                return False
            codes = array("H", d["codes"])
            sizes = array("H", d["sizes"])
            where = (int(d["round"]), int(d["load"]), int(d["start"]), int(d["pass_n"]), int(d["offset"]),
                     int(d["stopped_at"]))
        except (KeyError, TypeError, ValueError, OverflowError):
            return False
        rnd, load, start = where[0], where[1], where[2]
        if len(codes) != n or len(sizes) != loads or not (0 <= rnd < d["bits"] and 0 <= load < loads
                                                         and 0 <= start <= n):
            return False
        self.codes, self.scratch, self.sizes = codes, array("H", codes), sizes
        self.n, self.bits, self.loads, self.uneven = n, d["bits"], loads, bool(d["uneven"])
        self.round, self.load, self.start, self.pass_n, self.offset, self.stopped_at = where
        self.in_pass = bool(d["in_pass"])
        self.top = self.start + self.pass_n - 1
        self.active = True
        return True
