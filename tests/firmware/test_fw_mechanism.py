"""The mechanism's timing (hardware/mechanism.py) in the simulated world and
in the firmware's thresholds: a plausible pass, a double feed judged
against the learned single-card time and the battery, a debounced exit
beam, a blocked beam before a card, and the calibration refined from exact
exit counts."""

from __future__ import annotations

import json
import types
from pathlib import Path

import pytest

from hardware import mechanism

from fwtest_support import REPO, FwProcess
from firmware import protocol


PLAUSIBLE = {"SHUFFLER_SIM_MECHANISM": "plausible"}


@pytest.mark.parametrize("board", ["esp32", "rp2", "sim"])
def test_the_profiles_thresholds_come_from_the_mechanism(board: str) -> None:
    prof = __import__(f"firmware.profile_{board}", fromlist=["PROFILE"]).PROFILE
    assert prof["block_ref_ms"] == mechanism.block_ms(prof["block_ref_mv"], prof["block_ref_duty"])
    assert prof["block_ref_duty"] == prof["defaults"]["motor_duty"]


def test_the_mechanism_deals_as_fast_as_the_lotus() -> None:
    # About five seconds for an 81-card pass at 9 V (about 60 ms a card,
    # the motor's time: to the beam, through it, the brake), and 30 % or
    # more slower on a battery run down from 9.5 V to 6.4 V.
    assert 4000 <= 81 * mechanism.card_ms(9000, 65) <= 7000
    assert 50 <= mechanism.card_ms(9000, 65) <= 75
    assert mechanism.block_ms(6400, 65) > 1.3 * mechanism.block_ms(9500, 65)


@pytest.mark.double_feed
@pytest.mark.exit_sensor
def test_a_double_feed_leaves_the_next_card_short_of_the_beam() -> None:
    # The firmware stops the motor once a card has blocked the beam
    # double_pct % of its time (and a poll): the next card, which starts
    # as the first one leaves, must not have reached the beam by then, so
    # the tray's count tells two cards out (a double feed) from one (the
    # beam itself blocked), on a full battery and a flat one.
    prof = __import__("firmware.profile_rp2", fromlist=["PROFILE"]).PROFILE
    for mv in (9500, 6400):
        v = mechanism.speed_um_per_ms(mv, 65)
        over_ms = mechanism.block_ms(mv, 65) * (prof["double_pct"] - 100) // 100 + 2
        assert over_ms * v < mechanism.MECHANISM["feed_gap_um"]


