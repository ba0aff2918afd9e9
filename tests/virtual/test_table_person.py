"""The table person carries out the guide's steps on the virtual shuffler's
real table exactly as `shuffling.steps.do_on_table` defines them, and the
machine steps (tray, touch, lift, set aside, put right) move the right cards."""
from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from firmware import build
from host import card_table_records, card_table_words
from shuffling import steps
from simulator.virtual import VirtualShuffler
from simulator.virtual.table_person import TablePerson, commands, from_dict
from simulator.virtual.world_client import WorldError

pytestmark = pytest.mark.micropython


@pytest.fixture(scope="module")
def virtual_shuffler(tmp_path_factory: pytest.TempPathFactory) -> Iterator[VirtualShuffler]:
    flash = tmp_path_factory.mktemp("flash")
    build.install_to_dir(build.build_image("sim", tmp_path_factory.mktemp("image")), flash)
    dev = VirtualShuffler(flash, time_scale=0, advertise=False)
    dev.start()
    yield dev
    dev.stop()


@pytest.fixture
def person(virtual_shuffler: VirtualShuffler) -> Iterator[TablePerson]:
    """A bare table and a machine just switched on (no fault left from another test)."""
    with virtual_shuffler.world(timeout=10) as w:
        w.clear_table()
    virtual_shuffler.unplug()
    with virtual_shuffler.world(timeout=10) as w:
        yield TablePerson(w)


def table_steps(names: list[str]) -> st.SearchStrategy[steps.Step]:
    """Table-only steps over the loads `names` that exist (each with cards)."""
    two = st.permutations(names).map(lambda p: (p[0], p[1]))
    return st.one_of(
        st.tuples(two, st.integers(1, 5), st.booleans()).map(
            lambda a: steps.Move(cards=a[1], upper=a[0][0], lower=a[0][1], down=a[2])),
        st.tuples(two, st.integers(0, 12)).map(
            lambda a: steps.EvenOut(upper=a[0][0], lower=a[0][1], sizes=(a[1], 0))),
        two.map(lambda p: steps.Stack(parts=p, result=p[1])),
    )


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_table_steps_do_what_the_step_vocabulary_says(person: TablePerson, data: st.DataObject) -> None:
    person.world.clear_table()
    person.world.new(24, "pack")
    model: dict[str, list[Any]] = {"pack": list(range(24))}
    cut = steps.Cut(source="pack", names=("A", "B", "C"), sizes=(8, 9, 7), first=True)
    person.do(cut)
    steps.do_on_table(cut, model)
    assert person.stacks() == model
    for _ in range(data.draw(st.integers(1, 6))):
        names = sorted(model)
        if len(names) < 2:
            break
        step = data.draw(table_steps(names))
        if isinstance(step, steps.Move):
            have = len(model[step.upper] if step.down else model[step.lower])
            step = steps.Move(cards=min(step.cards, have), upper=step.upper, lower=step.lower, down=step.down)
            if step.cards == 0:
                continue
        if isinstance(step, steps.EvenOut):
            total = len(model[step.upper]) + len(model[step.lower])
            step = steps.EvenOut(step.upper, step.lower, (min(step.sizes[0], total), total - min(step.sizes[0], total)))
        person.do(step)
        steps.do_on_table(step, model)
        model = {k: v for k, v in model.items() if v}  # an emptied place is no stack
        assert person.stacks() == model
    draw = steps.Draw(loads=(("X", ((sorted(model)[0], 1, False),)),), next_round=2)
    person.do(draw)
    steps.do_on_table(draw, model)
    gather = steps.Gather(parts=tuple(sorted(model)))
    person.do(gather)
    steps.do_on_table(gather, model)
    assert person.stacks() == model
    assert person.world.show()["check"]["ok"]


def dealt(person: TablePerson) -> dict[str, Any]:
    deadline = time.monotonic() + 20
    while True:
        q = person.world.query()
        if q["counts"]["tray"] == 0 and q["motor"]["dir"] == 0:
            return q
        assert time.monotonic() < deadline
        time.sleep(0.02)


def test_a_load_goes_through_the_machine_and_is_lifted_as_its_two_piles(person: TablePerson) -> None:
    person.world.new(20, "pack")
    person.do(steps.Cut(source="pack", names=("A", "B"), sizes=(12, 8), first=True))
    person.do(steps.PutInTray(load="A", cards=12))
    assert person.world.show()["places"]["tray"] == list(range(12))
    person.do(steps.Touch())
    dealt(person)
    person.do(steps.Lift(load="A"))
    s = person.stacks()
    assert sorted(s["A.left"] + s["A.right"]) == list(range(12)) and "A" not in s
    person.do(steps.Stack(parts=("A.left", "A.right", "B"), result=steps.PACK))
    assert len(person.stacks()[steps.PACK]) == 20 and person.world.show()["check"]["ok"]


