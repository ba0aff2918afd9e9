"""The physical process, card by card, exactly as docs/mechanism.md fixes it.

A pass feeds the load's bottom card first and each card lands on top of its
pile; piles are read top to bottom. Gathering (pile trade) puts all left
piles, in load order, on top of all right piles, in load order; the result is
cut from the top into the next round's loads. Faults (mistakes.py) hook in
here so that a mistaken run is simulated by the same code as a correct one.

The firmware decides sides by pack position from what it believes the pack
holds; a fault changes the physical pack but not the belief, which is how a
mistake travels into later rounds.
"""
from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Callable, Hashable, Sequence, TypeVar

from firmware import exact_routes as routes
from shuffling import steps as step_kinds
from shuffling.exact_mode.codes import (
    bit_counts,
    code_set,
    cut_plan,
    loads_for_round,
    n_bits,
    n_loads,
    split_sizes,
)

Card = TypeVar("Card", bound=Hashable)

LEFT, RIGHT = 0, 1

# A pile is said to be possibly empty when the chance that its load sends
# no card to that side is at least this (one in a million): a 108-card
# canasta's split sends 4 cards right, and a load of 54 keeps none of them
# 5.9 % of the time, while Samba's 64 all miss a load of 81 with a chance
# of about 1e-29. (Exact mode's pile counts are never sent: the guide
# words its steps from these chances, not from the piles.)
EMPTY_PILE_CHANCE = 1e-6


@dataclass(frozen=True)
class Fault:
    """One mistake during one pass.

    kind:
      "swap_piles"  load `load`'s left and right piles change places when gathered
      "swap_round"  every load's piles change places (right stack on top of left)
      "repeat_load" load `load` is dealt, stacked left on right, put back and
                    dealt again with the same sides (the firmware cannot tell)
      "double_feed" the card fed at `index` + 1 travels with the card fed at
                    `index` and so lands on that card's pile
      "abort"       the pass stops after `index` cards; the dealt cards are
                    stacked left on right, put back under the rest of the load
                    and the whole load is dealt again from the start
    """

    kind: str
    round: int
    load: int = 0
    index: int = 0

    def __post_init__(self) -> None:
        if self.kind not in FAULT_KINDS:
            raise ValueError(f"unknown fault kind {self.kind!r}")


FAULT_KINDS = ("swap_piles", "swap_round", "repeat_load", "double_feed", "abort")


def deal(load: Sequence[Card], sides: Sequence[int]) -> tuple[list[Card], list[Card]]:
    """One pass: sides[k] is the side of the k-th card fed (the bottom card is fed first).

    Returns (left pile, right pile), each read top to bottom.
    """
    n = len(load)
    if len(sides) != n:
        raise ValueError("need one side per card")
    left: list[Card] = []  # list end = top of pile
    right: list[Card] = []
    for k in range(n):
        card = load[n - 1 - k]
        (left if sides[k] == LEFT else right).append(card)
    left.reverse()
    right.reverse()
    return left, right


def _feed_sides(believed: Sequence[int], start: int, size: int, bit: int) -> list[int]:
    """The sides the firmware commands for a load at pack positions [start, start+size)."""
    return [(believed[start + size - 1 - k] >> bit) & 1 for k in range(size)]


def _stable_partition(items: Sequence[int], bit: int) -> list[int]:
    return [c for c in items if not (c >> bit) & 1] + [c for c in items if (c >> bit) & 1]


@dataclass
class RunRecord:
    """What a run produced: the pack after each round, and what the count sensor saw."""

    orders: list[list]
    count_mismatch: bool = False  # some load's count differed from the planned size


