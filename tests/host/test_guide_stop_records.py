"""A stop the person, the pack or the shuffler causes carries its reason
as a record (host/guide/stop_reasons.py), never as words alone: a pack
counted out of what this tool plans for, a tray counting more than the
whole pack, a step the table does not allow, a request the shuffler
refused or did not answer. Each is provoked as the outside world would,
and judged by the record the stop carries and the steps file's "stop"
line (and --json) writes; its words are asserted once, in
tests/host/test_notice_words.py."""
from __future__ import annotations

import json
from typing import Any

import pytest

from firmware import protocol
from guide_in_memory import IN_MEMORY, MemoryDevice, Quiet, Record
from host import device_messages
from host import person as persons
from host import plan as planlib
from host.commands.guide import Resume
from host.device_link import DeviceError, LinkTimeout
from host.guide import stop_reasons as why
from host.guide.handlers import Answer, Tick
from host.guide.machine import Machine
from host.guide.options import GuideOptions
from host.guide.results import GuideStopped
from host.port_records import NoAnswer
from hosttest_support import ON_FAKE, FakeShuffler, run_on_fake
from shuffling import steps as step_kinds
from suite import Clock


def stop_line_reason(stop: GuideStopped, options: GuideOptions) -> Any:
    """The reason as the steps file's "stop" line (and --json) writes it."""
    from host.step_feed import stop_line

    line = json.loads(stop_line(Resume(options).of(stop, None), str(stop)))
    assert line["record"] == "stop" and line["words"] == str(stop)
    return line["reason"]


def samba(rounds: int | None = 1) -> planlib.Plan:
    return planlib.make_plan(planlib.choose_pack("samba", None), 104, "good", rounds=rounds)


# -- the pack and the tray --------------------------------------------------------------------

class LosesAllButOne(persons.ScriptedPerson):
    """Puts one card of the load in the tray; the others are gone and not found."""

    def do(self, step: step_kinds.Step, number: int, round: int | None = None) -> None:
        if isinstance(step, step_kinds.PutInTray) and not getattr(self, "lost", False):
            self.lost = True
            self.table[step.load] = self.table[step.load][:1]
        super().do(step, number, round)


def test_a_pack_counted_down_to_one_card_stops_with_its_count_not_a_plan_for_it() -> None:
    fake = FakeShuffler()
    plan = planlib.make_plan(planlib.choose_pack(None, 3), 104, "good", rounds=1)
    result, voice, person = run_on_fake(fake, plan, person=LosesAllButOne(fake, 3))
    assert isinstance(result, GuideStopped), voice.text
    assert person.steps.count(step_kinds.PutInTray("A", 3)) >= 1 and voice.showed(step_kinds.Fix, what="missing")
    assert result.reason == why.PackOutOfRange(1, 2, 1000), result
    assert stop_line_reason(result, ON_FAKE) == {"kind": "PackOutOfRange", "held": 1, "least": 2, "most": 1000}


def test_a_tray_counting_more_than_the_whole_pack_stops_with_both_counts() -> None:
    fake = FakeShuffler()
    fake.tray = [f"stray {i}" for i in range(170)]  # the sensor sees 170 before a card of the pack is in
    result, voice, _ = run_on_fake(fake, samba())
    assert isinstance(result, GuideStopped), voice.text
    assert result.reason == why.TrayOverPack(fake.dev.port, 170, 162), result
    assert stop_line_reason(result, ON_FAKE) == {"kind": "TrayOverPack", "name": fake.dev.port, "counted": 170,
                                                 "pack": 162}


# -- the person -------------------------------------------------------------------------------

class LosesLoadB(persons.ScriptedPerson):
    """Cuts the pack, then load B is nowhere on the table (taken away)."""

    def do(self, step: step_kinds.Step, number: int, round: int | None = None) -> None:
        super().do(step, number, round)
        if isinstance(step, step_kinds.Cut):
            self.table.pop("B", None)


def test_a_step_the_table_does_not_allow_stops_with_what_the_table_lacks() -> None:
    fake = FakeShuffler()
    result, voice, person = run_on_fake(fake, samba(), person=LosesLoadB(fake, 162))
    assert isinstance(result, GuideStopped), voice.text
    assert isinstance(result.reason, why.CannotDoStep), result
    trouble = result.reason.trouble
    assert trouble == step_kinds.NotOnTable("B", tuple(person.table)) and "B" not in person.table
    data = stop_line_reason(result, ON_FAKE)
    assert data["kind"] == "CannotDoStep" and data["trouble"]["kind"] == "NotOnTable", data
    assert data["trouble"]["name"] == "B" and "B" not in data["trouble"]["on_table"], data


