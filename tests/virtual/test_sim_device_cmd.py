"""`shuffler sim-device` as a separate process: one line with the port, listed
by `shuffler devices`, gone (with its interpreter) after SIGTERM or Ctrl-C."""
from __future__ import annotations

import json
import os
import re
import signal
import time
from pathlib import Path

import pytest
import serial

from firmware import protocol
from host import wire
from suite import shuffler

pytestmark = pytest.mark.micropython

LINE = re.compile(r"^virtual shuffler on (\S+) \(flash (.+)\)$")



def devices_json() -> list[dict]:
    from click.testing import CliRunner

    from host.commands.devices import devices

    result = CliRunner().invoke(devices, ["--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.output)



def children_of(pid: int) -> list[int]:
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            return [int(x) for x in f.read().split()]
    except OSError:
        return []


def hello(port: str) -> dict:
    with serial.Serial(port, timeout=0.2) as ser:
        deadline = time.monotonic() + 10
        buf = b""
        ser.write(protocol.encode(wire.request("hello", 7)).encode())
        while time.monotonic() < deadline:
            buf += ser.read(256)
            for line in buf.split(b"\n"):
                try:
                    msg = wire.parse_message(line)
                except ValueError:
                    continue
                if msg.get("re") == "hello" and msg.get("id") == 7:
                    return msg
        raise AssertionError(f"no hello reply: {buf[-300:]!r}")


def test_prints_its_port_runs_the_firmware_and_is_listed(sim_devices):
    dev = sim_devices("--time-scale", "0", image=None)
    proc, port, flash = dev.proc, dev.port, Path(dev.flash)
    assert LINE.match(dev.banner[0]), dev.banner
    assert os.path.exists(port)
    assert (flash / "main.py").exists() and (flash / "protocol.mpy").exists()  # firmware installed
    assert hello(port)["fw"] == protocol.FIRMWARE_VERSION
    listed = devices_json()
    assert {"port": port, "board": "sim"}.items() <= next(d for d in listed if d["port"] == port).items()
    kids = children_of(proc.pid)
    assert kids  # the interpreter
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=10) == 0
    assert not flash.exists()  # its temporary flash is removed
    for kid in kids:
        with pytest.raises(ProcessLookupError):
            os.kill(kid, 0)
    assert all(d["port"] != port for d in devices_json())


def test_keeps_a_given_flash_dir_and_its_files(sim_devices, tmp_path):
    flash = tmp_path / "myflash"
    flash.mkdir()
    (flash / "main.py").write_text("print('mine')\n")
    dev = sim_devices(flash=flash, firmware=False)  # its own main.py: no firmware
    proc = dev.proc
    assert LINE.match(dev.banner[0]), dev.banner
    assert Path(dev.flash) == flash.resolve()
    assert not (flash / "protocol.mpy").exists()  # a non-empty flash is not overwritten
    proc.send_signal(signal.SIGINT)
    assert proc.wait(timeout=10) == 0
    assert (flash / "main.py").read_text() == "print('mine')\n"


def test_a_bad_fault_is_one_line_and_nonzero():
    out = shuffler("sim-device", "--fault", "melt")
    assert out.returncode != 0
    assert "Traceback" not in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1
    assert "melt" in out.stderr
