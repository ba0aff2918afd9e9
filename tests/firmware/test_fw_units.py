"""Firmware modules imported under CPython: protocol parsing, side sources,
load-cell arithmetic, atomic settings files."""

from __future__ import annotations

import json
import math
import os
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "firmware"))  # flat names, as on the device

import sides  # noqa: E402
from planned_sides import PlannedSides  # noqa: E402
import load_cell  # noqa: E402
import store  # noqa: E402
from dealer import put_int  # noqa: E402
from firmware import protocol  # noqa: E402
from host import wire
from firmware import request_check
from host import device_messages  # noqa: E402
from host import device_words  # noqa: E402


def test_codes_are_unique_and_have_sentences() -> None:
    for table in (device_words.ERRORS, device_words.FAULTS):
        names = [v[0] for v in table.values()]
        assert len(set(names)) == len(names)
        for code, (name, msg) in table.items():
            assert isinstance(code, int) and code > 0
            assert name.isidentifier() and msg.endswith(".")
            assert all(ord(c) < 128 for c in name + msg)


def test_every_reason_is_worded_from_its_values() -> None:
    """A reason's words take the values it names, whatever they are; none is left as a brace or a None."""
    names = [name for name, _ in device_words.WHYS.values()]
    assert len(set(names)) == len(names) and all(name.isidentifier() for name in names)
    given = {"re": "feed", "field": "side", "lo": 1, "hi": 104, "part": protocol.PART_STACK, "n": 52, "by": -3000,
             "mv": 9000, "meter_mv": 7000, "out": 3, "found": sum(protocol.SELF_BITS),
             "k": 81, "held": 2, "per_card": 760, "was": 730}
    for code in protocol.WHY_CODES:
        for values in (given, {}):
            words = device_words.why_words(dict(values, why=code))
            assert words and all(ord(c) < 128 for c in words), (code, words)
            assert not set("{}") & set(words) and ("None" not in words or not values), (code, words)
    # The values a reason names are in its words, whatever the words are
    # (their wording: tests/host/test_fault_catalogue.py): a range's field
    # and bounds, a choice's declared values, the counts.
    named = (
        ({"why": protocol.WHY_RANGE, "field": "n", "lo": 17, "hi": 93}, ("n", "17", "93")),
        ({"re": "feed", "why": protocol.WHY_CHOICE, "field": "side"}, ("side",) + protocol.SIDES),
        ({"why": protocol.WHY_MISSED, "out": 37}, ("37",)),
        ({"err": protocol.E_INTERNAL, "detail": "OSError: 5"}, ("OSError: 5",)),
        ({"why": protocol.WHY_MISCOUNTED, "n": 84, "k": 81, "held": 0, "per_card": 760, "was": 730},
         ("84", "81", "760", "730")),
    )
    for fields, values in named:
        words = device_words.why_words(fields)
        assert [v for v in values if v not in words] == [], (fields, words)
    # A reason's words change with its values, and a refusal with no reason has none.
    assert device_words.why_words({"why": protocol.WHY_MISSED, "out": 37}) != device_words.why_words(
        {"why": protocol.WHY_MISSED, "out": 38})
    assert device_words.why_words({"err": protocol.E_BUSY}) == ""


def test_codes_are_stable() -> None:
    # Numbers are part of the protocol: changing one breaks hosts in the field.
    assert (protocol.E_BAD_JSON, protocol.E_TOO_LONG, protocol.E_NOT_ASCII, protocol.E_UNKNOWN_CMD, protocol.E_BUSY) == (1, 2, 3, 5, 8)
    assert (protocol.FAULT_JAM, protocol.FAULT_DOUBLE_FEED, protocol.FAULT_TRAY_EMPTIED,
            protocol.FAULT_BATTERY_LOW, protocol.FAULT_SENSOR) == (1, 2, 3, 4, 5)


@given(st.binary(max_size=400))
@settings(max_examples=300, deadline=None)
def test_parse_request_never_raises(raw: bytes) -> None:
    code, cmd, rid, obj = request_check.parse_request(raw)
    if code == 0:
        assert cmd in protocol.COMMANDS and isinstance(obj, dict)
    else:
        assert code in protocol.ERROR_CODES


