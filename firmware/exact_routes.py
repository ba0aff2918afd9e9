"""Exact mode's two routines, as the rounds the device deals and the host words.

Both end in an exactly uniform pack (docs/exact-mode.md):

* radix: every round deals the whole pack, in L = ceil(N/C) loads gathered
  by pile trade, each card by bit r of its code (exact_codes.code_set), for
  b = ceil(log2 N) rounds.
* pipelined (a pack a few cards bigger than the tray, n = C + h): one
  pass of the top C cards (load A) holds out h of them, its left pile;
  its right pile on top of the bottom h cards (load B) is one load of C,
  part P, sorted alone; the h held out, part Q, are sorted alone; the
  pack is P's last left pile, Q, P's last right pile (held_codes).
* split: a card's code is its place in the final pack, 0 to N - 1. A split
  round deals a stack (a range of codes) in as many loads as it takes and
  sends a card left when its code falls in the range's first part; all left
  piles are then one stack, all right piles the other. Stacks are split
  until each fits the tray: those are the parts. A part is then dealt on
  its own, one load, ceil(log2 s) passes by the bits of (code - its first
  code), its left pile put on its right pile between passes. The parts,
  gathered in order, are the pack.

A routine is its rounds, each (kind, lo, size, loads, param): the cards of
the device's model positions [lo, lo + size) dealt in `loads` loads. A SORT
round sends a card right when bit `param` of (code - lo) is 1 (a radix round
is a SORT round of the whole pack), a SPLIT round when code - lo >= param.
After a round those positions hold its left cards, then its right cards,
each in their order (`partition`).

The device and the host take the routine with the least modelled time at
the table (table_time.py), the split's parts chosen by the same measure;
`route_ms` times a routine exactly as the host's time model times its steps
(shuffling/exact_mode/physical.py, route_steps).

Runs under MicroPython and CPython alike, like exact_codes.py.
"""

from array import array

try:
    import exact_codes
    import protocol
    import table_time
except ImportError:  # CPython: the host imports the firmware as a package
    from firmware import exact_codes  # type: ignore[no-redef,import-not-found]
    from firmware import protocol  # type: ignore[no-redef]
    from firmware import table_time  # type: ignore[no-redef]
try:
    from micropython import const
except ImportError:  # CPython
    const = int  # type: ignore[assignment,misc]

RADIX = protocol.ROUTINE_RADIX
SPLIT = protocol.ROUTINE_SPLIT
PIPELINED = protocol.ROUTINE_PIPELINED
KINDS = protocol.EXACT_ROUTINES
SORT_ROUND = const(0)
SPLIT_ROUND = const(1)
MAX_ROUNDS = const(250)  # a split into very many small parts is not offered beyond this
_FIRST_PART = const(15)  # parts are named from P on, after every split round's loads


def load_name(i):
    """A, B, ..., Z, AA, AB, ...: the name of load (or part) number i."""
    name = ""
    i += 1
    while i:
        i, r = divmod(i - 1, 26)
        name = chr(65 + r) + name
    return name


def round_side(c, kind, param):
    """Side (0 left, 1 right) of a card whose code is c above the round's lo."""
    if kind == SPLIT_ROUND:
        return 1 if c >= param else 0
    return (c >> param) & 1


def partition(codes, scratch, lo, size, kind, param):
    """The round's positions as it leaves them: its left cards, then its right cards, each in order."""
    w = lo
    for side in (0, 1):
        for i in range(lo, lo + size):
            if round_side(codes[i] - lo, kind, param) == side:
                scratch[w] = codes[i]
                w += 1
    for i in range(lo, lo + size):
        codes[i] = scratch[i]


def parent_round(route, r):
    """The split round that cut the stack of round r off a bigger one (-1:
    none: radix, the pipelined routine, the split's first round). The
    split's rounds go depth first, so it is the last round before r whose
    left or right stack is exactly round r's stack."""
    if route.kind != SPLIT or not 0 <= r < route.rounds:
        return -1
    lo, size = route.lo[r], route.size[r]
    t = r - 1
    while t >= 0:
        if route.kinds[t] == SPLIT_ROUND and (
                (route.lo[t] == lo and route.param[t] == size)
                or (route.lo[t] + route.param[t] == lo and route.size[t] - route.param[t] == size)):
            return t
        t -= 1
    return -1


# ----- modelled time at the table ------------------------------------------------

def pass_ms(cards):
    return table_time.PASS_START_MS + cards * table_time.CARD_MS


def part_ms(size):
    """A part dealt on its own: put in, reloaded between its passes, taken out stacked."""
    b = exact_codes.n_bits(size)
    if b == 0:
        return 0
    h = table_time.HANDLING_MS
    return h["putintray"] + h["touch"] + (b - 1) * (h["reload"] + h["touch"]) + h["lift"] + b * pass_ms(size)