def run_with_fault(
    order: Sequence[Card],
    codes: Sequence[int],
    capacity: int,
    fault: Fault | None = None,
    n_rounds: int | None = None,
    cuts: Callable[[int], Sequence[int]] | None = None,
) -> RunRecord:
    """Exact mode on the physical pack, with at most one fault.

    `codes[i]` is the code of the card at position i of `order` (top = 0).
    The firmware's belief (the code at each position) evolves by the ideal
    rule; sides come from the belief, by position, with the count sensor
    telling the firmware how many cards each load holds.

    `cuts(r)`, if given, is where the person actually cut the pack into loads
    in round r (sizes, top load first) instead of the planned sizes: the
    firmware reads each count, so only the order of the loads matters.
    """
    n = len(order)
    code_list, rounds = _checked(n, codes, n_rounds)
    pack = list(order)
    believed = list(codes)
    orders: list[list] = []
    mismatch = False
    for r in range(rounds):
        planned = _round_loads(n, capacity, code_list, r, cuts)
        lefts, rights = _deal_round(pack, believed, planned, r, fault)
        pack = [c for pile in lefts for c in pile] + [c for pile in rights for c in pile]
        believed = _stable_partition(believed, r)
        # The count sensor: would the next round's loads differ from plan?
        if r + 1 < rounds and n_loads(n, capacity) == 2:
            mismatch |= sum(len(p) for p in lefts) != bit_counts(believed, r)[0]
        orders.append(list(pack))
    return RunRecord(orders, mismatch)


def _round_loads(n: int, capacity: int, code_list: list[int], r: int,
                 cuts: Callable[[int], Sequence[int]] | None) -> list[int]:
    """Round r's load sizes, top load first: those a correct run would have,
    or where the person cut. At most one fault happens and it changes only
    what comes after it, and after it the cut no longer matters (pile trade
    is one stable partition of the whole pack, each position's side taken
    from the belief)."""
    planned = loads_for_round(n, capacity, code_list, r) if cuts is None else list(cuts(r))
    if sum(planned) != n or min(planned) < 0:
        raise ValueError("loads must share out the whole pack")
    return planned


def _checked(n: int, codes: Sequence[int], n_rounds: int | None) -> tuple[list[int], int]:
    """The codes sorted and the rounds to run, once both are found valid."""
    if len(codes) != n:
        raise ValueError("need one code per card")
    code_list = sorted(codes)
    if len(set(code_list)) != n:
        raise ValueError("codes must be distinct")
    rounds = n_bits(n) if n_rounds is None else n_rounds
    if not 0 <= rounds <= n_bits(n):
        raise ValueError("exact mode has at most b rounds")
    return code_list, rounds


def _deal_round(
    pack: list, believed: list[int], planned: Sequence[int], r: int, fault: Fault | None,
) -> tuple[list[list], list[list]]:
    """Round r's loads (`planned` sizes, top load first) dealt by the belief:
    each load's left and right piles, the fault done where it falls."""
    lefts: list[list] = []
    rights: list[list] = []
    start = 0
    for j, size in enumerate(planned):
        load = pack[start:start + size]
        sides = _feed_sides(believed, start, size, r)
        if fault is not None and fault.round == r and fault.load == j:
            load, sides = _fed_with_fault(load, sides, fault)
        left, right = deal(load, sides)
        if fault is not None and fault.round == r and (
            fault.kind == "swap_round" or (fault.kind == "swap_piles" and fault.load == j)
        ):
            left, right = right, left
        lefts.append(left)
        rights.append(right)
        start += size
    return lefts, rights


def _fed_with_fault(load: list, sides: list[int], fault: Fault) -> tuple[list, list[int]]:
    """The load and its sides as the faulty pass feeds them: dealt twice
    (the first pass's piles put back in), a pass aborted after fault.index
    cards and restarted with them on top, or two cards fed as one."""
    size = len(load)
    if fault.kind == "repeat_load":
        first_left, first_right = deal(load, sides)
        load = first_left + first_right
    elif fault.kind == "abort":
        m = min(fault.index, size)
        dealt_left, dealt_right = deal(load[size - m:], sides[:m])
        load = load[:size - m] + dealt_left + dealt_right
    elif fault.kind == "double_feed" and fault.index + 1 < size:
        sides = list(sides)
        sides[fault.index + 1] = sides[fault.index]
    return load, sides


def run_exact(order: Sequence[Card], codes: Sequence[int], capacity: int) -> list[list[Card]]:
    """The pack after each of the b rounds of exact mode (last entry: the final order)."""
    return run_with_fault(order, codes, capacity).orders


