"""Exact mode on the device: the codes, the pack's order, the next load.

The device gives every pack position a code from a fixed code set in a
uniformly random arrangement (Fisher-Yates on its own random bytes,
exact_codes.shuffle_codes) and deals each card by its code, round by round,
in one of the routines of exact_routes.py: whole-pack radix (bit r of
the code in round r, pile trade, b = ceil(log2 N) rounds), the split
(the pack split into parts that fit the tray by the codes' ranges, each
part then sorted on its own) or the pipelined routine (a few cards held
out of a full load; its codes worked out from the places drawn,
exact_routes.held_codes). Either ends in an exactly uniform order
(docs/exact-mode.md). Unless told which, it takes the one with the least
modelled time at the table.

State is two arrays of N codes (the code at each pack position, and a
scratch array for reordering a round's positions), allocated when a
routine begins, and the routine's rounds; side(k) reads one code and
allocates nothing, so it runs inside the heap-locked deal loop. Nothing
here is ever sent over the wire: the controller reports only the routine,
the round, the load and its count, which the public code set fixes.

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

try:
    from micropython import const
except ImportError:  # CPython: the tests and the host import this module too
    const = int  # type: ignore[assignment,misc]

try:
    from typing import TYPE_CHECKING
except ImportError:  # MicroPython: no typing module
    TYPE_CHECKING = False

# The planner (exact_routes, with exact_codes and table_time) is imported
# with the first routine (begin, from_dict), not at boot: a board that runs
# none never holds it (docs/firmware.md, "Heap on the rp2 port"). Never in
# a pass: a routine in hand has imported it already.
if TYPE_CHECKING:
    from typing import Any

    import exact_codes
    import exact_routes
else:
    exact_codes = exact_routes = None


def _planner():
    global exact_codes, exact_routes
    if exact_routes is None:
        import exact_codes
        import exact_routes


MAX_CARDS = const(512)  # codes of at most 9 bits fit array("H")
MAX_LOADS = const(26)  # a round's loads are named A to Z

# What pass_done returns.
NEXT_LOAD = const(0)
ROUND_DONE = const(1)
ALL_DONE = const(2)

# What rest_start returns when the rest cannot be dealt exactly.
REST_COUNT = const(-1)  # the tray holds more cards than the pass had left: some were put back in, or came from elsewhere
REST_MORE = const(-2)  # more cards went out than the one the beam was counting: one may lie on the wrong pile
_SAVE_VERSION = const(2)
# A round's kind: exact_routes.SORT_ROUND and SPLIT_ROUND (a test holds them equal).
_SORT_ROUND = const(0)
_SPLIT_ROUND = const(1)


class ExactRoutine:
    """A side source (prepare(n), side(k)) that also tracks the whole pack."""

    def __init__(self, capacity):
        self.capacity = capacity
        self.active = False
        self.route = None  # type: Any  # none yet (an exact_routes.Route once a routine begins)
        self.codes = array("H")
        self.scratch = array("H")
        self.sizes = array("H")
        self.n = 0
        self.rounds = 0
        self.uneven = False
        self.round = 0  # 0-based
        self.load = 0  # 0-based index of the next load in this round
        self.start = 0  # pack position of the next load's top card
        self.top = 0  # pack position of the top card of the load being dealt
        self.pass_n = 0
        self.in_pass = False  # a pass of the load in hand has begun and not finished
        self.offset = 0  # cards of that load dealt before the part being dealt now
        self.stopped_at = -1  # the pass stopped after this many of its cards (-1: not known)
        # A part is dealt again (repair) once the pass in hand is over: that
        # pass goes on at random meanwhile (its order is lost anyway).
        self.random_rest = False
        # The round in hand, read by every card: its kind, first position, rule and loads.
        self.kind = _SORT_ROUND
        self.lo = 0
        self.param = 0
        self.loads = 0

    def begin(self, n, randbytes, kind=None):
        """Draw fresh codes for an n-card pack, for the routine `kind` (None:
        the one with the least modelled time). ValueError when it cannot run."""
        if n < 2 or n > MAX_CARDS:
            raise ValueError("exact mode takes 2 to %d cards" % MAX_CARDS)
        _planner()
        if exact_codes.n_loads(n, self.capacity) > MAX_LOADS:
            raise ValueError("more than %d loads" % MAX_LOADS)
        route = exact_routes.route(n, self.capacity, kind)
        self.end()
        uneven = False
        if route.kind != exact_routes.RADIX:
            codes = array("H", range(n))  # a card's code is its place in the final pack
        else:
            # The uneven set lets the count sensor catch a swapped stack or pile;
            # it needs a little room, so fall back to the balanced one.
            try:
                codes = exact_codes.code_set(n, self.capacity, True)
                uneven = True
            except ValueError:
                codes = exact_codes.code_set(n, self.capacity, False)
        exact_codes.shuffle_codes(codes, randbytes)
        if route.kind == exact_routes.PIPELINED:
            exact_routes.held_codes(codes, n, self.capacity)  # the sides follow from the places drawn
        self.route = route
        self.codes = codes
        self.scratch = array("H", codes)
        self.sizes = array("H", [0] * MAX_LOADS)
        self.n = n
        self.rounds = route.rounds
        self.uneven = uneven
        self.round = 0
        self.load = 0
        self.in_pass = False
        self.active = True
        self._plan_round()

    def end(self):
        """Forget the codes (overwritten, not just dropped)."""
        self.random_rest = False
        for i in range(len(self.codes)):
            self.codes[i] = 0
        for i in range(len(self.scratch)):
            self.scratch[i] = 0
        self.active = False
        self.in_pass = False

    def _plan_round(self):
        rt, r = self.route, self.round
        self.kind, self.lo, self.param, self.loads = rt.kinds[r], rt.lo[r], rt.param[r], rt.loads[r]
        self.start = self.lo
        L = self.loads
        if L == 2 and self.fixed_counts():
            # The loads are the left and the right stack: their sizes are the
            # bit counts of the last round's bit, fixed by the code set.
            zeros, ones = exact_codes.bit_counts(self.codes, self.param - 1)
            self.sizes[0] = zeros
            self.sizes[1] = ones
            return
        q, rem = divmod(rt.size[r], L)
        for j in range(L):
            self.sizes[j] = q + 1 if j < rem else q

    def fixed_counts(self):
        """True when this round's load sizes are fixed (stacks, not cuts):
        a part dealt alone, or the stacks of a two-load radix round."""
        return self.loads == 1 or (self.kind == _SORT_ROUND and self.loads == 2 and self.param > 0)

    def expected(self):
        """Cards the next load should hold."""
        if self.load == self.loads - 1:
            return self.expected_rest()
        return self.sizes[self.load]

    def load_name(self):
        return self.route.name(self.round, self.load)

    def check(self, n):
        """True when a load of n cards keeps the tracked order.

        Where the person cuts the loads (the first round of radix, every
        split round, radix with three or more loads) a miscut does no harm as
        long as the loads come in order and every later load keeps at least
        one card; a part, the stacks of a two-load radix round and the last
        load of any round must match exactly.
        """
        if self.fixed_counts() or self.load == self.loads - 1:
            return n == self.expected()
        return 1 <= n <= self.expected_rest() - (self.loads - 1 - self.load)

    def expected_rest(self):
        """Cards of this round not yet dealt."""
        return self.lo + self.route.size[self.round] - self.start

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
        c = self.codes[self.top - i] - self.lo
        if self.kind == _SPLIT_ROUND:
            return 1 if c >= self.param else 0
        return (c >> self.param) & 1

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
        # Every left card of the round (in order) above every right card.
        exact_routes.partition(self.codes, self.scratch, self.lo, self.route.size[self.round], self.kind, self.param)
        self.round += 1
        self.load = 0
        if self.round == self.rounds:
            return ALL_DONE
        self._plan_round()
        return ROUND_DONE

    # ----- a part dealt again ------------------------------------------------
    def part_first_round(self):
        """The first round of the part in hand (-1: none). In the split, a
        part is dealt alone, one load a round, its rounds one after another;
        whole-pack radix and a split round have no part of their own."""
        rt, r = self.route, self.round
        if not self.active or rt.kind != exact_routes.SPLIT or r >= self.rounds or rt.kinds[r] != _SORT_ROUND:
            return -1
        while r > 0 and rt.kinds[r - 1] == _SORT_ROUND and rt.lo[r - 1] == rt.lo[r]:
            r -= 1
        return r

    def parent_round(self):
        """The split round that cut the stack in hand off a bigger one
        (exact_routes.parent_round); -1 where there is none or no routine."""
        return exact_routes.parent_round(self.route, self.round) if self.active else -1

    def repair(self, randbytes, parent=False):
        """The part in hand lost its tracked order (cards moved by hand, a
        pass that went wrong): fresh codes for its cards, drawn now, and its
        rounds dealt again from its first. The split fixed which cards are
        the part (the codes lo to lo + size - 1, a card's code its place in
        the final pack); which of them lies where is all that went wrong,
        and fresh codes, drawn independently of anything done at the table,
        make every order of them equally likely again (docs/exact-mode.md,
        "A part dealt again"). False, and nothing changed, with no part to
        repair.

        parent: the stack in hand holds a wrong set of cards (one went to
        the other stack at the split round that cut it,
        exact_routes.parent_round): that
        round's whole stack, put together again, gets fresh codes over its
        positions as it lies and is dealt again from that round (the set of
        its cards was fixed before the slip; docs/exact-mode.md, *Mended in
        place* (d)). False, nothing changed, where there is none or it is
        the whole pack (that is a fresh routine)."""
        first = self.parent_round() if parent else self.part_first_round()
        if first < 0 or (parent and self.route.size[first] >= self.n):
            return False
        lo, size = self.route.lo[first], self.route.size[first]
        codes = self.codes
        for i in range(size):
            codes[lo + i] = lo + i
        exact_codes.shuffle_codes(memoryview(codes)[lo:lo + size], randbytes)
        self.round = first
        self.load = 0
        self.in_pass = False
        self.offset = 0
        self.stopped_at = -1
        self._plan_round()
        return True

    # ----- kept in flash -----------------------------------------------------
    def to_dict(self):
        """Everything the routine needs after a restart (the board's flash
        keeps it while the routine runs); the rounds follow from n, the
        capacity and the routine's kind."""
        return {"v": _SAVE_VERSION, "n": self.n, "capacity": self.capacity, "routine": self.route.kind,
                "rounds": self.rounds,
                "uneven": self.uneven, "round": self.round, "load": self.load, "start": self.start,
                "codes": list(self.codes), "in_pass": self.in_pass,
                "pass_n": self.pass_n, "offset": self.offset, "stopped_at": self.stopped_at}

    def from_dict(self, d):
        """Take up a routine saved by to_dict; False (and nothing changed)
        when it is not one this routine can run."""
        _planner()
        try:
            n = int(d["n"])
            if d["v"] != _SAVE_VERSION or d["capacity"] != self.capacity or d["routine"] not in exact_routes.KINDS \
                    or not 2 <= n <= MAX_CARDS \
                    or exact_codes.n_loads(n, self.capacity) > MAX_LOADS:
                return False
            route = exact_routes.route(n, self.capacity, d["routine"])
            codes = array("H", d["codes"])
            where = (int(d["round"]), int(d["load"]), int(d["start"]), int(d["pass_n"]), int(d["offset"]),
                     int(d["stopped_at"]))
        except (KeyError, TypeError, ValueError, OverflowError):
            return False
        rnd, load, start = where[0], where[1], where[2]
        if d["rounds"] != route.rounds or len(codes) != n or not (
                0 <= rnd < route.rounds and 0 <= load < route.loads[rnd]
                and route.lo[rnd] <= start <= route.lo[rnd] + route.size[rnd]):
            return False
        self.route, self.codes, self.scratch = route, codes, array("H", codes)
        self.n, self.rounds, self.uneven = n, route.rounds, bool(d["uneven"])
        self.sizes = array("H", [0] * MAX_LOADS)
        self.round = rnd
        self._plan_round()  # the round's rule and loads, as they were when it began
        self.load, self.start, self.pass_n, self.offset, self.stopped_at = where[1:]
        self.in_pass = bool(d["in_pass"])
        self.top = self.start + self.pass_n - 1
        self.active = True
        return True
