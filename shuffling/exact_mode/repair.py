"""A part of the split dealt again: why every order of the pack is again
equally likely, checked by enumerating every case for small packs.

The split (firmware/exact_routes.py) gives each card a code, its place in
the final pack, from a uniformly random arrangement; its split rounds send
each card to the part its code's range names, and each part is then sorted
alone by its codes. When the order of one part X goes wrong at the table
(a card slips, a pass goes wrong, piles are gathered the wrong way) while
its cards stay its own, the device draws fresh codes for X's cards, a
uniformly random arrangement of X's codes over the positions of X's stack
as it lies, drawn independently of anything done at the table, and deals X
again from its first round (firmware/exact.py, `repair`).

The proof in three lines: which cards make up X is fixed by the split
round, before anything went wrong, and is a uniformly random set; the other
parts' orders come from their own codes, untouched; and the fresh codes put
X's cards, whatever order the slip left them in, in a uniformly random order
of their own, independent of both. A uniform set, then a uniform order of
it, independently of a uniform order of the rest, is a uniform order of the
whole pack.

`repaired_law` runs the routine card by card (physical.run_route's model)
with a slip at a chosen pass of a part, then the repair, over every
arrangement of the codes and every fresh draw, and counts the final orders.
"""
from __future__ import annotations

import itertools
import math
from collections import Counter
from dataclasses import dataclass
from typing import Callable, Sequence

from firmware import exact_routes as routes
from shuffling.exact_mode.codes import split_sizes
from shuffling.exact_mode.physical import deal

Card = int


@dataclass(frozen=True)
class Slip:
    """What goes wrong with part X's stack at one of its passes: `before`
    rearranges the stack put in the tray (by its positions, not seeing any
    code); `piles` makes the stack after the pass from its left and right
    piles (the rule is left on right); `sides` turns each card's side."""

    name: str
    before: Callable[[list[Card]], list[Card]] = lambda s: s
    piles: Callable[[list[Card], list[Card]], list[Card]] = lambda left, right: left + right
    sides: Callable[[list[int]], list[int]] = lambda sides: sides