def run_route(order: Sequence[Card], codes: Sequence[int], route: routes.Route) -> list[Card]:
    """A routine of firmware/exact_routes.py on the physical pack, card by card: the pack at the end.

    `codes[i]` is the code of the card at position i of `order` (top = 0);
    the firmware's belief (the code at each position) moves as the device
    moves it (routes.partition), and every side comes from the belief by
    position. A round deals the stack at positions [lo, lo + size) in its
    loads (cut near-equal: where a stack is cut does not matter while the
    loads keep their order) and gathers all left piles, in load order, on
    top of all right piles; a part's pass is one load, its left pile put on
    its right pile.
    """
    n = len(order)
    if len(codes) != n or route.n != n:
        raise ValueError("need one code per card of the routine's pack")
    pack = list(order)
    believed = list(codes)
    scratch = [0] * n
    for r in range(route.rounds):
        kind, lo, size, param = route.kinds[r], route.lo[r], route.size[r], route.param[r]
        lefts: list[Card] = []
        rights: list[Card] = []
        start = lo
        for load_size in split_sizes(size, route.loads[r]):
            load = pack[start:start + load_size]
            sides = [routes.round_side(believed[start + load_size - 1 - k] - lo, kind, param) for k in range(load_size)]
            left, right = deal(load, sides)
            lefts += left
            rights += right
            start += load_size
        pack[lo:lo + size] = lefts + rights
        routes.partition(believed, scratch, lo, size, kind, param)
    return pack


def run_random_pile_trade(
    order: Sequence[Card], capacity: int, n_rounds: int, rng: random.Random
) -> list[list[Card]]:
    """Random mode with pile trade: each card's side a fair coin; the pack after each round."""
    n = len(order)
    pack = list(order)
    out: list[list[Card]] = []
    loads = n_loads(n, capacity)
    for _ in range(n_rounds):
        lefts: list[list[Card]] = []
        rights: list[list[Card]] = []
        start = 0
        # Loads are cut near-equal from the top; the order does not depend on the
        # cut because pile trade is one stable partition of the whole pack.
        for size in split_sizes(n, loads):
            left, right = deal(pack[start:start + size], [rng.getrandbits(1) for _ in range(size)])
            lefts.append(left)
            rights.append(right)
            start += size
        pack = [c for p in lefts for c in p] + [c for p in rights for c in p]
        out.append(list(pack))
    return out


def run_random_stack_then_trade(
    order: Sequence[Card], n_rounds: int, rng: random.Random
) -> list[list[Card]]:
    """Random mode, two loads, stack-then-trade (docs/mechanism.md).

    Each load is dealt and gathered left on right; then the top half
    (floor(n/2) cards) of load A is traded for the top half of load B:
    new A = B's top half on A's bottom half, new B = A's top half on B's
    bottom half. The pack is A on B.
    """
    n = len(order)
    size_a, size_b = split_sizes(n, 2)
    pack = list(order)
    out: list[list[Card]] = []
    for _ in range(n_rounds):
        a, b = pack[:size_a], pack[size_a:]
        la, ra = deal(a, [rng.getrandbits(1) for _ in range(size_a)])
        lb, rb = deal(b, [rng.getrandbits(1) for _ in range(size_b)])
        a, b = la + ra, lb + rb
        ha, hb = size_a // 2, size_b // 2
        # Trade equal halves so the loads keep their sizes.
        h = min(ha, hb)
        a, b = b[:h] + a[h:], a[:h] + b[h:]
        pack = a + b
        out.append(list(pack))
    return out


# --- The person's steps --------------------------------------------------------


@dataclass(frozen=True)
class ExactStep:
    """One instruction for the person at the machine, in its round."""

    round: int  # 1-based, as the guide prints it
    step: step_kinds.Step

    @property
    def text(self) -> str:
        return step_kinds.words(self.step)


def _load_name(j: int) -> str:
    return chr(ord("A") + j)


