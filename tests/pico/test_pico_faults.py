"""Faults on the emulated Pico, each seen by the firmware's rp2 drivers
through the pins: a jam (the beam never breaks), a double feed (a long
block), the tray emptied, a low battery on the ADC, a missing sensor."""
from __future__ import annotations

import pytest

from firmware import protocol
from picotest_support import PicoClient, flashed_fs
from suite import motor_off

pytestmark = [pytest.mark.slow, pytest.mark.pico]


def booted(start_emulated_pico, open_pico_client, **kwargs) -> tuple[object, PicoClient]:
    pico = start_emulated_pico(fs=flashed_fs(), **kwargs)
    host = open_pico_client(pico)
    host.hello()
    return pico, host



@pytest.mark.jam
@pytest.mark.touch
def test_a_jam_pauses_and_a_touch_resumes_after_the_fix(start_emulated_pico, open_pico_client) -> None:
    pico, host = booted(start_emulated_pico, open_pico_client)
    pico.load(range(12))
    pico.inject("jam", 4)
    start = len(host.seen)
    assert host.call("start")["ok"] is True
    f = host.event("fault", start=start)
    assert (f["code"], f["k"], f["resume"]) == (protocol.FAULT_JAM, 4, True)
    assert motor_off(pico)
    assert host.call("status")["state"] == protocol.ST_PAUSED
    pico.fix()
    pico.touch(150)
    done = host.event("done", start=start)
    assert done["k"] == 12
    q = pico.query()
    assert sorted(q["left"] + q["right"]) == list(range(12))


@pytest.mark.double_feed
def test_a_double_feed_latches_an_alarm_with_the_motor_off(start_emulated_pico, open_pico_client) -> None:
    pico, host = booted(start_emulated_pico, open_pico_client)
    pico.load(range(12))
    pico.inject("double_feed", 3)
    start = len(host.seen)
    host.call("start")
    f = host.event("fault", start=start)
    assert f["code"] == protocol.FAULT_DOUBLE_FEED and f["latched"] is True and f["k"] == 3
    assert motor_off(pico)
    assert host.call("status")["state"] == protocol.ST_ALARM


def test_the_tray_emptied_mid_pass_is_a_fault(start_emulated_pico, open_pico_client) -> None:
    pico, host = booted(start_emulated_pico, open_pico_client)
    pico.load(range(15))
    pico.inject("empty_at", 6)
    start = len(host.seen)
    host.call("start")
    f = host.event("fault", start=start)
    assert f["code"] == protocol.FAULT_TRAY_EMPTIED and f["k"] == 6
    assert len(pico.query()["removed"]) == 9
    assert motor_off(pico)


@pytest.mark.battery
def test_a_low_battery_read_on_the_adc_refuses_the_pass(start_emulated_pico, open_pico_client) -> None:
    pico, host = booted(start_emulated_pico, open_pico_client)
    pico.load(range(20))
    pico.inject("battery_low")  # 6.2 V through the 1 M / 220 k divider
    start = len(host.seen)
    rep = host.call("start")
    assert rep["ok"] is False
    f = host.event("fault", start=start)
    assert f["code"] == protocol.FAULT_BATTERY_LOW
    # The ADC's 12 bits through the divider: within 10 mV of the battery.
    assert abs(f["mv"] - 6200) <= 10
    assert pico.query()["counts"]["fed"] == 0


@pytest.mark.parametrize("sensor", ["stack", "exit", "battery"])
@pytest.mark.sensor_loss
def test_a_sensor_missing_at_power_on_latches_an_alarm(start_emulated_pico, open_pico_client, sensor: str) -> None:
    pico = start_emulated_pico(fs=flashed_fs(), missing=[sensor])
    host = open_pico_client(pico)
    host.hello()
    f = host.event("fault")
    assert f["code"] == protocol.FAULT_SENSOR and f["latched"] is True and f["why"] == protocol.WHY_SELF_TEST
    assert f["part"] == sensor and f["found"]
    assert host.call("start")["err"] == protocol.E_ALARM
    pico.fix()  # the wire is plugged back in
    assert host.call("clear")["state"] == protocol.ST_IDLE
    pico.load([1, 2, 3])
    start = len(host.seen)
    assert host.call("start")["ok"] is True
    assert host.event("done", start=start)["k"] == 3