@pytest.mark.exit_sensor
def test_the_beam_debounce_sits_between_a_flicker_and_the_gap() -> None:
    prof = __import__("firmware.profile_rp2", fromlist=["PROFILE"]).PROFILE
    for mv in (9500, 6400):
        debounce = max(prof["beam_clear_min_ms"], mechanism.block_ms(mv, 65) * prof["beam_clear_pct"] // 100)
        gap_ms = mechanism.MECHANISM["feed_gap_um"] // mechanism.speed_um_per_ms(mv, 65)
        assert mechanism.flicker_ms(mv, 65) < debounce < gap_ms // 3


@pytest.mark.micropython
def test_a_whole_pass_at_the_plausible_speed(start_fw_process) -> None:
    dev = start_fw_process(env=PLAUSIBLE)
    dev.event("hello")
    w = dev.world
    w.load(list(range(104)))
    t0 = w.query()["time_ms"]
    dev.call("start")
    done = dev.event("done", timeout=60)
    q = w.query()
    assert done["k"] == 104 and sorted(q["left"] + q["right"]) == list(range(104))
    per_card = (q["time_ms"] - t0) / 104
    # The mechanism's time for a card and no more than a few ms besides.
    assert mechanism.block_ms(9000, 80) + mechanism.feed_ms(9000, 80) <= per_card <= mechanism.card_ms(8700, 80) + 10


@pytest.mark.micropython
@pytest.mark.parametrize("mv", [9000, 6900])
@pytest.mark.double_feed
@pytest.mark.battery
def test_a_double_feed_is_caught_at_the_plausible_speed_on_any_battery(start_fw_process, mv: int) -> None:
    dev = start_fw_process(env=PLAUSIBLE, battery_mv=mv)
    dev.event("hello")
    w = dev.world
    w.load(list(range(30)))
    w.inject("double_feed", k=6)
    dev.call("start")
    f = dev.event("fault", timeout=60)
    assert f["code"] == protocol.FAULT_DOUBLE_FEED and f["k"] == 6


@pytest.mark.micropython
@pytest.mark.battery
def test_the_learned_card_time_follows_the_battery(start_fw_process) -> None:
    """Learned on a fresh battery, the single-card time scales as the
    battery runs down: the slower cards are not taken for double feeds."""
    dev = start_fw_process(env=PLAUSIBLE)
    dev.event("hello")
    w = dev.world
    w.load(list(range(20)))
    dev.call("start")
    assert dev.event("done", timeout=60)["k"] == 20
    w.take("left")
    w.take("right")
    w.set_battery(6900)
    w.load(list(range(20)))
    dev.call("start")
    done = dev.event("done", timeout=60)
    assert done["k"] == 20
    assert not [m for m in dev.seen if m.get("ev") == "fault"]


@pytest.mark.micropython
@pytest.mark.exit_sensor
def test_a_flickering_beam_counts_one_card_once(fw_process: FwProcess) -> None:
    w = fw_process.world
    w.load(list(range(12)))
    w.inject("flutter", k=4)
    fw_process.call("start")
    done = fw_process.event("done")
    q = w.query()
    assert done["k"] == 12 and len(q["left"]) + len(q["right"]) == 12
    assert done["left"] == len(q["left"]) and done["right"] == len(q["right"])


@pytest.mark.micropython
@pytest.mark.exit_sensor
def test_resume_refuses_while_the_exit_is_blocked(fw_process: FwProcess) -> None:
    w = fw_process.world
    w.load(list(range(10)))
    w.inject("jam", k=3)
    fw_process.call("start")
    assert fw_process.event("fault")["code"] == protocol.FAULT_JAM
    w.fix()
    w.inject("sensor_missing", sensor="exit")  # a card left in the beam
    rep = fw_process.call("resume")
    assert rep["ok"] is False and rep["err"] == protocol.E_REFUSED
    f = fw_process.event("fault")
    assert f["code"] == protocol.FAULT_SENSOR and f["latched"] is False
    assert (f["part"], f["why"]) == (protocol.PART_EXIT, protocol.WHY_BLOCKED)
    assert fw_process.call("status")["state"] == "paused"
    assert w.query()["counts"]["left"] + w.query()["counts"]["right"] == 3
    w.fix()
    assert fw_process.call("resume")["ok"] is True
    assert fw_process.event("done")["k"] == 10


@pytest.mark.exit_sensor
def test_a_beam_blocked_before_a_card_is_fed_is_not_that_card(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(REPO / "firmware"))
    import dealer
    monkeypatch.setattr(dealer, "time", types.SimpleNamespace(ticks_diff=lambda a, b: a - b))

    class Board:
        t = 0
        motor_started = False

        def ticks_ms(self) -> int: return self.t
        def sleep_ms(self, ms: int) -> None: self.t += ms
        def exit_blocked(self) -> bool: return True  # something sits in the exit
        def battery_mv(self) -> int: return 9000
        def motor(self, d: int, duty: int) -> None: self.motor_started = True
        def motor_brake(self) -> None: pass
        def motor_stop(self) -> None: pass
        def wdt_feed(self) -> None: pass

    b = Board()
    host = types.SimpleNamespace(pending=lambda: False, service=lambda: None, listen=lambda: None)
    sides = types.SimpleNamespace(side=lambda k: 0)
    import profile_common
    d = dealer.Dealer(b, host, lambda buf: None, sides, profile_common.merged({}))
    d.begin(sides, 5, {"motor_duty": 80, "card_timeout_ms": 400, "block_max_ms": 1000,
                       "brake_ms": 5, "progress_every": 1}, 6400, 1)
    assert d.run() == dealer.R_BLOCKED
    assert d.k == 0 and not b.motor_started


@pytest.mark.micropython
@pytest.mark.exit_sensor
def test_exit_counts_refine_a_calibration_that_is_two_percent_off(start_fw_process, tmp_path: Path) -> None:
    # Counting 104 cards by weight needs counts per card within 0.48 %.
    (tmp_path / "cal.json").write_text(json.dumps({"tare": 84000, "per_card": 775}))  # true 760
    dev = start_fw_process(data_dir=tmp_path)
    assert dev.event("hello")["cal"]["stack"] == "calibrated"
    w = dev.world
    w.load(list(range(104)))
    assert dev.call("count")["n"] == 102  # 2 % off: two cards short
    w.take("tray")
    for _ in range(4):
        w.load(list(range(20)))
        dev.call("start")
        assert dev.event("done")["k"] == 20
        w.take("left")
        w.take("right")
    per_card = json.loads((tmp_path / "cal.json").read_text())["per_card"]
    assert abs(per_card - 760) <= 0.0048 * 760
    w.load(list(range(104)))
    assert dev.call("count")["n"] == 104
