"""The one English wording of each finding's records (host/finding_records.py):
a function of its fields. `shuffler check` and `shuffler setup` print these
words (host/parts.py's Finding renders its line from them); `--json` gives
them beside the records; nothing parses them back."""
from __future__ import annotations

from dataclasses import fields, is_dataclass
from typing import Any, Callable, Mapping

from firmware import protocol
from host import device_words, fault_catalogue
from host.finding_records import *  # noqa: F403 - every record is worded here
from shuffling import steps as step_kinds

SETUP = "run `shuffler setup`"
MARK = {"ok": "ok  ", "warn": "warn", "fail": "FAIL", "not checked": "--  "}


def volts(mv: int) -> str:
    return f"{mv / 1000:.2f} V"


def _cards(n: int) -> str:
    return step_kinds.cards(n)


def since_start(seconds: int) -> str:
    """'since the board started 1:02:05 ago'."""
    return f"since the board started {seconds // 3600}:{seconds // 60 % 60:02}:{seconds % 60:02} ago"


def refusal_words(reply: Mapping[str, Any]) -> str:
    """A refused feed in one clause: why, else the fault that refused it,
    else the error, in the host's words."""
    fault = reply.get("fault")
    return _clause(device_words.why_words(dict(reply))
                   or (device_words.fault_words(fault) if fault is not None else "")
                   or device_words.error_words(reply.get(protocol.F_ERR)))


def feed_words(end: Any) -> str:
    """What a feed that ended in a fault says (its event record), in one clause."""
    return _clause(device_words.why_words(end) or device_words.fault_words(end.code))


def _clause(sentence: str) -> str:
    """A sentence made a clause that a line can hold: no capital, no full stop."""
    return sentence[:1].lower() + sentence[1:].rstrip(".")


# -- what was read ------------------------------------------------------------------------------

def _state(r: StateRead) -> str:
    if r.state == protocol.ST_ALARM:
        return f"alarm ({device_words.fault_name(r.fault)} latched)"
    if r.state == protocol.ST_PAUSED:
        return f"paused ({device_words.fault_name(r.fault)})"
    return str(r.state)


def _stack(r: StackRead) -> str:
    read = f"raw {r.raw}, spread {r.spread}"
    if r.below_tare is not None:
        return f"{read}, {r.below_tare} below its empty-tray tare"
    if r.n is None:
        return read
    if r.tare is not None and r.per_card is not None:
        return f"{_cards(r.n)} now ({read}; tare {r.tare}, {r.per_card} a card, stored)"
    return f"{_cards(r.n)} now ({read})"


def _motor(r: MotorRead) -> str:
    if r.fed is not None:
        said = f"fed {_cards(r.fed)} now, a card {r.card_ms} ms in the beam"
    elif r.card_ms:
        said = f"a card {r.card_ms} ms in the beam {since_start(r.since_s or 0)}"
    else:
        said = "no card through the beam since the board started"
    return said if r.flip is None else f"{said}, flip {r.flip}"


def _battery(r: BatteryRead) -> str:
    if r.trim is None or r.trim == 1000:
        return f"{volts(r.mv)} now"
    return f"{volts(r.mv)} now (trimmed to a meter by {(r.trim - 1000) / 10:+.1f} % at set-up)"


_READ: dict[type, Callable[[Any], str]] = {
    FirmwareRead: lambda r: f"{r.fw}, protocol {r.proto}, board {r.board}",
    StateRead: _state,
    NoAnswer: lambda r: "no answer",
    StackRead: _stack,
    TouchRead: lambda r: f"reads {r.raw} now" + (", touched" if r.touched else ""),
    BeamAtRest: lambda r: f"{'blocked' if r.blocked else 'clear'} at rest" + (" now" if r.now else ""),
    BeamSawFed: lambda r: f"clear at rest; saw the {_cards(r.cards)} fed now",
    BeamMissedFed: lambda r: f"clear at rest now; the feed: {_cards(r.out)} left the tray and the beam saw none",
    BeamFeedEnded: lambda r: f"clear at rest now; the feed: {feed_words(r.end)}",
    NotTried: lambda r: "not tried now" + (": the feed ended first" if r.feed_ended else ""),
    NoCardReached: lambda r: "no card reached the beam now",
    NotRun: lambda r: "not run now",
    NotJudged: lambda r: "not judged",
    MotorRead: _motor,
    BatteryRead: _battery,
}