def exact_steps(n_cards: int, capacity: int, uneven: bool = False) -> list[ExactStep]:
    """Every instruction of whole-pack radix (the routine before the split),
    round by round, as step data (shuffling/steps.py, which also
    words them).

    Each load is put in the tray with its count and dealt; with two or more
    loads its piles are taken out to two rows, stacked (the left row on top of
    the right row, as pile trade does) and the next round's loads are drawn
    from the two stacks' tops. With one load its left pile goes on its right
    pile and straight back in the tray. Piles are never turned over.
    """
    codes = code_set(n_cards, capacity, uneven)
    b = n_bits(n_cards)
    loads = n_loads(n_cards, capacity)
    steps: list[ExactStep] = []
    for r in range(b):
        sizes = loads_for_round(n_cards, capacity, codes, r)
        names = tuple(_load_name(j) for j in range(len(sizes)))
        round_steps: list[step_kinds.Step] = []
        if r == 0:
            round_steps.append(step_kinds.Cut(step_kinds.PACK, names, tuple(sizes), by_eye=loads > 1, counted=True,
                                              first=True))
        if loads == 1:
            round_steps += _one_load_round(n_cards, r, last=r + 1 == b)
        else:
            round_steps += _loads_dealt_and_stacked(codes, r, names, sizes)
            round_steps += _next_loads(n_cards, capacity, codes, r, last=r + 1 == b)
        steps += [ExactStep(r + 1, step) for step in round_steps]
    return steps


def _one_load_round(n_cards: int, r: int, last: bool) -> list[step_kinds.Step]:
    """A round of a pack that is one load: in the tray (back in, after the
    first), dealt, and at the end its left pile on its right."""
    steps: list[step_kinds.Step] = [step_kinds.Reload("A", n_cards) if r else step_kinds.PutInTray("A", n_cards),
                                    step_kinds.Touch()]
    if last:
        steps += [step_kinds.Lift("A"), step_kinds.Gather((step_kinds.left_of("A"), step_kinds.right_of("A")))]
    return steps


def _loads_dealt_and_stacked(codes: list[int], r: int, names: Sequence[str],
                             sizes: Sequence[int]) -> list[step_kinds.Step]:
    """Each load in the tray, dealt and its piles out to the rows; then each
    row stacked (a pile that may be empty said as such)."""
    steps: list[step_kinds.Step] = []
    for name, size in zip(names, sizes):
        steps += [step_kinds.PutInTray(name, size), step_kinds.Touch(), step_kinds.Lift(name, rows=True)]
    zeros, ones = bit_counts(codes, r)
    steps.append(piles_stack(names, radix_pile_chances(codes, r, sizes, 0), step_kinds.left_of,
                             step_kinds.LEFT_STACK, zeros))
    steps.append(piles_stack(names, radix_pile_chances(codes, r, sizes, 1), step_kinds.right_of,
                             step_kinds.RIGHT_STACK, ones))
    return steps


def _next_loads(n_cards: int, capacity: int, codes: list[int], r: int, last: bool) -> list[step_kinds.Step]:
    """After round r's stacks: the pack gathered (the last round), or the
    next round's loads drawn from the stacks' tops (each stack whole with
    two loads; with more, each load's share of each stack)."""
    zeros, ones = bit_counts(codes, r)
    rn = r + 1
    if last:
        return [step_kinds.Gather((step_kinds.LEFT_STACK, step_kinds.RIGHT_STACK))]
    if n_loads(n_cards, capacity) == 2:
        return [step_kinds.Draw((("A", ((step_kinds.LEFT_STACK, zeros, True),)),
                                 ("B", ((step_kinds.RIGHT_STACK, ones, True),))), rn + 1)]
    steps: list[step_kinds.Step] = []
    left_in = {step_kinds.LEFT_STACK: zeros, step_kinds.RIGHT_STACK: ones}
    for j, (from_left, from_right) in enumerate(cut_plan(n_cards, capacity, codes, r + 1)):
        parts = []
        for stack, count in ((step_kinds.LEFT_STACK, from_left), (step_kinds.RIGHT_STACK, from_right)):
            if count:
                parts.append((stack, count, count == left_in[stack]))
                left_in[stack] -= count
        steps.append(step_kinds.Draw(((_load_name(j), tuple(parts)),), rn + 1))
    return steps


