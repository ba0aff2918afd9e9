"""What `shuffler check` and `shuffler setup` say about each part, from the
board's answers: a finding a part, its wiring row where the part does not
answer, ready only with nothing failed; the set-up's steps worded once; and
`shuffler check` against a device that breaks the protocol."""
from __future__ import annotations

import contextlib
import io
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from firmware import protocol
from host import check
from host import setup_steps
from host import wiring
from host.cli import main
from host.parts import FAIL, OK, PARTS, SKIP, STATE, ready, verdict_line
from hosttest_support import FakeDevice

HEALTHY = {"raw": 84000 + 30 * 760, "spread": 200, "n": 30, "touch": 800, "touched": False, "touches": 1,
           "beam": False, "mv": 9000, "card_ms": 33, "feed_ms": 23, "flip": 0}
CAL = {"tare": 84000, "per_card": 760, "touch_baseline": 800, "touch_seen": 1, "beam_ms": 33, "flip": 0}


def snap(board: str = "esp32", sensors: dict[str, Any] | None = None, cal: dict[str, Any] | None = None,
         state: str = "idle", status_uptime: int = 60_000, **kw: Any) -> check.Snapshot:
    s = dict(HEALTHY, **(sensors or {}))
    for key in [k for k, v in s.items() if v is None]:
        del s[key]
    if board == "rp2":
        s["touch"] = 0
    return check.Snapshot.of(hello={"fw": protocol.FIRMWARE_VERSION, "proto": protocol.PROTOCOL_VERSION, "board": board,
                             "capacity": 104, "cal": {"stack": "calibrated", "touch": "calibrated"}},
                      status={"state": state, "fault": 0, "uptime_ms": status_uptime}, sensors=s,
                      cal=dict(CAL) if cal is None else cal, **kw)


def by_part(s: check.Snapshot) -> dict[str, Any]:
    return {f.part: f for f in check.findings(s)}


@pytest.mark.parametrize("board", ["esp32", "rp2"])
def test_every_part_names_rows_of_its_board_s_wiring_table(board: str) -> None:
    table = wiring.table(board)
    for part in PARTS.values():
        assert set(part.signals) <= set(table), part
    assert wiring.rows(board, ("exit",)).startswith(f"check hardware/wiring-{board}.md, row exit (GPIO ")


@pytest.mark.parametrize("board", ["esp32", "rp2"])
def test_a_healthy_board_is_ready(board: str) -> None:
    found = check.findings(snap(board))
    assert [f.verdict for f in found] == [OK] * len(found)
    assert ready(found)


@pytest.mark.parametrize("sensors, cal, part, words, gpio", [
    ({"raw": None, "spread": None, "n": None}, None, protocol.PART_STACK, "does not answer", "hx711_dout (GPIO 16"),
    ({"n": -12}, None, protocol.PART_STACK, "A+ and A- swapped", "hx711_dout (GPIO 16"),
    ({"beam": True}, None, protocol.PART_EXIT, "blocked with no card fed", "exit (GPIO 34"),
    ({"card_ms": 0}, {"beam_ms": None}, protocol.PART_EXIT, "no card seen through it", "exit (GPIO 34"),
    ({"touch": 0}, None, protocol.PART_TOUCH, "no pad answers", "touch (GPIO 4"),
    ({}, {"touch_seen": None}, protocol.PART_TOUCH, "no touch confirmed", "touch (GPIO 4"),
    ({"mv": 1200}, None, protocol.PART_BATTERY, "its divider", "battery_adc (GPIO 35"),
])
def test_a_part_that_does_not_answer_is_named_with_its_wiring_row(sensors, cal, part, words, gpio) -> None:
    c = None if cal is None else {k: v for k, v in dict(CAL, **cal).items() if v is not None}
    f = by_part(snap(sensors=sensors, cal=c))[part]
    line = f.line("esp32")
    assert f.verdict == FAIL and words in line and gpio in line, line
    assert "\n" not in line and line.startswith(f"FAIL {PARTS[part].name}: ")


def test_the_motor_s_direction_must_be_confirmed_and_a_flip_is_said() -> None:
    assert by_part(snap(cal={k: v for k, v in CAL.items() if k != "flip"}))[protocol.PART_MOTOR].verdict == FAIL
    flipped = by_part(snap(cal=dict(CAL, flip=1)))[protocol.PART_MOTOR]
    assert flipped.verdict == OK and "wired the other way round" in flipped.diagnosis


