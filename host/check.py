"""What the board's answers say about each part: pure functions from the
replies of `hello`, `status` and `read` (the sensors and the stored
calibration), and of an optional `feed`, to one finding a part
(host/parts.py). `shuffler check` prints them; `shuffler setup` judges its
steps with the same functions. Every answer is read as its typed record
(host/device_messages.py): a field the board left out is None.

Each finding says what was read now and what is remembered: from set-up
(the stored calibration), or since the board started (what it learned from
the cards it dealt). A part that only a touch or a feed tries, not tried
now, is named with the option of `shuffler check` that tries it (its
`untried`). What each finding says is a record (host/finding_records.py),
worded once in host/finding_words.py."""
from __future__ import annotations

import importlib
from dataclasses import dataclass, field, replace
from typing import Any

from firmware import protocol
from hardware import mechanism
from host import device_messages, device_words, finding_words
from host.finding_records import *  # noqa: F403 - every kind a finding says
from host.parts import FAIL, FIRMWARE, OK, SKIP, STATE, WARN, Finding

WATCH = "shuffler check --watch"  # tries the touch pad now
FEED = "shuffler check --feed"  # tries the exit beam and the motor now
CLEAR = "shuffler check --clear"  # clears a latched fault
HX711_RATE = 80  # the HX711's readings a second


def profile(board: str) -> dict[str, Any]:
    """The board's profile (its plausible ranges); the simulated board's for one this tool does not know."""
    name = board if board in ("esp32", "rp2", "sim") else "sim"
    return dict(importlib.import_module(f"firmware.profile_{name}").PROFILE)


@dataclass(frozen=True)
class Refused:
    """A feed the board refused: its refusal's fields."""

    reply: dict[str, Any] = field(hash=False)

    @classmethod
    def of(cls, reply: dict[str, Any]) -> "Refused":
        return cls(dict(reply))

    @property
    def words(self) -> str:
        """The refusal in one clause (why, else the fault, else the error)."""
        return finding_words.refusal_words(self.reply)


@dataclass(frozen=True)
class Snapshot:
    """Everything the board answered, at one moment, as typed records."""

    hello: Any  # the hello reply's record (HelloReply)
    status: Any  # StatusReply
    sensors: Any  # ReadReply of `read`
    cal: Any  # CalObject of `read` what=cal (every field None: nothing stored)
    feed: Any = None  # the feed's end: its Done or Fault event record, or Refused
    touches_before: int | None = None  # --watch: the touch count when the watch began

    @classmethod
    def of(cls, hello: dict[str, Any], status: dict[str, Any], sensors: dict[str, Any], cal: dict[str, Any] | None,
           feed: dict[str, Any] | Refused | None = None, touches_before: int | None = None) -> "Snapshot":
        """From the board's answers as they came (the messages' fields)."""
        if isinstance(feed, dict):
            feed = device_messages.event_view(feed)
        return cls(device_messages.hello_view(hello), device_messages.reply_record(protocol.CMD_STATUS, status),
                   device_messages.reply_record(protocol.CMD_READ, sensors),
                   device_messages.object_record("cal", cal or {}), feed, touches_before)

    @property
    def board(self) -> str:
        return str(self.hello.board or "sim")

    def fed(self, ev: str) -> bool:
        """Whether the feed ended with event `ev`."""
        return ended(self.feed, ev)


def ended(end: Any, ev: str) -> bool:
    """Whether a feed's end (an event record, Refused or None) is event `ev`."""
    return end is not None and not isinstance(end, Refused) and device_messages.is_event(end, ev)


def uptime_s(s: Snapshot) -> int:
    """How long ago the board started, in seconds (what `read`'s learned figures are since)."""
    return (s.status.uptime_ms or 0) // 1000


def firmware(s: Snapshot) -> Finding:
    h = s.hello
    read = FirmwareRead(h.fw, h.proto, h.board)
    bad = h.bad if isinstance(h.bad, int) and not isinstance(h.bad, bool) else 0
    if any(bad & bit for bit, _, _ in device_words.BAD_FILES):
        # the firmware runs without a settings file it found unusable: never silently
        return Finding(FIRMWARE, WARN, read, SettingsReadable(), BadSettings(bad))
    if h.fw == protocol.FIRMWARE_VERSION:
        return Finding(FIRMWARE, OK, read, ThisToolsFirmware(protocol.FIRMWARE_VERSION), UpToDate())
    return Finding(FIRMWARE, WARN, read, ThisToolsFirmware(protocol.FIRMWARE_VERSION), FlashOffered())


def state(s: Snapshot) -> Finding:
    st, fault = s.status.state, s.status.fault
    if st == protocol.ST_ALARM:
        return Finding(STATE, FAIL, StateRead(st, fault), Idle(), FaultHeld(fault))
    if st == protocol.ST_PAUSED:
        return Finding(STATE, WARN, StateRead(st, fault), Idle(), FaultHeld(fault))
    return Finding(STATE, OK, StateRead(st), Idle(), NothingLatched())