# -- what a working part reads ----------------------------------------------------------------

_WORKING: dict[type, Callable[[Any], str]] = {
    ThisToolsFirmware: lambda w: f"this tool's {w.version}",
    SettingsReadable: lambda w: "its settings files readable",
    Idle: lambda w: "idle",
    ReadingRate: lambda w: f"a reading {w.per_second} times a second",
    RawRange: lambda w: f"{w.lo} to {w.hi}",
    CardsOrMore: lambda w: "0 cards or more" + (", a spread under half a card" if w.steady else ""),
    SpreadUnder: lambda w: f"a spread under half a card ({w.half_card})",
    TareOrMore: lambda w: "the tare or more",
    CalibratedCount: lambda w: "a calibrated count",
    TouchDigital: lambda w: "0 at rest, 1 touched",
    TouchBaseline: lambda w: f"{w.lo} to {w.hi} at rest, falling when touched",
    BeamWorks: lambda w: "clear at rest, blocked by each card",
    CardTime: lambda w: f"a card about {w.ms} ms in the beam (hardware/mechanism.py at the battery's voltage)",
    FullPass: lambda w: f"{volts(w.mv)} or more for a full pass",
    VoltsRange: lambda w: f"{volts(w.lo)} to {volts(w.hi)}",
    NothingExpected: lambda w: "-",
}

# -- why: what it means, what to do --------------------------------------------------------------

def _touch_confirmed(w: TouchConfirmed) -> str:
    if w.watching:  # the touch may come yet
        return "a touch confirmed at set-up; none seen yet: touch the pad"
    return f"a touch confirmed at set-up, none tried now (`{w.option}`: touch it)"


def _direction(w: Direction) -> str:
    way = ("wired the other way round; the stored flip turns it, so left is the person's left" if w.flip == 1
           else "turns the right way (confirmed at set-up)")
    return way if w.option is None else f"{way}, not run now (`{w.option}`)"


def _feed_ended(w: FeedEndedFirst) -> str:
    return f"{'not run: ' if w.run else ''}the feed: {feed_words(w.end)}"


