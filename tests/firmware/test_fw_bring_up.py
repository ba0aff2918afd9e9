"""What the bring-up and the checks ask of the firmware, on the MicroPython
unix port over the simulated board: `read` (the sensors as they read, and
the stored calibration), `feed` (n cards to one side) and the calibration
of the exit beam, the motor's direction and the battery; each refusal
answered, and a board wired wrong found out by what it reads."""

from __future__ import annotations

from pathlib import Path

import pytest

from firmware import protocol
from host import device_words
from fwtest_support import FwProcess
from test_fw_exact import exact_routine, random_file, split_order

pytestmark = pytest.mark.micropython


def test_read_gives_the_sensors_as_they_read_and_moves_nothing(fw_process: FwProcess) -> None:
    w = fw_process.world
    assert w is not None
    w.load(list(range(30)))
    r = fw_process.call("read")
    assert r["ok"] is True
    assert r["n"] == 30 and abs(r["raw"] - (84000 + 30 * 760)) < 200 and 0 <= r["spread"] <= 240
    assert (r["beam"], r["touched"], r["touches"], r["flip"]) == (False, False, 0, 0)
    assert abs(r["touch"] - 800) <= 16 and r["mv"] == 9000
    assert (r["card_ms"], r["feed_ms"]) == (0, 0)  # nothing learned yet
    w.touch(200)
    assert fw_process.event("touch")["state"] == "idle"  # a touch starts a pass of the 30
    fw_process.event("done")
    r = fw_process.call("read")
    assert r["touches"] == 1 and r["n"] == 0
    assert 10 <= r["card_ms"] <= 20 and 10 <= r["feed_ms"] <= 30  # the fast world, at 80 % duty
    assert fw_process.call("read", what="cal")["cal"] == {}  # the sim's factory figures are not stored
    bad = fw_process.call("read", what="codes")
    assert bad["ok"] is False and bad["err"] == protocol.E_BAD_VALUE  # a string, not one of the declared set


def test_feed_deals_n_cards_to_one_side_and_leaves_the_rest(fw_process: FwProcess) -> None:
    w = fw_process.world
    assert w is not None
    w.load(list(range(12)))
    rep = fw_process.call("feed", n=3, side="right")
    assert rep["ok"] is True and rep["n"] == 3
    done = fw_process.event("done")
    assert (done["k"], done["n"], done["left"], done["right"]) == (3, 3, 0, 3)
    q = w.query()
    assert q["right"] == [9, 10, 11] and q["left"] == [] and q["tray"] == list(range(9))
    assert fw_process.call("feed", n=2, side="left")["ok"] is True
    assert fw_process.event("done")["left"] == 2
    assert w.query()["left"] == [7, 8]


@pytest.mark.parametrize("fields, err", [
    ({"n": 0, "side": "left"}, protocol.E_BAD_VALUE),
    ({"n": 2}, protocol.E_BAD_FIELD),
    ({"n": 2, "side": "up"}, protocol.E_BAD_VALUE),  # a string, not one of the declared sides
    ({"n": "2", "side": "left"}, protocol.E_BAD_FIELD),
    ({"n": 9, "side": "left"}, protocol.E_BAD_VALUE),  # more than the tray's 5
])
def test_a_feed_that_cannot_be_is_refused_and_nothing_moves(fw_process: FwProcess, fields: dict, err: int) -> None:
    w = fw_process.world
    assert w is not None
    w.load(list(range(5)))
    rep = fw_process.call("feed", **fields)
    assert rep["ok"] is False and rep["err"] == err and rep["why"] and device_words.why_words(rep)
    assert w.query()["counts"]["fed"] == 0


@pytest.mark.exact_mode
def test_no_feed_while_an_exact_routine_runs(fw_process: FwProcess) -> None:
    assert fw_process.world is not None
    fw_process.world.load(list(range(5)))
    fw_process.call("exact", n=20)
    rep = fw_process.call("feed", n=2, side="left")
    assert rep["ok"] is False and rep["err"] == protocol.E_STATE and rep["why"] == protocol.WHY_EXACT_RUNNING


