"""The split (firmware/exact_routes.py): exhaustive proofs for small packs,
the person's steps carried out as data, the modelled time, and which
routine the device takes."""
from __future__ import annotations

import math
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from firmware import exact_routes as routes
from shuffling import steps as step_kinds
from shuffling import time_model
from shuffling.exact_mode.codes import n_bits, n_loads, uniform_assignment
from shuffling.exact_mode.physical import deal, route_steps, run_route
from shuffling.exact_mode.uniformity import route_law, tv_from_uniform
from shuffling.packs import PACKS

SPLITS = [(n, cap) for n in range(3, 9) for cap in range(2, n) if routes.split_route(n, cap) is not None]


def test_every_small_pack_on_every_smaller_tray_has_a_split() -> None:
    assert len(SPLITS) == sum(n - 2 for n in range(3, 9))
    # two levels of splitting among them: 8 cards on a tray of 2 make four parts
    route = routes.split_route(8, 2)
    assert route is not None and list(route.part_size) == [2, 2, 2, 2]


@pytest.mark.parametrize("n, cap", SPLITS)
def test_every_order_comes_from_exactly_one_code_arrangement_in_the_split(n: int, cap: int) -> None:
    route = routes.split_route(n, cap)
    assert route is not None
    law = route_law(route)
    assert len(law) == math.factorial(n)
    assert set(law.values()) == {1}
    assert tv_from_uniform(law, n) == 0


@given(st.integers(2, 512), st.integers(2, 120), st.integers(0, 2**32))
@settings(max_examples=60, deadline=None)
def test_the_split_leaves_the_cards_in_the_order_of_their_codes(n: int, cap: int, seed: int) -> None:
    if n_loads(n, cap) > 26:  # the device's limit: loads A to Z
        return
    route = routes.split_route(n, cap)
    if route is None:
        assert n <= cap
        return
    arrangement = uniform_assignment(n, random.Random(seed).randbytes)
    final = run_route(list(range(n)), arrangement, route)
    assert [arrangement[c] for c in final] == list(range(n))
    # every part fits the tray and is dealt alone, one pass a bit of its size
    assert max(route.part_size) <= cap and sum(route.part_size) == n
    sorts = [r for r in range(route.rounds) if route.kinds[r] == routes.SORT_ROUND]
    assert len(sorts) == sum(n_bits(s) for s in route.part_size)
    assert all(route.loads[r] == 1 for r in sorts)


# --- the person's steps, carried out as data -------------------------------------------

def follow(route: routes.Route, arrangement: list[int], uneven: bool = False) -> list[int]:
    """Carry out the routine's step data on a table; cards are pack positions,
    each dealt by its own code. The table work is the steps' own
    (steps.do_on_table); the machine's part is done here: a load put in the
    tray must hold the count its step says and fit the tray, a touch deals it
    by the round's rule on the card's true code, its piles come off before
    the next load (to the rows when the round has two loads or more), a draw
    takes all of a stack exactly where it says so, no step lays a stack
    where one already lies, and a pile the pass left empty is missing from
    the table unless the step that stacks it leaves it out or allows for it."""
    n, cap = route.n, route.capacity
    code_of = dict(enumerate(arrangement))
    table: dict[str, list[int]] = {step_kinds.PACK: list(range(n))}
    tray: tuple[str, list[int]] | None = None
    machine: tuple[str, list[int], list[int]] | None = None  # the piles of the last pass, still on the machine
    for es in route_steps(route, uneven):
        r, step = es.round - 1, es.step
        if isinstance(step, step_kinds.Reload):  # the piles, left on right, straight back in
            assert tray is None and machine is not None and machine[0] == step.load
            load, machine = machine[1] + machine[2], None
            assert len(load) == step.cards <= cap
            tray = (step.load, load)
        elif isinstance(step, step_kinds.PutInTray):
            assert tray is None and machine is None, "a load goes in while the machine is not clear"
            load = table.pop(step.load)
            assert len(load) == step.cards <= cap
            tray = (step.load, load)
        elif isinstance(step, step_kinds.Touch):
            assert tray is not None and step.why == "start"
            name, load = tray
            kind, lo, param = route.kinds[r], route.lo[r], route.param[r]
            left, right = deal(load, [routes.round_side(code_of[c] - lo, kind, param) for c in reversed(load)])
            machine, tray = (name, left, right), None
        elif isinstance(step, step_kinds.Lift):
            assert machine is not None and machine[0] == step.load
            assert step.rows == (route.loads[r] > 1)
            if step.stacked:
                assert step.load not in table
                table[step.load] = machine[1] + machine[2]
            else:
                # A pile with no card is no stack on the table: the step that
                # stacks it must leave it out or say it may be empty.
                for name, cards in ((step_kinds.left_of(step.load), machine[1]),
                                    (step_kinds.right_of(step.load), machine[2])):
                    if cards:
                        table[name] = cards
            machine = None
        else:
            if isinstance(step, step_kinds.Stack) and step.cards is not None:
                assert sum(len(table.get(p, [])) for p in step.parts) == step.cards
            if isinstance(step, step_kinds.Draw):
                for _, parts in step.loads:
                    for stack, count, rest in parts:
                        assert rest == (count == len(table[stack])), step
            made = {step_kinds.Cut: lambda x: x.names, step_kinds.Stack: lambda x: (x.result,)}.get(type(step), lambda x: ())(step)
            assert not set(made) & (set(table) - set(getattr(step, "parts", ())) - {getattr(step, "source", "")}), \
                f"{step_kinds.words(step)} lays a stack where one lies"
            step_kinds.do_on_table(step, table)
    assert tray is None and machine is None
    assert set(table) == {step_kinds.PACK}
    return table[step_kinds.PACK]


