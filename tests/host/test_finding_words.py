"""`shuffler check`'s words: each finding's record (host/finding_records.py)
rendered by host/finding_words.py says what a person reads, a finding's
line and the last line are put together from them, `--json` gives the words
beside the records, and the command's own refusals are one line. The
behaviour is tests/host/test_check*.py's (they assert on the records); the
sentences are this file's."""
from __future__ import annotations

import contextlib
import io
import json
from typing import Any

import pytest

from firmware import protocol
from host import check, device_messages, fault_catalogue, finding_words, wiring
from host import finding_records as rec
from host.cli import main
from host.parts import FAIL, OK, PARTS, SKIP, Finding, untried, verdict_line
from hosttest_support import FakeDevice

MISSED = device_messages.event_view({"ev": "fault", "code": protocol.FAULT_SENSOR, "part": protocol.PART_EXIT,
                                     "why": protocol.WHY_MISSED, "out": 3, "k": 1})
LOW = device_messages.event_view({"ev": "fault", "code": protocol.FAULT_BATTERY_LOW, "k": 0})
EMPTY = {"re": "feed", "ok": False, "err": protocol.E_REFUSED, "fault": protocol.FAULT_EMPTY}

READ = [
    (rec.FirmwareRead("0.9.0", 4, "esp32"), "0.9.0, protocol 4, board esp32"),
    (rec.StateRead("alarm", protocol.FAULT_SENSOR), "alarm (sensor latched)"),
    (rec.StateRead("paused", protocol.FAULT_JAM), "paused (jam)"),
    (rec.StateRead("idle"), "idle"),
    (rec.NoAnswer(), "no answer"),
    (rec.StackRead(106800, 200), "raw 106800, spread 200"),
    (rec.StackRead(60000, 200, -12), "-12 cards now (raw 60000, spread 200)"),
    (rec.StackRead(84760, 200, 1), "1 card now (raw 84760, spread 200)"),
    (rec.StackRead(106800, 200, 30, 84000, 760), "30 cards now (raw 106800, spread 200; tare 84000, 760 a card, stored)"),
    (rec.StackRead(70000, 200, below_tare=14000), "raw 70000, spread 200, 14000 below its empty-tray tare"),
    (rec.TouchRead(800, False), "reads 800 now"),
    (rec.TouchRead(1, True), "reads 1 now, touched"),
    (rec.BeamAtRest(blocked=True), "blocked at rest now"),
    (rec.BeamAtRest(blocked=False), "clear at rest now"),
    (rec.BeamSawFed(1), "clear at rest; saw the 1 card fed now"),
    (rec.BeamMissedFed(3), "clear at rest now; the feed: 3 cards left the tray and the beam saw none"),
    (rec.BeamFeedEnded(MISSED), "clear at rest now; the feed: the exit beam missed 3 cards that left the tray"),
    (rec.NotTried(), "not tried now"),
    (rec.NotTried(feed_ended=True), "not tried now: the feed ended first"),
    (rec.NoCardReached(), "no card reached the beam now"),
    (rec.NotRun(), "not run now"),
    (rec.NotJudged(), "not judged"),
    (rec.MotorRead(33, fed=1, flip=0), "fed 1 card now, a card 33 ms in the beam, flip 0"),
    (rec.MotorRead(28, since_s=3725), "a card 28 ms in the beam since the board started 1:02:05 ago"),
    (rec.MotorRead(0, flip=1), "no card through the beam since the board started, flip 1"),
    (rec.BatteryRead(9000), "9.00 V now"),
    (rec.BatteryRead(8400, 1013), "8.40 V now (trimmed to a meter by +1.3 % at set-up)"),
]

WORKING = [
    (rec.ThisToolsFirmware("0.9.1"), "this tool's 0.9.1"),
    (rec.SettingsReadable(), "its settings files readable"),
    (rec.Idle(), "idle"),
    (rec.ReadingRate(80), "a reading 80 times a second"),
    (rec.RawRange(1000, 16000000), "1000 to 16000000"),
    (rec.CardsOrMore(), "0 cards or more"),
    (rec.CardsOrMore(steady=True), "0 cards or more, a spread under half a card"),
    (rec.SpreadUnder(380), "a spread under half a card (380)"),
    (rec.TareOrMore(), "the tare or more"),
    (rec.CalibratedCount(), "a calibrated count"),
    (rec.TouchDigital(), "0 at rest, 1 touched"),
    (rec.TouchBaseline(300, 1500), "300 to 1500 at rest, falling when touched"),
    (rec.BeamWorks(), "clear at rest, blocked by each card"),
    (rec.CardTime(33), "a card about 33 ms in the beam (hardware/mechanism.py at the battery's voltage)"),
    (rec.FullPass(7200), "7.20 V or more for a full pass"),
    (rec.VoltsRange(3000, 13000), "3.00 V to 13.00 V"),
    (rec.NothingExpected(), "-"),
]