SLIPS: tuple[Slip, ...] = (
    Slip("the top card slips to the bottom", before=lambda s: s[1:] + s[:1]),
    Slip("the bottom card slips to the top", before=lambda s: s[-1:] + s[:-1]),
    Slip("a middle card slips out and goes back on top", before=lambda s: [s[len(s) // 2]] + s[:len(s) // 2] + s[len(s) // 2 + 1:]),
    Slip("the two top cards change places", before=lambda s: s[1:2] + s[:1] + s[2:]),
    Slip("the piles are gathered right on left", piles=lambda left, right: right + left),
    Slip("the pass deals every card to the other side", sides=lambda sides: [1 - x for x in sides]),
)


def part_passes(route: routes.Route) -> list[tuple[int, int]]:
    """(round, part) of every pass the split deals a part alone (its rounds of one load)."""
    out = []
    for r in range(route.rounds):
        if route.kinds[r] == routes.SORT_ROUND and route.loads[r] == 1 and route.kind == routes.SPLIT:
            part = next(i for i, lo in enumerate(route.part_lo) if lo == route.lo[r])
            out.append((r, part))
    return out


def first_round(route: routes.Route, r: int) -> int:
    """The first round of the part dealt in round r (as firmware/exact.py's ExactRoutine.part_first_round)."""
    while r > 0 and route.kinds[r - 1] == routes.SORT_ROUND and route.lo[r - 1] == route.lo[r]:
        r -= 1
    return r


def run_repaired(order: Sequence[Card], codes: Sequence[int], route: routes.Route, at: int, slip: Slip,
                 fresh: Sequence[int] | None) -> list[Card]:
    """The routine card by card (as physical.run_route), with `slip` at round
    `at` (a part's pass), then (fresh given) that part dealt again from its
    first round with the fresh codes: `fresh[i]` the code, above the part's
    first, of the card at position i of its stack as it lies after the slip.
    fresh None: no repair (the slip goes unseen)."""
    n = len(order)
    pack = list(order)
    believed = list(codes)
    scratch = [0] * n
    r = 0
    slipped = False
    while r < route.rounds:
        kind, lo, size, param = route.kinds[r], route.lo[r], route.size[r], route.param[r]
        slip_now = r == at and not slipped
        if slip_now:
            pack[lo:lo + size] = slip.before(pack[lo:lo + size])
        lefts, rights = _round_piles(route, r, pack, believed, slip if slip_now else None)
        pack[lo:lo + size] = slip.piles(lefts, rights) if slip_now else lefts + rights
        routes.partition(believed, scratch, lo, size, kind, param)
        if slip_now:
            slipped = True
            if fresh is not None:
                # The repair: fresh codes over the stack as it lies, X dealt again from its first round.
                for i, c in enumerate(fresh):
                    believed[lo + i] = lo + c
                r = first_round(route, r)
                continue
        r += 1
    return pack


def _round_piles(route: routes.Route, r: int, pack: list[Card], believed: list[int],
                 slip: Slip | None) -> tuple[list[Card], list[Card]]:
    """Round r's loads dealt by the belief (the slip's sides, when it falls
    in this round): all its left piles and all its right piles, in load order."""
    kind, lo, size, param = route.kinds[r], route.lo[r], route.size[r], route.param[r]
    lefts: list[Card] = []
    rights: list[Card] = []
    start = lo
    for load_size in split_sizes(size, route.loads[r]):
        sides = [routes.round_side(believed[start + load_size - 1 - k] - lo, kind, param) for k in range(load_size)]
        if slip is not None:
            sides = slip.sides(sides)
        left, right = deal(pack[start:start + load_size], sides)
        lefts += left
        rights += right
        start += load_size
    return lefts, rights


def repaired_law(route: routes.Route, at: int, slip: Slip, repair: bool = True) -> Counter[tuple[Card, ...]]:
    """How many (code arrangement, fresh draw) pairs lead to each final
    order: every arrangement of the codes 0..N-1 (each 1/N!), and every
    arrangement of the repaired part's codes (each 1/s!). Uniform when every
    one of the N! orders comes N!·s!/N! = s! times."""
    size = route.size[at]
    draws: list[tuple[int, ...] | None] = list(itertools.permutations(range(size))) if repair else [None]
    law: Counter[tuple[Card, ...]] = Counter()
    start = list(range(route.n))
    for arrangement in itertools.permutations(range(route.n)):
        for fresh in draws:
            law[tuple(run_repaired(start, arrangement, route, at, slip, fresh))] += 1
    return law


def is_uniform(law: Counter[tuple[Card, ...]], n: int) -> bool:
    """Every one of the N! orders, each equally often."""
    return len(law) == math.factorial(n) and len(set(law.values())) == 1


def split_routes(smallest: int, largest: int) -> list[routes.Route]:
    """The split of every pack of `smallest` to `largest` cards on every tray
    that gives one (a tray smaller than the pack, at least 2 cards)."""
    out = []
    for n in range(smallest, largest + 1):
        for capacity in range(2, n):
            split = routes.split_route(n, capacity)
            if split is not None:
                out.append(split)
    return out


def balanced_after_repair(route: routes.Route, at: int, slip: Slip) -> bool:
    """The same question as is_uniform(repaired_law(...)), asked of the N!
    arrangements alone: the fresh draw gives the repaired part's cards each
    of their s! orders exactly once whatever order they lie in, so the pack
    is uniform exactly when every (order of the other positions, set of the
    part's cards) comes from s! arrangements, no more, no fewer."""
    lo, size = route.lo[at], route.size[at]
    identity = list(range(size))
    seen: Counter[tuple[tuple[Card, ...], frozenset[Card]]] = Counter()
    start = list(range(route.n))
    for arrangement in itertools.permutations(range(route.n)):
        final = run_repaired(start, arrangement, route, at, slip, identity)
        seen[(tuple(final[:lo] + final[lo + size:]), frozenset(final[lo:lo + size]))] += 1
    return len(seen) == math.factorial(route.n) // math.factorial(size) and set(seen.values()) == {math.factorial(size)}
