"""What a round of an exact routine deals and what waits aside
(shuffling/exact_mode/round_loads.py) is what the person's steps leave on
the table: walking the split's steps, the stacks lying on the table when a
round's first pass begins are the round's `aside`, the parts among them
already taken off the machine for good are its `done`, and the loads put in
the tray are its `dealt`."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from firmware import exact_routes
from shuffling import steps as step_kinds
from shuffling.exact_mode.physical import split_steps
from shuffling.exact_mode.round_loads import round_loads
from shuffling.packs import PACKS

pytestmark = pytest.mark.exact_mode


def check_against_the_table(route: exact_routes.Route) -> int:
    table: dict[str, bool] = {}  # a stack lying on the table -> it is a part already done
    in_tray: dict[int, list[str]] = {}
    checked = 0
    for es in split_steps(route):
        step = es.step
        if isinstance(step, step_kinds.Cut):
            table.pop(step.source, None)
        elif isinstance(step, step_kinds.Stack):
            table[step.result] = False
        elif isinstance(step, step_kinds.PutInTray):  # Reload too: the same load, straight back
            table.pop(step.load, None)
            in_tray.setdefault(es.round, []).append(step.load)
        elif isinstance(step, step_kinds.Lift) and step.stacked:
            table[step.load] = True  # its passes are over: aside for the end
        elif isinstance(step, step_kinds.Touch) and len(in_tray[es.round]) == 1:  # the round's first pass
            said = round_loads(route, es.round)
            assert set(said.aside) == set(table), (es.round, said, table)
            assert set(said.done) == {name for name, done in table.items() if done}, (es.round, said, table)
            assert said.dealt[0] == in_tray[es.round][0]
            checked += 1
    for rnd, loads in in_tray.items():
        assert list(round_loads(route, rnd).dealt) == loads
    return checked


@pytest.mark.parametrize("cards", sorted({p.cards for p in PACKS.values() if p.cards > 104}))
def test_every_preset_s_rounds_say_what_lies_on_the_table(cards: int) -> None:
    route = exact_routes.split_route(cards, 104)
    assert check_against_the_table(route) == route.rounds


@settings(deadline=None, max_examples=60)
@given(st.integers(3, 300), st.integers(2, 120))
def test_any_split_s_rounds_say_what_lies_on_the_table(cards: int, capacity: int) -> None:
    route = exact_routes.split_route(cards, capacity)
    if route is None or -(-cards // capacity) > 26:
        return
    assert check_against_the_table(route) == route.rounds


def test_samba_part_rounds_name_the_part_and_the_one_aside() -> None:
    route = exact_routes.split_route(162, 104)
    first = round_loads(route, 1)
    assert (first.dealt, first.aside) == (("A", "B"), ())
    p = round_loads(route, 2)
    assert (p.dealt, p.part_pass, p.part_passes, p.aside, p.done) == (("P",), 1, 7, ("Q",), ())
    q = round_loads(route, 14)
    assert (q.dealt, q.part_pass, q.part_passes, q.aside, q.done) == (("Q",), 6, 6, ("P",), ("P",))
    radix = exact_routes.radix_route(162, 104)
    assert round_loads(radix, 5).dealt == ("A", "B") and round_loads(radix, 5).aside == ()
    with pytest.raises(ValueError):
        round_loads(route, 15)


def test_canasta_s_pipelined_rounds_say_which_load_is_dealt_and_which_waits() -> None:
    """Load A dealt while load B waits; P alone seven times while Q waits;
    then Q alone twice, P's piles (its passes over) aside."""
    route = exact_routes.pipelined_route(108, 104)
    said = [round_loads(route, r) for r in range(1, route.rounds + 1)]
    assert [(s.dealt, s.aside, s.done, s.part_pass, s.part_passes) for s in said] == (
        [(("A",), ("B",), (), None, None)]
        + [(("P",), ("Q",), (), k, 7) for k in range(1, 8)]
        + [(("Q",), ("P",), ("P",), k, 2) for k in range(1, 3)])