@pytest.mark.exit_sensor
def test_the_beam_and_the_motor_are_calibrated_only_after_a_card_went_through(fw_process: FwProcess) -> None:
    for what, fields in (("beam", {}), ("motor", {"flip": 1})):
        rep = fw_process.call("calibrate", what=what, **fields)
        assert rep["ok"] is False and rep["err"] == protocol.E_STATE
    w = fw_process.world
    assert w is not None
    w.load(list(range(10)))
    fw_process.call("feed", n=2, side="left")
    fw_process.event("done")
    beam = fw_process.call("calibrate", what="beam")["cal"]["beam_ms"]
    assert 10 <= beam <= 40
    assert fw_process.call("calibrate", what="motor", flip=2)["err"] == protocol.E_BAD_VALUE
    assert fw_process.call("calibrate", what="motor", flip=1)["cal"] == {"beam_ms": beam, "flip": 1}
    # Flipped: "left" now turns the motor the other way.
    fw_process.call("feed", n=2, side="left")
    assert fw_process.event("done")["left"] == 2
    assert w.query()["right"] == [6, 7]
    assert fw_process.call("read")["flip"] == 1


def test_a_reversed_motor_is_corrected_by_the_flip(start_fw_process) -> None:
    dev = start_fw_process(env={"SHUFFLER_SIM_WIRING": "motor_reversed"})
    dev.event("hello")
    w = dev.world
    w.load(list(range(10)))
    dev.call("feed", n=2, side="left")
    dev.event("done")
    assert w.query()["right"] == [8, 9]  # the person sees them land on the right
    dev.call("calibrate", what="motor", flip=1)
    dev.call("feed", n=2, side="left")
    dev.event("done")
    assert w.query()["left"] == [6, 7]


@pytest.mark.exact_mode
def test_exact_mode_on_a_reversed_motor_with_the_flip_ends_in_the_predicted_order(start_fw_process,
                                                                                   tmp_path: Path) -> None:
    env = {"SHUFFLER_SIM_WIRING": "motor_reversed", "SHUFFLER_SIM_RANDOM_FILE": str(random_file(tmp_path, 7))}
    (tmp_path / "cal.json").write_text('{"flip": 1}')  # what the bring-up stored
    dev = start_fw_process(env=env, data_dir=tmp_path, speed=0.0)
    dev.event("hello")
    final = exact_routine(dev, 162)
    assert final == split_order(tmp_path, 7, 162)
    assert not [m for m in dev.seen if m.get("ev") == protocol.EV_EXACT_LOST]


@pytest.mark.exact_mode
def test_exact_mode_on_a_reversed_motor_without_the_flip_is_caught(start_fw_process, tmp_path: Path) -> None:
    # Every pile on the wrong side: after the split round the person's load P
    # (the left piles) holds the cards meant for load Q, whose count differs,
    # and the device says so.
    env = {"SHUFFLER_SIM_WIRING": "motor_reversed", "SHUFFLER_SIM_RANDOM_FILE": str(random_file(tmp_path, 7))}
    dev = start_fw_process(env=env, data_dir=tmp_path, speed=0.0)
    dev.event("hello")
    w = dev.world
    dev.call("exact", n=162)
    for count in (81, 81):
        dev.wait(lambda m: m.get("ev") == "exact_next")
        w.load(list(range(count)))
        dev.call("start")
        dev.event("done", timeout=60)
    left, right = w.take("left"), w.take("right")
    nxt = dev.wait(lambda m: m.get("ev") == "exact_next")
    assert (nxt["round"], nxt["load"], nxt["count"]) == (2, "P", 98)
    w.load(left)  # the person's left piles: what the device meant for load Q
    dev.call("start")
    dev.event("done", timeout=60)
    lost = [m for m in dev.seen if m.get("ev") == protocol.EV_EXACT_LOST]
    assert len(lost) == 1 and lost[0]["code"] == protocol.LOST_COUNT and lost[0]["n"] == len(left) == 64
    assert len(right) == 98