def stack(s: Snapshot) -> Finding:
    p, r = profile(s.board), s.sensors
    lo, hi = p["stack_raw_min"], p["stack_raw_max"]
    if r.raw is None:
        return Finding(protocol.PART_STACK, FAIL, NoAnswer(), ReadingRate(HX711_RATE), HX711Silent(), wiring=True)
    raw, spread = r.raw, r.spread or 0
    if not lo <= raw <= hi:
        return Finding(protocol.PART_STACK, FAIL, StackRead(raw, spread), RawRange(lo, hi), StackClipped(),
                       wiring=True)
    n = r.n or 0
    if n < 0:
        return Finding(protocol.PART_STACK, FAIL, StackRead(raw, spread, n), CardsOrMore(), StackBelowEmpty(),
                       wiring=True)
    return _stack_count(s, raw, spread, n)


def _stack_count(s: Snapshot, raw: int, spread: int, n: int) -> Finding:
    """A plausible reading of no fewer than no cards, judged by the calibration it counts by."""
    tare, per_card = s.cal.tare, s.cal.per_card
    if isinstance(tare, int) and isinstance(per_card, int):
        read = StackRead(raw, spread, n, tare, per_card)
        if spread > per_card // 2:
            return Finding(protocol.PART_STACK, WARN, read, SpreadUnder(per_card // 2), StackNoisy(), wiring=True)
        return Finding(protocol.PART_STACK, OK, read, CardsOrMore(steady=True), Calibrated())
    if s.hello.cal is not None and s.hello.cal.stack == "factory":
        return Finding(protocol.PART_STACK, OK, StackRead(raw, spread, n), CardsOrMore(), FactoryCalibrated())
    if isinstance(tare, int) and raw < tare - max(4 * spread, 4 * profile(s.board)["stack_per_card_min"]):
        return Finding(protocol.PART_STACK, FAIL, StackRead(raw, spread, below_tare=tare - raw), TareOrMore(),
                       StackSwapped(), wiring=True)
    return Finding(protocol.PART_STACK, FAIL, StackRead(raw, spread), CalibratedCount(), NotCalibrated())


def touch(s: Snapshot) -> Finding:
    p, r, c = profile(s.board), s.sensors, s.cal
    raw = -1 if r.touch is None else r.touch
    working: TouchDigital | TouchBaseline
    if p["touch_kind"] == "digital":
        working, ok_now = TouchDigital(), raw in (0, 1)
    else:
        base = c.touch_baseline or raw
        working = TouchBaseline(p["touch_baseline_min"], p["touch_baseline_max"])
        ok_now = isinstance(base, int) and base // 20 < raw <= 2 * p["touch_baseline_max"]
    read = TouchRead(raw, bool(r.touched))
    if not ok_now:
        return Finding(protocol.PART_TOUCH, FAIL, read, working, PadSilent(), wiring=True)
    if s.touches_before is not None and (r.touches or 0) > s.touches_before:
        return Finding(protocol.PART_TOUCH, OK, read, working, TouchSeenNow())
    if c.touch_seen == 1:
        return Finding(protocol.PART_TOUCH, OK, read, working,
                       TouchConfirmed(WATCH, watching=s.touches_before is not None), untried=WATCH)
    return Finding(protocol.PART_TOUCH, FAIL, read, working, TouchUnconfirmed(WATCH), wiring=True)


def blind_feed(fed: Any) -> int:
    """Cards a feed let out of the tray with the beam seeing none of them
    (0 when it saw one, or none left): the motor ran its wait for a card
    while cards went by unseen."""
    if fed is None or isinstance(fed, Refused) or not device_messages.is_event(fed, protocol.EV_FAULT):
        return 0
    if fed.why in (protocol.WHY_MISSED, protocol.WHY_MISSING) and not fed.k:
        return int(fed.out or 0)
    return 0


def beam(s: Snapshot) -> Finding:
    if s.sensors.beam:
        return Finding(protocol.PART_EXIT, FAIL, BeamAtRest(blocked=True), BeamWorks(), BeamBlocked(), wiring=True)
    fed = s.feed
    if fed is None:
        return _beam_remembered(s)
    unseen = blind_feed(fed)
    if unseen:
        return Finding(protocol.PART_EXIT, FAIL, BeamMissedFed(unseen), BeamWorks(), BeamSilent(), wiring=True)
    if s.fed(protocol.EV_FAULT) and fed.part == protocol.PART_EXIT:
        why = BeamSilent() if fed.why == protocol.WHY_MISSED else BeamStaysBlocked()
        return Finding(protocol.PART_EXIT, FAIL, BeamFeedEnded(fed), BeamWorks(), why, wiring=True)
    if s.fed(protocol.EV_DONE):
        return Finding(protocol.PART_EXIT, OK, BeamSawFed(fed.k or 0), BeamWorks(), CountsEveryCard())
    if isinstance(fed, Refused):
        return Finding(protocol.PART_EXIT, SKIP, NotTried(), NothingExpected(), FeedRefused(fed.reply))
    return Finding(protocol.PART_EXIT, SKIP, NotTried(feed_ended=True), NothingExpected(), FeedEndedFirst(fed))


def _beam_remembered(s: Snapshot) -> Finding:
    """The beam with no card fed now: what it saw since the board started, or at set-up."""
    learned, at_set_up = s.sensors.card_ms or 0, s.cal.beam_ms
    clear = BeamAtRest(blocked=False)
    if learned:
        return Finding(protocol.PART_EXIT, OK, clear, BeamWorks(), CardsSeen(learned, uptime_s(s), FEED),
                       untried=FEED)
    if isinstance(at_set_up, int):
        return Finding(protocol.PART_EXIT, OK, clear, BeamWorks(), CardsSeenAtSetUp(at_set_up, FEED), untried=FEED)
    return Finding(protocol.PART_EXIT, FAIL, clear, BeamWorks(), NoCardSeen(FEED), wiring=True)


def expected_card_ms(s: Snapshot) -> int:
    p = profile(s.board)
    mv = s.sensors.mv or 0
    if not p["battery_min_mv"] <= mv <= p["battery_max_mv"]:
        mv = p["block_ref_mv"]  # a reading no battery gives says nothing of the motor's speed
    return int(mechanism.block_ms(mv, p["defaults"]["motor_duty"]))


def motor(s: Snapshot) -> Finding:
    working = CardTime(expected_card_ms(s))
    fed = s.feed
    if s.fed(protocol.EV_FAULT) and fed.code == protocol.FAULT_JAM:
        return Finding(protocol.PART_MOTOR, FAIL, NoCardReached(), working, RollerStill(), wiring=True)
    if isinstance(fed, Refused):
        return Finding(protocol.PART_MOTOR, SKIP, NotRun(), NothingExpected(), FeedRefused(fed.reply))
    if fed is not None and not s.fed(protocol.EV_DONE):
        beam_stopped = blind_feed(fed) or (s.fed(protocol.EV_FAULT) and fed.part == protocol.PART_EXIT)
        why = DirectionAwaitsBeam() if beam_stopped else FeedEndedFirst(fed, run=True)
        return Finding(protocol.PART_MOTOR, SKIP, NotJudged(), NothingExpected(), why)
    return _motor_judged(s, working)


def _motor_judged(s: Snapshot, working: CardTime) -> Finding:
    """The motor by its card time (fed now, or since the board started) and its stored direction."""
    learned = s.sensors.card_ms or 0
    fed_now = (s.feed.k or 0) if s.fed(protocol.EV_DONE) else None
    read = MotorRead(learned, fed_now, uptime_s(s) if learned and fed_now is None else None)
    if learned and learned * 10 > working.ms * 16:
        return Finding(protocol.PART_MOTOR, WARN, read, working, MotorSlow())
    flip = s.cal.flip
    if flip not in (0, 1):
        return Finding(protocol.PART_MOTOR, FAIL, read, working, DirectionUnconfirmed())
    read = replace(read, flip=flip)
    if fed_now is not None:
        return Finding(protocol.PART_MOTOR, OK, read, working, Direction(flip))
    return Finding(protocol.PART_MOTOR, OK, read, working, Direction(flip, FEED), untried=FEED)


def battery(s: Snapshot) -> Finding:
    p, r = profile(s.board), s.sensors
    mv = r.mv or 0
    need = p["battery_cutoff_mv"] + p["battery_sag_mv"] + (s.hello.capacity or 104) * p["battery_per_card_mv"]
    trim = s.cal.mv_trim
    read = BatteryRead(mv, trim if isinstance(trim, int) else None)
    if not p["battery_min_mv"] <= mv <= p["battery_max_mv"]:
        return Finding(protocol.PART_BATTERY, FAIL, read, VoltsRange(p["battery_min_mv"], p["battery_max_mv"]),
                       BatteryDivider(), wiring=True)
    if mv < need:
        return Finding(protocol.PART_BATTERY, FAIL, read, FullPass(need), BatteryTooLow())
    if mv < p["battery_warn_mv"]:
        return Finding(protocol.PART_BATTERY, WARN, read, FullPass(need), BatteryLow())
    return Finding(protocol.PART_BATTERY, OK, read, FullPass(need), BatteryGood())


def findings(s: Snapshot) -> list[Finding]:
    """One finding a part, in the order the parts are listed."""
    return [firmware(s), state(s), stack(s), touch(s), beam(s), motor(s), battery(s)]
