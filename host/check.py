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
`untried`)."""
from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any

from firmware import protocol
from hardware import mechanism
from host import device_messages, device_words, fault_catalogue
from host.parts import FAIL, FIRMWARE, OK, SKIP, STATE, WARN, Finding, volts

SETUP = "run `shuffler setup`"
WATCH = "shuffler check --watch"  # tries the touch pad now
FEED = "shuffler check --feed"  # tries the exit beam and the motor now
CLEAR = "shuffler check --clear"  # clears a latched fault


def profile(board: str) -> dict[str, Any]:
    """The board's profile (its plausible ranges); the simulated board's for one this tool does not know."""
    name = board if board in ("esp32", "rp2", "sim") else "sim"
    return dict(importlib.import_module(f"firmware.profile_{name}").PROFILE)


@dataclass(frozen=True)
class Refused:
    """A feed the board refused: the refusal, in one line."""

    words: str

    @classmethod
    def of(cls, reply: dict[str, Any]) -> "Refused":
        """From the board's refusal (an error reply): why, else the fault
        that refused it, else the error, in the host's words."""
        fault = reply.get("fault")
        words = (device_words.why_words(reply) or (device_words.fault_words(fault) if fault is not None else "")
                 or device_words.error_words(reply.get(protocol.F_ERR)))
        return cls(words[:1].lower() + words[1:].rstrip("."))


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


def since_start(s: Snapshot) -> str:
    """When the board started, as `read`'s learned figures need it said."""
    seconds = (s.status.uptime_ms or 0) // 1000
    return f"since the board started {seconds // 3600}:{seconds // 60 % 60:02}:{seconds % 60:02} ago"


def firmware(s: Snapshot) -> Finding:
    h = s.hello
    value = f"{h.fw}, protocol {h.proto}, board {h.board}"
    bad = device_words.bad_file_words(h.bad)
    if bad:  # the firmware runs without a settings file it found unusable: never silently
        return Finding(FIRMWARE, WARN, value, "its settings files readable", "; ".join(bad))
    if h.fw == protocol.FIRMWARE_VERSION:
        return Finding(FIRMWARE, OK, value, f"this tool's {protocol.FIRMWARE_VERSION}", "up to date")
    return Finding(FIRMWARE, WARN, value, f"this tool's {protocol.FIRMWARE_VERSION}",
                   "`shuffler flash` brings this tool's firmware (the calibration stays)")


def state(s: Snapshot) -> Finding:
    st = s.status.state
    fault = s.status.fault
    if st == protocol.ST_ALARM:
        return Finding(STATE, FAIL, f"alarm ({device_words.fault_name(fault)} latched)", "idle",
                       fault_catalogue.advice(fault))
    if st == protocol.ST_PAUSED:
        return Finding(STATE, WARN, f"paused ({device_words.fault_name(fault)})", "idle",
                       fault_catalogue.advice(fault))
    return Finding(STATE, OK, str(st), "idle", "nothing latched")


def stack(s: Snapshot) -> Finding:
    p, r, c = profile(s.board), s.sensors, s.cal
    lo, hi = p["stack_raw_min"], p["stack_raw_max"]
    if r.raw is None:
        return Finding(protocol.PART_STACK, FAIL, "no answer", "a reading 80 times a second",
                       "the HX711 does not answer (its DOUT never goes low)", wiring=True)
    raw, spread = r.raw, r.spread or 0
    read = f"raw {raw}, spread {spread}"
    if not lo <= raw <= hi:
        return Finding(protocol.PART_STACK, FAIL, read, f"{lo} to {hi}",
                       "the reading is clipped: a load cell wire is open", wiring=True)
    tare, per_card = c.tare, c.per_card
    n = r.n or 0
    if n < 0:
        return Finding(protocol.PART_STACK, FAIL, f"{n} cards now ({read})", "0 cards or more",
                       "it reads fewer than no cards: the reading falls as cards go on (its signal wires "
                       "A+ and A- swapped), or the tare was taken with cards in the tray", wiring=True)
    if isinstance(tare, int) and isinstance(per_card, int):
        value = f"{n} card{'s' * (n != 1)} now ({read}; tare {tare}, {per_card} a card, stored)"
        if spread > per_card // 2:
            return Finding(protocol.PART_STACK, WARN, value, f"a spread under half a card ({per_card // 2})",
                           "noisy: keep the tray still; a loose load cell wire", wiring=True)
        return Finding(protocol.PART_STACK, OK, value, "0 cards or more, a spread under half a card", "calibrated")
    if s.hello.cal is not None and s.hello.cal.stack == "factory":
        return Finding(protocol.PART_STACK, OK, f"{n} cards now ({read})", "0 cards or more",
                       "the board's factory calibration")
    if isinstance(tare, int) and raw < tare - max(4 * spread, 4 * p["stack_per_card_min"]):
        return Finding(protocol.PART_STACK, FAIL, f"{read}, {tare - raw} below its empty-tray tare", "the tare or more",
                       "the reading falls as cards go on: its signal wires A+ and A- are swapped", wiring=True)
    return Finding(protocol.PART_STACK, FAIL, read, "a calibrated count", f"not calibrated: {SETUP}")


