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

from suite import shuffler

pytestmark = [pytest.mark.micropython]

GOOD_CAL = {"tare": 84000, "per_card": 760, "touch_baseline": 800, "touch_seen": 1, "beam_ms": 29, "flip": 0}


@pytest.mark.parametrize("name, text, words", [
    ("cal.json", '{"tare": 84000, "per_card": 7', "cal.json (the calibration) is damaged (not readable JSON): "
                                                  "the board runs uncalibrated"),
    ("config.json", json.dumps({"touch_pct": 400}),
     "config.json (the configuration) holds values no configuration has: the board runs on the firmware's default "
     "settings (docs/protocol.md)"),
])
def test_a_damaged_or_invalid_settings_file_is_named_by_flash_check_and_setup(
        sim_devices, sim_image_flash: Path, tmp_path: Path, name: str, text: str, words: str) -> None:
    flash = tmp_path / "board"
    shutil.copytree(sim_image_flash, flash)
    if name != "cal.json":
        (flash / "cal.json").write_text(json.dumps(GOOD_CAL))
    (flash / name).write_text(text)
    dev = sim_devices("--no-install", flash=flash, time_scale=0)
    flashed = shuffler("flash", "--port", dev.port)
    assert flashed.returncode == 0, flashed.stdout + flashed.stderr
    assert f"warn: {words} until `shuffler setup` stores a new one over it" in flashed.stdout
    what = "calibration" if name == "cal.json" else "configuration"
    assert f"kept the board's {what}" not in flashed.stdout and f"it had no {what}" not in flashed.stdout
    checked = shuffler("check", "--port", dev.port)
    firmware_line = checked.stdout.splitlines()[0]
    assert firmware_line.startswith("warn firmware: ") and words in firmware_line, checked.stdout
    assert (flash / name).read_text() == text  # reading it changed nothing
    if name == "config.json":
        got = json.loads(shuffler("check", "--port", dev.port, "--json").stdout)
        assert got["parts"][0]["verdict"] == "warn"
    # setup says it too, on its first line, before anything is asked
    set_up = shuffler("setup", "--port", dev.port)
    assert words in set_up.stdout.splitlines()[0], set_up.stdout
    assert (flash / name).read_text() == text  # a set-up that stopped stores nothing