@pytest.mark.touch
def test_the_touch_is_confirmed_only_after_one_was_seen(fw_process: FwProcess) -> None:
    cal = fw_process.call("calibrate", what="touch")["cal"]
    assert abs(cal["touch_baseline"] - 800) <= 16 and "touch_seen" not in cal
    rep = fw_process.call("calibrate", what="touch", confirm=True)
    assert rep["ok"] is False and rep["err"] == protocol.E_STATE
    assert fw_process.world is not None
    fw_process.world.touch(150)
    fw_process.event("touch")
    fw_process.event("fault")  # the empty tray refuses the pass the touch asks for
    assert fw_process.call("calibrate", what="touch", confirm=True)["cal"]["touch_seen"] == 1
    # A new baseline waits for a new touch.
    assert "touch_seen" not in fw_process.call("calibrate", what="touch")["cal"]


@pytest.mark.battery
def test_the_battery_is_trimmed_to_a_meter_within_ten_percent(fw_process: FwProcess) -> None:
    rep = fw_process.call("calibrate", what="battery", mv=9180)
    assert rep["cal"]["mv_trim"] == 1020
    assert fw_process.call("read")["mv"] == 9180
    assert fw_process.call("status")["mv"] == 9180
    far = fw_process.call("calibrate", what="battery", mv=7000)
    assert far["ok"] is False and far["err"] == protocol.E_BAD_VALUE
    assert (far["why"], far["mv"], far["meter_mv"]) == (protocol.WHY_METER, 9000, 7000)
    assert fw_process.call("read", what="cal")["cal"]["mv_trim"] == 1020


@pytest.mark.load_cell
def test_a_load_cell_wired_the_other_way_round_cannot_be_calibrated(start_fw_process) -> None:
    dev = start_fw_process(env={"SHUFFLER_SIM_WIRING": "load_cell_reversed"})
    dev.event("hello")
    assert dev.call("calibrate", what="stack", n=0)["ok"] is True
    dev.world.load(list(range(52)))
    rep = dev.call("calibrate", what="stack", n=52)
    assert rep["ok"] is False and rep["err"] == protocol.E_BAD_VALUE
    assert rep["why"] == protocol.WHY_FALLS and rep["by"] < 0 and rep["n"] == 52
    assert "per_card" not in dev.call("read", what="cal")["cal"]


@pytest.mark.parametrize("fields", [{}, {"what": "codes"}, {"what": "stack"}, {"what": "stack", "n": -1},
                                    {"what": "battery"}, {"what": "battery", "mv": 20000},
                                    {"what": "motor"}])
def test_every_bad_calibration_is_answered(fw_process: FwProcess, fields: dict) -> None:
    rep = fw_process.call("calibrate", **fields)
    assert rep["ok"] is False and rep["err"] in (protocol.E_BAD_FIELD, protocol.E_BAD_VALUE, protocol.E_STATE)
    assert rep["why"] in protocol.WHY_CODES and device_words.why_words(rep)
    assert fw_process.call("status")["state"] == "idle"


def test_a_quick_touch_is_felt_while_a_host_asks_for_readings_back_to_back(fw_process: FwProcess) -> None:
    """Set-up's wait for a touch and `check --watch` ask for readings one
    after another, and each averages the load cell over a tenth of a second.
    A tap of 80 ms (a quick, real one) that falls among them is still
    counted: the pad is felt between the load cell's readings too."""
    w = fw_process.world
    assert w is not None
    before = fw_process.call("read")["touches"]
    mark = len(fw_process.seen)
    # The readings are queued on the line before the tap, so the board is
    # inside one or another of them for a second of its time, whenever the
    # tap comes.
    ids = [fw_process.send("read") for _ in range(12)]
    w.touch(80)
    replies = [fw_process.reply(i) for i in ids]
    assert all(r["ok"] for r in replies)
    after = fw_process.call("read")["touches"]
    assert after == before + 1, [r["touches"] for r in replies]
    assert [e["state"] for e in fw_process.events_between(mark) if e["ev"] == "touch"] == ["idle"]
