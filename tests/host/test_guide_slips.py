"""The ordinary slips of a person at the table and the ways a device breaks
the protocol, each met by the guide's state machine as a fact, never as a
crash: loading and touching while a table step is still on screen, quick
extra Enters, an Enter before the cards are in, a walk away of half an
hour, a device that keeps answering while it deals nothing, a reply with a
field missing, the firmware's own output on the line; and the words: a
stop after a pass says so, a load off its size is said once, the bar fills
to what the pass really deals, each sensor lost mid-pass is named, a
simulated shuffler's time is labelled, and a whole exact routine asks for
Enter only for what the shuffler cannot see."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from firmware import protocol
from host import guide as guide_machine
from host import person as persons
from host import plan as planlib
from host import device_messages
from host.guide import notices as notice_kinds
from host.guide import stop_reasons
from host.port_records import ProtocolBroken
from host.guide.machine import Machine
from host.guide.handlers import Answer, AwaitingTouch, Handling, Loading, Paused, Tick
from firmware import exact_routes
from route_record import check_route_record
from hosttest_support import ON_VIRTUAL, FakeShuffler, TextVoice, check_record, every_card_once_a_round, run_guided, run_on_fake
from shuffling import steps as step_kinds
from guide_in_memory import IN_MEMORY, MemoryDevice, Quiet, Record
from suite import Clock

REPO = Path(__file__).resolve().parents[2]


def plan(rounds: int = 2) -> planlib.Plan:
    return planlib.make_plan(planlib.choose_pack("samba", None), 104, "good", rounds=rounds)


# -- the person goes on without pressing Enter ---------------------------------------------

class GoesOnWithoutEnter(persons.ScriptedPerson):
    """After lifting load A's piles the person does not press Enter: they put
    load B in and (touch=True) touch the sensor."""

    touch = True

    def do(self, step: step_kinds.Step, number: int, round: int | None = None) -> None:
        if isinstance(step, step_kinds.Lift) and step.load == "A" and round == 1 and not getattr(self, "went_on", False):
            self.went_on = True
            self.round = round
            self.steps.append(step)
            self.carry_out(step)  # done, and no Enter
            self.carry_out(step_kinds.PutInTray("B", None))
            if self.touch:
                self.world.touch()
            return
        super().do(step, number, round)


@pytest.mark.touch
def test_loading_and_touching_while_a_table_step_is_on_screen_goes_on() -> None:
    fake = FakeShuffler()
    result, voice, person = run_on_fake(fake, plan(), GoesOnWithoutEnter(fake, 162), settle_s=0.2)
    assert isinstance(result, guide_machine.Summary), voice.text
    assert voice.told(notice_kinds.StepsTakenAsDone, by="pass", load="B", steps=1)
    assert not voice.told(notice_kinds.DeviceFault) and not voice.told(notice_kinds.UnknownFault), voice.notices
    assert result.loads[0] == [81, 81]
    every_card_once_a_round(person)


class LoadsWithoutEnter(GoesOnWithoutEnter):
    touch = False


def test_a_load_put_in_while_a_table_step_is_on_screen_is_judged_and_the_step_counts_as_done() -> None:
    fake = FakeShuffler()
    result, voice, person = run_on_fake(fake, plan(), LoadsWithoutEnter(fake, 162), settle_s=0.2)
    assert isinstance(result, guide_machine.Summary), voice.text
    assert voice.told(notice_kinds.StepsTakenAsDone, by="load", load="B", steps=1, cards=81)
    assert "holds 0" not in voice.text and "missing" not in voice.text
    every_card_once_a_round(person)


class StacksAndLoadsOnInExactMode(persons.ScriptedPerson):
    """Round 1 of exact mode (the split): after making part P the person
    makes part Q, puts P in the tray and touches, with no Enter."""

    def do(self, step: step_kinds.Step, number: int, round: int | None = None) -> None:
        if isinstance(step, step_kinds.Stack) and step.result == "P" and round == 1 and not hasattr(self, "went"):
            self.went = True
            self.steps.append(step)
            self.carry_out(step)
            self.carry_out(step_kinds.Stack((step_kinds.right_of("A"), step_kinds.right_of("B")), "Q"))
            self.carry_out(step_kinds.PutInTray("P", None))
            self.world.touch()
            return
        super().do(step, number, round)


@pytest.mark.micropython
@pytest.mark.exact_mode
def test_in_exact_mode_going_on_without_enter_keeps_exactness(virtual_shuffler: Any) -> None:
    p = planlib.make_plan(planlib.choose_pack("samba", None), 104, "good")
    summary, voice, person = run_guided(virtual_shuffler, p, StacksAndLoadsOnInExactMode, ON_VIRTUAL.vary(mode="exact"))
    assert person.went
    assert voice.told(notice_kinds.StepsTakenAsDone, by="pass", load="P", steps=2)
    assert not voice.told(notice_kinds.ExactLost)
    assert (summary.mode, summary.distance) == ("exact", 0.0)
    check_route_record(person.log, exact_routes.route(162, 104))


# -- Enters at the wrong moment ------------------------------------------------------------

def at_a_table_step(read_s: float = 1.0) -> tuple[Machine, Clock, Record, Quiet, MemoryDevice]:
    """A random-mode machine on a fake device, the first load dealt, its lift on screen."""
    clock, device, voice, person = Clock(), MemoryDevice(), Record(), Quiet()
    m = Machine(plan(), person, voice, device, IN_MEMORY.vary(read_s=read_s), clock=clock)
    m.begin()  # the cut
    clock.now += 5
    m.handle(Answer(1))  # cut: load A's step
    m.handle(device_messages.make_event(protocol.EV_LOADED, n=81))
    m.handle(device_messages.make_event(protocol.EV_DONE, k=81, n=81, left=40, right=41))
    assert isinstance(m.phase, Handling) and isinstance(m.shown.step, step_kinds.Lift)
    return m, clock, voice, person, device


def test_quick_extra_enters_answer_only_the_step_on_screen_and_only_once_it_could_be_read() -> None:
    m, clock, voice, _, _ = at_a_table_step()
    lift = m.shown
    clock.now += 2.0
    m.handle(Answer(lift.number))  # read and done: counts
    assert isinstance(m.phase, Loading) and isinstance(m.shown.step, step_kinds.PutInTray)
    put = m.shown.number
    for dt in (0.05, 0.05, 0.3):  # three more Enters, machine speed then a person's 0.4 s
        clock.now += dt
        m.handle(Answer(put))
    assert m.shown.number == put and isinstance(m.phase, Loading)  # the load's step, not answered by them
    assert [n for n in voice.notices if isinstance(n, notice_kinds.TooSoon)] == [notice_kinds.TooSoon(put)]  # said once
    assert not [n for n in voice.notices if isinstance(n, (notice_kinds.LoadShort, notice_kinds.LoadToMove))]


def test_an_enter_with_the_tray_empty_is_not_a_load_of_no_cards() -> None:
    m, clock, voice, _, device = at_a_table_step(read_s=0.0)
    m.handle(Answer(m.shown.number))  # the lift
    device.tray = 0
    clock.now += 1
    m.handle(Answer(m.shown.number))  # "the cards are in", and they are not
    assert isinstance(m.phase, Loading)
    assert notice_kinds.TrayStillEmpty("B") in voice.notices
    assert not [n for n in voice.notices if isinstance(n, (notice_kinds.LoadShort, notice_kinds.LoadToMove, notice_kinds.LoadLong))]
    device.tray = 81
    m.handle(Answer(m.shown.number))
    assert isinstance(m.phase, AwaitingTouch)


@pytest.mark.light_sleep
def test_a_walk_away_has_no_time_limit_and_keeps_the_shuffler_awake() -> None:
    """A board in light sleep loses what the host sends: a line at least
    every 20 s keeps it awake, at a step that waits only for the person too."""
    m, clock, voice, _, device = at_a_table_step()
    heard = [clock.now]
    count, keep_awake = device.count, device.keep_awake

    def counted() -> int | None:
        heard.append(clock.now)
        return count()

    def kept() -> None:
        heard.append(clock.now)
        keep_awake()
    device.count, device.keep_awake = counted, kept  # type: ignore[method-assign]
    m.handle(Answer(m.shown.number))  # not read yet: no answer (the lift stays)
    for _ in range(45 * 60):  # 45 minutes at the lift, a tick a second
        clock.now += 1
        m.handle(Tick())
    assert isinstance(m.phase, Handling) and isinstance(m.shown.step, step_kinds.Lift)
    assert max(b - a for a, b in zip(heard, heard[1:] + [clock.now])) <= 21
    still = [n for n in voice.notices if isinstance(n, notice_kinds.StillWaiting)]
    assert len(still) == 1 and still[0].minutes == 5


# -- devices that break the protocol --------------------------------------------------------

class DealsNothing(FakeShuffler):
    """After 20 cards it sends only lines that are not protocol, and keeps
    answering status as dealing card 20."""

    def _pass(self) -> None:
        n = len(self.tray)
        self.dev.emit({"ev": "touch", "state": "idle"})
        self.dev.emit({"ev": "loaded", "n": n})
        self.state = "dealing"
        for k in range(1, 21):
            self.tray.pop()
            self.last = {"k": k, "n": n, "left": k, "right": 0}
            self.dev.emit({"ev": "progress", "k": k, "n": n, "left": k, "right": 0})

        def noise() -> None:
            for _ in range(3000):
                if self.dev._stop.is_set():
                    return
                self.dev.emit(b"Traceback (most recent call last):\n")
                time.sleep(0.02)
        threading.Thread(target=noise, daemon=True).start()


def test_a_device_that_answers_but_deals_nothing_ends_in_one_line() -> None:
    fake = DealsNothing()
    t0 = time.monotonic()
    result, voice, _ = run_on_fake(fake, plan(), settle_s=0.2, stall_s=0.5)
    assert time.monotonic() - t0 < 30  # the noise alone lasts a minute
    assert isinstance(result, guide_machine.GuideStopped), voice.text
    assert isinstance(result.reason, stop_reasons.Stalled) and "\n" not in str(result), result
    assert "Traceback" not in voice.text  # the device's own output never reaches the person


class NoCountInExact(FakeShuffler):
    def _handle(self, dev: Any, req: dict[str, Any]) -> None:
        if req["cmd"] == "exact":
            dev.reply(req, mode="exact", routine={"n": 162, "loads": 2, "uneven": True, "kind": "radix", "rounds": 8,
                                                  "next": {"round": 1, "load": "A"}})  # no count
            return
        super()._handle(dev, req)


def test_a_reply_with_a_field_missing_is_a_protocol_fault_in_one_line() -> None:
    fake = NoCountInExact()
    fake_port = fake.dev.port
    result, voice, _ = run_on_fake(fake, planlib.make_plan(planlib.choose_pack("samba", None), 104, "good"),
                                   mode="exact")
    assert isinstance(result, guide_machine.GuideStopped), voice.text
    reason = result.reason
    assert isinstance(reason, ProtocolBroken) and reason.name == fake_port, result  # the device's line, and why
    # The reply as it came, and the field missing from it.
    assert reason.sent.startswith('{"re": "exact"') and "routine.next" in reason.why and "count" in reason.why


class TalksToItself(FakeShuffler):
    """A boot banner and a traceback of its own mid-pass."""

    def _pass(self) -> None:
        self.dev.emit(b"MPY: soft reboot\r\nTraceback (most recent call last):\r\n  File \"main.py\", line 3\r\n")
        super()._pass()


def test_the_device_s_own_output_never_reaches_the_person() -> None:
    fake = TalksToItself()
    result, voice, _ = run_on_fake(fake, plan(1), settle_s=0.2)
    assert isinstance(result, guide_machine.Summary), voice.text
    assert "Traceback" not in voice.text and "main.py" not in voice.text and "MPY" not in voice.text


# -- the words ----------------------------------------------------------------------------------

def test_a_stop_after_a_pass_says_after_that_pass() -> None:
    m, *_ = at_a_table_step()
    assert m.place == notice_kinds.Where(1, 2, "A", 1, 4, after=True)  # its words: test_notice_words.py
    stop = m.stop("interrupted")
    assert stop.place is not None and stop.place.after


class CutsShort(persons.ScriptedPerson):
    """Cuts 77 / 85: load A within the tolerance, dealt as it is."""

    def do(self, step: step_kinds.Step, number: int, round: int | None = None) -> None:
        if isinstance(step, step_kinds.Cut) and step.first:
            step = step_kinds.Cut(step.source, step.names, (77, 85), step.by_eye, step.counted, step.first)
        super().do(step, number, round)


class BarVoice(TextVoice):
    """Keeps the progress bar's (label, cards through, of how many)."""

    def __init__(self) -> None:
        super().__init__()
        self.bars: list[tuple[str, int, int]] = []

    def bar_start(self, label: str, total: int, done: int = 0, left: int | None = 0, right: int | None = 0) -> None:
        self.bars.append((label, done, total))
        self.label = label

    def bar_update(self, done: int, total: int, left: int | None, right: int | None) -> None:
        self.bars.append((self.label, done, total))


