"""Slips of the split mended in place, each proved by enumerating every
arrangement of the codes of small packs (shuffling/exact_mode/repair_in_place.py;
docs/exact-mode.md, *Mended in place*; 4 to 7 cards in
benchmarks/exact_mode_repair_in_place.py)."""
from __future__ import annotations

import pytest

from firmware import exact_routes as routes
from shuffling.exact_mode import repair_in_place as rip
from shuffling.exact_mode.repair import first_round, is_uniform, split_routes

pytestmark = [pytest.mark.exact_mode]

SPLITS = split_routes(4, 6)


def _uniform(route: routes.Route, case: rip.Case) -> bool:
    return rip.balanced_redo(route, case) if case.redo else is_uniform(rip.law(route, case), route.n)


@pytest.mark.parametrize("route", SPLITS, ids=lambda r: f"{r.n}-on-{r.capacity}")
def test_a_card_dropped_before_a_parts_first_pass_and_put_back_anywhere_costs_nothing(route: routes.Route) -> None:
    cases = rip.dropped(route, everywhere=True)
    assert cases and all(is_uniform(rip.law(route, case), route.n) for case in cases)


def test_the_same_drop_at_a_parts_later_pass_is_not_harmless() -> None:
    """The enumeration can fail: the move of (a) at a part's second pass, unrepaired."""
    route = routes.split_route(5, 3)
    assert route is not None
    later = [r for r in range(route.rounds) if route.kinds[r] == routes.SORT_ROUND and first_round(route, r) != r]
    size = route.size[later[0]]
    case = rip.Case("second pass: the top card to the bottom", later[0], before=rip._move(0, size - 1))
    assert not is_uniform(rip.law(route, case), route.n)


@pytest.mark.parametrize("route", SPLITS, ids=lambda r: f"{r.n}-on-{r.capacity}")
def test_a_split_rounds_piles_stacked_in_the_wrong_order_of_loads_cost_nothing(route: routes.Route) -> None:
    for case in rip.wrong_order(route):
        assert is_uniform(rip.law(route, case), route.n), case.name


def test_two_parts_of_one_size_taken_for_one_another_cost_nothing() -> None:
    cases = [(route, case) for route in SPLITS for case in rip.parts_swapped(route)]
    assert len(cases) >= 3
    for route, case in cases:
        assert is_uniform(rip.law(route, case), route.n), (route.n, route.capacity, case.name)


@pytest.mark.parametrize("route", SPLITS, ids=lambda r: f"{r.n}-on-{r.capacity}")
def test_a_card_in_the_wrong_part_is_mended_by_dealing_its_parent_again(route: routes.Route) -> None:
    cases = rip.wrong_set(route)
    assert cases
    for case in cases:
        assert rip.balanced_redo(route, case), case.name


def test_the_shortcut_for_a_redo_agrees_with_the_whole_law() -> None:
    """balanced_redo against the law over every fresh draw too, where both are quick,
    and a wrong set left unmended is not uniform (the check can fail)."""
    route = routes.split_route(5, 2)
    assert route is not None
    unmended = []
    for case in rip.wrong_set(route):
        if route.size[case.at] <= 3:  # the sub-stack: its fresh draws are few
            assert rip.balanced_redo(route, case) == is_uniform(rip.law(route, case), route.n) is True
        unmended.append(is_uniform(rip.law(route, rip.Case(case.name, case.at, gather=case.gather)), route.n))
    assert not all(unmended)


def _children_first_rounds(route: routes.Route, t: int) -> list[int]:
    """The first round of each of split round t's two stacks (a stack of
    one card has none: it needs no pass)."""
    lo, size, a = route.lo[t], route.size[t], route.param[t]
    out = []
    for child in ((lo, a), (lo + a, size - a)):
        out += [r for r in range(t + 1, route.rounds) if (route.lo[r], route.size[r]) == child][:1]
    return out


@pytest.mark.parametrize("route", split_routes(4, 12), ids=lambda r: f"{r.n}-on-{r.capacity}")
def test_the_stack_dealt_again_is_the_one_the_proof_deals_again(route: routes.Route) -> None:
    """The device (exact_routes.parent_round) deals again from the split
    round the proof's (d) redoes: the one that made the stack in hand, at
    the first round of either of its stacks; the rounds it deals again are
    that stack's, and the stacks it lies in are that round's two."""
    splits = [t for t in range(route.rounds) if route.kinds[t] == routes.SPLIT_ROUND]
    assert routes.parent_round(route, 0) == -1
    for t in splits:
        for r in _children_first_rounds(route, t):
            assert routes.parent_round(route, r) == t
        rounds = rip.parent_rounds(route, t)
        assert all(route.lo[t] <= route.lo[r] < route.lo[t] + route.size[t] for r in rounds)
        assert rounds.stop == route.rounds or not route.lo[t] <= route.lo[rounds.stop] < route.lo[t] + route.size[t]
        a = route.param[t]
        assert rip.stacks_on_table(route, t, t + 1) == [(route.lo[t], a), (route.lo[t] + a, route.size[t] - a)]


@pytest.mark.parametrize("cards, stacks, fresh", [(270, {166: 15}, 25), (432, {120: 13, 208: 16, 224: 23}, 44)],
                         ids=["hand and foot", "Carolina"])
def test_dealing_a_stack_again_costs_the_passes_the_docs_give(cards: int, stacks: dict[int, int], fresh: int) -> None:
    """docs/exact-mode.md, *Mended in place* (d), on a 104-card tray."""
    route = routes.route(cards, 104)
    got = {route.size[t]: rip.parent_passes(route, t) for t in range(route.rounds)
           if route.kinds[t] == routes.SPLIT_ROUND and route.size[t] < cards}
    assert (got, route.passes()) == (stacks, fresh)
