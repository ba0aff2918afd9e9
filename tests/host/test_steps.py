"""The step vocabulary (shuffling/steps.py): every step has words and plain
data, and the table work keeps every card once and the pack's order where
it promises to."""
from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given
from hypothesis import strategies as st

from shuffling import steps

EXAMPLES = [
    steps.Cut(steps.PACK, ("A", "B"), (81, 81), by_eye=True, counted=True, first=True),
    steps.PutInTray("A", 81), steps.PutInTray("A", None, rest=True), steps.PutInTray(steps.ASIDE, 6), steps.Reload("P", 98),
    steps.Touch(), steps.Touch("rest", "B", 41), steps.Lift("A", 40, 41), steps.Lift("A", rows=True), steps.Lift("P", stacked=True),
    steps.Stack(("A.left", "B.left"), "A", 80), steps.Move(1, "A", "B", down=False, sizes=(81, 81)),
    steps.EvenOut("A", "B", (81, 81)), steps.Draw((("A", ((steps.LEFT_STACK, 79, True),)), ("B", ((steps.RIGHT_STACK, 83, True),))), 3),
    steps.Gather(("A", "B")), steps.Swap("A", "B"), steps.Unload("A"), steps.SetAside("B", 6), steps.Fix("missing", 11, "B"),
    steps.Collect(162),
    steps.RoundSummary("stack-trade", (81, 81), trade=40), steps.RoundSummary("exact", (81, 81), rounds=8),
]


def test_every_step_type_has_words_and_data() -> None:
    assert {type(x) for x in EXAMPLES} == set(steps.STEP_TYPES)
    for step in EXAMPLES:
        data = steps.to_dict(step)
        assert data["kind"] in steps.kind_names() and data["words"] == steps.words(step)
        assert data["words"][0].isupper() and data["words"].endswith(".")
        assert set(steps.field_names(type(step))) <= set(data)


@given(st.integers(1, 60), st.integers(0, 60), st.integers(0, 60), st.booleans())
def test_a_move_keeps_the_pack_s_order_and_every_card(upper: int, lower: int, n: int, down: bool) -> None:
    table = {"A": list(range(upper)), "B": list(range(upper, upper + lower))}
    step = steps.Move(n, "A", "B", down=down)
    if n > (upper if down else lower):
        try:
            steps.do_on_table(step, table)
        except steps.TableError:
            # Refused: the table as it was, no card gone with the loads it took up.
            assert table == {"A": list(range(upper)), "B": list(range(upper, upper + lower))}
            return
        raise AssertionError("moved more cards than there were")
    steps.do_on_table(step, table)
    assert table["A"] + table["B"] == list(range(upper + lower))
    assert len(table["A"]) == upper + (-n if down else n)


@given(st.lists(st.integers(0, 40), min_size=1, max_size=5))
def test_a_cut_then_a_stack_gives_the_pack_back(sizes: list[int]) -> None:
    names = tuple(chr(65 + i) for i in range(len(sizes)))
    pack = list(range(sum(sizes)))
    table = {steps.PACK: list(pack)}
    steps.do_on_table(steps.Cut(steps.PACK, names, tuple(sizes)), table)
    assert [len(table[n]) for n in names] == sizes
    steps.do_on_table(steps.Stack(names, steps.PACK), table)
    assert table == {steps.PACK: pack}


def test_a_cut_that_does_not_add_up_leaves_the_table_as_it_was() -> None:
    table = {steps.PACK: list(range(10))}
    with pytest.raises(steps.TableError) as refused:
        steps.do_on_table(steps.Cut(steps.PACK, ("A", "B"), (3, 3)), table)
    assert refused.value.record == steps.CutDoesNotAddUp(steps.PACK, 6, 10)
    assert table == {steps.PACK: list(range(10))}


def test_steps_are_frozen_data() -> None:
    step = steps.Touch("rest", "A", 3)
    assert dataclasses.replace(step, cards=4) == steps.Touch("rest", "A", 4)
