"""Faults on the MicroPython unix port: each has a code and a sentence and
leaves the motor off."""

from __future__ import annotations


import pytest

from fwtest_support import FwProcess
from firmware import protocol
from host import device_words
from suite import motor_off

pytestmark = pytest.mark.micropython



def all_cards(dev: FwProcess) -> list:
    assert dev.world is not None
    q = dev.world.query()
    return q["tray"] + q["left"] + q["right"] + q["throat"] + q["removed"]


@pytest.mark.jam
def test_jam_pauses_and_resume_finishes_the_pass(fw_process: FwProcess) -> None:
    w = fw_process.world
    assert w is not None
    w.load(list(range(20)))
    w.inject("jam", k=5)
    fw_process.call("start")
    f = fw_process.event("fault")
    assert (f["code"], f["latched"], f["resume"]) == (protocol.FAULT_JAM, True, True)
    assert f["k"] == 5 and "msg" not in f and device_words.fault_name(f["code"]) == "jam" and device_words.fault_words(f["code"])
    assert motor_off(fw_process)
    assert fw_process.call("status")["state"] == "paused"
    # Not fixed yet: resuming jams again at the same card.
    assert fw_process.call("resume")["ok"] is True
    assert fw_process.event("fault")["k"] == 5
    w.fix()
    fw_process.world.touch(100)  # a touch resumes a paused pass
    done = fw_process.event("done")
    assert done["k"] == 20 and done["left"] + done["right"] == 20
    assert sorted(all_cards(fw_process)) == list(range(20))


def test_resume_command_after_fix(fw_process: FwProcess) -> None:
    w = fw_process.world
    assert w is not None
    w.load(list(range(10)))
    w.inject("jam", k=0)
    fw_process.call("start")
    assert fw_process.event("fault")["code"] == protocol.FAULT_JAM
    w.fix()
    rep = fw_process.call("resume")
    assert rep["ok"] is True and rep["k"] == 0
    assert fw_process.event("done")["k"] == 10


def test_resume_without_a_pause_is_a_state_error(fw_process: FwProcess) -> None:
    rep = fw_process.call("resume")
    assert rep["ok"] is False and rep["err"] == protocol.E_STATE


@pytest.mark.double_feed
def test_double_feed_seen_as_a_long_block_latches_an_alarm(fw_process: FwProcess) -> None:
    w = fw_process.world
    assert w is not None
    w.load(list(range(20)))
    w.inject("double_feed", k=3)
    fw_process.call("start")
    f = fw_process.event("fault")
    assert f["code"] == protocol.FAULT_DOUBLE_FEED and f["latched"] is True and f["k"] == 3
    assert motor_off(fw_process)
    assert fw_process.call("status")["state"] == "alarm"
    refused = fw_process.call("start")
    assert refused["ok"] is False and refused["err"] == protocol.E_ALARM
    assert fw_process.call("clear")["ok"] is True
    fw_process.event("cleared")
    assert fw_process.call("status")["state"] == "idle"
    assert sorted(all_cards(fw_process)) == list(range(20))
    # The two cards still sit in the exit: a new pass is refused until
    # they are taken out.
    assert len(w.query()["throat"]) == 2
    assert fw_process.call("start")["err"] == protocol.E_REFUSED
    f = fw_process.event("fault")
    assert (f["code"], f["part"], f["why"]) == (protocol.FAULT_SENSOR, protocol.PART_EXIT, protocol.WHY_BLOCKED)
    w.take("throat")
    assert fw_process.call("clear")["state"] == "idle"
    rep = fw_process.call("start")
    assert rep["ok"] is True
    done = fw_process.event("done")
    assert done["k"] == rep["n"] == w.query()["counts"]["fed"] - 5


@pytest.mark.double_feed
def test_double_feed_seen_as_an_exit_count_short_of_the_stack(fw_process: FwProcess) -> None:
    w = fw_process.world
    assert w is not None
    w.load(list(range(20)))
    w.inject("double_feed", k=7, mode="overlap")
    fw_process.call("start")
    f = fw_process.event("fault")
    assert f["code"] == protocol.FAULT_DOUBLE_FEED and f["k"] == 19 and f["n"] == 20
    q = w.query()
    assert q["counts"]["left"] + q["counts"]["right"] == 20


def test_tray_emptied_early(fw_process: FwProcess) -> None:
    w = fw_process.world
    assert w is not None
    w.load(list(range(30)))
    w.inject("empty_at", k=8)
    fw_process.call("start")
    f = fw_process.event("fault")
    assert f["code"] == protocol.FAULT_TRAY_EMPTIED and f["k"] == 8 and f["latched"] is True
    assert len(w.query()["removed"]) == 22
    assert motor_off(fw_process)


@pytest.mark.battery
def test_battery_too_low_for_the_pass_is_refused(fw_process: FwProcess) -> None:
    w = fw_process.world
    assert w is not None
    w.load(list(range(81)))
    w.set_battery(6700)
    rep = fw_process.call("start")
    assert rep["ok"] is False and rep["fault"] == protocol.FAULT_BATTERY_LOW
    f = fw_process.event("fault")
    assert f["code"] == protocol.FAULT_BATTERY_LOW and f["latched"] is False and f["mv"] == 6700
    assert w.query()["counts"]["fed"] == 0


