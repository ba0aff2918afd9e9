"""Support for the emulated-Pico tests: a Pico with the firmware flashed
(its littlefs filesystem built on the host from the same image `shuffler
flash` writes), and a host that talks the protocol over its USB port."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Mapping

import pytest

from device_client import DeviceClient, SerialTransport
from firmware import protocol
from simulator.pico import EmulatedPico, EmulatorError, ImageMissing, find_image
from simulator.pico.emulator import node_ready
from simulator.pico.flash_fs import build_fs, calibration, firmware_files

# Wall-clock limits only bound a wait that would otherwise never end; the
# emulator runs several times slower than real time on a loaded machine.
WAIT_S = 240.0
REPO = Path(__file__).resolve().parents[2]


def require_emulator() -> None:
    """The image and node are part of the test set-up: without them the
    tests fail with one line saying what to put where, never skip."""
    try:
        find_image()
        node_ready()
    except (ImageMissing, EmulatorError) as exc:
        pytest.fail(str(exc), pytrace=False)


def flashed_fs(config: Mapping[str, Any] | None = None, calibrated: bool = True,
               profile: Mapping[str, Any] | None = None, extra: Mapping[str, bytes] | None = None) -> bytes:
    """The firmware's rp2 image on a littlefs filesystem, with cal.json and
    config.json; profile: entries of PROFILE changed for a test, written as
    profile_rp2.py (imported before the image's profile_rp2.mpy); extra:
    more files."""
    extra = dict(extra or {})
    if profile:
        src = (REPO / "firmware" / "profile_rp2.py").read_text()
        extra["profile_rp2.py"] = (src + "\nPROFILE.update(%r)\n" % dict(profile)).encode()
    if calibrated:
        extra["cal.json"] = calibration()
    if config:
        extra["config.json"] = json.dumps(dict(config)).encode()
    files = firmware_files(extra)
    if profile:
        files.pop("profile_rp2.mpy", None)
    return build_fs(files)


class PicoClient(DeviceClient):
    """The protocol over the emulated USB port (REPL text passed over;
    every wait looks at all that arrived since `start`)."""

    def __init__(self, pico: EmulatedPico) -> None:
        super().__init__(SerialTransport(pico.port, alive=self._alive), wait_s=WAIT_S)
        self.pico = pico

    def _alive(self) -> None:
        if not self.pico.running:
            raise EmulatorError(f"the emulated Pico stopped: {self.pico.error!r}")

    @property
    def raw(self) -> bytes:
        """Every byte read from the port."""
        return self.received


def to_repl(host: PicoClient) -> None:
    """Ctrl-C: the firmware stops and hands the board to the REPL."""
    start = len(host.seen)
    host.write(b"\x03")
    assert host.event(protocol.EV_STOPPED, start=start)["reason"] == "interrupt"
    host.write(b"\r\n")
    host.expect_raw(b">>> ")
