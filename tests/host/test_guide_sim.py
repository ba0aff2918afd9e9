"""The guide on the virtual shuffler with a scripted person: faults mid-pass,
miscut loads, a restart, another protocol version. After each run the
record of every card handled is checked against docs/mechanism.md: each
card dealt once per round, piles keep the load's order, the trade is the
pile trade, and the final pack is a permutation of the pack."""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path
import dataclasses
from typing import Any

import pytest

from firmware import protocol
from firmware import build
from host.guide import notices as notice_kinds
from host import guide
from host import person as persons
from shuffling import steps
from host import plan as planlib
from host import port_words
from host.port_records import OtherProtocol
from hosttest_support import TextVoice, check_record, restart, run_guided
from simulator.virtual import VirtualShuffler

pytestmark = pytest.mark.micropython
ROUNDS = 2


def samba_plan(rounds: int = ROUNDS) -> planlib.Plan:
    return planlib.make_plan(planlib.choose_pack("samba", None), 104, "good", rounds=rounds)


def run_guide(dev: VirtualShuffler, person_cls: type[persons.ScriptedPerson] = persons.ScriptedPerson,
              plan: planlib.Plan | None = None, **person_kw: Any) -> tuple[guide.Summary, TextVoice, persons.ScriptedPerson]:
    return run_guided(dev, plan or samba_plan(), person_cls, **person_kw)


# -- faults mid-pass -------------------------------------------------------------

class JamOnce(persons.ScriptedPerson):
    """Round 2, load A: card 30 sticks."""

    def do(self, step: steps.Step, number: int, round: int | None = None) -> None:
        if isinstance(step, steps.Touch) and round == 2 and self.in_tray == "A" and not getattr(self, "done_it", False):
            self.done_it = True
            self.world.inject("jam", 30, "", "")
        super().do(step, number, round)


@pytest.mark.jam
def test_a_jam_mid_pass_is_freed_and_the_pass_goes_on(virtual_shuffler: VirtualShuffler) -> None:
    summary, voice, person = run_guide(virtual_shuffler, JamOnce)
    jams = [n for n in voice.notices if isinstance(n, notice_kinds.PassPaused)]
    assert [(n.where.round, n.where.load, n.where.pass_number, n.dealt, n.of) for n in jams] == [(2, "A", 3, 30, 81)]
    assert steps.Fix("jam") in voice.steps_shown and steps.Touch("go_on") in voice.steps_shown
    assert summary.passes == 4 and summary.loads == [[81, 81], [81, 81]]
    assert summary.distance == planlib.distance_after(162, 104, ROUNDS)
    check_record(person.log, 162, ROUNDS, 2)
    assert virtual_shuffler.query()["counts"] == {"tray": 0, "left": 0, "right": 0, "fed": 81}


class FaultOnce(persons.ScriptedPerson):
    fault = ("empty_at", 20, "")

    def do(self, step: steps.Step, number: int, round: int | None = None) -> None:
        if isinstance(step, steps.Touch) and round == 1 and self.in_tray == "B" and not getattr(self, "done_it", False):
            self.done_it = True
            name, k, mode = self.fault
            self.world.inject(name, k, mode, "")
        super().do(step, number, round)


def test_cards_lifted_out_of_the_tray_are_put_back_and_dealt(virtual_shuffler: VirtualShuffler) -> None:
    summary, voice, person = run_guide(virtual_shuffler, FaultOnce)
    assert voice.told(notice_kinds.TrayEmptied, where=notice_kinds.Where(1, 2, "B", 2, 4), dealt=20, of=81)
    assert voice.showed(steps.Fix, what="put_back")
    assert summary.loads[0] == [81, 81]
    check_record(person.log, 162, ROUNDS, 2)


@pytest.mark.parametrize("mode", ["", "overlap"])
@pytest.mark.double_feed
def test_a_double_feed_is_cleared_and_the_rest_dealt(virtual_shuffler: VirtualShuffler, mode: str) -> None:
    class DoubleFeed(FaultOnce):
        fault = ("double_feed", 10, mode)

    summary, voice, person = run_guide(virtual_shuffler, DoubleFeed)
    if mode == "overlap":  # through as one: found at the pass's end, nothing caught
        assert [n.where for n in voice.told(notice_kinds.TwoAsOne) if (n.where.round, n.where.load) == (1, "B")]
        assert not voice.showed(steps.Fix, what="exit")
    else:
        assert [n.where for n in voice.told(notice_kinds.ExitBlocked) if (n.where.round, n.where.load) == (1, "B")]
    assert summary.loads[0] == [81, 81]
    assert not voice.told(notice_kinds.RoundCountOff) and not voice.told(notice_kinds.PassBeganOffSize)
    check_record(person.log, 162, ROUNDS, 2)