_WHY: dict[type, Callable[[Any], str]] = {
    BadSettings: lambda w: "; ".join(device_words.bad_file_words(w.bad)),
    UpToDate: lambda w: "up to date",
    FlashOffered: lambda w: "`shuffler flash` brings this tool's firmware (the calibration stays)",
    FaultHeld: lambda w: fault_catalogue.advice(w.code),
    NothingLatched: lambda w: "nothing latched",
    HX711Silent: lambda w: "the HX711 does not answer (its DOUT never goes low)",
    StackClipped: lambda w: "the reading is clipped: a load cell wire is open",
    StackBelowEmpty: lambda w: ("it reads fewer than no cards: the reading falls as cards go on (its signal wires "
                                "A+ and A- swapped), or the tare was taken with cards in the tray"),
    StackNoisy: lambda w: "noisy: keep the tray still; a loose load cell wire",
    Calibrated: lambda w: "calibrated",
    FactoryCalibrated: lambda w: "the board's factory calibration",
    StackSwapped: lambda w: "the reading falls as cards go on: its signal wires A+ and A- are swapped",
    NotCalibrated: lambda w: f"not calibrated: {SETUP}",
    PadSilent: lambda w: "no pad answers (a broken lead, or a short)",
    TouchSeenNow: lambda w: "a touch seen now",
    TouchConfirmed: _touch_confirmed,
    TouchUnconfirmed: lambda w: (f"no touch confirmed: touch it during `{w.option}`, or {SETUP}; "
                                 "one that never answers a touch"),
    BeamBlocked: lambda w: "blocked with no card fed: a card in the exit, or the emitter has no power",
    BeamSilent: lambda w: "cards left the tray unseen: the receiver does not answer",
    BeamStaysBlocked: lambda w: "it stays blocked: the emitter or its power",
    CountsEveryCard: lambda w: "counts every card",
    FeedRefused: lambda w: f"the board refused the feed: {refusal_words(w.reply)}",
    FeedEndedFirst: _feed_ended,
    CardsSeen: lambda w: (f"saw cards {since_start(w.since_s)} (a card {w.card_ms} ms in the beam), none fed now "
                          f"(`{w.option}`)"),
    CardsSeenAtSetUp: lambda w: f"saw cards at set-up ({w.beam_ms} ms a card in the beam), none fed now (`{w.option}`)",
    NoCardSeen: lambda w: (f"no card seen through it: `{w.option}` with cards in the tray, or {SETUP} (cards that "
                           "leave unseen: the receiver)"),
    RollerStill: lambda w: ("no card reached the beam with every card still in the tray: the motor does not turn "
                            "the roller (its driver, its wires, a slipping roller)"),
    DirectionAwaitsBeam: lambda w: "which way it deals is judged once the beam counts the cards",
    MotorSlow: lambda w: "slower than the mechanism: a worn roller, a stiff card or a low battery",
    DirectionUnconfirmed: lambda w: (f"which way it deals was never confirmed: {SETUP} (a motor wired the other way "
                                     "round deals every card to the wrong pile)"),
    Direction: _direction,
    BatteryDivider: lambda w: "no battery reads so: its divider",
    BatteryTooLow: lambda w: "too low for a full pass: replace it",
    BatteryLow: lambda w: "low: replace it soon",
    BatteryGood: lambda w: "good for a full pass",
}

_WORDING: dict[type, Callable[[Any], str]] = {**_READ, **_WORKING, **_WHY}


def words(record: Any) -> str:
    """The one wording of a finding's record; a finding made with words of
    its own (`shuffler setup`'s steps) keeps them."""
    if isinstance(record, str):
        return record
    fn = _WORDING.get(type(record))
    if fn is None:
        raise TypeError(f"not a finding's record: {record!r}")
    return fn(record)


def line(verdict: str, name: str, read: str, working: str, advice: str) -> str:
    """A finding's one line: 'FAIL exit beam: <read> (a working one: <working>): <advice>'."""
    plausible = f" (a working one: {working})" if verdict != "not checked" else ""
    return f"{MARK[verdict]} {name}: {read}{plausible}: {advice}"


def untried_words(groups: tuple[tuple[str, tuple[str, ...]], ...], names: Mapping[str, Any]) -> str:
    """The parts not tried now, each group with the option that tries it;
    `names`: the parts (host/parts.py's PARTS)."""
    return "; ".join(f"{' and '.join(names[key].name for key in keys)} (`{option}`)" for option, keys in groups)


def verdict_words(rec: Ready | NotReady, names: Mapping[str, Any]) -> str:
    """`shuffler check`'s last line; `names`: the parts (host/parts.py's PARTS)."""
    if isinstance(rec, NotReady):
        return "not ready to shuffle: see the lines marked FAIL"
    left = untried_words(rec.untried, names)
    return f"ready to shuffle, as far as read now; not tried now: {left}" if left else "ready to shuffle"


def as_dict(record: Any) -> Any:
    """A record as `--json` carries it: its kind and its fields (a field
    that is a record, or a device's event, likewise); None for words alone."""
    if isinstance(record, str) or not is_dataclass(record):
        return None
    out: dict[str, Any] = {"kind": type(record).__name__}
    for f in fields(record):
        value = getattr(record, f.name)
        out[f.name] = as_dict(value) if is_dataclass(value) else _plain(value)
    return out


def _plain(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    return value