@given(st.sampled_from(protocol.COMMANDS), st.integers(0, protocol.MAX_ID),
       st.dictionaries(st.text("abcdefgh", min_size=1, max_size=5),
                       st.integers(-10**6, 10**6), max_size=4))
def test_request_round_trip(cmd: str, rid: int, fields: dict) -> None:
    fields.pop("cmd", None)
    fields.pop("id", None)
    line = protocol.encode(wire.request(cmd, rid, **fields))
    code, cmd2, rid2, obj = request_check.parse_request(line.rstrip("\n").encode())
    assert (code, cmd2, rid2) == (0, cmd, rid)
    assert {k: obj[k] for k in fields} == fields


@given(st.text(min_size=1, max_size=20).filter(lambda s: any(ord(c) > 127 for c in s)))
def test_encode_never_returns_non_ascii(text: str) -> None:
    # CPython's json escapes; MicroPython's does not, and encode refuses.
    try:
        line = protocol.encode({"ev": "x", "s": text})
    except ValueError:
        return
    assert all(ord(c) < 128 for c in line)
    assert json.loads(line)["s"] == text


def test_encode_refuses_over_long() -> None:
    with pytest.raises(ValueError):
        protocol.encode({"ev": "x", "s": "a" * protocol.MAX_LINE})


CONFIG = device_messages.OBJECTS["config"].rules
SIM_LIMITS = {"capacity": 104, "exact_max": 512, "battery_min": 3000, "meter_max": 12500, "wait_max": 1000}


def _in_range(key: str, v: object) -> bool:
    rule = CONFIG[key]
    lo = SIM_LIMITS[rule.lo_name] if rule.lo_name else rule.lo
    hi = SIM_LIMITS[rule.hi_name] if rule.hi_name else rule.hi
    return type(v) is int and lo <= v <= hi


@given(st.dictionaries(st.sampled_from(sorted(CONFIG) + ["bogus"]),
                       st.one_of(st.integers(-100, 100000), st.booleans(), st.text(max_size=3)),
                       max_size=4))
def test_a_config_object_is_taken_exactly_when_every_key_is_declared_and_in_range(upd: dict) -> None:
    bad = request_check.object_problem("config", upd, SIM_LIMITS)
    ok = all(k in CONFIG and _in_range(k, v) for k, v in upd.items())
    assert (bad is None) == ok, (upd, bad)