WHY = [
    (rec.BadSettings(protocol.BAD_CAL_DAMAGED), "cal.json (the calibration) is damaged (not readable JSON): the "
     "board runs uncalibrated until `shuffler setup` stores a new one over it"),
    (rec.UpToDate(), "up to date"),
    (rec.FlashOffered(), "`shuffler flash` brings this tool's firmware (the calibration stays)"),
    (rec.NothingLatched(), "nothing latched"),
    (rec.HX711Silent(), "the HX711 does not answer (its DOUT never goes low)"),
    (rec.StackClipped(), "the reading is clipped: a load cell wire is open"),
    (rec.StackBelowEmpty(), "it reads fewer than no cards: the reading falls as cards go on (its signal wires A+ and "
     "A- swapped), or the tare was taken with cards in the tray"),
    (rec.StackNoisy(), "noisy: keep the tray still; a loose load cell wire"),
    (rec.Calibrated(), "calibrated"),
    (rec.FactoryCalibrated(), "the board's factory calibration"),
    (rec.StackSwapped(), "the reading falls as cards go on: its signal wires A+ and A- are swapped"),
    (rec.NotCalibrated(), "not calibrated: run `shuffler setup`"),
    (rec.PadSilent(), "no pad answers (a broken lead, or a short)"),
    (rec.TouchSeenNow(), "a touch seen now"),
    (rec.TouchConfirmed(check.WATCH, watching=False),
     "a touch confirmed at set-up, none tried now (`shuffler check --watch`: touch it)"),
    (rec.TouchConfirmed(check.WATCH, watching=True), "a touch confirmed at set-up; none seen yet: touch the pad"),
    (rec.TouchUnconfirmed(check.WATCH), "no touch confirmed: touch it during `shuffler check --watch`, or run "
     "`shuffler setup`; one that never answers a touch"),
    (rec.BeamBlocked(), "blocked with no card fed: a card in the exit, or the emitter has no power"),
    (rec.BeamSilent(), "cards left the tray unseen: the receiver does not answer"),
    (rec.BeamStaysBlocked(), "it stays blocked: the emitter or its power"),
    (rec.CountsEveryCard(), "counts every card"),
    (rec.FeedRefused(EMPTY), "the board refused the feed: the tray is empty"),
    (rec.FeedEndedFirst(LOW), "the feed: the battery is too low for the motor to deal"),
    (rec.FeedEndedFirst(LOW, run=True), "not run: the feed: the battery is too low for the motor to deal"),
    (rec.CardsSeen(28, 3725, check.FEED), "saw cards since the board started 1:02:05 ago (a card 28 ms in the "
     "beam), none fed now (`shuffler check --feed`)"),
    (rec.CardsSeenAtSetUp(27, check.FEED),
     "saw cards at set-up (27 ms a card in the beam), none fed now (`shuffler check --feed`)"),
    (rec.NoCardSeen(check.FEED), "no card seen through it: `shuffler check --feed` with cards in the tray, or run "
     "`shuffler setup` (cards that leave unseen: the receiver)"),
    (rec.RollerStill(), "no card reached the beam with every card still in the tray: the motor does not turn the "
     "roller (its driver, its wires, a slipping roller)"),
    (rec.DirectionAwaitsBeam(), "which way it deals is judged once the beam counts the cards"),
    (rec.MotorSlow(), "slower than the mechanism: a worn roller, a stiff card or a low battery"),
    (rec.DirectionUnconfirmed(), "which way it deals was never confirmed: run `shuffler setup` (a motor wired the "
     "other way round deals every card to the wrong pile)"),
    (rec.Direction(0), "turns the right way (confirmed at set-up)"),
    (rec.Direction(0, check.FEED), "turns the right way (confirmed at set-up), not run now (`shuffler check --feed`)"),
    (rec.Direction(1), "wired the other way round; the stored flip turns it, so left is the person's left"),
    (rec.BatteryDivider(), "no battery reads so: its divider"),
    (rec.BatteryTooLow(), "too low for a full pass: replace it"),
    (rec.BatteryLow(), "low: replace it soon"),
    (rec.BatteryGood(), "good for a full pass"),
]
VERDICTS = (rec.Ready, rec.NotReady)  # worded as the last line, below
CATALOGUED = (rec.FaultHeld,)  # worded by the fault catalogue, below


@pytest.mark.parametrize("record, said", READ + WORKING + WHY)
def test_each_record_says_what_a_person_reads(record: Any, said: str) -> None:
    assert finding_words.words(record) == said
    json.dumps(finding_words.as_dict(record))  # --json carries it as it is


def test_every_kind_a_finding_says_is_worded_here() -> None:
    shown = {type(r) for r, _ in READ + WORKING + WHY}
    assert shown | set(VERDICTS) | set(CATALOGUED) == {getattr(rec, name) for name in rec.__all__}
    with pytest.raises(TypeError):
        finding_words.words(rec.Ready())