def chance_none(total: int, on_side: int, load: int) -> float:
    """The chance that `load` cards drawn at random from `total`, `on_side`
    of which go to one side, include none of those (hypergeometric)."""
    p = 1.0
    for i in range(load):
        if total - on_side - i <= 0:
            return 0.0
        p *= (total - on_side - i) / (total - i)
    return p


def radix_pile_chances(codes: Sequence[int], r: int, sizes: Sequence[int], side: int) -> list[float]:
    """For each load of radix's round r (its planned sizes), the chance that
    it sends no card to `side`.

    Before round r the pack lies sorted by the codes' r low bits, each run of
    one low-bit value in a uniformly random order of its own (the first
    round: the whole pack is one run). A load takes whole runs, whose sides
    are fixed by the code set, and parts of runs, drawn at random from them."""
    order = list(codes)
    for bit in range(r):
        order = _stable_partition(order, bit)
    low = (1 << r) - 1
    runs: list[tuple[int, int, int]] = []  # (start, size, cards of the run going to `side`)
    for i, c in enumerate(order):
        if not runs or (order[runs[-1][0]] & low) != (c & low):
            runs.append((i, 0, 0))
        at, size, on = runs[-1]
        runs[-1] = (at, size + 1, on + (((c >> r) & 1) == side))
    out = []
    start = 0
    for load in sizes:
        p = 1.0
        for at, size, on in runs:
            taken = min(start + load, at + size) - max(start, at)
            if taken > 0:
                p *= chance_none(size, on, taken)
        out.append(p)
        start += load
    return out


def piles_stack(names: Sequence[str], chances: Sequence[float], pile: Callable[[str], str], result: str,
                cards: int) -> step_kinds.Stack:
    """The stack of each load's pile `pile(name)`, the first on top: a pile
    that cannot have a card is left out, one that may have none is said."""
    parts = tuple(pile(name) for name, p in zip(names, chances) if p < 1.0)
    maybe = tuple(pile(name) for name, p in zip(names, chances) if EMPTY_PILE_CHANCE <= p < 1.0)
    return step_kinds.Stack(parts, result, cards, maybe)


def split_place(route: routes.Route, lo: int, size: int) -> str:
    """The split's stack of places lo to lo + size - 1, as a place on the
    table (steps.place): the pack, a load (a part), or the stack for the
    loads it will be split into."""
    if lo == 0 and size == route.n:
        return step_kinds.PACK
    inside = [route.part_name(i) for i in range(len(route.part_lo)) if lo <= route.part_lo[i] < lo + size]
    return inside[0] if len(inside) == 1 else step_kinds.group(inside[0], inside[-1])


def split_steps(route: routes.Route) -> list[ExactStep]:
    """Every instruction of the split (firmware/exact_routes.py), round by round.

    A split round cuts its stack (the pack, or a stack made by an earlier
    split) into loads, deals each and takes its piles out to the rows; the
    left row, stacked, is the first part of the range (a load, or a stack to
    split again), the right row the rest. A part is put in the tray, and
    after each pass its left pile goes on its right pile and straight back in
    the tray; after its last pass its piles come off stacked and it is put aside. The parts, in order,
    are the shuffled pack.
    """
    if route.kind != routes.SPLIT:
        raise ValueError("not a split")
    steps: list[ExactStep] = []
    for r in range(route.rounds):
        round_steps = _split_round(route, r) if route.kinds[r] == routes.SPLIT_ROUND else _part_pass(route, r)
        steps += [ExactStep(r + 1, step) for step in round_steps]
    parts = tuple(route.part_name(i) for i in range(len(route.part_lo)))
    steps.append(ExactStep(route.rounds, step_kinds.Gather(parts)))
    return steps


