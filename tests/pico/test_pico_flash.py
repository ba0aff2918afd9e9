"""`shuffler flash` onto the emulated Pico over its USB port, exactly as
onto a board, and `shuffler sim-device --board pico` serving the port."""
from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from firmware import protocol
from host import port_records, port_words
from simulator.virtual.world_client import WorldClient
from picotest_support import WAIT_S, flashed_fs

pytestmark = [pytest.mark.slow, pytest.mark.pico]

BIN = Path(sys.executable).parent


def test_shuffler_flash_onto_a_calibrated_pico_keeps_its_calibration(start_emulated_pico, open_pico_client) -> None:
    # A board brought up before (tests/pico/test_pico_bring_up.py flashes a
    # blank one): its calibration and configuration on its flash.
    cal = {"tare": 84003, "per_card": 761, "touch_baseline": 0, "touch_seen": 1, "beam_ms": 33, "flip": 1,
           "mv_trim": 1004}
    pico = start_emulated_pico(fs=flashed_fs(config={"idle_sleep_s": 120}, calibrated=False,
                                    extra={"cal.json": json.dumps(cal).encode()}))
    proc = subprocess.run(
        [str(BIN / "shuffler"), "flash", "--port", pico.port, "--board", "rp2",
         "--connect-timeout", "60", "--hello-timeout", "120"],
        capture_output=True, text=True, timeout=WAIT_S * 2,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    kept = port_records.SettingsKept(("cal.json", "config.json"), ())
    assert port_words.words(kept) in proc.stdout.splitlines(), proc.stdout
    pico.hard_reset()  # and after a power cycle
    host = open_pico_client(pico)
    hello = host.hello()
    assert hello["board"] == "rp2" and hello["fw"] == protocol.FIRMWARE_VERSION and hello["cal"]["stack"] == "calibrated"
    assert host.call("read", what="cal")["cal"] == cal
    assert host.call("config")["config"]["idle_sleep_s"] == 120
    assert host.call("read")["flip"] == 1
    assert pico.boots == 2


def test_sim_device_board_pico_serves_a_port_and_the_control_endpoint(tmp_path: Path) -> None:
    from picotest_support import require_emulator

    require_emulator()
    flash = tmp_path / "flash"
    proc = subprocess.Popen(
        [str(BIN / "shuffler"), "sim-device", "--board", "pico", "--time-scale", "0", "--flash", str(flash)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        first = proc.stdout.readline()
        assert first.startswith("emulated Pico on /dev/"), first + proc.stderr.read()
        port = first.split()[3]
        control = proc.stdout.readline().split()[-1]
        out = subprocess.run(
            [str(BIN / "mpremote"), "connect", port, "exec", "import sys; print('platform', sys.platform)"],
            capture_output=True, text=True, timeout=WAIT_S,
        )
        assert "platform rp2" in out.stdout, out.stdout + out.stderr
        with WorldClient.connect(control) as world:
            assert world.load(list(range(7))) == 7
            q = world.query()
            assert q["counts"]["tray"] == 7 and q["ok"] is True
    finally:
        proc.send_signal(signal.SIGTERM)
        rc = proc.wait(timeout=60)
    assert rc == 0
    assert (flash / "rp2-littlefs.img").stat().st_size == 352 * 4096