@pytest.mark.battery
def test_a_battery_too_low_for_a_full_pass_is_not_ready() -> None:
    assert by_part(snap(sensors={"mv": 6800}))[protocol.PART_BATTERY].verdict == FAIL
    assert by_part(snap(sensors={"mv": 7100}))[protocol.PART_BATTERY].verdict == "warn"
    assert ready(check.findings(snap(sensors={"mv": 7100})))


@pytest.mark.exit_sensor
def test_a_feed_the_beam_did_not_see_is_the_receiver() -> None:
    fed = {"ev": "fault", "code": protocol.FAULT_SENSOR, "part": protocol.PART_EXIT, "why": protocol.WHY_MISSED, "out": 3}
    f = by_part(snap(feed=fed))[protocol.PART_EXIT]
    assert f.verdict == FAIL and "the receiver does not answer" in f.diagnosis
    assert f.value == "clear at rest now; the feed: 3 cards left the tray and the beam saw none"
    saw_one = by_part(snap(feed=dict(fed, k=1)))[protocol.PART_EXIT]
    assert saw_one.verdict == FAIL and "the receiver does not answer" in saw_one.diagnosis
    assert saw_one.value == "clear at rest now; the feed: the exit beam missed 3 cards that left the tray"
    blocked = dict(fed, why=protocol.WHY_BLOCKED, out=1)
    assert "the emitter or its power" in by_part(snap(feed=blocked))[protocol.PART_EXIT].diagnosis
    jam = {"ev": "fault", "code": protocol.FAULT_JAM}
    assert "does not turn the roller" in by_part(snap(feed=jam))[protocol.PART_MOTOR].diagnosis


reading = st.fixed_dictionaries({
    "raw": st.integers(-2 ** 24, 2 ** 24), "spread": st.integers(0, 2 ** 20), "n": st.integers(-500, 500),
    "touch": st.integers(-1, 10 ** 6), "touched": st.booleans(), "touches": st.integers(0, 100),
    "beam": st.booleans(), "mv": st.integers(0, 100_000), "card_ms": st.integers(0, 5000),
    "feed_ms": st.integers(0, 5000), "flip": st.integers(0, 1)})


@settings(max_examples=200, deadline=None)
@given(sensors=reading, board=st.sampled_from(["esp32", "rp2", "sim", "other"]),
       cal=st.dictionaries(st.sampled_from(sorted(CAL)), st.integers(0, 1000)),
       state=st.sampled_from(protocol.STATES))
def test_any_reading_gives_one_line_a_part_and_ready_means_nothing_failed(sensors, board, cal, state) -> None:
    found = check.findings(check.Snapshot.of(hello={"fw": "0.0", "proto": 4, "board": board, "capacity": 104, "cal": {}},
                                  status={"state": state, "fault": 0, "fault_name": ""}, sensors=sensors, cal=cal))
    assert [f.part for f in found] == list(PARTS)
    for f in found:
        assert "\n" not in f.line(board) and f.diagnosis
    assert ready(found) == all(f.verdict != FAIL for f in found)


def test_every_set_up_step_is_worded_once_and_says_what_is_answered() -> None:
    steps = [setup_steps.FlashOffer("0.1.0", "0.2.0", True), setup_steps.EmptyTray(), setup_steps.LoadCards(52), setup_steps.TrayEmpty(52, 84010, 84000), setup_steps.SecondCount(20, 104),
             setup_steps.HandsOff(), setup_steps.HandAway(250), setup_steps.TouchPad(30), setup_steps.FeedCards(10, 2), setup_steps.TooFewCards(0, 10), setup_steps.WhereLanded(2), setup_steps.Meter(), setup_steps.Again(True)]
    assert sorted(type(x).__name__.lower() for x in steps) == sorted(setup_steps.kind_names())
    for step in steps:
        d = setup_steps.to_dict(step)
        assert d["words"] == setup_steps.words(step) and d["reply"] in (setup_steps.ENTER, setup_steps.NUMBER, setup_steps.SIDE, setup_steps.VOLTS, setup_steps.YES_NO,
                                                               setup_steps.NOTHING)
        json.dumps(d)


def run(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(args))
    return code, out.getvalue(), err.getvalue()


