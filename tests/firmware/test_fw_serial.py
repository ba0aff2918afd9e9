"""Bad input gets an error reply with a stable code and the firmware keeps
running; hello, config and calibration over the protocol."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from fwtest_support import FwProcess
from firmware import protocol
from host import device_words

pytestmark = pytest.mark.micropython


def last_error(dev: FwProcess) -> dict:
    return dev.wait(lambda m: m.get("re") is not None and m.get("ok") is False)


@pytest.mark.parametrize(
    "raw, code",
    [
        (b"{bad json\n", protocol.E_BAD_JSON),
        (b'{"cmd":"status","pad":"' + b"x" * 400 + b'"}\n', protocol.E_TOO_LONG),
        ('{"cmd":"status","x":"\u00e9"}\n'.encode(), protocol.E_NOT_ASCII),
        (b"[1, 2]\n", protocol.E_NOT_OBJECT),
        (b'{"id": 4}\n', protocol.E_NOT_OBJECT),
        (b'{"cmd":"fly","id":5}\n', protocol.E_UNKNOWN_CMD),
        (b'{"cmd":"status","id":"seven"}\n', protocol.E_BAD_FIELD),
        (b'{"cmd":"calibrate","id":6,"what":"stack","n":"ten"}\n', protocol.E_BAD_FIELD),
        (b'{"cmd":"calibrate","id":7,"what":"stack","n":500}\n', protocol.E_BAD_VALUE),
        (b'{"cmd":"config","id":8,"set":{"motor_duty":500}}\n', protocol.E_BAD_VALUE),
        (b'{"cmd":"config","id":9,"set":{"no_such_key":1}}\n', protocol.E_BAD_FIELD),
        (b'{"cmd":"config","id":10,"set":{"motor_duty":true}}\n', protocol.E_BAD_FIELD),
        (b'{"cmd":"hello","id":11,"proto":99}\n', protocol.E_PROTO),
        (b'{"cmd":"abort","id":12}\n', protocol.E_STATE),
    ],
)
@pytest.mark.serial_garbage
def test_bad_input_gets_a_stable_error_and_the_firmware_keeps_running(
        fw_process: FwProcess, raw: bytes, code: int) -> None:
    fw_process.write(raw)
    err = last_error(fw_process)
    assert err["err"] == code
    assert "name" not in err and "msg" not in err and code in device_words.ERRORS  # a number on the wire, words on the host
    # The reply carries the request id when the line had a readable one.
    try:
        rid = json.loads(raw).get("id")
    except (ValueError, AttributeError, UnicodeDecodeError):
        rid = None
    if isinstance(rid, int):
        assert err["id"] == rid
    assert fw_process.call("status")["ok"] is True


@pytest.mark.serial_garbage
def test_a_burst_of_garbage_then_a_pass(fw_process: FwProcess) -> None:
    junk = b"\x00\xff\xfe garbage\n" + b"}" * 1000 + b"\n\n\r\n" + b'{"cmd": 1}\n'
    fw_process.write(junk)
    codes = [last_error(fw_process)["err"] for _ in range(3)]
    assert codes == [protocol.E_NOT_ASCII, protocol.E_TOO_LONG, protocol.E_NOT_OBJECT]
    assert fw_process.world is not None
    fw_process.world.load(list(range(8)))
    assert fw_process.call("start")["ok"] is True
    assert fw_process.event("done")["k"] == 8


def test_hello_reply_identifies_the_board(fw_process: FwProcess) -> None:
    rep = fw_process.call("hello", proto=protocol.PROTOCOL_VERSION)
    assert rep["ok"] is True
    assert rep["fw"] == protocol.FIRMWARE_VERSION and rep["proto"] == protocol.PROTOCOL_VERSION
    assert rep["board"] == "sim" and rep["capacity"] == 104
    assert rep["cal"] == {"stack": "factory", "touch": "measured"}


@pytest.mark.restart
def test_config_set_persists_across_a_restart(start_fw_process, tmp_path: Path) -> None:
    dev = start_fw_process(data_dir=tmp_path)
    dev.event("hello")
    rep = dev.call("config", set={"motor_duty": 65, "progress_every": 0})
    assert rep["ok"] is True and rep["config"]["motor_duty"] == 65
    dev.close()
    dev2 = start_fw_process(data_dir=tmp_path)
    dev2.event("hello")
    cfg = dev2.call("config")["config"]
    assert cfg["motor_duty"] == 65 and cfg["progress_every"] == 0
    # progress_every 0: no progress events, and the duty reaches the motor.
    dev2.world.load(list(range(5)))
    dev2.send("start")
    dev2.event("done")
    assert not [m for m in dev2.seen if m.get("ev") == "progress"]


@pytest.mark.restart
def test_power_cut_between_write_and_rename_keeps_the_old_config(start_fw_process, tmp_path: Path) -> None:
    dev = start_fw_process(data_dir=tmp_path)
    dev.event("hello")
    assert dev.call("config", set={"motor_duty": 70})["ok"] is True
    dev.world.inject("save_fail")
    rep = dev.call("config", set={"motor_duty": 90})
    assert rep["ok"] is False and rep["err"] == protocol.E_STORAGE
    assert dev.call("config")["config"]["motor_duty"] == 70
    # The new values were written to the temp file only.
    assert json.loads((tmp_path / "config.json.tmp").read_text())["motor_duty"] == 90
    assert json.loads((tmp_path / "config.json").read_text())["motor_duty"] == 70
    dev.close()
    dev2 = start_fw_process(data_dir=tmp_path)
    dev2.event("hello")
    assert dev2.call("config")["config"]["motor_duty"] == 70


@pytest.mark.load_cell
def test_stack_calibration_with_a_known_count(start_fw_process, tmp_path: Path) -> None:
    dev = start_fw_process(data_dir=tmp_path)
    dev.event("hello")
    w = dev.world
    # Scale before tare is refused.
    w.load(list(range(52)))
    rep = dev.call("calibrate", what="stack", n=52)
    assert rep["ok"] is False and rep["err"] == protocol.E_NOT_CALIBRATED
    w.take("tray")
    tare = dev.call("calibrate", what="stack", n=0)
    assert tare["ok"] is True
    w.load(list(range(52)))
    cal = dev.call("calibrate", what="stack", n=52)["cal"]
    assert set(cal) >= {"tare", "per_card"}
    assert dev.call("hello")["cal"]["stack"] == "calibrated"
    # The calibration survives a restart and counts a different load right.
    dev.close()
    dev2 = start_fw_process(data_dir=tmp_path)
    assert dev2.event("hello")["cal"]["stack"] == "calibrated"
    dev2.world.load(list(range(97)))
    assert dev2.call("start")["n"] == 97
    dev2.event("done")


@pytest.mark.touch
def test_touch_calibration_stores_the_baseline(start_fw_process, tmp_path: Path) -> None:
    dev = start_fw_process(data_dir=tmp_path)
    dev.event("hello")
    rep = dev.call("calibrate", what="touch")
    assert rep["ok"] is True
    stored = json.loads((tmp_path / "cal.json").read_text())
    assert stored["touch_baseline"] == rep["cal"]["touch_baseline"]
    assert dev.call("hello")["cal"]["touch"] == "calibrated"
    bad = dev.call("calibrate", what="nothing")
    assert bad["ok"] is False and bad["err"] == protocol.E_BAD_VALUE  # a string, not one of the declared set


@pytest.mark.touch
@pytest.mark.light_sleep
def test_sleeps_when_idle_and_a_touch_wakes_it_and_deals(fw_process: FwProcess) -> None:
    w = fw_process.world
    assert w is not None
    assert fw_process.call("config", set={"idle_sleep_s": 1})["ok"] is True
    w.load(list(range(12)))
    deadline = time.monotonic() + 20
    while not w.query()["sleeping"]:
        if time.monotonic() > deadline:
            pytest.fail("the board never went to sleep")
        time.sleep(0.01)
    q = w.query()
    assert q["driver_awake"] is False and q["awake_while_asleep"] == 0  # nSLEEP low too
    # One short touch, over long before the sensors have settled after the
    # wake: it is the touch that asked for the pass.
    from firmware import profile_sim
    assert 50 < profile_sim.PROFILE["sensor_settle_ms"]
    w.touch(50)
    assert fw_process.event("done", timeout=20)["k"] == 12
    assert len([m for m in fw_process.seen if m.get("ev") == "touch"]) == 1
    q = w.query()
    assert q["sleeps"] >= 1 and q["counts"]["left"] + q["counts"]["right"] == 12
    assert q["driver_awake"] is False  # asleep again once the pass is over
    assert q["awake_while_asleep"] == 0


@pytest.mark.light_sleep
def test_no_light_sleep_while_a_host_is_talking(fw_process: FwProcess) -> None:
    """An ESP32 in light sleep loses serial bytes: the firmware stays awake
    for host_awake_ms after each line, and a line during sleep wakes it."""
    from firmware import profile_sim
    awake_ms = profile_sim.PROFILE["host_awake_ms"]
    w = fw_process.world
    assert w is not None
    before = w.query()["time_ms"]
    assert fw_process.call("config", set={"idle_sleep_s": 1})["ok"] is True
    deadline = time.monotonic() + 20
    while not (q := w.query())["sleeping"]:
        if time.monotonic() > deadline:
            pytest.fail("the board never went to sleep")
        time.sleep(0.01)
    # idle_sleep_s (1 s) ran out long before; the host's last line kept it up.
    assert q["slept_at"] - before >= awake_ms
    # A request while asleep is answered, and the board stays awake after it.
    assert fw_process.call("status")["state"] == "idle"
    t = w.query()["time_ms"]
    while w.query()["time_ms"] - t < awake_ms // 2:
        assert not w.query()["sleeping"]


def test_each_line_out_is_one_ascii_json_object(fw_process: FwProcess) -> None:
    assert fw_process.world is not None
    fw_process.world.load(list(range(30)))
    fw_process.call("start")
    fw_process.event("done")
    fw_process.call("status")
    assert len(fw_process.raw) > 30
    for line in fw_process.raw:
        assert line.endswith(b"\n") and line.count(b"\n") == 1
        assert len(line) <= protocol.MAX_LINE
        assert all(b < 128 for b in line)
        msg = json.loads(line)
        assert isinstance(msg, dict) and (("ev" in msg) != ("re" in msg))
