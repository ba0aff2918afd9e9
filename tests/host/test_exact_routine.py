"""Exact mode's instructions hold whatever order the device drew. The
device never says how many cards a load sent to each pile (that would tell
part of the order), so a step that stacks piles says which of them may have
no card, and a person who finds one missing stacks what there is. The split
of a 108-card canasta pack sends only 4 cards to part Q: a load of 54 keeps
none of them about one time in seventeen."""
from __future__ import annotations

from typing import Any

import pytest

from firmware import exact_routes
from firmware import protocol
from host.guide import routines
from host import device_messages
from shuffling import steps
from simulator.virtual.table_person import commands

pytestmark = [pytest.mark.exact_mode]


def split_routine(cards: int = 108) -> routines.GuidedExactRoutine:
    route = exact_routes.route(cards, 104, protocol.ROUTINE_SPLIT)
    begun = device_messages.object_record("routine", {
        "n": cards, "loads": 2, "uneven": False, "kind": protocol.ROUTINE_SPLIT, "rounds": route.rounds,
        "next": {"round": 1, "load": "A", "count": cards // 2}})
    return routines.GuidedExactRoutine(cards, 104, begun)


def first_round(routine: routines.GuidedExactRoutine) -> list[steps.Step]:
    """The first round's steps as the guide shows them, the device's passes giving no pile counts."""
    shown = routine.begin()
    for load in ("A", "B"):
        routine.record(routines.PassResult(load, 54, None, None, 1))
        shown += routine.after_pass()
    return [item for item in shown if isinstance(item, steps.STEP_TYPES)]


def table_after_round_one(a_right: int) -> dict[str, Any]:
    """What `show` gives once both loads' piles are out in rows: load A sent
    `a_right` of part Q's 4 cards right, load B the rest."""
    cards = iter(range(108))
    piles = {"A.left": 54 - a_right, "A.right": a_right, "B.left": 50 + a_right, "B.right": 4 - a_right}
    # The table shows no stack for a pile that had no card, as the virtual table does.
    return {"stacks": {name: [next(cards) for _ in range(n)] for name, n in piles.items() if n},
            "places": {"tray": [], "left": [], "right": [], "throat": [], "removed": []}}


def test_the_canasta_split_says_a_right_pile_may_have_no_card() -> None:
    stacks = [s for s in first_round(split_routine()) if isinstance(s, steps.Stack)]
    assert [(s.parts, s.result, s.cards, s.may_be_empty) for s in stacks] == [
        (("A.left", "B.left"), "P", 104, ()),
        (("A.right", "B.right"), "Q", 4, ("A.right", "B.right"))]  # its words: tests/shuffling/test_step_words_once.py


@pytest.mark.parametrize("a_right", [0, 1, 3, 4])
def test_a_person_stacks_what_there_is(a_right: int) -> None:
    """Carried out on the table as it lies, the stacks make P and Q whole,
    whichever load kept part Q's cards."""
    table = table_after_round_one(a_right)
    shown = [s for s in first_round(split_routine()) if isinstance(s, steps.Stack)]
    stacks = {name: list(cards) for name, cards in table["stacks"].items()}
    for step in shown:
        for command in commands(step, {"stacks": stacks, "places": table["places"]}):
            name, what, onto = command
            assert name == "stack" and what in stacks, (command, sorted(stacks))  # never a pile that is not there
            stacks[onto] = stacks.pop(what) + stacks.get(onto, [])
    assert sorted(stacks) == ["P", "Q"] and (len(stacks["P"]), len(stacks["Q"])) == (104, 4)
    # Q is A's right pile on top of B's right pile, whatever of them there was.
    assert stacks["Q"] == table["stacks"].get("A.right", []) + table["stacks"].get("B.right", [])
    # The same steps on the table the guide's own person model keeps.
    kept = {name: list(cards) for name, cards in table["stacks"].items()}
    for step in shown:
        steps.do_on_table(step, kept)
    assert kept == stacks


def test_a_missing_pile_the_step_does_not_allow_for_is_still_refused() -> None:
    """A person model that skipped any missing pile would hide a guide that
    lost one: only the piles the step names as possibly empty are left out."""
    table = table_after_round_one(2)
    del table["stacks"]["A.left"]
    p = [s for s in first_round(split_routine()) if isinstance(s, steps.Stack)][0]
    assert ("stack", "A.left", "B.left") in commands(p, table)
    with pytest.raises(steps.TableError):
        steps.do_on_table(p, {name: list(cards) for name, cards in table["stacks"].items()})


def test_samba_is_told_no_such_thing() -> None:
    """Samba's split sends 64 of 162 cards to Q: a load of 81 without one is
    too unlikely to mention (about 1e-29)."""
    routine = split_routine(162)
    shown = routine.begin()
    for load in ("A", "B"):
        routine.record(routines.PassResult(load, 81, None, None, 1))
        shown += routine.after_pass()
    stacks = [s for s in shown if isinstance(s, steps.Stack)]
    assert len(stacks) == 2 and all(s.may_be_empty == () for s in stacks)


def test_a_part_dealt_again_is_timed_as_the_firmware_times_it() -> None:
    """The notice of a part dealt again says the part's own time at the table,
    the firmware's model's (exact_routes.part_ms): Q's last round also holds
    the gather that ends the routine, which comes once either way and is no
    part of dealing Q again (it said 1 min 11 s for Samba's Q, 3 s too many)."""
    routine = split_routine(162)
    route = routine.route
    for part, size in enumerate(route.part_size):
        first = next(r + 1 for r in range(route.rounds) if route.kinds[r] == exact_routes.SORT_ROUND
                     and route.lo[r] == route.part_lo[part] and route.size[r] == size)
        assert routine.part_seconds(first) == pytest.approx(exact_routes.part_ms(size) / 1000)