def test_a_load_off_its_size_is_said_once_and_the_bar_fills_to_what_it_deals() -> None:
    fake = FakeShuffler()
    voice = BarVoice()
    result, voice, person = run_on_fake(fake, plan(1), CutsShort(fake, 162), voice=voice, settle_s=0.2)
    assert isinstance(result, guide_machine.Summary), voice.text
    said = [n for n in voice.notices if isinstance(n, (notice_kinds.LoadToMove, notice_kinds.LoadKept))]
    assert [(n.load, n.want, n.n) for n in said] == [("A", 81, 77)]
    assert step_kinds.PutInTray("A", 81, about=True) in voice.steps_shown  # "about", as the warning says
    a = [(done, total) for label, done, total in voice.bars if label == "load A"]
    assert {total for _, total in a} == {77} and a[-1] == (77, 77)  # load A's bar: 77 cards, and it fills


@pytest.mark.micropython
@pytest.mark.parametrize("sensor, load, words", [
    # not read mid-pass: found at B's start
    ("stack", "A", "The count sensor does not answer; the pass did not start (the load cell does not answer)."),
    # Each with the shuffler's own reason, worded as `shuffler check` words it.
    ("exit", "B", "The exit sensor does not answer after 20 of 81 cards; the pass stopped (the exit beam is blocked "
                  "with 1 card out of the tray: take out the card in the exit)."),
    ("battery", "B", "The battery sensor does not answer after 21 of 81 cards; the pass stopped (the battery sensor "
                     "reads what no working one reads (0 mV)).")])
