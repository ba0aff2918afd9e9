"""What `shuffler check` and `shuffler setup` find about each part, from the
board's answers: a finding a part, judged by its records (what was read, what
a working one reads, why: host/finding_records.py; their words, and the
command's one-line refusals, are tests/host/test_finding_words.py's), its
wiring row where the part does not answer, ready only with nothing failed;
and the set-up's steps worded once."""
from __future__ import annotations

import contextlib
import io
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from firmware import protocol
from host import check, fault_catalogue
from host import finding_records as rec
from host import setup_steps
from host import wiring
from host.cli import main
from host.parts import FAIL, OK, PARTS, SKIP, STATE, ready, verdict
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


@pytest.mark.parametrize("sensors, cal, part, read, why, gpio", [
    ({"raw": None, "spread": None, "n": None}, None, protocol.PART_STACK, rec.NoAnswer(), rec.HX711Silent(),
     "hx711_dout (GPIO 16"),
    ({"n": -12}, None, protocol.PART_STACK, rec.StackRead(84000 + 30 * 760, 200, -12), rec.StackBelowEmpty(),
     "hx711_dout (GPIO 16"),
    ({"beam": True}, None, protocol.PART_EXIT, rec.BeamAtRest(blocked=True), rec.BeamBlocked(), "exit (GPIO 34"),
    ({"card_ms": 0}, {"beam_ms": None}, protocol.PART_EXIT, rec.BeamAtRest(blocked=False),
     rec.NoCardSeen(check.FEED), "exit (GPIO 34"),
    ({"touch": 0}, None, protocol.PART_TOUCH, rec.TouchRead(0, False), rec.PadSilent(), "touch (GPIO 4"),
    ({}, {"touch_seen": None}, protocol.PART_TOUCH, rec.TouchRead(800, False), rec.TouchUnconfirmed(check.WATCH),
     "touch (GPIO 4"),
    ({"mv": 1200}, None, protocol.PART_BATTERY, rec.BatteryRead(1200), rec.BatteryDivider(), "battery_adc (GPIO 35"),
])
def test_a_part_that_does_not_answer_is_named_with_its_wiring_row(sensors, cal, part, read, why, gpio) -> None:
    c = None if cal is None else {k: v for k, v in dict(CAL, **cal).items() if v is not None}
    f = by_part(snap(sensors=sensors, cal=c))[part]
    assert (f.verdict, f.read, f.why, f.wiring) == (FAIL, read, why, True), f
    assert gpio in f.advice("esp32") and gpio in f.line("esp32") and "\n" not in f.line("esp32")


def test_the_motor_s_direction_must_be_confirmed_and_a_flip_is_said() -> None:
    assert by_part(snap(cal={k: v for k, v in CAL.items() if k != "flip"}))[protocol.PART_MOTOR].verdict == FAIL
    assert by_part(snap(cal={k: v for k, v in CAL.items() if k != "flip"}))[protocol.PART_MOTOR].why == \
        rec.DirectionUnconfirmed()
    flipped = by_part(snap(cal=dict(CAL, flip=1)))[protocol.PART_MOTOR]
    assert flipped.verdict == OK and flipped.why == rec.Direction(1, check.FEED) and flipped.read.flip == 1


@pytest.mark.battery
def test_a_battery_too_low_for_a_full_pass_is_not_ready() -> None:
    low = by_part(snap(sensors={"mv": 6800}))[protocol.PART_BATTERY]
    assert (low.verdict, low.read, low.why) == (FAIL, rec.BatteryRead(6800, None), rec.BatteryTooLow())
    assert low.working == rec.FullPass(low.working.mv) and low.working.mv > 6800
    soon = by_part(snap(sensors={"mv": 7100}))[protocol.PART_BATTERY]
    assert (soon.verdict, soon.why) == ("warn", rec.BatteryLow())
    assert ready(check.findings(snap(sensors={"mv": 7100})))


@pytest.mark.exit_sensor
def test_a_feed_the_beam_did_not_see_is_the_receiver() -> None:
    fed = {"ev": "fault", "code": protocol.FAULT_SENSOR, "part": protocol.PART_EXIT, "why": protocol.WHY_MISSED, "out": 3}
    f = by_part(snap(feed=fed))[protocol.PART_EXIT]
    assert (f.verdict, f.read, f.why, f.wiring) == (FAIL, rec.BeamMissedFed(3), rec.BeamSilent(), True)
    saw_one = by_part(snap(feed=dict(fed, k=1)))[protocol.PART_EXIT]  # the beam saw one: the board's own count
    assert (saw_one.verdict, saw_one.why) == (FAIL, rec.BeamSilent())
    assert isinstance(saw_one.read, rec.BeamFeedEnded) and (saw_one.read.end.out, saw_one.read.end.k) == (3, 1)
    blocked = dict(fed, why=protocol.WHY_BLOCKED, out=1)
    assert by_part(snap(feed=blocked))[protocol.PART_EXIT].why == rec.BeamStaysBlocked()
    jam = by_part(snap(feed={"ev": "fault", "code": protocol.FAULT_JAM}))[protocol.PART_MOTOR]
    assert (jam.verdict, jam.read, jam.why, jam.wiring) == (FAIL, rec.NoCardReached(), rec.RollerStill(), True)


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