def split_ms(size, capacity):
    """A split round: the stack cut into loads, each dealt and lifted to the rows, the two stacks made."""
    loads = exact_codes.n_loads(size, capacity)
    h = table_time.HANDLING_MS
    return (h["cut"] + loads * (h["putintray"] + h["touch"] + h["lift"]) + 2 * h["stack"]
            + loads * table_time.PASS_START_MS + size * table_time.CARD_MS)


def radix_ms(n, capacity):
    b = exact_codes.n_bits(n)
    loads = exact_codes.n_loads(n, capacity)
    h = table_time.HANDLING_MS
    if loads == 1:
        handling = (h["cut"] + h["putintray"] + h["touch"] + (b - 1) * (h["reload"] + h["touch"]) + h["lift"]
                    + h["gather"])
    else:
        draws = h["draw"] if loads == 2 else loads * h["draw"]
        handling = (h["cut"] + b * loads * (h["putintray"] + h["touch"] + h["lift"]) + 2 * b * h["stack"]
                    + (b - 1) * draws + h["gather"])
    return handling + b * loads * table_time.PASS_START_MS + b * n * table_time.CARD_MS


def _candidates(m, capacity):
    """Sizes worth trying for a stack's first part: powers of two and whole trays, from either end."""
    j = 1
    while j < m:
        yield j
        yield m - j
        j <<= 1
    j = capacity
    while j < m:
        yield j
        yield m - j
        j += capacity


def split_tree(n, capacity):
    """(best, cut): best[m] the least modelled time to split and sort a stack
    of m cards, cut[m] the size of its first part (0: it fits the tray).
    On a tie the larger first part."""
    best = [0] * (n + 1)
    cut = [0] * (n + 1)
    for m in range(1, n + 1):
        if m <= capacity:
            best[m] = part_ms(m)
            continue
        top = -1
        pick = 0
        for a in _candidates(m, capacity):
            c = best[a] + best[m - a]
            if top < 0 or c < top or (c == top and a > pick):
                top, pick = c, a
        best[m] = split_ms(m, capacity) + top
        cut[m] = pick
    return best, cut


# ----- the routines ------------------------------------------------------------------

class Route:
    """A routine's rounds, in the order they are dealt, and its parts."""

    def __init__(self, kind, n, capacity):
        self.kind = kind
        self.n = n
        self.capacity = capacity
        self.kinds = bytearray()
        self.lo = array("H")
        self.size = array("H")
        self.loads = array("H")
        self.param = array("H")
        self.first = array("H")  # the number of the round's first load name (load_name)
        self.part_lo = array("H")  # the split's parts, top of the pack first
        self.part_size = array("H")
        self.ms = 0  # modelled time at the table

    def add(self, kind, lo, size, loads, param, first):
        self.kinds.append(kind)
        self.lo.append(lo)
        self.size.append(size)
        self.loads.append(loads)
        self.param.append(param)
        self.first.append(first)

    @property
    def rounds(self):
        return len(self.kinds)

    def passes(self):
        total = 0
        for loads in self.loads:
            total += loads
        return total

    def name(self, rnd, load):
        return load_name(self.first[rnd] + load)

    def part_name(self, part):
        return load_name(part_base(self.n, self.capacity) + part)


def part_base(n, capacity):
    return max(_FIRST_PART, exact_codes.n_loads(n, capacity))


def radix_route(n, capacity):
    route = Route(RADIX, n, capacity)
    loads = exact_codes.n_loads(n, capacity)
    for bit in range(exact_codes.n_bits(n)):
        route.add(SORT_ROUND, 0, n, loads, bit, 0)
    route.ms = radix_ms(n, capacity)
    return route


def split_route(n, capacity):
    """The split, or None where there is none (the pack fits the tray) or it takes too many rounds."""
    if n <= capacity:
        return None
    best, cut = split_tree(n, capacity)
    route = Route(SPLIT, n, capacity)
    base = part_base(n, capacity)
    todo = [(0, n)]  # depth first, the first part first
    while todo:
        lo, m = todo.pop()
        if m > capacity:
            a = cut[m]
            route.add(SPLIT_ROUND, lo, m, exact_codes.n_loads(m, capacity), a, 0)
            todo.append((lo + a, m - a))
            todo.append((lo, a))
            continue
        part = len(route.part_lo)
        route.part_lo.append(lo)
        route.part_size.append(m)
        for bit in range(exact_codes.n_bits(m)):
            route.add(SORT_ROUND, lo, m, 1, bit, base + part)
        if route.rounds > MAX_ROUNDS:
            return None
    route.ms = best[n] + table_time.HANDLING_MS["gather"]
    return route


