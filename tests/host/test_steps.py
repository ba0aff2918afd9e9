"""The step vocabulary (shuffling/steps.py): every step has words and plain
data, and the table work keeps every card once and the pack's order where
it promises to."""
from __future__ import annotations

import dataclasses

from hypothesis import given
from hypothesis import strategies as st

from shuffling import steps as S

EXAMPLES = [
    S.Cut(S.PACK, ("A", "B"), (81, 81), by_eye=True, counted=True, first=True),
    S.PutInTray("A", 81), S.PutInTray("A", None, rest=True), S.PutInTray(S.ASIDE, 6), S.Reload("P", 98),
    S.Touch(), S.Touch("rest", "B", 41), S.Lift("A", 40, 41), S.Lift("A", rows=True), S.Lift("P", stacked=True),
    S.Stack(("A.left", "B.left"), "A", 80), S.Move(1, "A", "B", down=False, sizes=(81, 81)),
    S.EvenOut("A", "B", (81, 81)), S.Draw((("A", ((S.LEFT_STACK, 79, True),)), ("B", ((S.RIGHT_STACK, 83, True),))), 3),
    S.Gather(("A", "B")), S.Swap("A", "B"), S.Unload("A"), S.SetAside("B", 6), S.Fix("missing", 11, "B"),
    S.Collect(162),
    S.RoundSummary("stack-trade", (81, 81), trade=40), S.RoundSummary("exact", (81, 81), rounds=8),
]


def test_every_step_type_has_words_and_data() -> None:
    assert {type(x) for x in EXAMPLES} == set(S.STEP_TYPES)
    for step in EXAMPLES:
        data = S.to_dict(step)
        assert data["kind"] in S.kind_names() and data["words"] == S.words(step)
        assert data["words"][0].isupper() and data["words"].endswith(".")
        assert set(S.field_names(type(step))) <= set(data)


def test_the_wording_says_the_counts_it_is_given() -> None:
    assert S.words(S.Move(1, "A", "B", down=True, sizes=(81, 81))) == \
        "Move 1 card from the bottom of load A to the top of load B: A 81, B 81."
    assert S.words(S.Stack(("A.left", "B.left"), "A", 82)) == \
        "Put A's left pile on top of B's left pile: that is the new load A (82 cards)."
    assert "(" not in S.words(S.Lift("A"))  # no counts given, none said


@given(st.integers(1, 60), st.integers(0, 60), st.integers(0, 60), st.booleans())
def test_a_move_keeps_the_pack_s_order_and_every_card(upper: int, lower: int, n: int, down: bool) -> None:
    table = {"A": list(range(upper)), "B": list(range(upper, upper + lower))}
    step = S.Move(n, "A", "B", down=down)
    if n > (upper if down else lower):
        try:
            S.do_on_table(step, table)
        except S.TableError:
            return
        raise AssertionError("moved more cards than there were")
    S.do_on_table(step, table)
    assert table["A"] + table["B"] == list(range(upper + lower))
    assert len(table["A"]) == upper + (-n if down else n)


@given(st.lists(st.integers(0, 40), min_size=1, max_size=5))
def test_a_cut_then_a_stack_gives_the_pack_back(sizes: list[int]) -> None:
    names = tuple(chr(65 + i) for i in range(len(sizes)))
    pack = list(range(sum(sizes)))
    table = {S.PACK: list(pack)}
    S.do_on_table(S.Cut(S.PACK, names, tuple(sizes)), table)
    assert [len(table[n]) for n in names] == sizes
    S.do_on_table(S.Stack(names, S.PACK), table)
    assert table == {S.PACK: pack}


def test_a_cut_that_does_not_add_up_leaves_the_table_as_it_was() -> None:
    table = {S.PACK: list(range(10))}
    try:
        S.do_on_table(S.Cut(S.PACK, ("A", "B"), (3, 3)), table)
    except S.TableError as exc:
        assert "add up to 6" in str(exc)
    assert table == {S.PACK: list(range(10))}


def test_steps_are_frozen_data() -> None:
    step = S.Touch("rest", "A", 3)
    assert dataclasses.replace(step, cards=4) == S.Touch("rest", "A", 4)