# -- requests the shuffler does not do --------------------------------------------------------

class Refusing(MemoryDevice):
    """Holds an exact routine left over and refuses to cancel it (a paused pass,
    as the firmware refuses); refuses to deal a part again; answers no status
    once `silent`."""

    def __init__(self) -> None:
        super().__init__()
        self.silent = False

    def exact_cancel(self) -> None:
        raise DeviceError(protocol.error_reply(protocol.CMD_EXACT, 4, protocol.E_STATE, why=protocol.WHY_PAUSED))

    def exact_repair(self, parent: bool = False) -> Any:
        why_not = protocol.WHY_NO_PARENT if parent else protocol.WHY_NO_PART
        raise DeviceError(protocol.error_reply(protocol.CMD_EXACT, 5, protocol.E_STATE, why=why_not))

    def status(self, timeout: float | None = None) -> Any:
        if self.silent:
            raise LinkTimeout(NoAnswer(self.name, protocol.CMD_STATUS, 2.0))
        return super().status(timeout)


def test_a_random_run_on_a_shuffler_that_will_not_leave_its_exact_routine_stops_with_its_refusal() -> None:
    device = Refusing()
    device.mode = protocol.MODE_EXACT  # a routine left over from a run stopped part way
    m = Machine(samba(2), Quiet(), Record(), device, IN_MEMORY, clock=Clock())
    with pytest.raises(GuideStopped) as stopped:
        m.begin()
    reason = stopped.value.reason
    assert isinstance(reason, why.NotDone) and reason.what == why.LEAVE_ROUTINE, reason
    assert reason.cause == why.Refused(protocol.error_reply(protocol.CMD_EXACT, 4, protocol.E_STATE,
                                                            why=protocol.WHY_PAUSED))
    data = stop_line_reason(stopped.value, IN_MEMORY)
    assert (data["kind"], data["what"], data["load"]) == ("NotDone", why.LEAVE_ROUTINE, None), data
    assert data["cause"] == {"kind": "Refused", "reply": {"re": protocol.CMD_EXACT, "ok": False, "err": protocol.E_STATE,
                                                          "id": 4, "why": protocol.WHY_PAUSED}}, data


def exact_machine(device: MemoryDevice, clock: Clock) -> Machine:
    """An exact routine on the in-memory device, load A cut and in the tray."""
    m = Machine(samba(2), Quiet(), Record(), device, IN_MEMORY.vary(mode="exact"), clock=clock)
    m.begin()
    assert m.shown is not None
    m.handle(Answer(m.shown.number))  # the cut
    m.handle(device_messages.make_event(protocol.EV_LOADED, n=81))
    return m


def test_a_shuffler_silent_after_a_pass_stops_with_the_request_it_did_not_answer() -> None:
    device, clock = Refusing(), Clock()
    m = exact_machine(device, clock)
    m.handle(device_messages.make_event(protocol.EV_DONE, k=81, n=81, left=40, right=41))
    device.silent = True  # its exact events do not follow, nor does it answer where its routine stands
    clock.now += 10
    with pytest.raises(GuideStopped) as stopped:
        m.handle(Tick())
    assert stopped.value.reason == why.NotDone(why.ANSWER_AFTER_PASS, NoAnswer(device.name, protocol.CMD_STATUS, 2.0))
    data = stop_line_reason(stopped.value, IN_MEMORY.vary(mode="exact"))
    assert data["what"] == why.ANSWER_AFTER_PASS and data["cause"] == {
        "kind": "NoAnswer", "name": device.name, "request": protocol.CMD_STATUS, "seconds": 2.0}, data


@pytest.mark.parametrize("parent, what, why_not", [(False, why.DEAL_LOAD_AGAIN, protocol.WHY_NO_PART),
                                                   (True, why.DEAL_STACK_AGAIN, protocol.WHY_NO_PARENT)])
def test_a_part_the_shuffler_refuses_to_deal_again_stops_with_the_load_and_its_refusal(
        parent: bool, what: str, why_not: int) -> None:
    m = exact_machine(Refusing(), Clock())
    with pytest.raises(GuideStopped) as stopped:
        if parent:
            m.request_parent_repair(81, 80, 1)
        else:
            m.request_repair(81, 80, [])
    refusal = protocol.error_reply(protocol.CMD_EXACT, 5, protocol.E_STATE, why=why_not)
    assert stopped.value.reason == why.NotDone(what, why.Refused(refusal), "A"), stopped.value
    data = stop_line_reason(stopped.value, IN_MEMORY.vary(mode="exact"))
    assert (data["what"], data["load"], data["cause"]["reply"]["why"]) == (what, "A", why_not), data