@pytest.mark.battery
def test_low_battery_warns_but_deals(fw_process: FwProcess) -> None:
    w = fw_process.world
    assert w is not None
    w.load(list(range(10)))
    w.set_battery(7000)
    fw_process.call("start")
    assert fw_process.event("done")["k"] == 10
    warns = [m for m in fw_process.seen if m.get("ev") == "warn"]
    assert len(warns) == 1
    assert warns[0]["code"] == protocol.FAULT_BATTERY_LOW and warns[0]["mv"] == 7000


@pytest.mark.battery
def test_battery_failing_mid_pass_stops_it(start_fw_process) -> None:
    dev = start_fw_process(speed=2)
    dev.event("hello")
    dev.world.load(list(range(104)))
    dev.send("start")
    dev.wait(lambda m: m.get("ev") == "progress" and m["k"] >= 3)
    dev.world.inject("battery_low")
    f = dev.event("fault")
    assert f["code"] == protocol.FAULT_BATTERY_LOW and f["latched"] is True and f["k"] < 104
    assert motor_off(dev)


@pytest.mark.parametrize("sensor", ["stack", "exit", "touch", "battery"])
@pytest.mark.sensor_loss
def test_sensor_missing_at_boot_latches_an_alarm(start_fw_process, sensor: str) -> None:
    dev = start_fw_process(missing=(sensor,))
    hello = dev.event("hello")
    assert hello["fw"] == protocol.FIRMWARE_VERSION
    f = dev.event("fault")
    assert f["code"] == protocol.FAULT_SENSOR and f["latched"] is True and f["why"] == protocol.WHY_SELF_TEST
    assert f["part"] == sensor and f["found"]
    assert dev.call("status")["state"] == "alarm"
    assert dev.call("start")["err"] == protocol.E_ALARM
    # Clearing while the sensor is still missing keeps the alarm.
    dev.call("clear")
    assert dev.event("fault")["code"] == protocol.FAULT_SENSOR
    dev.world.fix()
    assert dev.call("clear")["state"] == "idle"
    dev.world.load([1, 2, 3])
    assert dev.call("start")["ok"] is True
    assert dev.event("done")["k"] == 3


def test_a_driver_error_mid_pass_stops_the_motor_and_latches(fw_process: FwProcess) -> None:
    w = fw_process.world
    assert w is not None
    w.load(list(range(10)))
    w.inject("driver_error", k=4)
    rep = fw_process.call("start")
    assert rep["ok"] is True
    f = fw_process.event("fault")
    assert f["code"] == protocol.FAULT_INTERNAL and f["latched"] is True and f["k"] == 4
    assert motor_off(fw_process)
    # Exactly one reply to the start request.
    assert [m for m in fw_process.seen if m.get("re") == "start"] == [rep]
    assert fw_process.call("status")["state"] == "alarm"
    fw_process.call("clear")
    assert fw_process.call("status")["state"] == "idle"


@pytest.mark.watchdog
@pytest.mark.restart
def test_watchdog_resets_a_hung_board_with_the_motor_off(fw_process: FwProcess) -> None:
    w = fw_process.world
    assert w is not None
    w.load(list(range(10)))
    w.inject("hang")
    fw_process.send("start")
    rc = fw_process.proc.wait(timeout=20)
    # The simulated board's watchdog reset (WDT_EXIT_CODE in
    # simulator/virtual/board/board_sim.py, which stops the motor first).
    assert rc == 3


def test_ctrl_c_stops_the_motor_and_returns(start_fw_process) -> None:
    # A real board gets Ctrl-C as a byte (the firmware turns the port's
    # keyboard interrupt off while it runs): a lone 0x03.
    dev = start_fw_process(speed=2)
    dev.event("hello")
    dev.world.load(list(range(104)))
    dev.send("start")
    dev.wait(lambda m: m.get("ev") == "progress" and m["k"] >= 2)
    dev.write(b"\x03")
    ev = dev.event("stopped")
    assert ev["reason"] == "interrupt"
    assert dev.proc.wait(timeout=10) == 0


@pytest.mark.sensor_loss
def test_every_sensor_missing_still_gives_one_well_formed_fault(start_fw_process) -> None:
    dev = start_fw_process(missing=("stack", "exit", "touch", "battery"))
    dev.event("hello")
    f = dev.event("fault")
    assert f["code"] == protocol.FAULT_SENSOR and f["latched"] is True
    assert (f["why"], f["part"]) == (protocol.WHY_SELF_TEST, protocol.PART_STACK)
    assert f["found"] == (protocol.SELF_STACK_NO_ANSWER | protocol.SELF_EXIT_BLOCKED | protocol.SELF_BATTERY
                          | protocol.SELF_TOUCH)
    # The host words each problem found, and none that was not.
    words = device_words.why_words(f)
    assert [bit for bit in protocol.SELF_BITS if (device_words.SELF_TEST[bit] in words) != bool(f["found"] & bit)] == []
    assert all(len(line) <= protocol.MAX_LINE for line in dev.raw)
