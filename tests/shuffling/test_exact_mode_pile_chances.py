"""Which of exact mode's piles may have no card, worked out from the public
code set alone (the device never sends a pile's count), against every
arrangement of the codes of small packs: the chance a step's pile is empty
is the fraction of arrangements that leave it empty, exactly; a pile no
arrangement fills is left out of the step, and one that some leave empty
is named as possibly empty."""
from __future__ import annotations

import itertools
from array import array
from fractions import Fraction
from math import comb

import pytest

from firmware import exact_routes
from shuffling import steps
from shuffling.exact_mode.codes import code_set, loads_for_round, n_bits, split_sizes
from shuffling.exact_mode.physical import (
    EMPTY_PILE_CHANCE,
    _feed_sides,
    _stable_partition,
    chance_none,
    exact_steps,
    radix_pile_chances,
    split_steps,
)

pytestmark = [pytest.mark.exact_mode]


@pytest.mark.parametrize("total, on_side, load", [(8, 2, 4), (108, 4, 54), (10, 0, 3), (10, 10, 1), (7, 3, 5),
                                                  (5, 1, 5)])
def test_chance_none_is_the_hypergeometric_zero(total: int, on_side: int, load: int) -> None:
    exact = Fraction(comb(total - on_side, load), comb(total, load))
    assert chance_none(total, on_side, load) == pytest.approx(float(exact), rel=1e-12, abs=0)


def test_the_canasta_split_and_samba_figures() -> None:
    """The figures the guide's words rest on (docs/exact-mode.md)."""
    assert chance_none(108, 4, 54) == pytest.approx(0.0590, abs=5e-5)
    assert chance_none(162, 64, 81) == pytest.approx(1.25e-29, rel=1e-2) and 1e-29 < EMPTY_PILE_CHANCE


def stack_steps(all_steps: list) -> dict[tuple[int, str], steps.Stack]:
    """Each round's stack of left piles and of right piles."""
    out = {}
    for es in all_steps:
        if isinstance(es.step, steps.Stack) and es.step.result:
            side = "left" if any(steps.left_of(x[0]) == p for p in es.step.parts + es.step.may_be_empty
                                 for x in "ABCDEFGH") else "right"
            out[(es.round, side)] = es.step
    return out


def check_step(step: steps.Stack, names: list[str], empty: list[Fraction], side: str) -> None:
    pile = steps.left_of if side == "left" else steps.right_of
    assert step.parts == tuple(pile(x) for x, f in zip(names, empty) if f < 1)
    assert step.may_be_empty == tuple(pile(x) for x, f in zip(names, empty) if EMPTY_PILE_CHANCE <= f < 1)


@pytest.mark.parametrize("n, capacity", [(7, 4), (7, 3), (6, 4)])
def test_radix_pile_chances_are_the_fraction_of_arrangements(n: int, capacity: int) -> None:
    codes = code_set(n, capacity, False)
    ordered = sorted(codes)
    rounds = n_bits(n)
    sizes = [loads_for_round(n, capacity, ordered, r) for r in range(rounds)]
    empty = {(r, j, s): 0 for r in range(rounds) for j in range(len(sizes[r])) for s in (0, 1)}
    arrangements = 0
    for order in itertools.permutations(codes):
        arrangements += 1
        believed = list(order)
        for r in range(rounds):
            start = 0
            for j, size in enumerate(sizes[r]):
                sides = _feed_sides(believed, start, size, r)
                for s in (0, 1):
                    empty[(r, j, s)] += s not in sides
                start += size
            believed = _stable_partition(believed, r)
    made = stack_steps(exact_steps(n, capacity))
    seen_some = False
    for r in range(rounds):
        names = [chr(ord("A") + j) for j in range(len(sizes[r]))]
        for s, side in ((0, "left"), (1, "right")):
            fractions = [Fraction(empty[(r, j, s)], arrangements) for j in range(len(names))]
            assert radix_pile_chances(ordered, r, sizes[r], s) == pytest.approx([float(f) for f in fractions],
                                                                                 abs=1e-12)
            check_step(made[(r + 1, side)], names, fractions, side)
            seen_some |= any(0 < f < 1 for f in fractions) or any(f == 1 for f in fractions)
    assert seen_some  # the packs are small enough that some pile can be empty


@pytest.mark.parametrize("n, capacity", [(7, 3), (7, 4), (8, 3)])
def test_split_pile_chances_are_the_fraction_of_arrangements(n: int, capacity: int) -> None:
    route = exact_routes.route(n, capacity, exact_routes.SPLIT)
    splits = [r for r in range(route.rounds) if route.kinds[r] == exact_routes.SPLIT_ROUND]
    sizes = {r: split_sizes(route.size[r], route.loads[r]) for r in splits}
    empty = {(r, j, s): 0 for r in splits for j in range(route.loads[r]) for s in (0, 1)}
    arrangements = 0
    for order in itertools.permutations(range(n)):
        arrangements += 1
        believed = array("H", order)
        scratch = array("H", order)
        for r in range(route.rounds):
            kind, lo, size, param = route.kinds[r], route.lo[r], route.size[r], route.param[r]
            if r in sizes:
                start = lo
                for j, load in enumerate(sizes[r]):
                    sides = [exact_routes.round_side(believed[p] - lo, kind, param) for p in range(start, start + load)]
                    for s in (0, 1):
                        empty[(r, j, s)] += s not in sides
                    start += load
            exact_routes.partition(believed, scratch, lo, size, kind, param)
    made = stack_steps(split_steps(route))
    for r in splits:
        names = [route.name(r, j) for j in range(route.loads[r])]
        for s, side in ((0, "left"), (1, "right")):
            fractions = [Fraction(empty[(r, j, s)], arrangements) for j in range(len(names))]
            on_side = route.param[r] if s == 0 else route.size[r] - route.param[r]
            assert [chance_none(route.size[r], on_side, x) for x in sizes[r]] == pytest.approx(
                [float(f) for f in fractions], abs=1e-12)
            check_step(made[(r + 1, side)], names, fractions, side)
