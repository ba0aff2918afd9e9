"""The guide at a real table's pace and with a device that misbehaves, on a
scripted device (a pty) whose world is a Python table: a person who loads
slowly, a cable pulled and a device that restarted behind it, another
shuffler on the same path, a touch out of turn, noise and hello floods,
absurd numbers. Each test reads what the guide said against what the table
holds."""
from __future__ import annotations

import json
import re
import threading
import time
from typing import Any

import pytest

from firmware import protocol
from host import wire
from host import guide as guide_machine
from host.guide import notices
from host.guide import stop_reasons as why
from host.port_records import ProtocolBroken
from host import person as persons
from host import plan as planlib
from host.device_link import Link
from hosttest_support import ON_FAKE, FakeShuffler, TextVoice, every_card_once_a_round, run_on_fake
from shuffling import steps as step_kinds


def plan(rounds: int = 2) -> planlib.Plan:
    return planlib.make_plan(planlib.choose_pack("samba", None), 104, "good", rounds=rounds)


def run(fake: FakeShuffler, person: persons.ScriptedPerson | None = None, reopen: Any = None,
        **changes: Any) -> tuple[guide_machine.Summary | guide_machine.GuideStopped, TextVoice, persons.ScriptedPerson]:
    return run_on_fake(fake, plan(), person=person, reopen=reopen, **{"settle_s": 0.2, **changes})

# The notices that tell a load's count off its plan.
COUNT_OFF = (notices.LoadKept, notices.LoadToMove, notices.LoadShort, notices.LoadLong, notices.OtherPackCard,
             notices.PassBeganOffSize, notices.LoadDealtAsItIs)


def holds_said(voice: TextVoice) -> list[tuple[str, int]]:
    """Each load's count the guide told as off its plan."""
    return [(n.load, n.n) for n in voice.notices if isinstance(n, COUNT_OFF)]


# -- a person at human pace ------------------------------------------------------------

