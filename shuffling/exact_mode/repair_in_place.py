"""Slips of the split that need no fresh routine, checked by enumerating every case of small packs.

The split (firmware/exact_routes.py) gives each card a code, its place in the
final pack, from a uniformly random arrangement, splits the pack into parts
by the codes' ranges and sorts each part alone. Four slips, each run card by
card over every arrangement of the codes (and, for (d), every fresh draw):

(a) a card dropped from a part's stack before its first pass and put back
    anywhere in it (the guide says: under the load). No repair: the part's
    positions still hold its codes in a uniformly random arrangement, drawn
    before the slip and never yet read, so the card now at a position is
    dealt by a code as random as the one it would have had.
(b) the left (or right) piles of a split round stacked in the wrong order of
    loads (B's on top of A's). The stacks' counts are those of the steps, so
    nothing shows it; the law says whether it matters.
(c) two parts of one size taken for one another at the first of them: no
    count shows it (docs/exact-mode.md), and the law says whether it matters.
(d) a card stacked into the wrong part at a split round (the next part's
    first count shows it): the stack that round split (its parent) is put
    together in any order and dealt again from that round with fresh codes
    over its positions as they lie. Which cards make up the parent was fixed
    before the slip; the fresh codes put them in a uniformly random order of
    their own, and the parts outside it are untouched.

`law` counts the final orders: uniform when each of the N! orders comes
equally often (repair.is_uniform).
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
from shuffling.exact_mode.repair import first_round

Card = int
Piles = list[tuple[list[Card], list[Card]]]


@dataclass(frozen=True)
class Case:
    """One slip at round `at`: `before` rearranges the round's stack as it goes
    in (by position, not seeing a code); `gather` makes the round's stack from
    each load's (left, right) piles instead of the steps' way; `redo`: the
    round is dealt again once, from fresh codes over its stack as it lies."""

    name: str
    at: int
    before: Callable[[list[Card]], list[Card]] | None = None
    gather: Callable[[Piles], list[Card]] | None = None
    redo: bool = False
    exchange: tuple[int, int, int] | None = None  # (lo, other lo, size): two stacks taken for one another


def _stacked(piles: Piles) -> list[Card]:
    return [c for left, _ in piles for c in left] + [c for _, right in piles for c in right]


def run_case(order: Sequence[Card], codes: Sequence[int], route: routes.Route, case: Case,
             fresh: Sequence[int] = ()) -> list[Card]:
    """The routine card by card (physical.run_route's model) with the slip;
    `fresh[i]`: for a redo, the code above the round's first of the card at
    position i of its stack as it lies."""
    pack, believed, scratch = list(order), list(codes), [0] * len(order)
    r, slipped = 0, False
    while r < route.rounds:
        kind, lo, size, param = route.kinds[r], route.lo[r], route.size[r], route.param[r]
        now = r == case.at and not slipped
        if now and case.before is not None:
            pack[lo:lo + size] = case.before(pack[lo:lo + size])
        if now and case.exchange is not None:
            a, b, m = case.exchange
            pack[a:a + m], pack[b:b + m] = pack[b:b + m], pack[a:a + m]
        piles: Piles = []
        start = lo
        for load_size in split_sizes(size, route.loads[r]):
            sides = [routes.round_side(believed[start + load_size - 1 - k] - lo, kind, param) for k in range(load_size)]
            piles.append(deal(pack[start:start + load_size], sides))
            start += load_size
        pack[lo:lo + size] = case.gather(piles) if now and case.gather is not None else _stacked(piles)
        routes.partition(believed, scratch, lo, size, kind, param)
        if now:
            slipped = True
            if case.redo:
                for i, c in enumerate(fresh):
                    believed[lo + i] = lo + c
                continue  # the same round again, from the fresh codes
        r += 1
    return pack


def law(route: routes.Route, case: Case) -> Counter[tuple[Card, ...]]:
    """How many (arrangement, fresh draw) pairs give each final order."""
    size = route.size[case.at]
    draws: list[tuple[int, ...]] = list(itertools.permutations(range(size))) if case.redo else [()]
    out: Counter[tuple[Card, ...]] = Counter()
    start = list(range(route.n))
    for arrangement in itertools.permutations(range(route.n)):
        for fresh in draws:
            out[tuple(run_case(start, arrangement, route, case, fresh))] += 1
    return out


def balanced_redo(route: routes.Route, case: Case) -> bool:
    """is_uniform(law(route, case)) for a redo, asked of the N! arrangements
    alone (repair.balanced_after_repair's argument): the fresh draw gives the
    parent's cards each of their s! orders once whatever order they lie in,
    so the pack is uniform exactly when every (order outside the parent, set
    of the parent's cards) comes from s! arrangements."""
    lo, size = route.lo[case.at], route.size[case.at]
    identity = list(range(size))
    seen: Counter[tuple[tuple[Card, ...], frozenset[Card]]] = Counter()
    start = list(range(route.n))
    for arrangement in itertools.permutations(range(route.n)):
        final = run_case(start, arrangement, route, case, identity)
        seen[(tuple(final[:lo] + final[lo + size:]), frozenset(final[lo:lo + size]))] += 1
    return len(seen) == math.factorial(route.n) // math.factorial(size) and set(seen.values()) == {math.factorial(size)}


# ----- the cases of a routine ---------------------------------------------------------------

def _move(a: int, b: int) -> Callable[[list[Card]], list[Card]]:
    def move(stack: list[Card]) -> list[Card]:
        rest = stack[:a] + stack[a + 1:]
        return rest[:b] + [stack[a]] + rest[b:]
    return move


def dropped(route: routes.Route, everywhere: bool = False) -> list[Case]:
    """(a) At every part's first pass, every card dropped and put back under
    the load (as the guide says), or (`everywhere`) at every place."""
    out = []
    for r in range(route.rounds):
        if route.kinds[r] != routes.SORT_ROUND or first_round(route, r) != r:
            continue
        size = route.size[r]
        for a in range(size):
            for b in range(size) if everywhere else [size - 1]:
                out.append(Case(f"round {r + 1}: card {a + 1} put back at {b + 1}", r, before=_move(a, b)))
    return out


def wrong_order(route: routes.Route) -> list[Case]:
    """(b) At every split round of two loads or more: the left piles, the right
    piles, or both stacked in the reverse order of the loads."""
    def gather(left_rev: bool, right_rev: bool) -> Callable[[Piles], list[Card]]:
        def g(piles: Piles) -> list[Card]:
            lefts = [p[0] for p in piles][::-1 if left_rev else 1]
            rights = [p[1] for p in piles][::-1 if right_rev else 1]
            return [c for x in lefts for c in x] + [c for x in rights for c in x]
        return g
    out = []
    for r in range(route.rounds):
        if route.kinds[r] == routes.SPLIT_ROUND and route.loads[r] > 1:
            for lr, rr, what in ((True, False, "left"), (False, True, "right"), (True, True, "both")):
                out.append(Case(f"round {r + 1}: {what} piles stacked in reverse", r, gather=gather(lr, rr)))
    return out


def parts_swapped(route: routes.Route) -> list[Case]:
    """(c) At a part's first pass, its stack and a later part's of the same
    size (neither dealt yet, both made by the split rounds before) taken for
    one another."""
    out = []
    for r in range(route.rounds):
        if route.kinds[r] != routes.SORT_ROUND or first_round(route, r) != r:
            continue
        lo, size = route.lo[r], route.size[r]
        for s in range(r + 1, route.rounds):
            other = route.lo[s]
            # The other part lies on the table as a stack of its own: no later split round still makes it.
            made = all(not (route.kinds[t] == routes.SPLIT_ROUND and route.lo[t] <= other < route.lo[t] + route.size[t])
                       for t in range(r + 1, s))
            if route.kinds[s] == routes.SORT_ROUND and first_round(route, s) == s and route.size[s] == size and made:
                out.append(Case(f"round {r + 1}: the part at {lo} and the part at {route.lo[s]} taken for one "
                                "another", r, exchange=(lo, route.lo[s], size)))
    return out


def wrong_set(route: routes.Route) -> list[Case]:
    """(d) At every split round: the top card of the left stack put on top of
    the right stack, or the top card of the right stack on top of the left
    one; the parent then dealt again from that round, fresh codes."""
    def move(to_right: bool) -> Callable[[Piles], list[Card]]:
        def g(piles: Piles) -> list[Card]:
            lefts = [c for left, _ in piles for c in left]
            rights = [c for _, right in piles for c in right]
            if to_right and lefts:
                return lefts[1:] + lefts[:1] + rights
            if not to_right and rights:
                return rights[:1] + lefts + rights[1:]
            return lefts + rights
        return g
    out = []
    for r in range(route.rounds):
        if route.kinds[r] == routes.SPLIT_ROUND:
            for to_right in (True, False):
                side = "left stack's top card onto the right" if to_right else "right stack's top card onto the left"
                out.append(Case(f"round {r + 1}: the {side}, its stack dealt again", r, gather=move(to_right),
                                redo=True))
    return out


# ----- (d) as the device and the guide do it ---------------------------------------------------

def parent_rounds(route: routes.Route, t: int) -> range:
    """The rounds (0-based) dealt again when split round t's stack is: t and
    every round after it inside its places (the split goes depth first)."""
    lo, size = route.lo[t], route.size[t]
    end = t + 1
    while end < route.rounds and lo <= route.lo[end] < lo + size:
        end += 1
    return range(t, end)


def parent_passes(route: routes.Route, t: int) -> int:
    """The passes of split round t's stack dealt again from that round."""
    return sum(route.loads[r] for r in parent_rounds(route, t))


def stacks_on_table(route: routes.Route, t: int, r: int) -> list[tuple[int, int]]:
    """(lo, size) of the stacks split round t's stack lies in before round r
    (0-based, inside it) begins: the stacks its split rounds before r made,
    top of the pack first (parts dealt already among them, kept aside)."""
    stacks = [(route.lo[t], route.size[t])]
    for k in range(t, r):
        if route.kinds[k] == routes.SPLIT_ROUND:
            lo, size, a = route.lo[k], route.size[k], route.param[k]
            at = stacks.index((lo, size))
            stacks[at:at + 1] = [(lo, a), (lo + a, size - a)]
    return stacks