def test_each_finding_says_what_was_read_now_and_ready_names_what_was_not_tried() -> None:
    # A set-up board read at rest: a dead pad and a beam with no receiver
    # would read so too, so the parts a touch or a feed tries are named as
    # not tried now, each with the option that tries it, and as remembered
    # from set-up.
    s = snap(sensors={"card_ms": 0}, status_uptime=0)
    found = check.findings(s)
    by = {f.part: f for f in found}
    assert ready(found)
    assert verdict(found) == rec.Ready(((check.WATCH, (protocol.PART_TOUCH,)),
                                        (check.FEED, (protocol.PART_EXIT, protocol.PART_MOTOR))))
    assert (by[protocol.PART_TOUCH].untried, by[protocol.PART_EXIT].untried, by[protocol.PART_MOTOR].untried) == \
        ("shuffler check --watch", "shuffler check --feed", "shuffler check --feed")
    assert by[protocol.PART_TOUCH].why == rec.TouchConfirmed(check.WATCH, watching=False)
    assert by[protocol.PART_EXIT].why == rec.CardsSeenAtSetUp(CAL["beam_ms"], check.FEED)
    assert by[protocol.PART_MOTOR].why == rec.Direction(0, check.FEED)
    # What the load cell, the battery and the pad read now.
    assert by[protocol.PART_STACK].read == rec.StackRead(HEALTHY["raw"], 200, 30, CAL["tare"], CAL["per_card"])
    assert by[protocol.PART_BATTERY].read == rec.BatteryRead(9000, None)
    assert by[protocol.PART_TOUCH].read == rec.TouchRead(800, False)
    # Touched while watching and a card fed now: everything was tried now.
    tried = by_part(snap(sensors={"touches": 2}, feed={"ev": "done", "k": 1, "n": 1, "left": 1, "right": 0},
                         touches_before=1))
    assert verdict(list(tried.values())) == rec.Ready(())
    assert tried[protocol.PART_TOUCH].why == rec.TouchSeenNow()
    assert (tried[protocol.PART_EXIT].read, tried[protocol.PART_EXIT].why) == (rec.BeamSawFed(1), rec.CountsEveryCard())
    assert (tried[protocol.PART_MOTOR].read, tried[protocol.PART_MOTOR].why) == \
        (rec.MotorRead(33, fed=1, flip=0), rec.Direction(0))
    # Watching, with no touch yet: the touch may come.
    watching = by_part(snap(touches_before=1))[protocol.PART_TOUCH]
    assert (watching.why, watching.untried) == (rec.TouchConfirmed(check.WATCH, watching=True), check.WATCH)


def test_learned_figures_say_since_when() -> None:
    by = by_part(snap(sensors={"card_ms": 28}, status_uptime=3_725_000))
    assert by[protocol.PART_EXIT].why == rec.CardsSeen(28, 3725, check.FEED)
    assert by[protocol.PART_MOTOR].read == rec.MotorRead(28, since_s=3725, flip=0)


def test_no_two_findings_contradict_on_a_board_whose_beam_was_never_confirmed_after_a_pass() -> None:
    # Cards went through since the start: the beam saw them, whatever set-up did not store.
    by = by_part(snap(sensors={"card_ms": 28}, cal={k: v for k, v in CAL.items() if k not in ("beam_ms", "flip")}))
    beam, motor = by[protocol.PART_EXIT], by[protocol.PART_MOTOR]
    assert (beam.verdict, beam.why) == (OK, rec.CardsSeen(28, 60, check.FEED)), beam
    assert (motor.verdict, motor.read, motor.why) == (FAIL, rec.MotorRead(28, since_s=60), rec.DirectionUnconfirmed())


def test_a_feed_that_was_refused_is_said_and_judges_nothing() -> None:
    reply = {"re": "feed", "ok": False, "err": protocol.E_REFUSED, "fault": protocol.FAULT_EMPTY}
    by = by_part(snap(feed=check.Refused.of(reply)))
    assert (by[protocol.PART_EXIT].read, by[protocol.PART_MOTOR].read) == (rec.NotTried(), rec.NotRun())
    for part in (protocol.PART_EXIT, protocol.PART_MOTOR):
        assert (by[part].verdict, by[part].why) == (SKIP, rec.FeedRefused(reply)), by[part]


def test_a_feed_that_ended_otherwise_judges_nothing_and_says_how_it_ended() -> None:
    low = {"ev": "fault", "code": protocol.FAULT_BATTERY_LOW, "k": 0}
    by = by_part(snap(feed=low))
    beam, motor = by[protocol.PART_EXIT], by[protocol.PART_MOTOR]
    assert (beam.verdict, beam.read, motor.verdict, motor.read) == (SKIP, rec.NotTried(True), SKIP, rec.NotJudged())
    assert beam.why == rec.FeedEndedFirst(beam.why.end) and beam.why.end.code == protocol.FAULT_BATTERY_LOW
    assert motor.why == rec.FeedEndedFirst(beam.why.end, run=True)


def test_a_latched_fault_is_named_with_what_clears_it() -> None:
    s = check.Snapshot.of(hello={"fw": protocol.FIRMWARE_VERSION, "proto": protocol.PROTOCOL_VERSION,
                                 "board": "esp32", "capacity": 104, "cal": {"stack": "calibrated"}},
                          status={"state": "alarm", "fault": protocol.FAULT_SENSOR}, sensors=HEALTHY, cal=CAL)
    f = by_part(s)[STATE]
    assert (f.verdict, f.read, f.why) == (FAIL, rec.StateRead("alarm", protocol.FAULT_SENSOR),
                                          rec.FaultHeld(protocol.FAULT_SENSOR))
    assert f.diagnosis == fault_catalogue.advice(protocol.FAULT_SENSOR)  # the catalogue's advice, worded there