def _split_round(route: routes.Route, r: int) -> list[step_kinds.Step]:
    """A split round: its stack cut into loads, each dealt and its piles out
    to the rows, and the rows stacked into the range's two parts."""
    lo, size, param = route.lo[r], route.size[r], route.param[r]
    names = tuple(route.name(r, j) for j in range(route.loads[r]))
    sizes = split_sizes(size, route.loads[r])
    source = split_place(route, lo, size)
    steps: list[step_kinds.Step] = [step_kinds.Cut(source, names, tuple(sizes), by_eye=True, counted=True,
                                                   first=source == step_kinds.PACK)]
    for name, load in zip(names, sizes):
        steps += [step_kinds.PutInTray(name, load), step_kinds.Touch(), step_kinds.Lift(name, rows=True)]
    # The stack's codes lie in a uniformly random order: each load is
    # drawn at random from its param left cards and size - param right.
    steps.append(piles_stack(names, [chance_none(size, param, x) for x in sizes],
                             step_kinds.left_of, split_place(route, lo, param), param))
    steps.append(piles_stack(names, [chance_none(size, size - param, x) for x in sizes],
                             step_kinds.right_of, split_place(route, lo + param, size - param), size - param))
    return steps


def _part_pass(route: routes.Route, r: int) -> list[step_kinds.Step]:
    """A part's pass: in the tray (back in after its first), dealt, and
    after its last pass lifted off stacked."""
    size, param = route.size[r], route.param[r]
    name = route.name(r, 0)
    steps: list[step_kinds.Step] = [step_kinds.Reload(name, size) if param else step_kinds.PutInTray(name, size),
                                    step_kinds.Touch()]
    if param + 1 == n_bits(size):
        steps.append(step_kinds.Lift(name, stacked=True))
    return steps


def pipelined_steps(route: routes.Route) -> list[ExactStep]:
    """Every instruction of the pipelined routine (firmware/exact_routes.py,
    pipelined_route): the bottom h cards cut off as load B; load A dealt,
    its piles lifted apart; A's right pile on top of B is part P, A's left
    pile (the h held out) part Q; each dealt alone, P's last piles lifted
    apart; the pack is P's left pile, Q, P's right pile. Every count is
    fixed: P's last piles hold k and C - k cards, k from the places drawn,
    never none (held_window)."""
    if route.kind != routes.PIPELINED:
        raise ValueError("not the pipelined routine")
    n, cap = route.n, route.capacity
    a, p, q = route.name(0, 0), route.part_name(0), route.part_name(1)
    b = _load_name(1)
    steps = [ExactStep(1, step_kinds.Cut(step_kinds.PACK, (a, b), (cap, n - cap), counted=True, first=True)),
             ExactStep(1, step_kinds.PutInTray(a, cap)), ExactStep(1, step_kinds.Touch()),
             ExactStep(1, step_kinds.Lift(a)),
             ExactStep(1, step_kinds.Stack((step_kinds.right_of(a), b), p, cap)),
             ExactStep(1, step_kinds.Stack((step_kinds.left_of(a),), q, n - cap))]
    for r in range(1, route.rounds):
        name, size, param = route.name(r, 0), route.size[r], route.param[r]
        steps.append(ExactStep(r + 1, step_kinds.Reload(name, size) if param else step_kinds.PutInTray(name, size)))
        steps.append(ExactStep(r + 1, step_kinds.Touch()))
        if param + 1 == n_bits(size):
            steps.append(ExactStep(r + 1, step_kinds.Lift(name, stacked=name == q)))
    last = route.rounds
    steps.append(ExactStep(last, step_kinds.Gather((step_kinds.left_of(p), q, step_kinds.right_of(p)))))
    return steps


def route_steps(route: routes.Route, uneven: bool = False) -> list[ExactStep]:
    """The person's steps of an exact routine; `uneven`: radix's code set."""
    if route.kind == routes.SPLIT:
        return split_steps(route)
    if route.kind == routes.PIPELINED:
        return pipelined_steps(route)
    return exact_steps(route.n, route.capacity, uneven)


def device_steps(route: routes.Route) -> list[ExactStep]:
    """A routine's steps with the code set the device takes for it (radix:
    the uneven set where it fits, the balanced one otherwise)."""
    if route.kind != routes.RADIX:
        return route_steps(route)
    try:
        return exact_steps(route.n, route.capacity, uneven=True)
    except ValueError:
        return exact_steps(route.n, route.capacity)