class LowBattery(persons.ScriptedPerson):
    def do(self, step: steps.Step, number: int, round: int | None = None) -> None:
        if isinstance(step, steps.Touch) and round == 1 and self.in_tray == "B" and not getattr(self, "done_it", False):
            self.done_it = True
            self.world.set_battery(6500)
        super().do(step, number, round)


@pytest.mark.battery
def test_a_refused_pass_for_a_low_battery_asks_for_a_new_one(virtual_shuffler: VirtualShuffler) -> None:
    summary, voice, person = run_guide(virtual_shuffler, LowBattery)
    assert any(isinstance(n, notice_kinds.BatteryTooLowToStart) for n in voice.notices)
    assert steps.Fix("battery_idle") in voice.steps_shown
    check_record(person.log, 162, ROUNDS, 2)


# -- loads that do not hold what the plan says ---------------------------------------

class MiscutPerson(persons.ScriptedPerson):
    """Cuts the first split at `first` cards instead of what it is told."""

    first = 110

    def do(self, step: steps.Step, number: int, round: int | None = None) -> None:
        if isinstance(step, steps.Cut) and step.first:
            step = dataclasses.replace(step, sizes=(self.first, 162 - self.first))
        super().do(step, number, round)


def test_an_over_full_load_is_evened_out_before_it_is_dealt(virtual_shuffler: VirtualShuffler) -> None:
    summary, voice, person = run_guide(virtual_shuffler, MiscutPerson)
    move = steps.Move(29, "A", "B", down=True)
    assert voice.told(notice_kinds.LoadToMove, load="A", want=81, n=110, about=True, capacity=104, move=move)
    assert move in voice.steps_shown
    assert summary.loads == [[81, 81], [81, 81]]
    check_record(person.log, 162, ROUNDS, 2)


@pytest.mark.parametrize("first, move", [
    (95, steps.Move(14, "A", "B", down=True)),  # from the bottom of load A to the top of load B
    (70, steps.Move(11, "A", "B", down=False)),  # from the top of load B to the bottom of load A
])
def test_a_load_that_fits_but_is_the_wrong_size_is_put_right_before_it_is_dealt(
        virtual_shuffler: VirtualShuffler, first: int, move: steps.Move) -> None:
    class Off(MiscutPerson):
        pass

    Off.first = first
    summary, voice, person = run_guide(virtual_shuffler, Off)
    assert voice.told(notice_kinds.LoadToMove, load="A", want=81, n=first, about=True, move=move)
    assert move in voice.steps_shown
    # Counted before the touch: nothing was dealt with the wrong count.
    assert summary.loads == [[81, 81], [81, 81]]
    loads = [e for e in person.log if e["op"] == "load"]
    assert [len(e["ids"]) for e in loads[:2]] == [first, 81]
    check_record(person.log, 162, ROUNDS, 2)


def test_a_load_within_the_tolerance_is_dealt_as_it_is(virtual_shuffler: VirtualShuffler) -> None:
    class Close(MiscutPerson):
        first = 81 + guide.load_tolerance(81)

    summary, voice, person = run_guide(virtual_shuffler, Close)
    assert not voice.told(notice_kinds.LoadToMove)
    assert not [e for e in person.log if e["op"] == "unload"]
    assert summary.loads[0] == [Close.first, 162 - Close.first]
    assert voice.told(notice_kinds.LoadKept, load="A", want=81, n=Close.first, next_load="B")
    check_record(person.log, 162, ROUNDS, 2)


# -- the device restarts in the middle of a pass -------------------------------------

class PullsThePlug(persons.ScriptedPerson):
    """At the jam in round 1, load B, the person resets the shuffler instead of
    freeing the card. The piles and the cards in the tray stay where they are
    (the virtual shuffler's table outlives a reset, as a real one does)."""

    def do(self, step: steps.Step, number: int, round: int | None = None) -> None:
        if isinstance(step, steps.Touch) and round == 1 and self.in_tray == "B" and not getattr(self, "armed", False):
            self.armed = True
            self.world.inject("jam", 40, "", "")
        if isinstance(step, steps.Fix) and step.what == "jam" and not getattr(self, "reset", False):
            self.reset = True
            restart(self.device, self)  # type: ignore[attr-defined]
            self.world.fix()
            return  # no answer: the guide hears the restart from the device
        super().do(step, number, round)


