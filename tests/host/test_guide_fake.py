"""The guide against a scripted device on a pty, for what the virtual
shuffler cannot show: a restart while cards are moving, the cable pulled mid
pass, garbage in the middle of a pass, a device that stops answering, and
the manual mode with no device at all."""
from __future__ import annotations

import io
import re
import time
from typing import Any

import pytest

from firmware import protocol
from host import guide
from host.guide import notices
from host.guide import stop_reasons
from host import person as person_model
from host import plan as planlib
from shuffling import steps
from hosttest_support import FakeShuffler, TextVoice, run_on_fake


def plan(rounds: int = 2) -> planlib.Plan:
    return planlib.make_plan(planlib.choose_pack("samba", None), 104, "good", rounds=rounds)


def run(fake: FakeShuffler, **changes: Any) -> tuple[guide.Summary | guide.GuideStopped, TextVoice, person_model.ScriptedPerson]:
    return run_on_fake(fake, plan(), **changes)

def all_cards_once_per_round(person: person_model.ScriptedPerson) -> None:
    for r in (1, 2):
        dealt = [c for e in person.log if e["op"] == "take" and e["round"] == r for c in e["left"] + e["right"]]
        assert sorted(dealt) == list(range(162))
    final = [e for e in person.log if e["op"] == "final"][0]["pack"]
    assert sorted(final) == list(range(162))


@pytest.mark.restart
def test_a_restart_while_dealing_keeps_the_place() -> None:
    fake = FakeShuffler(lambda k, p: "restart" if (p, k) == (3, 50) else None)
    result, voice, person = run(fake)
    assert isinstance(result, guide.Summary), voice.text
    assert voice.told(notices.Restarted, where=notices.Where(2, 2, "A", 3, 4), dealt=50, of=81)
    assert steps.Touch("rest", "A", 31) in voice.steps_shown
    assert "MPY" not in voice.text and "protocol" not in voice.text  # the boot banner is the device's, not the person's
    assert result.loads == [[81, 81], [81, 81]]
    all_cards_once_per_round(person)


@pytest.mark.serial_garbage
def test_garbage_mid_pass_is_ignored() -> None:
    fake = FakeShuffler(lambda k, p: "garbage" if (p, k) == (2, 10) else None)
    result, voice, person = run(fake)
    assert isinstance(result, guide.Summary)
    assert "noise" not in voice.text and "protocol" not in voice.text  # never shown to the person
    all_cards_once_per_round(person)


@pytest.mark.restart
def test_an_unplugged_device_stops_the_guide_at_its_place_without_hanging() -> None:
    fake = FakeShuffler(lambda k, p: "unplug" if (p, k) == (2, 30) else None)
    t0 = time.monotonic()
    result, voice, _ = run(fake, reconnect_s=1.5)
    assert time.monotonic() - t0 < 15
    assert isinstance(result, guide.GuideStopped)
    assert result.place is not None and (result.place.round, result.place.load) == (1, "B")
    [lost] = voice.told(notices.ConnectionLost, where=notices.Where(1, 2, "B", 2, 4))
    # Events still in flight when the cable went are lost: on a busy machine
    # even the pass's start may be, and then no count is claimed at all.
    assert lost.dealt is None or (lost.dealt <= 30 and lost.of == 81)
    assert isinstance(result.reason, stop_reasons.NotBack) and result.reason.seconds == 1.5, result


def test_a_device_that_stops_answering_is_noticed() -> None:
    fake = FakeShuffler(lambda k, p: "silent" if (p, k) == (1, 20) else None)
    t0 = time.monotonic()
    result, voice, _ = run(fake, stall_s=0.5, reconnect_s=1.0)
    assert time.monotonic() - t0 < 15
    assert isinstance(result, guide.GuideStopped)
    assert voice.told(notices.NotAnswering)
    assert result.place is not None and result.place.pass_number == 1


def test_manual_mode_guides_by_instructions_and_waits_for_enter() -> None:
    voice = TextVoice()
    p = plan()
    enters = io.StringIO("\n" * 200)
    person = person_model.ConsolePerson(stream=enters)
    voice.keyboard = True
    summary = guide.Guide(p, person, voice, guide.GuideOptions(manual=True, wait_s=1, read_s=0)).run()
    assert summary.passes == 4
    assert steps.PutInTray("A", 81, about=True) in voice.steps_shown
    assert voice.showed(steps.EvenOut, sizes=(81, 81))
    numbered = [x for x in voice.lines if re.match(r"\d+\. ", x)]
    assert voice.text.count("press Enter when done") == len(numbered)
    assert enters.tell() > 0


def test_manual_mode_stops_when_nobody_presses_enter() -> None:
    voice = TextVoice()
    person = person_model.ConsolePerson(stream=io.StringIO("\n\n\n"))
    with pytest.raises(guide.GuideStopped) as info:
        guide.Guide(plan(), person, voice, guide.GuideOptions(manual=True, wait_s=0.2, read_s=0)).run()
    assert info.value.place is not None and info.value.place.round == 1
    assert info.value.reason == stop_reasons.InputEnded()


def test_a_fault_left_over_from_before_is_cleared_first() -> None:
    fake = FakeShuffler()
    fake.state, fake.fault = "alarm", protocol.FAULT_DOUBLE_FEED
    result, voice, person = run(fake)
    assert isinstance(result, guide.Summary)
    assert voice.told(notices.FaultLeftOver, name="double_feed")
    cmds = [r["cmd"] for r in fake.dev.requests]
    assert cmds[:3] == ["hello", "status", "clear"]  # cleared before the first load
    all_cards_once_per_round(person)


def test_with_a_device_only_table_work_asks_for_enter() -> None:
    """Loads and touches are the device's to see; a step that only names
    what is there asks nothing; every other step asks for Enter."""
    voice = TextVoice()
    voice.keyboard = True
    result, voice, person = run_on_fake(FakeShuffler(), plan(), voice=voice)
    assert isinstance(result, guide.Summary), voice.text
    shown = [(i, line) for i, line in enumerate(voice.lines) if re.match(r"\d+\. ", line)]
    asked = [voice.lines[i + 1:i + 2] == ["   press Enter when done"] for i, _ in shown]
    kinds = [s for s in person.steps]
    assert len(kinds) == len(shown)
    for (_, line), ask, step in zip(shown, asked, kinds):
        sees = isinstance(step, steps.MACHINE_SEES)
        assert ask == (not sees and steps.asks_action(step)), line
    assert sum(asked) == sum(1 for s in kinds if not isinstance(s, steps.MACHINE_SEES))
