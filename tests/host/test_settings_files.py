"""A board whose cal.json or config.json is damaged or invalid, on the
unix-port virtual shuffler (its flash folder is the board's files): flash,
check and setup each name the file, what is wrong and what to run; the
firmware runs on the defaults only with that said, and a set-up that
passes stores over the file."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from firmware import protocol
from host import port_records as said
from host import port_words
from suite import shuffler

pytestmark = [pytest.mark.micropython]

GOOD_CAL = {"tare": 84000, "per_card": 760, "touch_baseline": 800, "touch_seen": 1, "beam_ms": 29, "flip": 0}


@pytest.mark.parametrize("name, text, bad", [
    ("cal.json", '{"tare": 84000, "per_card": 7', protocol.BAD_CAL_DAMAGED),  # not readable JSON
    ("config.json", json.dumps({"touch_pct": 400}), protocol.BAD_CONFIG_INVALID),  # values no configuration has
])
def test_a_damaged_or_invalid_settings_file_is_named_by_flash_check_and_setup(
        sim_devices, sim_image_flash: Path, tmp_path: Path, name: str, text: str, bad: int) -> None:
    flash = tmp_path / "board"
    shutil.copytree(sim_image_flash, flash)
    if name != "cal.json":
        (flash / "cal.json").write_text(json.dumps(GOOD_CAL))
    (flash / name).write_text(text)
    dev = sim_devices("--no-install", flash=flash, time_scale=0)
    flashed = shuffler("flash", "--port", dev.port)
    assert flashed.returncode == 0, flashed.stdout + flashed.stderr
    # Flashed, the file named as unusable; kept only the other, good file (the calibration beside a bad configuration).
    kept = [] if name == "cal.json" else [said.SettingsKept(("cal.json",), ())]
    told = [said.Flashed(protocol.FIRMWARE_VERSION, dev.port, "sim", protocol.PROTOCOL_VERSION), *kept,
            said.SettingsUnusable(bad)]
    assert flashed.stdout.splitlines()[1:] == [port_words.words(r) for r in told], flashed.stdout
    checked = shuffler("check", "--port", dev.port, "--json")
    firmware = json.loads(checked.stdout)["parts"][0]
    assert (firmware["part"], firmware["verdict"]) == ("firmware", "warn"), checked.stdout
    assert firmware["why"] == {"kind": "BadSettings", "bad": bad}, checked.stdout
    assert (flash / name).read_text() == text  # reading it changed nothing
    # setup says it too, on its first line, before anything is asked
    steps = tmp_path / "setup-steps.jsonl"
    set_up = shuffler("setup", "--port", dev.port, "--steps-file", str(steps))
    first = json.loads(steps.read_text().splitlines()[0])
    assert (first["kind"], first["part"], first["why"]) == ("found", "firmware", firmware["why"]), first
    assert set_up.stdout.splitlines()[0] == first["words"], set_up.stdout
    assert (flash / name).read_text() == text  # a set-up that stopped stores nothing