def test_a_latched_fault_is_advised_in_the_catalogue_s_words_with_the_command_that_clears_it() -> None:
    for code in (protocol.FAULT_SENSOR, protocol.FAULT_JAM):
        said = finding_words.words(rec.FaultHeld(code))
        assert said == fault_catalogue.advice(code) and "`shuffler check --clear`" in said


def test_a_finding_s_line_names_its_part_what_a_working_one_reads_and_its_wiring_rows() -> None:
    beam = Finding(protocol.PART_EXIT, FAIL, rec.BeamMissedFed(2), rec.BeamWorks(), rec.BeamSilent(), wiring=True)
    assert beam.line("esp32") == (
        "FAIL exit beam: clear at rest now; the feed: 2 cards left the tray and the beam saw none (a working one: "
        "clear at rest, blocked by each card): cards left the tray unseen: the receiver does not answer; "
        + wiring.rows("esp32", ("exit", "sensor_power")))
    assert wiring.rows("esp32", ("exit", "sensor_power")).startswith("check hardware/wiring-esp32.md, rows exit (GPIO 34")
    motor = Finding(protocol.PART_MOTOR, SKIP, rec.NotRun(), rec.NothingExpected(), rec.FeedRefused(EMPTY))
    assert motor.line("esp32") == "--   feed motor (DRV8833): not run now: the board refused the feed: the tray is empty"
    state = Finding("state", OK, rec.StateRead("idle"), rec.Idle(), rec.NothingLatched())
    assert state.line("rp2") == "ok   state: idle (a working one: idle): nothing latched"
    # A finding `shuffler setup` words itself keeps its words.
    own = Finding(protocol.PART_STACK, FAIL, "moving", "a steady reading", "the reading does not settle")
    assert own.line("esp32") == "FAIL load cell (HX711): moving (a working one: a steady reading): the reading " \
        "does not settle"


def test_the_last_line_says_ready_or_not_and_names_what_was_not_tried() -> None:
    at_rest = [Finding(protocol.PART_TOUCH, OK, rec.TouchRead(800, False), rec.TouchDigital(),
                       rec.TouchConfirmed(check.WATCH, False), untried=check.WATCH),
               Finding(protocol.PART_EXIT, OK, rec.BeamAtRest(False), rec.BeamWorks(),
                       rec.CardsSeenAtSetUp(27, check.FEED), untried=check.FEED),
               Finding(protocol.PART_MOTOR, OK, rec.MotorRead(0, flip=0), rec.CardTime(33),
                       rec.Direction(0, check.FEED), untried=check.FEED)]
    assert verdict_line(at_rest) == ("ready to shuffle, as far as read now; not tried now: touch pad "
                                     "(`shuffler check --watch`); exit beam and feed motor (DRV8833) "
                                     "(`shuffler check --feed`)")
    tried = [Finding(protocol.PART_TOUCH, OK, rec.TouchRead(800, False), rec.TouchDigital(), rec.TouchSeenNow())]
    assert verdict_line(tried) == "ready to shuffle"
    failed = [*at_rest, Finding(protocol.PART_BATTERY, FAIL, rec.BatteryRead(1200), rec.VoltsRange(3000, 13000),
                                rec.BatteryDivider(), wiring=True)]
    assert verdict_line(failed) == "not ready to shuffle: see the lines marked FAIL"
    assert untried(failed) == "touch pad (`shuffler check --watch`); exit beam and feed motor (DRV8833) " \
                              "(`shuffler check --feed`)"


def test_json_gives_each_finding_s_words_beside_its_records() -> None:
    f = Finding(protocol.PART_EXIT, FAIL, rec.BeamFeedEnded(MISSED), rec.BeamWorks(), rec.BeamSilent(), wiring=True)
    d = json.loads(json.dumps(f.to_dict("esp32")))
    assert d["value"] == "clear at rest now; the feed: the exit beam missed 3 cards that left the tray"
    assert d["diagnosis"].startswith("cards left the tray unseen: the receiver does not answer; check hardware/")
    assert (d["name"], d["verdict"], d["why"], d["working"]) == (PARTS["exit"].name, FAIL, {"kind": "BeamSilent"},
                                                                 {"kind": "BeamWorks"})
    assert d["read"]["kind"] == "BeamFeedEnded" and d["read"]["end"]["out"] == 3 and d["read"]["end"]["k"] == 1
    own = Finding(protocol.PART_STACK, FAIL, "moving", "a steady reading", "the reading does not settle")
    assert (own.to_dict("esp32")["read"], own.to_dict("esp32")["value"]) == (None, "moving")


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


def test_check_without_a_port_and_on_a_silent_port_say_so_in_one_line() -> None:
    code, _, err = run("check")
    assert code != 0 and err.count("\n") == 1 and "no port given" in err
    silent = FakeDevice(lambda dev, req: None)
    try:
        code, _, err = run("check", "--port", silent.port)
    finally:
        silent.close()
    assert code != 0 and err.count("\n") == 1 and "shuffler flash" in err
