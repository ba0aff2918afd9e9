"""What an onlooker learns of the order by counting an exact routine's piles.

The device never sends a pile's count, but the piles lie on the table, and
anyone may count them. A count is a function of the codes, so it can tell
something of the order; this module says how much, in bits, for a routine
of firmware/exact_routes.py with the codes the device takes for it
(codes.route_code_set), and the loads as its steps cut them.

Round by round (docs/exact-mode.md, *What an onlooker learns*): before a
round, the cards of the round's stack lie in blocks of codes that share
their history (the sides of every earlier round); a block's positions are
fixed by the routine, and its codes lie in them in a uniformly random order,
whatever was seen before: what was seen is a function of the histories, and
the order within a block is independent of them. The round's loads cut the
stack at fixed places, so the number of a block's left cards that fall in
each load is multivariate hypergeometric (the block's size, its left codes,
the sizes of its slices). A block inside one load has a fixed count and
tells nothing. Blocks are independent, and each round's counts independent
of the earlier rounds', and the counts of a round give back every block's
slice counts (load by load, from the top), so the entropy of everything
counted is the sum, over rounds and blocks, of these laws' entropies.

Given what was counted, every order that gives those counts is equally
likely: the order is a one-to-one function of the code arrangement, which
is uniform, so the onlooker's knowledge is exactly the entropy of the counts
(`bits`), and log2(N!) - bits is what remains, on average, in an order that
is still uniform over every order the counts allow.

* the split: each split round cuts a stack whose codes lie in random order
  into loads, and each load's left count is hypergeometric (Samba: load A's
  81 cards, 98 of the 162 codes left: 3.69 bits); a part's passes are one
  load each, with fixed counts;
* whole-pack radix: its first round cuts the pack itself into loads (a
  pack bigger than the tray), so its counts are hypergeometric just the
  same (Samba: 3.72 bits); with two loads every later load is a whole stack,
  with fixed counts; with three or more a load cut from two stacks can split
  a block again. A pack that fits the tray (one load) tells nothing.

Pure functions; tests/shuffling/test_exact_mode_onlooker.py checks every
figure against the counts of every arrangement of small packs, dealt card by
card.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from firmware import exact_routes as routes

from .codes import loads_for_round, route_code_set, split_sizes
from . import pipelined

__all__ = ["OnlookerRound", "Onlooker", "onlooker", "onlooker_bits", "round_loads", "hypergeometric",
           "counts_entropy"]


@dataclass(frozen=True)
class OnlookerRound:
    """One round whose pile counts depend on the order: its loads, as the steps cut
    them, and the entropy of its counts in bits."""

    round: int  # 1-based, as the steps number it
    loads: tuple[int, ...]
    bits: float


@dataclass(frozen=True)
class Onlooker:
    """What counting every pile of a routine tells of the order."""

    routine: str  # routes.KINDS
    cards: int
    bits: float  # the entropy of every count together: what the counts tell, on average
    order_bits: float  # log2(N!): what a uniform order holds
    rounds: tuple[OnlookerRound, ...]  # the rounds whose counts tell anything, in order

    @property
    def left_bits(self) -> float:
        """What the order still holds, on average, for someone who counted everything."""
        return self.order_bits - self.bits

    @property
    def fixed(self) -> bool:
        """Every count is fixed by the routine: counting tells nothing."""
        return not self.rounds

    def to_dict(self) -> dict[str, object]:
        return {"bits": self.bits, "order_bits": self.order_bits, "fixed": self.fixed,
                "rounds": [{"round": r.round, "loads": list(r.loads), "bits": r.bits} for r in self.rounds]}


def hypergeometric(total: int, marked: int, drawn: int) -> list[tuple[int, float]]:
    """(k, P(k)): k of `drawn` cards taken at random from `total` are among its `marked`."""
    whole = math.comb(total, drawn)
    low, high = max(0, drawn - (total - marked)), min(drawn, marked)
    return [(k, math.comb(marked, k) * math.comb(total - marked, drawn - k) / whole) for k in range(low, high + 1)]


def _entropy(law: list[tuple[int, float]]) -> float:
    return -sum(p * math.log2(p) for _, p in law if p > 0)


def counts_entropy(size: int, left: int, slices: list[int]) -> float:
    """Entropy, in bits, of how a block's `left` cards (of `size`, in random order)
    fall into consecutive slices of the given sizes: the slices' counts together.

    By the chain rule, slice by slice: given the counts of the slices above, the
    next slice's count is hypergeometric in what is left, and depends only on how
    many left cards the slices above took (itself hypergeometric); the last
    slice's count is what remains.
    """
    if sum(slices) != size or not 0 <= left <= size:
        raise ValueError("the slices must share out the block, and its left cards be within it")
    bits = 0.0
    taken = 0
    for t in slices[:-1]:
        for s, p in hypergeometric(size, left, taken):
            bits += p * _entropy(hypergeometric(size - taken, left - s, t))
        taken += t
    return bits


def round_loads(route: routes.Route, codes: list[int], r: int) -> list[int]:
    """The loads of round r (0-based) as the steps cut them: a split round's stack
    in near-equal loads, a part's pass one load, whole-pack radix's round as
    codes.loads_for_round plans it (two loads: the stacks themselves)."""
    if route.kind == routes.RADIX:
        return loads_for_round(route.n, route.capacity, codes, r)
    return split_sizes(route.size[r], route.loads[r])


def onlooker(route: routes.Route) -> Onlooker:
    """What counting the piles of `route` tells, with the codes the device takes
    for it, round by round (see the module docstring)."""
    n = route.n
    if route.kind == routes.PIPELINED:  # its piles follow Q's run alone (pipelined.py)
        found = [OnlookerRound(r, (route.size[r - 1],), bits) for r, bits in pipelined.onlooker_rounds(route)]
        return Onlooker(route.kind, n, sum(x.bits for x in found), math.lgamma(n + 1) / math.log(2), tuple(found))
    codes = route_code_set(route)
    blocks: list[list[int]] = [list(codes)]  # top of the pack first; each block's codes share their history
    found = []
    for r in range(route.rounds):
        kind, lo, size, param = route.kinds[r], route.lo[r], route.size[r], route.param[r]
        cuts = [lo]
        for load in round_loads(route, codes, r):
            cuts.append(cuts[-1] + load)
        before, inside, after = _blocks_around(blocks, lo, size)
        bits = 0.0
        for at, block in inside:
            bits += _block_bits(at, block, cuts, lo, kind, param)
        lefts = [[c for c in b if routes.round_side(c - lo, kind, param) == 0] for _, b in inside]
        rights = [[c for c in b if routes.round_side(c - lo, kind, param) == 1] for _, b in inside]
        blocks = before + [b for b in lefts + rights if b] + after
        if bits > 0:
            found.append(OnlookerRound(r + 1, tuple(cuts[i + 1] - cuts[i] for i in range(len(cuts) - 1)), bits))
    return Onlooker(route.kind, n, sum(x.bits for x in found), math.lgamma(n + 1) / math.log(2), tuple(found))


def _blocks_around(blocks: list[list[int]], lo: int, size: int,
                   ) -> tuple[list[list[int]], list[tuple[int, list[int]]], list[list[int]]]:
    """The blocks above the round's stack [lo, lo + size), those inside it
    (with the place each starts at) and those below it."""
    before: list[list[int]] = []
    inside: list[tuple[int, list[int]]] = []
    after: list[list[int]] = []
    at = 0
    for block in blocks:
        end = at + len(block)
        if end <= lo:
            before.append(block)
        elif at >= lo + size:
            after.append(block)
        elif at < lo or end > lo + size:
            raise AssertionError("a block straddles the round's stack")  # a route never does this
        else:
            inside.append((at, block))
        at = end
    return before, inside, after


def _block_bits(at: int, block: list[int], cuts: list[int], lo: int, kind: int, param: int) -> float:
    """What counting the piles tells of one block starting at `at`: the
    entropy of how its left cards fall into the loads it is cut across
    (nothing when one load takes it whole)."""
    end = at + len(block)
    slices = [min(end, b) - max(at, a) for a, b in zip(cuts, cuts[1:]) if min(end, b) > max(at, a)]
    if len(slices) <= 1:
        return 0.0
    left = [c for c in block if routes.round_side(c - lo, kind, param) == 0]
    return counts_entropy(len(block), len(left), slices)


def onlooker_bits(route: routes.Route) -> float:
    """The entropy, in bits, of every pile count of `route` together: what an
    onlooker who counts every pile learns of the order, on average."""
    return onlooker(route).bits
