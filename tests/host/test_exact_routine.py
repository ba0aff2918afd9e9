"""Exact mode's instructions follow what the passes did: the split's piles
are as big as the random order the device drew makes them, and one of them
may be empty. The person is never told to move a pile that is not there."""
from __future__ import annotations

import pytest

from firmware import protocol
from host.guide import routines
from host.guide import views
from shuffling import steps

pytestmark = [pytest.mark.exact_mode]


def split_routine(cards: int = 108) -> routines.ExactRoutine:
    begun = views.ExactBegun(cards, 2, False, 10, views.Next(1, "A", cards // 2), routine=protocol.ROUTINE_SPLIT)
    return routines.ExactRoutine(cards, 104, begun)


def steps_of(items: list[routines.Item]) -> list[steps.Step]:
    return [item for item in items if isinstance(item, steps.STEP_TYPES)]


def first_round(routine: routines.ExactRoutine, counts: dict[str, tuple[int, int]]) -> list[steps.Step]:
    """The first round's steps, each load's pass giving its (left, right)."""
    shown = steps_of(routine.begin())
    for load in ("A", "B"):
        left, right = counts[load]
        routine.record(routines.PassResult(load, left + right, left, right, 1))
        shown += steps_of(routine.after_pass())
    return shown


def test_a_pile_the_pass_left_empty_is_not_put_anywhere() -> None:
    shown = first_round(split_routine(), {"A": (54, 0), "B": (50, 4)})
    lifts = [s for s in shown if isinstance(s, steps.Lift)]
    assert [(s.load, s.left, s.right) for s in lifts] == [("A", 54, 0), ("B", 50, 4)]
    stacks = [s for s in shown if isinstance(s, steps.Stack)]
    assert [(s.parts, s.result, s.cards, s.empty) for s in stacks] == [
        (("A.left", "B.left"), "P", 104, ()), (("B.right",), "Q", 4, ("A.right",))]
    words = steps.words(stacks[1])
    assert words == "B's right pile is the new load Q (4 cards); A's right pile is empty.", words
    assert steps.asks_action(stacks[1])  # it is not yet called Q: the person picks it up as Q
    # What the table holds after the round: the steps carried out on it work.
    table = {"A.left": list(range(54)), "A.right": [], "B.left": list(range(54, 104)), "B.right": [104, 105, 106, 107]}
    table = {name: cards for name, cards in table.items() if cards}
    for step in stacks:
        steps.do_on_table(step, table)
    assert sorted(table) == ["P", "Q"] and len(table["Q"]) == 4


def test_when_every_pile_has_cards_the_steps_are_the_plan() -> None:
    shown = first_round(split_routine(), {"A": (52, 2), "B": (52, 2)})
    stacks = [s for s in shown if isinstance(s, steps.Stack)]
    assert [(s.parts, s.empty) for s in stacks] == [(("A.left", "B.left"), ()), (("A.right", "B.right"), ())]
    assert steps.words(stacks[1]) == "Put A's right pile on top of B's right pile: that is the new load Q (4 cards)."