def touch(s: Snapshot) -> Finding:
    p, r, c = profile(s.board), s.sensors, s.cal
    raw = -1 if r.touch is None else r.touch
    digital = p["touch_kind"] == "digital"
    if digital:
        plausible = "0 at rest, 1 touched"
        ok_now = raw in (0, 1)
    else:
        base = c.touch_baseline or raw
        plausible = f"{p['touch_baseline_min']} to {p['touch_baseline_max']} at rest, falling when touched"
        ok_now = isinstance(base, int) and base // 20 < raw <= 2 * p["touch_baseline_max"]
    value = f"reads {raw} now" + (", touched" if r.touched else "")
    if not ok_now:
        return Finding(protocol.PART_TOUCH, FAIL, value, plausible,
                       "no pad answers (a broken lead, or a short)", wiring=True)
    if s.touches_before is not None and (r.touches or 0) > s.touches_before:
        return Finding(protocol.PART_TOUCH, OK, value, plausible, "a touch seen now")
    if c.touch_seen == 1:
        if s.touches_before is not None:  # watching: the touch may come yet
            return Finding(protocol.PART_TOUCH, OK, value, plausible,
                           "a touch confirmed at set-up; none seen yet: touch the pad", untried=WATCH)
        return Finding(protocol.PART_TOUCH, OK, value, plausible,
                       f"a touch confirmed at set-up, none tried now (`{WATCH}`: touch it)", untried=WATCH)
    return Finding(protocol.PART_TOUCH, FAIL, value, plausible,
                   f"no touch confirmed: touch it during `{WATCH}`, or {SETUP}; "
                   "one that never answers a touch", wiring=True)


def blind_feed(fed: Any) -> int:
    """Cards a feed let out of the tray with the beam seeing none of them
    (0 when it saw one, or none left): the motor ran its wait for a card
    while cards went by unseen."""
    if fed is None or isinstance(fed, Refused) or not device_messages.is_event(fed, protocol.EV_FAULT):
        return 0
    if fed.why in (protocol.WHY_MISSED, protocol.WHY_MISSING) and not fed.k:
        return int(fed.out or 0)
    return 0


def feed_words(fed: Any) -> str:
    """What a feed that did not end in done says, in words."""
    if isinstance(fed, Refused):
        return fed.words
    return device_words.why_words(fed) or device_words.fault_words(fed.code)


def beam(s: Snapshot) -> Finding:
    r, c = s.sensors, s.cal
    plausible = "clear at rest, blocked by each card"
    if r.beam:
        return Finding(protocol.PART_EXIT, FAIL, "blocked at rest now", plausible,
                       "blocked with no card fed: a card in the exit, or the emitter has no power", wiring=True)
    fed = s.feed
    unseen = blind_feed(fed)
    if unseen:
        return Finding(protocol.PART_EXIT, FAIL, f"clear at rest now; the feed: {unseen} card{'s' * (unseen != 1)} "
                       "left the tray and the beam saw none", plausible,
                       "cards left the tray unseen: the receiver does not answer", wiring=True)
    if s.fed(protocol.EV_FAULT) and fed.part == protocol.PART_EXIT:
        return Finding(protocol.PART_EXIT, FAIL, f"clear at rest now; the feed: {feed_words(fed)}",
                       plausible, "cards left the tray unseen: the receiver does not answer"
                       if fed.why == protocol.WHY_MISSED else "it stays blocked: the emitter or its power",
                       wiring=True)
    if s.fed(protocol.EV_DONE):
        return Finding(protocol.PART_EXIT, OK, f"clear at rest; saw the {fed.k} card{'s' * (fed.k != 1)} fed now",
                       plausible, "counts every card")
    if isinstance(fed, Refused):
        return Finding(protocol.PART_EXIT, SKIP, "not tried now", "-", f"the board refused the feed: {fed.words}")
    if fed is not None:
        return Finding(protocol.PART_EXIT, SKIP, "not tried now: the feed ended first", "-",
                       f"the feed: {feed_words(fed)}")
    learned = r.card_ms or 0
    if learned:
        return Finding(protocol.PART_EXIT, OK, "clear at rest now", plausible,
                       f"saw cards {since_start(s)} (a card {learned} ms in the beam), none fed now (`{FEED}`)",
                       untried=FEED)
    if isinstance(c.beam_ms, int):
        return Finding(protocol.PART_EXIT, OK, "clear at rest now", plausible,
                       f"saw cards at set-up ({c.beam_ms} ms a card in the beam), none fed now (`{FEED}`)",
                       untried=FEED)
    return Finding(protocol.PART_EXIT, FAIL, "clear at rest now", plausible,
                   f"no card seen through it: `{FEED}` with cards in the tray, or {SETUP} (cards that leave "
                   "unseen: the receiver)", wiring=True)