def route(n, capacity, kind=None):
    """The routine of `kind`, or (None) the one with the least modelled time,
    the split on a tie. ValueError when there is no such routine."""
    if kind == RADIX:
        return radix_route(n, capacity)
    if kind == PIPELINED:
        pipe = pipelined_route(n, capacity)
        if pipe is None:
            raise ValueError("no pipelined routine: the pack is not a few cards bigger than the tray")
        return pipe
    if kind not in (None, SPLIT):
        raise ValueError("no such exact routine")
    split = split_route(n, capacity)
    if split is None:
        if kind == SPLIT:
            raise ValueError("no split: the pack fits the tray" if n <= capacity else "too many parts to split")
        return radix_route(n, capacity)
    if kind is None:
        pipe = pipelined_route(n, capacity)
        if pipe is not None and pipe.ms < split.ms and pipe.ms < radix_ms(n, capacity):
            return pipe
    if kind == SPLIT or split.ms <= radix_ms(n, capacity):
        return split
    return radix_route(n, capacity)


# ----- the pipelined routine: n = C + h, a few cards held out ----------------------

def held_window(n, capacity):
    """(lo, hi): where the run of the h = n - C places of part Q may start in
    the final pack, or None when the routine cannot always place it.

    P's C cards are sorted by codes of b = ceil(log2 C) bits, the k above
    Q's run 0 to k - 1 and the rest half + 0, half + 1, ... (half = 2^(b-1)),
    so P's last pass leaves the k above the run on its left pile and the
    rest on its right: k lies in lo = C - half to hi = half. The run must
    hold none of load B's h cards (they are in P). Among the places lo to
    hi + h - 1, hi - lo + h of them, B's cards leave hi - lo free places in
    at most h + 1 runs, so some free run is at least
    ceil((hi - lo) / (h + 1)) long, and B's cards can make every run that
    short: the routine exists exactly when that is at least h."""
    h = n - capacity
    if h < 1 or capacity < 2:
        return None
    half = 1 << (exact_codes.n_bits(capacity) - 1)
    lo, hi = capacity - half, half
    if (hi - lo + h) // (h + 1) < h:
        return None
    return lo, hi


def pipelined_ms(n, capacity):
    """Cut off load B; deal load A and lift its piles; two stacks make P and
    Q; P and Q each dealt alone; the gathering."""
    h = table_time.HANDLING_MS
    return (h["cut"] + h["putintray"] + h["touch"] + h["lift"] + 2 * h["stack"] + pass_ms(capacity)
            + part_ms(capacity) + part_ms(n - capacity) + h["gather"])


def pipelined_route(n, capacity):
    """The pipelined routine, or None where held_window has no room.

    Round 1 deals load A (positions 0 to C - 1) and sends left the cards
    held out (codes below h), which leaves them at positions 0 to h - 1, A's
    other cards after them, then load B: positions h to n - 1 are part P,
    sorted next by bits of (code - h); then part Q, positions 0 to h - 1."""
    if held_window(n, capacity) is None:
        return None
    h = n - capacity
    base = part_base(n, capacity)
    route = Route(PIPELINED, n, capacity)
    route.add(SPLIT_ROUND, 0, capacity, 1, h, 0)
    for part, (lo, size) in enumerate(((h, capacity), (0, h))):
        route.part_lo.append(lo)
        route.part_size.append(size)
        for bit in range(exact_codes.n_bits(size)):
            route.add(SORT_ROUND, lo, size, 1, bit, base + part)
    route.ms = pipelined_ms(n, capacity)
    return route


def held_codes(codes, n, capacity):
    """Turn `codes`, each pack position's place in the final pack (a
    uniformly random arrangement), into the pipelined routine's codes, in
    place: Q's run starts at the first place k from lo (held_window) where h
    places in a row hold none of load B's cards (positions C to n - 1);
    a card whose place p is in the run gets p - k (held out, then sorted by
    it); any other card h + its code in P (p, less h past the run: below
    half for the k above the run, half and up for the rest). The pack then
    ends in the order of the places: P's left pile (places 0 to k - 1), Q,
    P's right pile. Returns k."""
    h = n - capacity
    lo, hi = held_window(n, capacity)
    half = 1 << (exact_codes.n_bits(capacity) - 1)
    from_b = bytearray(n)
    for pos in range(capacity, n):
        from_b[codes[pos]] = 1
    k = lo
    while k <= hi:
        j = 0
        while j < h and not from_b[k + j]:
            j += 1
        if j == h:
            break
        k += 1
    for pos in range(n):
        p = codes[pos]
        if k <= p < k + h:
            codes[pos] = p - k
        else:
            i = p if p < k else p - h
            codes[pos] = h + (i if i < k else half + i - k)
    return k
