"""The board's settings files on the MicroPython unix port: a bring-up's
calibration held in use but not stored until it is stored whole (one
write: a new file, then a rename), dropped by `drop` or by a reset; and a
cal.json or config.json that is damaged or holds values no such file
holds is never used, and said at hello (`bad`) until a write replaces it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Callable

import pytest

from firmware import protocol
from fwtest_support import FwProcess

pytestmark = pytest.mark.micropython

STORED = {"tare": 84100, "per_card": 700, "touch_baseline": 790, "touch_seen": 1, "flip": 1}


def started(start_fw_process: Callable[..., FwProcess], data: Path) -> tuple[FwProcess, dict]:
    dev = start_fw_process(data_dir=data)
    return dev, dev.event("hello")


def test_a_held_calibration_is_used_stored_only_whole_and_a_reset_drops_it(
        start_fw_process: Callable[..., FwProcess], tmp_path: Path) -> None:
    (tmp_path / "cal.json").write_text(json.dumps(STORED))
    before = (tmp_path / "cal.json").read_bytes()
    dev, _ = started(start_fw_process, tmp_path)
    assert dev.world is not None
    held = dev.call("calibrate", what="stack", n=0, hold=True)
    assert held["ok"] is True and held["held"] is True and "per_card" not in held["cal"]
    dev.world.load(list(range(52)))
    per = dev.call("calibrate", what="stack", n=52, hold=True)
    assert per["ok"] is True and abs(per["cal"]["per_card"] - 760) <= 8
    assert dev.call("read")["n"] == 52  # in use: the tray read by the held figures
    assert (tmp_path / "cal.json").read_bytes() == before  # and nothing stored
    assert dev.call("read", what="cal")["cal"]["per_card"] == per["cal"]["per_card"]
    dropped = dev.call("calibrate", what="drop")
    assert dropped["ok"] is True and dropped["cal"] == STORED and "held" not in dropped
    assert (tmp_path / "cal.json").read_bytes() == before
    # Held, then a host's handshake (the bring-up that held it was cut off): dropped.
    dev.call("calibrate", what="stack", n=52, hold=True)
    assert dev.call("hello")["fw"] and dev.call("read", what="cal")["cal"]["per_card"] != STORED["per_card"]
    assert dev.call("hello", proto=protocol.PROTOCOL_VERSION)["ok"] is True
    assert dev.call("read", what="cal")["cal"] == STORED
    # Held again, then the power goes: the board starts on what was stored.
    dev.call("calibrate", what="stack", n=52, hold=True)
    dev.close()
    dev, _ = started(start_fw_process, tmp_path)
    assert dev.world is not None
    assert dev.call("read", what="cal")["cal"] == STORED
    assert (tmp_path / "cal.json").read_bytes() == before
    # Stored whole: one file, no temp file left.
    dev.call("calibrate", what="stack", n=0, hold=True)
    stored = dev.call("calibrate", what="store")
    assert stored["ok"] is True and "held" not in stored
    assert json.loads((tmp_path / "cal.json").read_text()) == stored["cal"] and "per_card" not in stored["cal"]
    assert not (tmp_path / "cal.json.tmp").exists()


@pytest.mark.parametrize("name, text, bit", [
    ("cal.json", '{"tare": 84000, "per_ca', protocol.BAD_CAL_DAMAGED),
    ("cal.json", '{"tare": 84000, "per_card": -3}', protocol.BAD_CAL_INVALID),
    ("cal.json", '{"tare": "84000"}', protocol.BAD_CAL_INVALID),
    ("config.json", "\x00\x00\x00", protocol.BAD_CONFIG_DAMAGED),
    ("config.json", '{"touch_pct": 400}', protocol.BAD_CONFIG_INVALID),
])
def test_an_unusable_settings_file_is_said_at_hello_and_not_used_until_replaced(
        start_fw_process: Callable[..., FwProcess], tmp_path: Path, name: str, text: str, bit: int) -> None:
    (tmp_path / name).write_text(text)
    dev, hello = started(start_fw_process, tmp_path)
    assert hello["bad"] == bit
    assert dev.call("hello")["bad"] == bit
    if name == "cal.json":
        assert dev.call("read", what="cal")["cal"] == {}
        assert dev.call("calibrate", what="stack", n=0, hold=True)["ok"] is True
        assert dev.call("hello")["bad"] == bit  # held is not stored: the file is as it was
        assert dev.call("calibrate", what="store")["ok"] is True
    else:
        assert dev.call("config")["config"]["touch_pct"] != 400  # the defaults
        assert dev.call("config", set={})["ok"] is True  # the defaults stored over it
    assert "bad" not in dev.call("hello")
    assert json.loads((tmp_path / name).read_text()) is not None


def test_good_settings_files_say_nothing(start_fw_process: Callable[..., FwProcess], tmp_path: Path) -> None:
    (tmp_path / "cal.json").write_text(json.dumps(STORED))
    (tmp_path / "config.json").write_text(json.dumps({"touch_pct": 60}))
    dev, hello = started(start_fw_process, tmp_path)
    assert "bad" not in hello and dev.call("config")["config"]["touch_pct"] == 60
