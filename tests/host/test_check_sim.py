"""`shuffler check` against a running `shuffler sim-device`, as a builder
meets it: a board set up and then wired wrong is not called ready without
saying what was not tried now; `check --feed` tries the beam and the
motor and finds the missing receiver, each line naming what it read now
and none contradicting another; a latched alarm is cleared from `check`
itself. Judged by the board's world (where the cards are) and by the
records `check --json` gives beside its words (host/finding_records.py;
the words are tests/host/test_finding_words.py's)."""
from __future__ import annotations

import json
import re
import shutil
import time
from pathlib import Path
from typing import Any

import pytest

from firmware import protocol
from host.parts import PARTS
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


def checked(dev: SimDevice, *args: str) -> tuple[int, dict[str, Any], dict[str, dict[str, Any]]]:
    """`shuffler check --json`: its exit status, its report, and each part's finding by its key."""
    out = shuffler("check", "--port", dev.port, "--json", *args)
    report = json.loads(out.stdout)
    return out.returncode, report, {p["part"]: p for p in report["parts"]}


def alarm(dev: SimDevice) -> bool:
    return checked(dev)[2]["state"]["read"]["state"] == "alarm"


def about(out: str, name: str) -> list[str]:
    return [x for x in out.splitlines() if re.match(rf"^(ok  |warn|FAIL|--  ) {re.escape(name)}:", x)]


def test_a_board_set_up_then_wired_wrong_is_not_called_ready_without_saying_what_was_not_tried(
        sim_devices, sim_image_flash: Path, tmp_path: Path) -> None:
    dev = set_up_board(sim_devices, sim_image_flash, tmp_path, "--wiring", "touch_dead",
                       "--wiring", "beam_receiver_missing")
    printed = shuffler("check", "--port", dev.port)
    assert printed.returncode == 0 and all(len(about(printed.stdout, p.name)) == 1 for p in PARTS.values()), \
        printed.stdout
    # Read at rest, a dead pad and a beam with no receiver look as working
    # ones do: what was remembered from set-up is said so, and the verdict
    # names the parts not tried now with the command that tries each.
    code, report, by = checked(dev)
    assert code == 0 and report["verdict"] == {"kind": "Ready", "untried": [
        ["shuffler check --watch", ["touch"]], ["shuffler check --feed", ["exit", "motor"]]]}, report
    assert by["touch"]["why"] == {"kind": "TouchConfirmed", "option": "shuffler check --watch", "watching": False}
    assert by["exit"]["why"] == {"kind": "CardsSeenAtSetUp", "beam_ms": SET_UP["beam_ms"],
                                 "option": "shuffler check --feed"}
    assert by["motor"]["why"] == {"kind": "Direction", "flip": 0, "option": "shuffler check --feed"}
    assert by["stack"]["read"]["kind"] == "StackRead" and by["stack"]["read"]["tare"] == STACK_TARE
    assert by["battery"]["read"]["kind"] == "BatteryRead" and by["touch"]["read"]["kind"] == "TouchRead"
    # --feed tries the beam and the motor: the cards leave the tray unseen.
    with WorldClient.connect(dev.control) as world:
        world.clear_table()
        world.new(10, "pack")
        world.put("pack")
        code, report, by = checked(dev, "--feed")
        q = world.query()
    went = 10 - q["counts"]["tray"]
    assert code == 1 and went >= 1 and report["verdict"] == {"kind": "NotReady"}, report
    beam, motor = by["exit"], by["motor"]
    assert (beam["verdict"], beam["why"]) == ("fail", {"kind": "BeamSilent"}) and ROW.search(beam["diagnosis"]), beam
    assert beam["read"] == {"kind": "BeamMissedFed", "out": went}, (beam, q["counts"])
    # No card time the beam never measured: the motor is not judged.
    assert (motor["verdict"], motor["read"], motor["why"]) == \
        ("not checked", {"kind": "NotJudged"}, {"kind": "DirectionAwaitsBeam"}), motor


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
    code, _, by = checked(dev)
    state = by["state"]
    assert code == 1 and state["verdict"] == "fail", state
    assert state["read"] == {"kind": "StateRead", "state": "alarm", "fault": protocol.FAULT_SENSOR}, state
    assert state["why"] == {"kind": "FaultHeld", "code": protocol.FAULT_SENSOR}, state
    code, _, by = checked(dev, "--clear")
    assert code == 0 and by["state"]["verdict"] == "ok", by["state"]
    assert (by["state"]["read"], by["state"]["why"]) == \
        ({"kind": "StateRead", "state": "idle", "fault": None}, {"kind": "NothingLatched"})
