"""A sensor lost in the middle of a pass, on the MicroPython unix port over
the simulated board: each fault names the part that was lost and why, never
`internal` (the world strikes under the card loop's heap lock without
allocating) and never a mechanical fault it is not (a double feed, a jam)."""

from __future__ import annotations

import types

import pytest

from fwtest_support import REPO, FwProcess
from firmware import protocol
from suite import motor_off

pytestmark = [pytest.mark.sensor_loss]

K = 5  # the card (feed order, from 0) at which the sensor is lost
CARDS = 20


def lose(dev: FwProcess, sensor: str) -> None:
    w = dev.world
    assert w is not None
    w.load(list(range(CARDS)))
    w.inject("sensor_missing", k=K, sensor=sensor)
    assert dev.call("start")["ok"] is True



@pytest.mark.micropython
def test_the_exit_sensor_lost_mid_pass_is_a_sensor_fault_naming_it(fw_process: FwProcess) -> None:
    lose(fw_process, "exit")
    f = fw_process.event("fault")
    assert (f["code"], f["part"], f["k"]) == (protocol.FAULT_SENSOR, protocol.PART_EXIT, K)
    assert (f["why"], f["out"]) == (protocol.WHY_BLOCKED, 1)
    assert motor_off(fw_process)
    assert fw_process.call("status")["state"] == protocol.ST_ALARM
    # Still lost: clear runs the self-test again and names it once more.
    fw_process.call("clear")
    again = fw_process.event("fault")
    assert again["part"] == protocol.PART_EXIT and again["found"] & protocol.SELF_EXIT_BLOCKED


@pytest.mark.micropython
@pytest.mark.battery
def test_the_battery_sensor_lost_mid_pass_is_a_sensor_fault_naming_it(fw_process: FwProcess) -> None:
    lose(fw_process, "battery")
    f = fw_process.event("fault")
    # The motor runs on the battery, not on its sensor: card K comes out,
    # then the reading after it names the sensor.
    assert (f["code"], f["part"], f["k"]) == (protocol.FAULT_SENSOR, protocol.PART_BATTERY, K + 1)
    assert (f["why"], f["mv"]) == (protocol.WHY_IMPLAUSIBLE, 0)
    assert f["left"] + f["right"] == K + 1
    assert motor_off(fw_process)


@pytest.mark.micropython
@pytest.mark.load_cell
def test_the_stack_sensor_lost_mid_pass_lets_the_pass_finish_and_names_it_at_the_next(fw_process: FwProcess) -> None:
    # The exit beam counts a pass; the load cell is read before it.
    lose(fw_process, "stack")
    assert fw_process.event("done")["k"] == CARDS
    w = fw_process.world
    assert w is not None
    w.take("left")
    w.load([1, 2, 3])
    rep = fw_process.call("start")
    assert rep["ok"] is False and rep["err"] == protocol.E_REFUSED
    f = fw_process.event("fault")
    assert (f["code"], f["part"], f["why"]) == (protocol.FAULT_SENSOR, protocol.PART_STACK, protocol.WHY_NO_ANSWER)


@pytest.mark.micropython
@pytest.mark.touch
def test_the_touch_sensor_lost_mid_pass_is_named_once_the_board_is_idle(fw_process: FwProcess) -> None:
    lose(fw_process, "touch")
    assert fw_process.event("done")["k"] == CARDS
    f = fw_process.event("fault")
    assert (f["code"], f["part"], f["why"]) == (protocol.FAULT_SENSOR, protocol.PART_TOUCH, protocol.WHY_IMPLAUSIBLE)
    assert [m for m in fw_process.seen if m.get("ev") == "touch"] == []  # never taken as a touch


@pytest.mark.micropython
@pytest.mark.exit_sensor
def test_cards_that_leave_unseen_by_the_exit_beam_name_the_beam(start_fw_process) -> None:
    # No receiver at the beam: its input reads clear while the cards go out.
    dev = start_fw_process(env={"SHUFFLER_SIM_WIRING": "beam_receiver_missing"})
    dev.event("hello")
    w = dev.world
    w.load(list(range(CARDS)))
    dev.call("start")
    f = dev.event("fault")
    out = CARDS - w.query()["counts"]["tray"]
    assert out >= 1
    assert (f["code"], f["part"], f["k"]) == (protocol.FAULT_SENSOR, protocol.PART_EXIT, 0)
    assert (f["why"], f["out"]) == (protocol.WHY_MISSED, out)


def _dealer_over(battery_mv: int):  # type: ignore[no-untyped-def]
    """A dealer whose card never reaches the beam, with the battery reading battery_mv."""
    import sys

    sys.path.insert(0, str(REPO / "firmware"))
    import dealer

    class Board:
        t = 0

        def ticks_ms(self) -> int: return self.t
        def sleep_ms(self, ms: int) -> None: self.t += ms
        def exit_blocked(self) -> bool: return False
        def battery_mv(self) -> int: return battery_mv
        def motor(self, d: int, duty: int) -> None: pass
        def motor_brake(self) -> None: pass
        def motor_stop(self) -> None: pass
        def wdt_feed(self) -> None: pass

    host = types.SimpleNamespace(pending=lambda: False, service=lambda: None, listen=lambda: None)
    sides = types.SimpleNamespace(side=lambda k: 0)
    import profile_common
    d = dealer.Dealer(Board(), host, lambda buf: None, sides, profile_common.merged({}))  # min_mv 3000
    d.begin(sides, 5, {"motor_duty": 65, "card_timeout_ms": 400, "block_max_ms": 1000,
                       "brake_ms": 5, "progress_every": 1}, 6400, 1)
    return dealer, d


@pytest.mark.parametrize("mv, reason", [(0, "R_SENSOR"), (5000, "R_BATTERY"), (9000, "R_TIMEOUT")])
@pytest.mark.jam
@pytest.mark.battery
def test_a_card_that_never_comes_reads_the_battery_before_calling_it_a_jam(monkeypatch: pytest.MonkeyPatch,
                                                                          mv: int, reason: str) -> None:
    # A motor stalled by a failed battery, or a battery sensor that reads
    # nothing, is not a jam.
    dealer, d = _dealer_over(mv)
    monkeypatch.setattr(dealer, "time", types.SimpleNamespace(ticks_diff=lambda a, b: a - b))
    assert d.run() == getattr(dealer, reason)
    assert d.k == 0