def test_set_aside_unload_and_putting_right_move_the_right_cards(person: TablePerson) -> None:
    w = person.world
    w.new(10, "A")
    person.do(steps.PutInTray(load="A", cards=10))
    person.do(steps.SetAside(load="A", cards=3))
    assert person.stacks()[steps.ASIDE] == [0, 1, 2] and w.show()["places"]["tray"] == list(range(3, 10))
    person.do(steps.Unload(load="A"))
    assert person.stacks()["A"] == list(range(3, 10))
    person.do(steps.PutInTray(load=steps.ASIDE, cards=3))
    person.do(steps.PutInTray(load="A", cards=7))
    w.inject("empty_at", 2)
    person.do(steps.Touch())
    dealt(person)
    assert len(w.show()["places"]["removed"]) == 8
    person.do(steps.Fix(what="put_back", cards=8))
    assert w.show()["places"]["tray"] == list(range(3, 10)) + [0]  # back in order, on top of nothing
    w.inject("battery_low", 0)
    person.do(steps.Fix(what="battery"))
    assert w.query()["mv"] == 9000
    assert w.show()["check"]["ok"]


@pytest.mark.exit_sensor
def test_cards_caught_in_the_exit_go_back_under_the_tray_in_order(person: TablePerson) -> None:
    w = person.world
    w.new(10, "A")
    person.do(steps.PutInTray(load="A", cards=10))
    w.inject("double_feed", 2)  # cards 7 and 6 (fed third and fourth) stick in the exit together
    person.do(steps.Touch())
    deadline = time.monotonic() + 20
    while (q := w.query())["motor"]["dir"] != 0 or q["counts"]["fed"] < 4:
        assert time.monotonic() < deadline
        time.sleep(0.02)
    assert w.show()["places"]["throat"] == [6, 7]  # top first: 7 went in first and lies lowest
    person.do(steps.Fix(what="exit"))
    places = w.show()["places"]
    assert places["throat"] == [] and places["tray"] == list(range(8))
    assert w.query()["faults"]["double_at"] == -1 and w.show()["check"]["ok"]


def test_steps_come_back_from_their_json() -> None:
    for step in (steps.Cut("pack", ("A", "B"), (3, 4), by_eye=True), steps.Move(3, "A", "B", True, (1, 2)),
                 steps.Draw((("A", (("left stack", 3, False), ("right stack", 2, True))),), 2), steps.Touch("rest", "A", 4)):
        data = steps.to_dict(step)
        assert from_dict(data) == step


def test_the_commands_typed_at_the_command_line_do_the_same(person: TablePerson, virtual_shuffler: VirtualShuffler,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    from host.cli import main

    w = person.world
    w.new(30, "pack")
    model: dict[str, Any] = {"pack": list(range(30))}
    for step in (steps.Cut("pack", ("A", "B", "C"), (10, 12, 8), first=True), steps.Move(3, "A", "B", True),
                 steps.Move(2, "B", "C", False), steps.Stack(("C", "A"), steps.LEFT_STACK),
                 steps.Draw((("D", (("B", 4, False), (steps.LEFT_STACK, 5, False))),), 2),
                 steps.Gather(("D", "B", steps.LEFT_STACK))):
        for command in commands(step, w.show()):
            assert main(["table", "--control", virtual_shuffler.control_address, *command]) == 0, command
        steps.do_on_table(step, model)
        assert person.stacks() == {k: v for k, v in model.items() if v}
    # The last command said what it did: the whole pack gathered.
    gathered = card_table_records.StackHolds(steps.PACK, 30)
    assert card_table_words.words(gathered) in capsys.readouterr().out.splitlines()


@pytest.mark.parametrize("keep", [True, False])
@pytest.mark.restart
def test_cards_stay_across_a_reset_only_when_kept(tmp_path: Path, keep: bool) -> None:
    flash = tmp_path / "flash"
    build.install_to_dir(build.build_image("sim", tmp_path / "image"), flash)
    with VirtualShuffler(flash, time_scale=0, advertise=False, keep_cards=keep) as dev:
        with dev.world(timeout=10) as w:
            w.new(8)
            w.put("pack", 3)
        dev.unplug()
        deadline = time.monotonic() + 20
        while True:
            try:
                with dev.world(timeout=10) as w:
                    shown = w.show()
                break
            except (OSError, WorldError):  # the old endpoint, on its way out
                assert time.monotonic() < deadline
                time.sleep(0.05)
    if keep:
        assert shown["stacks"] == {"pack": [3, 4, 5, 6, 7]} and shown["places"]["tray"] == [0, 1, 2]
    else:
        assert shown["stacks"] == {} and shown["places"]["tray"] == [] and shown["check"]["made"] == 0
