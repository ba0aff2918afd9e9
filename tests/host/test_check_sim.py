"""`shuffler check` against a running `shuffler sim-device`, as a builder
meets it: a board set up and then wired wrong is not called ready without
saying what was not tried now; `check --feed` tries the beam and the
motor and finds the missing receiver, each line naming what it read now
and none contradicting another; a latched alarm is cleared from `check`
itself. Judged by the board's world (where the cards are)."""
from __future__ import annotations

import json
import re
import shutil
import time
from pathlib import Path

import pytest

from pty_screen import SimDevice
from simulator.virtual.board.sim_world import STACK_PER_CARD, STACK_TARE, TOUCH_BASE
from simulator.virtual.world_client import WorldClient
from suite import shuffler

pytestmark = [pytest.mark.micropython, pytest.mark.slow]

# What `shuffler setup` stores on a board it brought up (docs/protocol.md, Calibration).
SET_UP = {"tare": STACK_TARE, "per_card": STACK_PER_CARD, "touch_baseline": TOUCH_BASE, "touch_seen": 1,
          "beam_ms": 27, "flip": 0, "mv_trim": 1000}
ROW = re.compile(r"check hardware/wiring-esp32\.md, rows? ")


def set_up_board(sim_devices, sim_image_flash: Path, tmp_path: Path, *args: str) -> SimDevice:
    flash = tmp_path / "flash"
    shutil.copytree(sim_image_flash, flash)
    (flash / "cal.json").write_text(json.dumps(SET_UP))
    return sim_devices(*args, time_scale=0, flash=flash)


def alarm(dev: SimDevice) -> bool:
    parts = json.loads(shuffler("check", "--port", dev.port, "--json").stdout)["parts"]
    return any(p["part"] == "state" and p["value"].startswith("alarm") for p in parts)


def about(out: str, name: str) -> list[str]:
    return [x for x in out.splitlines() if re.match(rf"^(ok  |warn|FAIL|--  ) {re.escape(name)}:", x)]


def test_a_board_set_up_then_wired_wrong_is_not_called_ready_without_saying_what_was_not_tried(
        sim_devices, sim_image_flash: Path, tmp_path: Path) -> None:
    dev = set_up_board(sim_devices, sim_image_flash, tmp_path, "--wiring", "touch_dead",
                       "--wiring", "beam_receiver_missing")
    checked = shuffler("check", "--port", dev.port)
    out = checked.stdout
    # Read at rest, a dead pad and a beam with no receiver look as working
    # ones do: what was remembered from set-up is said so, and the last
    # line names the parts not tried now with the command that tries each.
    last = out.strip().splitlines()[-1]
    assert last.startswith("ready to shuffle, as far as read now; not tried now: "), out
    assert "touch pad (`shuffler check --watch`)" in last and "exit beam and feed motor (DRV8833) " \
        "(`shuffler check --feed`)" in last, out
    for name in ("touch pad", "exit beam", "feed motor (DRV8833)"):
        [line] = about(out, name)
        assert "at set-up" in line and "now (`shuffler check --" in line, line
    for name in ("load cell (HX711)", "battery"):
        [line] = about(out, name)
        assert " now" in line, line
    # --feed tries the beam and the motor: the cards leave the tray unseen.
    with WorldClient.connect(dev.control) as world:
        world.clear_table()
        world.new(10, "pack")
        world.put("pack")
        fed = shuffler("check", "--port", dev.port, "--feed")
        q = world.query()
    went = 10 - q["counts"]["tray"]
    assert fed.returncode == 1 and went >= 1, fed.stdout
    [beam] = about(fed.stdout, "exit beam")
    assert beam.startswith("FAIL") and "the receiver does not answer" in beam and ROW.search(beam), beam
    assert f"{went} card{'s' * (went != 1)} left the tray and the beam saw none" in beam, (beam, q["counts"])
    [motor] = about(fed.stdout, "feed motor (DRV8833)")
    assert "a card" not in motor.split("(a working one")[0], motor  # no card time the beam never measured
    assert fed.stdout.strip().endswith("not ready to shuffle: see the lines marked FAIL")


def test_a_latched_alarm_is_cleared_from_check(sim_devices, sim_image_flash: Path, tmp_path: Path) -> None:
    dev = set_up_board(sim_devices, sim_image_flash, tmp_path)
    table = ("table", "--port", dev.port)
    # The exit's receiver unplugged, and a pass asked for: the board latches
    # the sensor fault. Plugged in again, the alarm stays until cleared.
    for person in (("new", "20"), ("put", "pack"), ("fault", "sensor_missing:exit"), ("touch",)):
        assert shuffler(*table, *person).returncode == 0, person
    deadline = time.monotonic() + 120
    while not alarm(dev):
        assert time.monotonic() < deadline, "the board never latched the lost exit beam"
        time.sleep(0.2)
    with WorldClient.connect(dev.control) as world:
        world.fix()  # the receiver plugged in again
    latched = shuffler("check", "--port", dev.port)
    [state] = about(latched.stdout, "state")
    assert latched.returncode == 1 and state.startswith("FAIL state: alarm (sensor latched)"), latched.stdout
    assert "`shuffler check --clear`" in state, state
    cleared = shuffler("check", "--port", dev.port, "--clear")
    assert cleared.returncode == 0, cleared.stdout + cleared.stderr
    assert about(cleared.stdout, "state") == ["ok   state: idle (a working one: idle): nothing latched"]
