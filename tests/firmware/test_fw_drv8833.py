"""The DRV8833 driver under CPython with fake pins: the driver sleeps
(nSLEEP low) whenever the motor is not turning, wakes with the datasheet
delay before it drives, and brakes before it lets the outputs float."""

from __future__ import annotations

import sys
import types
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def drv(monkeypatch: pytest.MonkeyPatch):
    log: list[tuple] = []

    class Pin:
        OUT = 1

        def __init__(self, n: int, mode: int = 0, value: int | None = None) -> None:
            self.n = n
            if value is not None:
                log.append(("pin", n, value))

        def value(self, v: int) -> None:
            log.append(("pin", self.n, v))

    class PWM:
        def __init__(self, pin: Pin, freq: int, duty_u16: int) -> None:
            self.n = pin.n
            log.append(("pwm", self.n, duty_u16))

        def duty_u16(self, d: int) -> None:
            log.append(("pwm", self.n, d))

    clock = types.SimpleNamespace(
        sleep_us=lambda us: log.append(("wait_us", us)),
        sleep_ms=lambda ms: log.append(("wait_us", ms * 1000)))
    machine = types.ModuleType("machine")
    machine.Pin = Pin  # type: ignore[attr-defined]
    machine.PWM = PWM  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "machine", machine)
    monkeypatch.syspath_prepend(str(REPO / "firmware"))
    sys.modules.pop("drv8833", None)
    import drv8833
    monkeypatch.setattr(drv8833, "time", clock)
    yield drv8833, log
    sys.modules.pop("drv8833", None)


SLEEP = 27


def nsleep(log: list[tuple]) -> int:
    return [e for e in log if e[:2] == ("pin", SLEEP)][-1][2]


def test_the_driver_starts_asleep(drv) -> None:
    mod, log = drv
    mod.Motor(25, 26, SLEEP, 20000)
    assert nsleep(log) == 0


def test_driving_wakes_it_with_the_wake_up_delay_first(drv) -> None:
    mod, log = drv
    m = mod.Motor(25, 26, SLEEP, 20000)
    log.clear()
    m.drive(1, 65)
    assert log[0] == ("pin", SLEEP, 1)
    assert log[1] == ("wait_us", 1000)  # DRV8833: up to 1 ms to a working bridge
    assert ("pwm", 26, 65535 - 65 * 65535 // 100) in log
    log.clear()
    m.drive(-1, 65)  # already awake: no second wait
    assert not [e for e in log if e[0] == "wait_us"]


def test_off_brakes_then_sleeps_and_is_cheap_when_already_asleep(drv) -> None:
    mod, log = drv
    m = mod.Motor(25, 26, SLEEP, 20000)
    m.drive(1, 65)
    log.clear()
    m.off()
    brake = log.index(("pwm", 26, 65535))
    wait = log.index(("wait_us", mod.STOP_MS * 1000))
    assert brake < wait < log.index(("pin", SLEEP, 0))
    log.clear()
    m.off()
    assert ("pin", SLEEP, 0) not in log and not [e for e in log if e[0] == "wait_us"]
    m.drive(1, 50)
    assert nsleep(log) == 1


@pytest.mark.light_sleep
def test_both_boards_put_the_driver_to_sleep_on_stop_and_in_light_sleep() -> None:
    # The board drivers need the real ports to run; their source says it.
    # Both boards take motor_stop and light_sleep from board_common (a
    # board's own sleep, doze, runs inside light_sleep) and override neither.
    common = (REPO / "firmware" / "board_common.py").read_text()
    stop = common.split("def motor_stop(self):", 1)[1].split("def ", 1)[0]
    assert "self.motor_drv.off()" in stop
    sleep = common.split("def light_sleep(", 1)[1].split("def ", 1)[0]
    assert "self.motor_drv.off()" in sleep and "self.doze(" in sleep
    for board in ("esp32", "rp2"):
        src = (REPO / "firmware" / f"board_{board}.py").read_text()
        assert "class Board(board_common.Board):" in src
        assert "def motor_stop(" not in src and "def light_sleep(" not in src


def test_asleep_the_inputs_are_low_so_their_pull_downs_draw_nothing(drv) -> None:
    mod, log = drv
    m = mod.Motor(25, 26, SLEEP, 20000)
    m.drive(-1, 65)
    m.off()
    sleep_at = log.index(("pin", SLEEP, 0))
    last = {e[1]: e[2] for e in log[sleep_at:] if e[0] == "pwm"}
    assert last == {25: 0, 26: 0}
