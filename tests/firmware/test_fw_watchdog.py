"""The watchdog and the waits it guards, on the MicroPython unix port over
the simulated board: every configurable wait fits well inside the
watchdog's timeout, and the per-card waits beat the heartbeat, so a jam is
reported as a jam and never turned into a watchdog reset."""

from __future__ import annotations

import pytest

from fwtest_support import FwProcess
from firmware import profile_sim
from firmware import protocol
from host import device_messages

pytestmark = [pytest.mark.micropython, pytest.mark.watchdog]

WDT_MS = profile_sim.PROFILE["wdt_ms"]


@pytest.mark.parametrize("key", [k for k in protocol.WAIT_KEYS
                                 if device_messages.OBJECTS["config"].rules[k].hi_name == "wait_max"])
def test_a_wait_longer_than_half_the_watchdog_is_refused(fw_process: FwProcess, key: str) -> None:
    too_long = WDT_MS // 2 + 1
    rep = fw_process.call("config", set={key: too_long})
    assert rep["ok"] is False and rep["err"] == protocol.E_BAD_VALUE
    assert (rep["why"], rep["field"], rep["hi"]) == (protocol.WHY_RANGE, key, WDT_MS // 2)
    assert fw_process.call("config")["config"][key] != too_long


@pytest.mark.parametrize("timeout", [2500, 5000])
@pytest.mark.jam
@pytest.mark.restart
def test_the_jam_timeouts_that_reset_the_board_are_refused(fw_process: FwProcess, timeout: int) -> None:
    rep = fw_process.call("config", set={"card_timeout_ms": timeout})
    assert rep["ok"] is False and rep["err"] == protocol.E_BAD_VALUE


@pytest.mark.jam
def test_the_longest_allowed_jam_timeout_reports_the_jam(fw_process: FwProcess) -> None:
    w = fw_process.world
    assert w is not None
    assert fw_process.call("config", set={"card_timeout_ms": WDT_MS // 2})["ok"] is True
    w.load(list(range(10)))
    w.inject("jam", k=4)
    fw_process.call("start")
    f = fw_process.event("fault", timeout=30)
    assert f["code"] == protocol.FAULT_JAM and f["k"] == 4
    assert fw_process.proc.poll() is None  # no watchdog reset
    w.fix()
    assert fw_process.call("resume")["ok"] is True
    assert fw_process.event("done", timeout=30)["k"] == 10


@pytest.mark.jam
def test_a_jam_waited_out_longer_than_the_watchdog_still_reports_the_jam(start_fw_process) -> None:
    """card() beats while it waits: with the watchdog at 300 ms and a 400 ms
    jam timeout (a stored config the check predates), the jam is reported."""
    dev = start_fw_process(env={"SHUFFLER_SIM_WDT_MS": "300"})
    dev.event("hello")
    w = dev.world
    w.load(list(range(6)))
    w.inject("jam", k=2)
    dev.call("start")
    f = dev.event("fault", timeout=30)
    assert f["code"] == protocol.FAULT_JAM and f["k"] == 2
    assert dev.proc.poll() is None