class SlowLoader(persons.ScriptedPerson):
    """Puts a load in the tray in two handfuls, a while after being asked,
    and never presses Enter: only the tray's count says when it is done."""

    def carry_out(self, step: step_kinds.Step) -> None:
        if isinstance(step, step_kinds.PutInTray) and not step.rest and step.load in self.table:
            ids = self._pop(step.load)
            self.in_tray = step.load
            self._note({"op": "load", "round": self.round, "load": step.load, "ids": ids})

            def later() -> None:
                time.sleep(0.4)
                self.world.load(ids[len(ids) // 2:])  # the bottom half first
                time.sleep(0.3)
                self.world.load(ids[:len(ids) // 2])
            threading.Thread(target=later, daemon=True).start()
            return
        super().carry_out(step)

    def ready(self, timeout: float) -> bool:
        time.sleep(timeout)
        return False


def test_the_tray_is_judged_once_its_count_holds_still_not_when_the_prompt_returns() -> None:
    fake = FakeShuffler()
    result, voice, person = run(fake, SlowLoader(fake, 162), settle_s=0.5)
    assert isinstance(result, guide_machine.Summary), voice.text
    assert voice.told(notices.WaitingForLoad, load="A")
    assert holds_said(voice) == []  # never "holds 0" nor the first handful
    assert result.loads == [[81, 81], [81, 81]]
    every_card_once_a_round(person)


# -- the cable, and who answers after it ----------------------------------------------------

@pytest.mark.restart
def test_after_an_unplug_and_a_restart_every_number_is_the_table_s() -> None:
    fake = FakeShuffler(lambda k, p: "unplug" if (p, k) == (1, 34) else None)

    def reopen() -> Link:
        if fake.dev._stop.is_set():
            fake.replug(restarted=True)
        return Link.open(fake.dev.port)

    result, voice, person = run(fake, reopen=reopen, reconnect_s=5)
    assert isinstance(result, guide_machine.Summary), voice.text
    # Said from the status (a restart) or, when the pass's first events went with the cable, the tray's count.
    assert (voice.told(notices.Restarted, unplugged=True, dealt=None)
            or voice.told(notices.PassBeganUnplugged, held=81, rest=47))
    # Not taken for a whole pass dealt, nor for a rest of no cards.
    assert not voice.told(notices.PassGoesOn, rest=0) and not [s for s in voice.steps_shown if getattr(s, "cards", 1) == 0]
    # The rest is counted in the tray (47 = 81 - 34) and dealt onto the same piles.
    assert step_kinds.Touch("rest", "A", 47) in voice.steps_shown
    # The piles' split is not known after the restart: no pile counts, no card counts for the trade.
    lift_a = next(line for line in voice.lines if "Lift off load A's two piles" in line)
    assert "(" not in lift_a.split(". ", 1)[1]
    assert voice.showed(step_kinds.EvenOut)
    assert not voice.told(notices.RoundCountOff)  # 162 cards went through: nothing to report
    assert result.loads[0] == [81, 81]
    every_card_once_a_round(person)


class BarOnATerminal(TextVoice):
    """The console's progress bar, on a terminal: after every change, the
    text of its columns as the screen shows it, with the cards dealt."""

    def __init__(self) -> None:
        import io

        from rich.console import Console

        from host.commands.guide import RichVoice

        super().__init__()
        self.bar = RichVoice(Console(file=io.StringIO(), force_terminal=True, width=160))
        self.shown: list[tuple[int, str]] = []

    def _look(self) -> None:
        from rich.progress import TextColumn

        progress = self.bar.progress
        assert progress is not None
        task = progress.tasks[0]
        text = " ".join(str(column(task)) for column in progress.columns if isinstance(column, TextColumn))
        self.shown.append((int(task.completed), text))

    def bar_start(self, label: str, total: int, done: int = 0, left: int | None = 0, right: int | None = 0) -> None:
        self.bar.bar_start(label, total, done, left, right)
        self._look()

    def bar_update(self, done: int, total: int, left: int | None, right: int | None) -> None:
        self.bar.bar_update(done, total, left, right)
        self._look()

    def bar_end(self) -> None:
        self.bar.bar_end()


@pytest.mark.restart
def test_after_a_power_cut_mid_pass_the_bar_shows_true_pile_counts_or_none() -> None:
    fake = FakeShuffler(lambda k, p: "unplug" if (p, k) == (1, 34) else None)

    def reopen() -> Link:
        if fake.dev._stop.is_set():
            fake.replug(restarted=True)
        return Link.open(fake.dev.port)

    voice = BarOnATerminal()
    person = persons.ScriptedPerson(fake, 162)
    link = Link.open(fake.dev.port)
    link.handshake(timeout=2)
    guide = guide_machine.Guide(plan(), person, voice, ON_FAKE.vary(settle_s=0.2, reconnect_s=5), link=link,
                                reopen=lambda: reopen())
    try:
        guide.run()
    finally:
        (guide.link or link).close()
        fake.dev.close()
    assert any(done > 34 for done, _ in voice.shown[:200]), voice.shown[:5]
    for done, text in voice.shown:
        piles = re.search(r"left\s+(\d+)\s+right\s+(\d+)", text)
        if piles is None:
            assert "left" not in text and "right" not in text, text  # no empty pile counts
        else:
            # The cards dealt of this load are on its two piles: counts that add up to fewer are made up.
            assert int(piles.group(1)) + int(piles.group(2)) == done, (done, text)
    assert any(re.search(r"left\s+\d+", text) for _, text in voice.shown)  # shown where known


def test_a_load_off_its_size_is_told_where_the_cards_go_as_the_table_person_moves_them() -> None:
    """The problem line says from where to where; the step that follows is
    the same move, and a person at the virtual table carries it out that way."""
    from simulator.virtual.table_person import commands

    for first, moved in ((95, ("move", "14", "A", "B", "--from-bottom")),
                         (70, ("move", "11", "B", "A", "--to-bottom"))):
        class Miscut(persons.ScriptedPerson):
            steps: list[step_kinds.Step] = []

            def carry_out(self, step: step_kinds.Step) -> None:
                if isinstance(step, step_kinds.Cut) and step.first:
                    step = step_kinds.Cut(step.source, step.names, (first, 162 - first), step.by_eye, step.counted, True)
                self.steps.append(step)
                super().carry_out(step)

        fake = FakeShuffler()
        person = Miscut(fake, 162)
        result, voice, _ = run(fake, person)
        assert isinstance(result, guide_machine.Summary), voice.text
        move = next(s for s in person.steps if isinstance(s, step_kinds.Move))
        line = next(x for x in voice.lines if "should hold about 81 and holds" in x)
        assert line.endswith(f"and holds {first}: {step_kinds.move_phrase(move)}."), line
        where = ("from the bottom of load A to the top of load B" if first > 81
                 else "from the top of load B to the bottom of load A")
        assert where in line
        assert commands(move, {"stacks": {}, "places": {}}) == [moved]
        assert result.loads[0] == [81, 81]
        every_card_once_a_round(person)


def test_another_shuffler_on_the_same_path_is_refused_in_one_line() -> None:
    fake = FakeShuffler(lambda k, p: "unplug" if (p, k) == (2, 20) else None)

    def reopen() -> Link:
        if fake.dev._stop.is_set():
            fake.replug(restarted=True, uid="07e7")
        return Link.open(fake.dev.port)

    t0 = time.monotonic()
    port = fake.dev.port
    result, voice, _ = run(fake, reopen=reopen, reconnect_s=30)
    assert time.monotonic() - t0 < 20  # at once, not after the reconnect time
    assert isinstance(result, guide_machine.GuideStopped)
    assert result.reason == why.OtherShuffler(port, "07e7", "5eed"), result
    assert not voice.told(notices.DeviceBack)


def test_a_device_that_never_comes_back_is_given_up_at_the_promised_time() -> None:
    fake = FakeShuffler(lambda k, p: "unplug" if (p, k) == (1, 10) else None)
    gone = fake.dev.port
    t0 = time.monotonic()
    result, voice, _ = run(fake, reopen=lambda: Link.open(gone), reconnect_s=1.5)
    took = time.monotonic() - t0
    assert isinstance(result, guide_machine.GuideStopped)
    assert isinstance(result.reason, why.NotBack) and result.reason.seconds == 1.5, result
    assert took < 15


# -- a touch out of turn ------------------------------------------------------------------

class TouchesTooSoon(persons.ScriptedPerson):
    """Cuts 95 / 67 and touches the moment load A is in the tray, before the
    guide has looked at its count."""

    def carry_out(self, step: step_kinds.Step) -> None:
        if isinstance(step, step_kinds.Cut) and step.first:
            step = step_kinds.Cut(step.source, step.names, (95, 67), step.by_eye, step.counted, step.first)
        super().carry_out(step)
        if isinstance(step, step_kinds.PutInTray) and self.round == 1 and step.load == "A" and not getattr(self, "did", 0):
            self.did = 1
            self.world.touch()
            time.sleep(0.3)  # the pass is under way before the guide counts

    def ready(self, timeout: float) -> bool:
        return False


@pytest.mark.touch
def test_a_touch_out_of_turn_is_noticed_and_the_pass_followed() -> None:
    fake = FakeShuffler()
    result, voice, person = run(fake, TouchesTooSoon(fake, 162))
    assert isinstance(result, guide_machine.Summary), voice.text
    assert voice.told(notices.StepsTakenAsDone, by="pass", load="A", steps=0)
    assert voice.told(notices.LoadKept, load="A", want=81, n=95, next_load="B", began=True)  # B holds 14 fewer
    assert not voice.told(notices.WaitingForLoad)  # the count was never read before the pass's own events
    assert result.loads[0] == [95, 67]
    every_card_once_a_round(person)


# -- a device that breaks the protocol ----------------------------------------------------

@pytest.mark.serial_garbage
def test_garbage_without_end_does_not_keep_the_guide_waiting() -> None:
    def noise(k: int, p: int) -> str | None:
        if (p, k) == (1, 20):
            def spray() -> None:
                dev = fake.dev
                # 50 lines a second for up to a minute, far longer than the test may take: a gap in the
                # noise as long as stall_s (a starved thread on a busy machine) would let a guide that
                # resets its stall timer on every line pass by chance.
                for _ in range(3000):
                    if dev._stop.is_set():
                        return  # unplugged: its descriptor may soon be another test's
                    dev.emit(b"~~~ noise ~~~\n")
                    time.sleep(0.02)
            threading.Thread(target=spray, daemon=True).start()
            return "silent"
        return None

    fake = FakeShuffler(noise)
    t0 = time.monotonic()
    result, voice, _ = run(fake, stall_s=2.0, reconnect_s=1.0)
    assert time.monotonic() - t0 < 30  # the noise alone lasts a minute
    assert isinstance(result, guide_machine.GuideStopped)
    assert voice.told(notices.NotAnswering)


def test_a_device_repeating_the_same_progress_is_found_out_as_a_silent_one() -> None:
    """Stuck at card 9 of 81, it says so again every half second and its
    status says it deals: the same count again is no sign of life, and the
    guide ends in one line within a minute (the default stall time)."""
    def stuck(k: int, p: int) -> str | None:
        if (p, k) == (1, 9):
            def repeat() -> None:
                dev = fake.dev
                for _ in range(400):  # longer than the test may take
                    if dev._stop.is_set():
                        return
                    dev.emit(b'{"ev":"progress","k":9,"n":81,"left":4,"right":5}\n')
                    time.sleep(0.5)
            threading.Thread(target=repeat, daemon=True).start()
            return "stuck"
        return None

    fake = FakeShuffler(stuck)
    t0 = time.monotonic()
    result, voice, _ = run(fake, stall_s=guide_machine.STALL_S)
    assert time.monotonic() - t0 < 60
    assert isinstance(result, guide_machine.GuideStopped)
    assert isinstance(result.reason, why.Stalled) and "\n" not in str(result), result
    assert result.reason.seconds >= 2 * guide_machine.STALL_S  # twice the stall time without a card, then said


def test_a_hello_flood_mid_pass_is_a_protocol_fault() -> None:
    def flood(k: int, p: int) -> str | None:
        if (p, k) == (1, 30):
            for _ in range(20):
                fake.dev.emit({"ev": "hello", "fw": "0.1.0", "proto": protocol.PROTOCOL_VERSION, "board": "fake",
                               "capacity": 104, "state": "idle", "uid": "5eed", "digest": protocol.digest()})
            return "silent"
        return None

    fake = FakeShuffler(flood)
    fake_port = fake.dev.port
    result, voice, _ = run(fake)
    assert isinstance(result, guide_machine.GuideStopped)
    assert result.reason == why.HelloFlood(fake_port, guide_machine.MAX_RESTARTS_PER_PASS + 1), result
    assert len(voice.told(notices.Restarted)) <= guide_machine.MAX_RESTARTS_PER_PASS


def test_an_absurd_count_stops_the_guide_with_one_line_naming_the_device() -> None:
    def absurd(k: int, p: int) -> str | None:
        if (p, k) == (1, 5):
            fake.dev.emit({"ev": "done", "k": 1000, "n": 81, "left": 600, "right": 400})
            return "silent"
        return None

    fake = FakeShuffler(absurd)
    port = fake.dev.port
    result, voice, _ = run(fake)
    assert isinstance(result, guide_machine.GuideStopped)
    reason = result.reason
    assert isinstance(reason, ProtocolBroken) and reason.name == port and "\n" not in str(result), result
    assert json.loads(reason.sent) == {"ev": "done", "k": 1000, "n": 81, "left": 600, "right": 400}  # the line as sent
    assert "exactly 0" not in voice.text


# -- on the virtual shuffler: a slow jam, a short load in exact mode ----------------------------

class FreesTheJamSlowly(persons.ScriptedPerson):
    """Round 1, load B: card 30 sticks, and the person touches to go on a good
    while later than the guide waits before asking the device how it is doing
    (the guide is back to watching the device as soon as a touch is asked for)."""

    def do(self, step: step_kinds.Step, number: int, round: int | None = None) -> None:
        if isinstance(step, step_kinds.Touch) and step.why == "start" and round == 1 and self.in_tray == "B" \
                and not getattr(self, "armed", False):
            self.armed = True
            self.world.inject("jam", 30, "", "")
        if isinstance(step, step_kinds.Touch) and step.why == "go_on":
            threading.Timer(1.5, self.world.touch).start()
            return
        super().do(step, number, round)


@pytest.mark.micropython
@pytest.mark.jam
def test_a_jam_is_reported_once_however_long_the_person_takes(virtual_shuffler: Any) -> None:
    from hosttest_support import ON_VIRTUAL, check_record, run_guided

    summary, voice, person = run_guided(virtual_shuffler, plan(), FreesTheJamSlowly, ON_VIRTUAL.vary(stall_s=0.3))
    assert len(voice.told(notices.PassPaused)) == 1
    assert "(0)" not in voice.text
    assert summary.loads == [[81, 81], [81, 81]]
    check_record(person.log, 162, 2, 2)
    assert virtual_shuffler.query()["counts"]["tray"] == 0


class KeepsElevenBack(persons.ScriptedPerson):
    """Cuts load B of round 1 short, keeping its bottom 11 cards in hand, and
    puts them under it when told how many are missing."""

    def do(self, step: step_kinds.Step, number: int, round: int | None = None) -> None:
        super().do(step, number, round)
        if isinstance(step, step_kinds.Cut) and step.first:
            self.hand = self.table["B"][-11:]
            self.table["B"] = self.table["B"][:-11]
        if isinstance(step, step_kinds.Fix) and step.what == "missing":
            assert step.cards == 11 and step.load == "B"
            self.table["B"] = self.table["B"] + self.hand


@pytest.mark.micropython
@pytest.mark.touch
@pytest.mark.exact_mode
def test_a_short_last_load_in_exact_mode_is_caught_before_its_touch(virtual_shuffler: Any) -> None:
    from firmware import exact_routes
    from hosttest_support import ON_VIRTUAL, run_guided
    from route_record import check_route_record

    p = planlib.make_plan(planlib.choose_pack("samba", None), 104, "good")
    summary, voice, person = run_guided(virtual_shuffler, p, KeepsElevenBack, ON_VIRTUAL.vary(mode="exact"))
    assert voice.told(notices.LoadShort, load="B", want=81, n=70)
    assert voice.showed(step_kinds.Fix, what="missing", cards=11, load="B")
    assert not voice.told(notices.StacksSwapped) and not voice.told(notices.LoadsSwapped)
    assert not voice.told(notices.ExactLost)
    assert (summary.mode, summary.distance) == ("exact", 0.0)
    check_route_record(person.log, exact_routes.route(162, 104))


# -- the keyboard ------------------------------------------------------------------------------

def test_key_presses_typed_ahead_never_answer_a_later_step() -> None:
    """`xyz` and three Enters typed at one step answer that step only: the
    Enters still waiting when the next step is shown are thrown away, and an
    Enter read later carries the number of the step on screen when read."""
    import os

    from pty_device import open_pty

    master, slave = open_pty()
    stream = os.fdopen(slave, "r")
    person = persons.ConsolePerson(stream=stream)
    try:
        person.do(step_kinds.Lift("A", 40, 41), 1)
        os.write(master, b"xyz\n\n\n")
        time.sleep(0.2)
        first = person.answers()
        assert first and {a.number for a in first} == {1}
        person.do(step_kinds.Stack(("A.left", "B.left"), "A", 80), 2)  # the Enters still waiting go
        time.sleep(0.1)
        assert person.answers() == []
        os.write(master, b"\n")  # a fresh Enter, typed after the step is shown, answers it
        time.sleep(0.2)
        assert person.answers() == [persons.Said(2)]
    finally:
        stream.close()
        os.close(master)


class FaultsAtOnce(FakeShuffler):
    """A machine whose every pass stops before its first card (an internal fault)."""

    def _pass(self) -> None:
        n = len(self.tray)
        self.dev.emit({"ev": "touch", "state": "idle"})
        self.dev.emit({"ev": "loaded", "n": n})
        self.state = "idle"
        self.dev.emit(wire.fault_event(protocol.FAULT_INTERNAL, latched=True, k=0, n=n, left=0, right=0))


def test_a_pass_that_keeps_stopping_before_its_first_card_stops_the_guide_in_one_line() -> None:
    fake = FaultsAtOnce()
    result, voice, person = run(fake)
    assert isinstance(result, guide_machine.GuideStopped), voice.text
    assert result.reason == why.FruitlessParts(guide_machine.MAX_FRUITLESS_PARTS), result
    assert result.place is not None and result.place.pass_number == 1
    # Nothing was dealt, so each try is the pass's start again.
    touches = [step for step in voice.steps_shown if step == step_kinds.Touch("start")]
    assert len(touches) == guide_machine.MAX_FRUITLESS_PARTS