def test_check_says_in_one_line_when_the_board_breaks_the_protocol() -> None:
    def handler(dev: FakeDevice, req: dict[str, Any]) -> None:
        if req["cmd"] == "read":
            dev.reply(req, raw="heavy", beam=False)  # a string where a reading belongs
        else:
            dev.idle_shuffler(req)

    dev = FakeDevice(handler)
    try:
        code, out, err = run("check", "--port", dev.port)
    finally:
        dev.close()
    assert code != 0 and out == ""
    assert err.count("\n") == 1 and "broke the protocol" in err and "raw" in err


def test_check_without_a_port_and_on_a_silent_port_say_so_in_one_line(tmp_path) -> None:
    code, _, err = run("check")
    assert code != 0 and "no port given" in err
    silent = FakeDevice(lambda dev, req: None)
    try:
        code, _, err = run("check", "--port", silent.port)
    finally:
        silent.close()
    assert code != 0 and err.count("\n") == 1 and "shuffler flash" in err


def lines(s: check.Snapshot) -> dict[str, str]:
    return {f.part: f.line("esp32") for f in check.findings(s)}


def test_each_line_says_what_was_read_now_and_ready_names_what_was_not_tried() -> None:
    # A set-up board read at rest: a dead pad and a beam with no receiver
    # would read so too, so the parts a touch or a feed tries are named as
    # not tried now, each with the option that tries it.
    s = snap(sensors={"card_ms": 0}, status_uptime=0)
    found = check.findings(s)
    by = {f.part: f for f in found}
    assert ready(found)
    assert verdict_line(found) == ("ready to shuffle, as far as read now; not tried now: touch pad "
                                   "(`shuffler check --watch`); exit beam and feed motor (DRV8833) "
                                   "(`shuffler check --feed`)")
    assert (by[protocol.PART_TOUCH].untried, by[protocol.PART_EXIT].untried, by[protocol.PART_MOTOR].untried) == \
        ("shuffler check --watch", "shuffler check --feed", "shuffler check --feed")
    for part in (protocol.PART_TOUCH, protocol.PART_EXIT, protocol.PART_MOTOR):
        assert "at set-up" in by[part].line("esp32") and "now (`shuffler check --" in by[part].line("esp32")
    for part in (protocol.PART_STACK, protocol.PART_BATTERY, protocol.PART_TOUCH):
        assert " now" in by[part].value, by[part].value
    # Touched while watching and a card fed now: everything was tried now.
    tried = snap(sensors={"touches": 2}, feed={"ev": "done", "k": 1, "n": 1, "left": 1, "right": 0},
                 touches_before=1)
    assert verdict_line(check.findings(tried)) == "ready to shuffle"
    assert "a touch seen now" in lines(tried)[protocol.PART_TOUCH]
    assert "saw the 1 card fed now" in lines(tried)[protocol.PART_EXIT]


def test_learned_figures_say_since_when() -> None:
    s = snap(sensors={"card_ms": 28}, status_uptime=3_725_000)
    assert "since the board started 1:02:05 ago (a card 28 ms in the beam)" in lines(s)[protocol.PART_EXIT]
    assert "a card 28 ms in the beam since the board started 1:02:05 ago" in lines(s)[protocol.PART_MOTOR]


def test_no_two_lines_contradict_on_a_board_whose_beam_was_never_confirmed_after_a_pass() -> None:
    # Cards went through since the start: the beam saw them, whatever set-up did not store.
    s = snap(sensors={"card_ms": 28}, cal={k: v for k, v in CAL.items() if k not in ("beam_ms", "flip")})
    beam, motor = lines(s)[protocol.PART_EXIT], lines(s)[protocol.PART_MOTOR]
    assert beam.startswith("ok") and "no card seen" not in beam and "a card 28 ms in the beam" in beam, beam
    assert motor.startswith("FAIL") and "which way it deals was never confirmed" in motor, motor


def test_a_feed_that_was_refused_is_said_and_judges_nothing() -> None:
    refused = check.Refused.of({"re": "feed", "ok": False, "err": protocol.E_REFUSED, "fault": protocol.FAULT_EMPTY})
    by = {f.part: f for f in check.findings(snap(feed=refused))}
    for part in (protocol.PART_EXIT, protocol.PART_MOTOR):
        assert by[part].verdict == SKIP and by[part].line("esp32").endswith(
            "the board refused the feed: the tray is empty"), by[part]


def test_a_latched_fault_names_the_command_that_clears_it() -> None:
    f = {x.part: x for x in check.findings(snap(state="alarm"))}[STATE]
    assert f.verdict == FAIL and "`shuffler check --clear`" in f.diagnosis