@pytest.mark.sensor_loss
def test_each_sensor_lost_mid_pass_is_named(virtual_shuffler: Any, sensor: str, load: str, words: str) -> None:
    class LosesASensor(persons.ScriptedPerson):
        def do(self, step: step_kinds.Step, number: int, round: int | None = None) -> None:
            if isinstance(step, step_kinds.Touch) and round == 1 and self.in_tray == load and not hasattr(self, "struck"):
                self.struck = True
                self.world.inject("sensor_missing", 20, "", sensor)
            super().do(step, number, round)

    summary, voice, person = run_guided(virtual_shuffler, plan(1), LosesASensor)
    assert words in voice.text, voice.text
    assert not voice.told(notice_kinds.DeviceFault) and not voice.told(notice_kinds.PassPaused), voice.notices
    check_record(person.log, 162, 1, 2)


@pytest.mark.micropython
def test_a_simulated_shuffler_s_time_is_labelled_and_the_enters_are_the_steps_it_cannot_see(tmp_path: Path) -> None:
    """A whole exact Samba routine: the time is a simulated shuffler's; the
    person is asked for Enter exactly at the steps the shuffler cannot see
    (the cut, each lift, each stack, the final gathering), never at a load,
    a touch or a step that only names the stacks."""
    steps_file = tmp_path / "steps.jsonl"
    out = subprocess.run([sys.executable, "-m", "host.cli", "guide", "--sim", "--unattended", "--pack", "samba",
                          "--steps-file", str(steps_file)], capture_output=True, text=True, timeout=180,
                         env=dict(os.environ, SHUFFLER_RUNTIME_DIR=str(tmp_path)), cwd=REPO)
    assert out.returncode == 0, out.stderr
    from simulator.virtual.table_person import from_dict

    records = [json.loads(line) for line in steps_file.read_text().splitlines()]
    assert records[-1]["record"] == "summary" and records[-1]["simulated"], records[-1]  # the time labelled so
    steps = [r for r in records if r["record"] == "step"]
    asked = [s for s in steps if s["answer"] == "done"]
    cannot_see = [s for s in steps if s["kind"] not in ("putintray", "reload", "touch") and step_kinds.asks_action(from_dict(s))]
    assert [s["number"] for s in asked] == [s["number"] for s in cannot_see]
    assert (len(steps), len(asked)) == (38, 8)
    assert {s["kind"] for s in steps} >= {"putintray", "reload", "touch"}
    assert {s["kind"] for s in asked} == {"cut", "lift", "stack", "gather"}