@pytest.mark.restart
def test_a_restart_mid_pass_keeps_the_place_and_deals_the_rest(virtual_shuffler: VirtualShuffler) -> None:
    summary, voice, person = run_guide(virtual_shuffler, PullsThePlug)
    assert voice.told(notice_kinds.Restarted, where=notice_kinds.Where(1, 2, "B", 2, 4), dealt=40, of=81)
    assert steps.Touch("rest", "B", 41) in voice.steps_shown
    assert summary.loads == [[81, 81], [81, 81]] and summary.passes == 4
    # The summary keeps the notice told: where it restarted and how far the pass had got.
    assert notice_kinds.Restarted(notice_kinds.Where(1, 2, "B", 2, 4), 40, 81) in summary.notes
    check_record(person.log, 162, ROUNDS, 2)


# -- another protocol version --------------------------------------------------------

def test_a_device_with_another_protocol_version_is_refused_in_one_line(tmp_path: Path) -> None:
    firmware = tmp_path / "firmware"
    shutil.copytree(build.FIRMWARE_DIR, firmware, ignore=shutil.ignore_patterns("__pycache__"))
    proto = firmware / "protocol.py"
    proto.write_text(proto.read_text().replace(f"PROTOCOL_VERSION = {protocol.PROTOCOL_VERSION}",
                                               f"PROTOCOL_VERSION = {protocol.PROTOCOL_VERSION + 1}"))
    dev = VirtualShuffler(time_scale=0.0, advertise=False)
    build.install_to_dir(build.build_image("sim", tmp_path / "image", firmware), dev.flash_dir)
    dev.start()
    port = dev.port
    try:
        out = subprocess.run([sys.executable, "-m", "host.cli", "guide", "--port", port, "--pack", "samba"],
                             capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    finally:
        dev.stop()
    assert out.returncode != 0
    assert "Traceback" not in out.stderr
    said = OtherProtocol(port, protocol.PROTOCOL_VERSION + 1, protocol.PROTOCOL_VERSION)  # the port's record
    assert out.stderr == f"shuffler: {port_words.words(said)}\n", out.stderr


# -- other pack sizes --------------------------------------------------------------

@pytest.mark.parametrize("pack,loads", [("carolina", 5), ("bridge", 1)])
def test_other_packs_follow_the_pile_trade(virtual_shuffler: VirtualShuffler, pack: str, loads: int) -> None:
    plan = planlib.make_plan(planlib.choose_pack(pack, None), 104, "good", rounds=2)
    assert len(plan.loads) == loads
    summary, voice, person = run_guide(virtual_shuffler, plan=plan)
    assert summary.loads == [list(plan.loads)] * 2
    check_record(person.log, plan.cards, 2, loads)


class StackSensorOut(persons.ScriptedPerson):
    def do(self, step: steps.Step, number: int, round: int | None = None) -> None:
        if isinstance(step, steps.Touch) and round == 2 and self.in_tray == "B" and not getattr(self, "done_it", False):
            self.done_it = True
            self.world.inject("sensor_missing", 0, "", "stack")
        super().do(step, number, round)


@pytest.mark.sensor_loss
def test_a_missing_sensor_is_checked_cleared_and_the_pass_started_again(virtual_shuffler: VirtualShuffler) -> None:
    summary, voice, person = run_guide(virtual_shuffler, StackSensorOut)
    assert voice.told(notice_kinds.SensorLost, part=protocol.PART_STACK)
    assert voice.showed(steps.Fix, what="count_sensor")
    assert summary.loads == [[81, 81], [81, 81]]
    check_record(person.log, 162, ROUNDS, 2)


def test_an_over_full_last_load_is_dealt_in_two_parts_onto_the_same_piles(virtual_shuffler: VirtualShuffler) -> None:
    class Short(MiscutPerson):
        """Cuts 52 and 110 and will not move cards between the loads."""

        first = 52

        def do(self, step: steps.Step, number: int, round: int | None = None) -> None:
            if isinstance(step, steps.Move) and self.log[-1]["op"] == "unload":
                self.said.append(persons.Said(number))  # says it is done, and is not
                return
            super().do(step, number, round)

    summary, voice, person = run_guide(virtual_shuffler, Short)
    assert voice.told(notice_kinds.LoadToMove, load="A", want=81, n=52)  # asked to move 29, and not done
    assert voice.told(notice_kinds.LoadKept, load="A", want=81, n=52, next_load="B")  # load B then holds 29 more
    assert voice.told(notice_kinds.TooFullForTray, load="B", n=110, capacity=104)
    assert voice.showed(steps.SetAside, cards=6)
    assert summary.loads == [[52, 110], [81, 81]]
    check_record(person.log, 162, ROUNDS, 2)
