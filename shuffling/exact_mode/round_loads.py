"""What a round of an exact routine deals, and what waits aside meanwhile.

In the split a round deals one stack of the pack: the whole pack, a stack
an earlier round made, or a part (a load dealt alone, pass after pass). The
rest of the pack lies aside on the table, as stacks still to be dealt and
parts already done. The pipelined routine deals the top load while the
cards beyond the tray wait, then its two parts alone, one after the other.
Whole-pack radix deals every card every round.
"""
from __future__ import annotations

from dataclasses import dataclass

from firmware import exact_routes as routes
from shuffling.exact_mode.codes import n_bits
from shuffling.exact_mode.physical import split_place


@dataclass(frozen=True)
class RoundLoads:
    """Round `round` (1-based): the loads it deals (place names, steps.place),
    the stack they are cut from, a part's pass number among its passes, and
    the stacks aside (`done`: the parts among them already dealt)."""

    round: int
    dealt: tuple[str, ...]
    source: str | None = None  # the stack the round's loads are cut from; None: the pack
    part_pass: int | None = None  # a part dealt alone: this is its pass part_pass of part_passes
    part_passes: int | None = None
    aside: tuple[str, ...] = ()
    done: tuple[str, ...] = ()


def round_loads(route: routes.Route, rnd: int) -> RoundLoads:
    """What round `rnd` (1-based) of `route` deals and what lies aside.
    ValueError for a round the route has not."""
    if not 1 <= rnd <= route.rounds:
        raise ValueError(f"round {rnd} is not in a routine of {route.rounds} rounds")
    r = rnd - 1
    dealt = tuple(route.name(r, j) for j in range(route.loads[r]))
    if route.kind == routes.PIPELINED:
        return _pipelined(route, rnd, dealt)
    if route.kind != routes.SPLIT:
        return RoundLoads(rnd, dealt)
    lo, size = route.lo[r], route.size[r]
    stacks = [(0, route.n)]
    for e in range(r):  # the split rounds before it cut their stack in two
        if route.kinds[e] == routes.SPLIT_ROUND:
            at = stacks.index((route.lo[e], route.size[e]))
            cut = route.param[e]
            stacks[at:at + 1] = [(route.lo[e], cut), (route.lo[e] + cut, route.size[e] - cut)]
    aside = [stack for stack in stacks if stack != (lo, size)]
    done = [stack for stack in aside if _finished(route, stack, r)]
    names = [split_place(route, a, b) for a, b in aside]
    done_names = tuple(split_place(route, a, b) for a, b in done)
    if route.kinds[r] == routes.SORT_ROUND:
        return RoundLoads(rnd, dealt, None, route.param[r] + 1, n_bits(size), tuple(names), done_names)
    source = split_place(route, lo, size)
    return RoundLoads(rnd, dealt, None if (lo, size) == (0, route.n) else source, aside=tuple(names),
                      done=done_names)


def _pipelined(route: routes.Route, rnd: int, dealt: tuple[str, ...]) -> RoundLoads:
    """The pipelined routine: load A dealt while load B (the cards beyond the
    tray) waits; then each part dealt alone, pass after pass, the other
    aside (part P's piles, once its passes are over, lie apart until the
    end: shuffling/exact_mode/physical.py, pipelined_steps)."""
    r = rnd - 1
    if route.kinds[r] == routes.SPLIT_ROUND:
        return RoundLoads(rnd, dealt, aside=(routes.load_name(1),))
    parts = [(route.part_lo[i], route.part_size[i]) for i in range(len(route.part_lo))]
    me = parts.index((route.lo[r], route.size[r]))
    others = [i for i in range(len(parts)) if i != me]
    return RoundLoads(rnd, dealt, None, route.param[r] + 1, n_bits(route.size[r]),
                      tuple(route.part_name(i) for i in others), tuple(route.part_name(i) for i in others if i < me))


def _finished(route: routes.Route, stack: tuple[int, int], r: int) -> bool:
    """Whether the stack is a part whose passes of its own are all dealt
    before round r (0-based); a part of one card has none, and waits."""
    own = [e for e in range(route.rounds)
           if route.kinds[e] == routes.SORT_ROUND and (route.lo[e], route.size[e]) == stack]
    return bool(own) and own[-1] < r