@pytest.mark.parametrize("n, cap", [(162, 104), (108, 104), (270, 104), (324, 104), (378, 104), (432, 104),
                                    (105, 104), (208, 104), (7, 3), (8, 2), (60, 7), (512, 104)])
def test_following_the_split_steps_gives_the_simulated_order(n: int, cap: int) -> None:
    route = routes.split_route(n, cap)
    assert route is not None
    arrangement = uniform_assignment(n, random.Random(n * cap).randbytes)
    final = follow(route, arrangement)
    assert final == run_route(list(range(n)), arrangement, route)
    assert [arrangement[c] for c in final] == list(range(n))
    touches = [es for es in route_steps(route) if isinstance(es.step, step_kinds.Touch)]
    assert len(touches) == route.passes()


def test_between_a_parts_passes_the_person_does_one_step() -> None:
    route = routes.split_route(162, 104)
    assert route is not None
    steps = [es.step for es in route_steps(route)]
    for i, step in enumerate(steps):
        if isinstance(step, step_kinds.Touch) and i + 1 < len(steps) and isinstance(steps[i + 1], step_kinds.Reload):
            assert isinstance(steps[i + 2], step_kinds.Touch)
    assert sum(isinstance(x, step_kinds.Reload) for x in steps) == (7 - 1) + (6 - 1)


# --- passes and time -------------------------------------------------------------------

def test_samba_canasta_and_a_pack_that_fits() -> None:
    samba = routes.route(162, 104)
    assert (samba.kind, samba.passes(), list(samba.part_size)) == (routes.SPLIT, 15, [98, 64])
    assert routes.radix_route(162, 104).passes() == 16
    canasta = routes.route(108, 104, routes.SPLIT)
    assert (canasta.kind, canasta.passes(), list(canasta.part_size)) == (routes.SPLIT, 11, [104, 4])
    pipe = routes.route(108, 104)  # the device's choice: one pass fewer (test_exact_mode_pipelined.py)
    assert (pipe.kind, pipe.passes(), list(pipe.part_size)) == (routes.PIPELINED, 10, [104, 4])
    for n in (2, 52, 65, 104):
        fits = routes.route(n, 104)
        assert (fits.kind, fits.passes()) == (routes.RADIX, math.ceil(math.log2(n)))
    with pytest.raises(ValueError):
        routes.route(52, 104, routes.SPLIT)


def model_s(route: routes.Route) -> float:
    return time_model.timing(es.step for es in route_steps(route, uneven=False)).total_s


@pytest.mark.parametrize("n, cap", [(n, 104) for n in (52, 104, 105, 108, 162, 208, 250, 270, 300, 324, 378, 432, 512)]
                         + [(7, 3), (52, 30), (200, 81), (100, 8)])
def test_the_routines_time_is_the_time_model_of_their_steps(n: int, cap: int) -> None:
    assert routes.table_time.CARD_MS == time_model.card_ms()
    for route in (routes.radix_route(n, cap), routes.split_route(n, cap), routes.pipelined_route(n, cap)):
        if route is not None:
            assert route.ms / 1000 == pytest.approx(model_s(route), abs=1e-9)


@given(st.integers(2, 512), st.integers(2, 200))
@settings(max_examples=80, deadline=None)
def test_the_device_takes_the_routine_with_the_least_modelled_time(n: int, cap: int) -> None:
    if n_loads(n, cap) > 26:
        return
    chosen = routes.route(n, cap)
    others = [r for r in (routes.radix_route(n, cap), routes.split_route(n, cap), routes.pipelined_route(n, cap))
              if r is not None]
    assert model_s(chosen) == pytest.approx(min(model_s(r) for r in others))


def test_the_split_takes_the_best_parts_a_full_search_finds_for_the_presets() -> None:
    for cards in sorted({p.cards for p in PACKS.values()} - {52}):
        best, _ = routes.split_tree(cards, 104)
        full = [0] * (cards + 1)
        for m in range(1, cards + 1):
            full[m] = routes.part_ms(m) if m <= 104 else routes.split_ms(m, 104) + min(
                full[a] + full[m - a] for a in range(1, m))
        assert best[cards] == full[cards], cards


def test_the_counting_bound_on_passes_and_the_splits_distance_from_it() -> None:
    """P passes of at most C cards each have at most 2^(P C) outcomes: 10 passes
    at the least for Samba on a 104-card tray, 6 for canasta 108, 18 for
    hand-and-foot, 31 for Carolina; the split is 5, 5, 7 and 13 above."""
    from shuffling.exact_mode.quality import passes_lower_bound

    for cards, bound, split in ((162, 10, 15), (108, 6, 11), (270, 18, 25), (432, 31, 44)):
        assert passes_lower_bound(cards, 104) == bound
        assert 2 ** (bound * 104) >= math.factorial(cards) > 2 ** ((bound - 1) * 104)
        route = routes.split_route(cards, 104)
        assert route is not None and route.passes() == split
    assert passes_lower_bound(7, 5) == 3 and passes_lower_bound(52, 104) == 5