@given(st.integers(-1000, 10**6), st.integers(50, 5000), st.integers(0, 200))
def test_count_from_raw_is_nearest_count(tare: int, per_card: int, n: int) -> None:
    exact = tare + n * per_card
    for noise in (0, per_card // 2 - 1, -(per_card // 2 - 1)):
        assert load_cell.count_from_raw(exact + noise, tare, per_card) == n


@given(st.integers(-1000, 10**6), st.integers(50, 5000), st.integers(1, 104))
def test_calibration_recovers_counts_per_card(tare: int, per_card: int, n: int) -> None:
    assert load_cell.per_card_from(tare + n * per_card, tare, n) == per_card


@given(st.integers(0, 999), st.integers(1, 3))
def test_put_int_writes_the_number(value: int, width: int) -> None:
    buf = bytearray(b"x" * 5)
    put_int(buf, 4, width, value)
    text = buf[4 - width:4].decode()
    if len(str(value)) <= width:
        assert text.strip() == str(value) and buf[:4 - width] == b"x" * (4 - width)


def test_random_sides_are_fair_and_independent() -> None:
    """20,000 passes of 104 cards. Per card position the left fraction is
    0.5 with standard error 0.0035; the bounds are 5 standard errors. The
    chance two neighbours agree is also 0.5 (no alternating pattern)."""
    src = sides.RandomSides(104)
    passes = 20000
    left = [0] * 104
    same = 0
    for _ in range(passes):
        src.prepare(104)
        s = [src.side(k) for k in range(104)]
        for k in range(104):
            left[k] += s[k] == 0
        same += sum(1 for k in range(103) if s[k] == s[k + 1])
    se = 0.5 / math.sqrt(passes)
    for k in range(104):
        assert abs(left[k] / passes - 0.5) < 5 * se
    pairs = passes * 103
    assert abs(same / pairs - 0.5) < 5 * 0.5 / math.sqrt(pairs)


def test_planned_sides_follow_the_plan() -> None:
    src = PlannedSides(104)
    src.load("LRRL")
    src.prepare(4)
    assert [src.side(k) for k in range(4)] == [0, 1, 1, 0]
    with pytest.raises(ValueError):
        src.prepare(5)
    with pytest.raises(ValueError):
        src.load("LX")


def test_save_is_atomic_under_a_failed_rename(tmp_path: Path, monkeypatch) -> None:
    path = str(tmp_path / "cfg.json")
    store.save(path, {"v": 1})

    def power_cut(src: str, dst: str) -> None:
        raise OSError(5, "power cut")

    monkeypatch.setattr(store, "_rename", power_cut)
    with pytest.raises(OSError):
        store.save(path, {"v": 2})
    assert store.load(path) == {"v": 1}
    monkeypatch.setattr(store, "_rename", os.rename)
    store.save(path, {"v": 3})
    assert store.load(path) == {"v": 3}
    assert not os.path.exists(path + ".tmp")


def test_load_ignores_a_torn_temp_file_and_uses_a_complete_one(tmp_path: Path) -> None:
    path = str(tmp_path / "cal.json")
    Path(path + ".tmp").write_text('{"tare": 12')  # torn write, main file missing
    assert store.load(path) is None
    Path(path + ".tmp").write_text(json.dumps({"tare": 12}))
    assert store.load(path) == {"tare": 12}
    Path(path).write_text(json.dumps({"tare": 7}))
    assert store.load(path) == {"tare": 7}


class _Board:
    """Just enough board for the boot self-test under CPython."""

    data_dir = ""

    def __init__(self, touch: int) -> None:
        self.touch = touch

    def stack_raw(self) -> int:
        return 84000

    def exit_blocked(self) -> bool:
        return False

    def battery_mv(self) -> int:
        return 9000

    def touch_raw(self) -> int:
        return self.touch

    def ticks_ms(self) -> int:
        return 0


class _Link:
    def write_raw(self, buf: bytes) -> None:
        pass

    def pump(self) -> None:
        pass


@pytest.mark.parametrize("boot_reading, stored, baseline, source", [
    (800, None, 800, "measured"),   # nothing stored: the boot reading
    (790, 800, 790, "calibrated"),  # close to the stored one: fresh reading
    (300, 800, 800, "calibrated"),  # a hand on the pad at boot: the stored one
])
@pytest.mark.touch
def test_touch_baseline_at_boot(boot_reading: int, stored: int | None, baseline: int, source: str,
                                monkeypatch: pytest.MonkeyPatch) -> None:
    import time
    monkeypatch.setattr(time, "ticks_diff", lambda a, b: a - b, raising=False)  # MicroPython's, under CPython
    import profile_sim
    from controller import Controller
    ctl = Controller(_Board(boot_reading), profile_sim.PROFILE, _Link())
    ctl.cal = {"touch_baseline": stored} if stored else {}
    assert ctl.self_test() == ("", 0)
    assert (ctl.touch.baseline, ctl.touch_source) == (baseline, source)


@given(st.integers(0, 104).flatmap(
    lambda n: st.tuples(st.just(n), st.lists(st.integers(0, 1), min_size=n, max_size=n))))
@settings(max_examples=60, deadline=None)
def test_simulated_world_deals_in_the_mechanism_order(case: tuple[int, list[int]]) -> None:
    """The simulated world's physics (plain Python, run here under CPython)
    against the order docs/mechanism.md defines, written out separately in
    fwtest_support.deal_order."""
    sys.path.insert(0, str(REPO / "simulator" / "virtual" / "board"))
    import sim_world
    from fwtest_support import deal_order

    n, sides_ = case
    load = [f"c{i}" for i in range(n)]
    w = sim_world.World(seed=n + 1)
    w.load(load)
    for k, side in enumerate(sides_):
        w.motor(sim_world.LEFT_DIR if side == 0 else -sim_world.LEFT_DIR, 80)
        for _ in range(2000):  # far longer than one card takes
            if w.left_n + w.right_n == k + 1:
                break
            w.advance()
        w.stop(True)
    snap = w.snapshot()
    assert (snap["left"], snap["right"]) == deal_order(load, sides_)
    assert snap["tray"] == [] and snap["counts"]["fed"] == n