def test_resumed_while_a_jam_holds_the_pass_the_fix_waits_for_its_own_answer() -> None:
    """`--resume` on a shuffler whose exact pass is paused by a jam: the
    guide says the jam and shows its fix, and shows the touch that takes the
    pass up again only once the fix is answered, never both at once."""
    clock, device, voice, person = Clock(), MemoryDevice(), Record(), Quiet()
    device.mode, device.state, device.k, device.n = protocol.MODE_EXACT, protocol.ST_PAUSED, 30, 81
    m = Machine(plan(1), person, voice, device, IN_MEMORY.vary(mode="exact", resume=True), clock=clock)
    m.begin()
    while m.pending:  # what the machine learned from the status (the jam), as the loop hands it on
        m.handle(m.pending.popleft())
    shown = [s.step for s in voice.steps]
    assert shown[-1] == step_kinds.Fix("jam") and isinstance(m.phase, Paused), shown
    assert not any(isinstance(s, step_kinds.Touch) for s in shown), shown
    assert any(isinstance(n, notice_kinds.PassPaused) for n in voice.notices)
    m.handle(Answer(m.shown.number))
    assert isinstance(m.shown.step, step_kinds.Touch) and m.shown.step.why == "go_on"


def test_a_fresh_exact_run_on_a_shuffler_holding_a_routine_says_so_and_how_to_go_on_with_it() -> None:
    """A new `shuffler guide` (no --resume) on a shuffler that still holds an
    exact routine from a run stopped part way: it names the held routine,
    says this run drops it and how to go on with it instead, and has every
    card gathered before the fresh routine's cut."""
    clock, device, voice, person = Clock(), MemoryDevice(), Record(), Quiet()
    device.mode = protocol.MODE_EXACT
    options = IN_MEMORY.vary(port="/dev/fake", pack="samba")  # `shuffler guide --port /dev/fake --pack samba`
    m = Machine(plan(1), person, voice, device, options, clock=clock)
    m.begin()
    held = [n for n in voice.notices if isinstance(n, notice_kinds.HeldRoutineDropped)]
    assert held == [notice_kinds.HeldRoutineDropped(1, 8, "A", "shuffler guide --port /dev/fake --pack samba --quality good --resume")]
    assert isinstance(m.shown.step, step_kinds.Collect)  # every card into the pack first
    m.handle(Answer(m.shown.number))
    assert isinstance(m.shown.step, step_kinds.Cut)
