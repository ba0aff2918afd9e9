"""The one catalogue of faults (host/fault_catalogue.py) walked against the
declaration (firmware/protocol.py): every code has its entry and every
front-end renders it; a code no entry knows holds the guide as an unknown
fault, never a jam, the battery or the exit's fix."""
from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from firmware import protocol
from guide_in_memory import IN_MEMORY, MemoryDevice, Quiet, Record
from host import device_messages, device_words, fault_catalogue
from host import plan as planlib
from host.guide import GuideStopped, faults
from host.guide import notices as notice_kinds
from host.guide.machine import Machine
from host.guide.notices import Where
from host.guide.handlers import Answer, Stopped
from host.web import adapter
from shuffling import steps as step_kinds
from suite import Clock

WHERE = Where(1, 8, "A", 1, 16)
# A declared fault the catalogue is made to forget, as a maintainer who
# declares a fault and misses its entry would (a code the declaration does not
# know never reaches the guide: the link refuses it as a protocol fault).
UNKNOWN = protocol.FAULT_INTERNAL


@pytest.fixture
def forgotten(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delitem(fault_catalogue.FAULTS, UNKNOWN)


def _event(code: int, **fields: Any) -> Any:
    return device_messages.make_event(protocol.EV_FAULT, code=code, latched=True, k=30, n=81, **fields)


def test_every_declared_fault_has_one_entry_and_nothing_else_has_one() -> None:
    assert set(fault_catalogue.FAULTS) == set(protocol.FAULT_CODES)
    assert all(code == entry.code for code, entry in fault_catalogue.FAULTS.items())
    assert len({f.name for f in fault_catalogue.FAULTS.values()}) == len(protocol.FAULT_CODES)


@pytest.mark.parametrize("code", protocol.FAULT_CODES)
def test_each_entry_agrees_with_the_declaration(code: int) -> None:
    entry = fault_catalogue.FAULTS[code]
    # What the declaration says pauses or only refuses, the entry says the same.
    assert (entry.in_pass == fault_catalogue.PAUSES) == (code in protocol.RESUMABLE)
    assert entry.can_refuse == (code in protocol.REFUSALS or code == protocol.FAULT_SENSOR)
    if entry.in_pass == fault_catalogue.REFUSES:
        assert code in protocol.REFUSALS and entry.exactness == fault_catalogue.UNTOUCHED
    for fix in (entry.fix, entry.fix_at_start):
        assert fix is None or fix in step_kinds.FIX_WHATS
    assert entry.advice and entry.happened == entry.happened.strip()


@pytest.mark.parametrize("code", protocol.FAULT_CODES)
def test_every_front_end_renders_each_fault(code: int) -> None:
    """The console and the page word each fault's notice from the catalogue's
    sentence, and check words it the same way."""
    ev = _event(code, part=protocol.PART_STACK, why=protocol.WHY_NO_ANSWER)
    notice = faults.stopped_pass(WHERE, 30, 81, ev)
    console = notice_kinds.words(notice)
    page = adapter.page_words(notice)
    record = notice_kinds.to_dict(notice)
    assert console and page == console and record["words"] == console
    for text in (console, device_words.fault_words(code)):
        assert "None" not in text and "{" not in text
    happened = fault_catalogue.what_happened(code)
    assert device_words.fault_words(code) == happened
    if isinstance(notice, notice_kinds.DeviceFault):
        assert happened[:-1] in console
    # A fault that pauses a pass is said by the same sentence, by its code.
    paused = notice_kinds.PassPaused(WHERE, 30, 81, code)
    assert happened[:-1] in notice_kinds.words(paused) and adapter.page_words(paused) == notice_kinds.words(paused)
    assert fault_catalogue.noted(code) in notice_kinds.note_words(paused)


@pytest.mark.parametrize("code", protocol.FAULT_CODES)
def test_each_fix_is_a_step_the_person_can_read(code: int) -> None:
    ev = _event(code, part=protocol.PART_TOUCH, out=3)
    for fix in (fault_catalogue.fix_in_pass(ev), fault_catalogue.fix_at_start(ev)):
        if fix is not None:
            assert step_kinds.words(fix)


@pytest.mark.usefixtures("forgotten")
def test_an_unknown_code_has_no_fix_no_name_and_says_its_code() -> None:
    ev = _event(UNKNOWN, part=protocol.PART_MOTOR)
    assert fault_catalogue.known(UNKNOWN) is None and not fault_catalogue.pauses(UNKNOWN)
    assert fault_catalogue.fix_in_pass(ev) is None and fault_catalogue.fix_at_start(ev) is None
    assert device_words.fault_name(UNKNOWN) == "unknown" and str(UNKNOWN) in device_words.fault_words(UNKNOWN)
    assert str(UNKNOWN) in fault_catalogue.advice(UNKNOWN)


def _machine_dealing() -> tuple[Machine, Record]:
    plan = planlib.make_plan(planlib.choose_pack("samba", None), 104, "good", rounds=1)
    voice = Record()
    m = Machine(plan, Quiet(), voice, MemoryDevice(), IN_MEMORY, clock=Clock())
    m.begin()
    m.handle(Answer(1))  # the cut: load A's step
    m.handle(device_messages.make_event(protocol.EV_LOADED, n=81))
    return m, voice


def _fixes(voice: Record) -> list[str]:
    return [s.step.what for s in voice.steps if isinstance(s.step, step_kinds.Fix)]


@pytest.mark.usefixtures("forgotten")
def test_a_fault_no_entry_knows_holds_the_guide_mid_pass_and_is_never_a_jam() -> None:
    m, voice = _machine_dealing()
    before = len(voice.steps)
    with pytest.raises(GuideStopped) as stop:
        m.handle(_event(UNKNOWN, part=protocol.PART_MOTOR, why=protocol.WHY_NO_ANSWER))
    # The internal stop's own fix (the exit's) is the catalogue's entry, forgotten here: no fix is guessed.
    assert isinstance(m.phase, Stopped)
    said = [n for n in voice.notices if isinstance(n, notice_kinds.UnknownFault)]
    assert [(n.event, n.code, n.part) for n in said] == [("fault", UNKNOWN, protocol.PART_MOTOR)]
    assert not any(isinstance(n, (notice_kinds.PassPaused, notice_kinds.BatteryRanDown, notice_kinds.ExitBlocked))
                   for n in voice.notices)
    assert _fixes(voice)[before:] == [] and str(UNKNOWN) in str(stop.value)


def test_a_known_fault_mid_pass_still_gets_its_own_fix() -> None:
    m, voice = _machine_dealing()
    m.handle(_event(protocol.FAULT_JAM))
    assert any(isinstance(n, notice_kinds.PassPaused) for n in voice.notices)
    assert _fixes(voice) == ["jam"] and not isinstance(m.phase, Stopped)


@pytest.mark.parametrize("code", [protocol.FAULT_BATTERY_LOW, protocol.FAULT_JAM, protocol.FAULT_EMPTY])
def test_a_touch_refused_while_a_pass_is_paused_gets_the_catalogues_fix_for_what_refused_it(code: int) -> None:
    """The touch that would take a jammed pass up again, refused: the fix is
    what the catalogue says of the refusing fault (the battery's at rest, the
    jam's again while it is still there, none for an empty tray), never the
    jam's by default."""
    m, voice = _machine_dealing()
    m.handle(_event(protocol.FAULT_JAM))
    assert _fixes(voice) == ["jam"]
    m.handle(Answer(m.shown.number))  # freed, as the step says
    assert isinstance(m.shown.step, step_kinds.Touch)
    m.handle(device_messages.make_event(protocol.EV_FAULT, code=code, latched=False, part=protocol.PART_BATTERY
                                        if code == protocol.FAULT_BATTERY_LOW else None))
    want = {protocol.FAULT_BATTERY_LOW: ["battery_idle"], protocol.FAULT_JAM: ["jam"], protocol.FAULT_EMPTY: []}[code]
    assert _fixes(voice)[1:] == want
    assert any(isinstance(n, notice_kinds.StartRefused) for n in voice.notices)


def test_a_warning_no_entry_knows_is_said_as_unknown_not_as_the_battery() -> None:
    m, voice = _machine_dealing()
    m.handle(device_messages.make_event(protocol.EV_WARN, code=protocol.FAULT_SENSOR, part=protocol.PART_TOUCH))
    assert not any(isinstance(n, notice_kinds.BatteryWarning) for n in voice.notices)
    unknown = [n for n in voice.notices if isinstance(n, notice_kinds.UnknownFault)]
    assert [(n.event, n.code) for n in unknown] == [("warn", protocol.FAULT_SENSOR)]
    assert not isinstance(m.phase, Stopped)
    m.handle(device_messages.make_event(protocol.EV_WARN, code=protocol.FAULT_BATTERY_LOW, mv=7100))
    assert [n.mv for n in voice.notices if isinstance(n, notice_kinds.BatteryWarning)] == [7100]


def test_unknown_fault_record_renders_on_every_front_end() -> None:
    for kind in ("fault", "warn"):
        sent = _event(UNKNOWN, part=protocol.PART_MOTOR, why=protocol.WHY_NO_ANSWER)
        notice = notice_kinds.UnknownFault(kind, UNKNOWN, protocol.PART_MOTOR, sent)
        text = notice_kinds.words(notice)
        assert str(UNKNOWN) in text and device_words.why_words(sent) in text and adapter.page_words(notice) == text
        assert notice_kinds.to_dict(notice)["kind"] == "UnknownFault"
        assert dataclasses.asdict(notice)["code"] == UNKNOWN


def test_a_fault_code_the_declaration_does_not_know_is_a_protocol_fault_at_the_link() -> None:
    msg = {protocol.F_EV: protocol.EV_FAULT, "code": 99, "latched": True}
    assert "99" in (device_messages.problem(msg) or "")