def expected_card_ms(s: Snapshot) -> int:
    p = profile(s.board)
    mv = s.sensors.mv or 0
    if not p["battery_min_mv"] <= mv <= p["battery_max_mv"]:
        mv = p["block_ref_mv"]  # a reading no battery gives says nothing of the motor's speed
    return int(mechanism.block_ms(mv, p["defaults"]["motor_duty"]))


def direction(s: Snapshot) -> tuple[str, str] | None:
    """The motor's direction as stored at set-up: (its value, its words); None when never confirmed."""
    flip = s.cal.flip
    if flip == 1:
        return "flip 1", "wired the other way round; the stored flip turns it, so left is the person's left"
    if flip == 0:
        return "flip 0", "turns the right way (confirmed at set-up)"
    return None


def motor(s: Snapshot) -> Finding:
    r = s.sensors
    learned = r.card_ms or 0
    exp = expected_card_ms(s)
    plausible = f"a card about {exp} ms in the beam (hardware/mechanism.py at the battery's voltage)"
    fed = s.feed
    if s.fed(protocol.EV_FAULT) and fed.code == protocol.FAULT_JAM:
        return Finding(protocol.PART_MOTOR, FAIL, "no card reached the beam now", plausible,
                       "no card reached the beam with every card still in the tray: the motor does not turn "
                       "the roller (its driver, its wires, a slipping roller)", wiring=True)
    if isinstance(fed, Refused):
        return Finding(protocol.PART_MOTOR, SKIP, "not run now", "-", f"the board refused the feed: {fed.words}")
    if fed is not None and not s.fed(protocol.EV_DONE):
        return Finding(protocol.PART_MOTOR, SKIP, "not judged", "-",
                       "which way it deals is judged once the beam counts the cards" if blind_feed(fed)
                       or (s.fed(protocol.EV_FAULT) and fed.part == protocol.PART_EXIT)
                       else f"not run: the feed: {feed_words(fed)}")
    if s.fed(protocol.EV_DONE):
        value = f"fed {fed.k} card{'s' * (fed.k != 1)} now, a card {learned} ms in the beam"
    elif learned:
        value = f"a card {learned} ms in the beam {since_start(s)}"
    else:
        value = "no card through the beam since the board started"
    if learned and learned * 10 > exp * 16:
        return Finding(protocol.PART_MOTOR, WARN, value, plausible,
                       "slower than the mechanism: a worn roller, a stiff card or a low battery")
    way = direction(s)
    if way is None:
        return Finding(protocol.PART_MOTOR, FAIL, value, plausible,
                       f"which way it deals was never confirmed: {SETUP} (a motor wired the other way round "
                       "deals every card to the wrong pile)")
    if s.fed(protocol.EV_DONE):
        return Finding(protocol.PART_MOTOR, OK, f"{value}, {way[0]}", plausible, way[1])
    return Finding(protocol.PART_MOTOR, OK, f"{value}, {way[0]}", plausible, f"{way[1]}, not run now (`{FEED}`)",
                   untried=FEED)


def battery(s: Snapshot) -> Finding:
    p, r, c = profile(s.board), s.sensors, s.cal
    mv = r.mv or 0
    need = p["battery_cutoff_mv"] + p["battery_sag_mv"] + (s.hello.capacity or 104) * p["battery_per_card_mv"]
    plausible = f"{volts(need)} or more for a full pass"
    value = f"{volts(mv)} now"
    trim = c.mv_trim
    if isinstance(trim, int) and trim != 1000:
        value += f" (trimmed to a meter by {(trim - 1000) / 10:+.1f} % at set-up)"
    if not p["battery_min_mv"] <= mv <= p["battery_max_mv"]:
        return Finding(protocol.PART_BATTERY, FAIL, value, f"{volts(p['battery_min_mv'])} to {volts(p['battery_max_mv'])}",
                       "no battery reads so: its divider", wiring=True)
    if mv < need:
        return Finding(protocol.PART_BATTERY, FAIL, value, plausible, "too low for a full pass: replace it")
    if mv < p["battery_warn_mv"]:
        return Finding(protocol.PART_BATTERY, WARN, value, plausible, "low: replace it soon")
    return Finding(protocol.PART_BATTERY, OK, value, plausible, "good for a full pass")


def findings(s: Snapshot) -> list[Finding]:
    """One finding a part, in the order the parts are listed."""
    return [firmware(s), state(s), stack(s), touch(s), beam(s), motor(s), battery(s)]
