"""Support for the emulated-Pico tests: a Pico with the firmware flashed
(its littlefs filesystem built on the host from the same image `shuffler
flash` writes), and a host that talks the protocol over its USB port."""
from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any, Callable, Mapping

import pytest
import serial

from firmware import protocol as P
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


class Host:
    """The protocol over the emulated USB port."""

    def __init__(self, pico: EmulatedPico) -> None:
        self.pico = pico
        self.ser = serial.Serial(pico.port, baudrate=115200, timeout=0.05)
        self.buf = b""
        self.raw = b""
        self.seen: list[dict[str, Any]] = []
        self.next_id = 1

    def close(self) -> None:
        self.ser.close()

    def write(self, data: bytes) -> None:
        self.ser.write(data)

    def read_some(self) -> None:
        if not self.pico.running:
            raise EmulatorError(f"the emulated Pico stopped: {self.pico.error!r}")
        chunk = self.ser.read(4096)
        self.raw += chunk
        self.buf += chunk
        while b"\n" in self.buf:
            line, self.buf = self.buf.split(b"\n", 1)
            try:
                self.seen.append(P.parse_message(line))
            except ValueError:
                pass  # REPL text, banners

    def wait(self, pred: Callable[[dict[str, Any]], bool], timeout: float = WAIT_S,
             start: int = 0) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        i = start
        while True:
            while i < len(self.seen):
                if pred(self.seen[i]):
                    return self.seen[i]
                i += 1
            if time.monotonic() > deadline:
                raise TimeoutError(f"no matching message; last seen: {self.seen[-5:]!r}, "
                                   f"raw tail {self.raw[-300:]!r}")
            self.read_some()

    def expect_raw(self, pattern: bytes, timeout: float = WAIT_S) -> None:
        deadline = time.monotonic() + timeout
        start = len(self.raw)
        while pattern not in self.raw[max(0, start - len(pattern)):]:
            if time.monotonic() > deadline:
                raise TimeoutError(f"waited for {pattern!r}; raw tail {self.raw[-300:]!r}")
            self.read_some()

    def event(self, name: str, timeout: float = WAIT_S, start: int = 0) -> dict[str, Any]:
        return self.wait(lambda m: m.get("ev") == name, timeout, start)

    def send(self, cmd: str, **fields: Any) -> int:
        rid = self.next_id
        self.next_id += 1
        self.write(P.encode(P.request(cmd, rid, **fields)).encode())
        return rid

    def call(self, cmd: str, timeout: float = WAIT_S, **fields: Any) -> dict[str, Any]:
        rid = self.send(cmd, **fields)
        return self.wait(lambda m: "re" in m and m.get("id") == rid, timeout)

    def hello(self, timeout: float = WAIT_S) -> dict[str, Any]:
        """Ask hello until answered (a request sent while the board boots is lost)."""
        deadline = time.monotonic() + timeout
        while True:
            rid = self.send(P.CMD_HELLO)
            try:
                return self.wait(lambda m: m.get("re") == P.CMD_HELLO and m.get("id") == rid, 3.0)
            except TimeoutError:
                if time.monotonic() > deadline:
                    raise


def to_repl(host: Host) -> None:
    """Ctrl-C: the firmware stops and hands the board to the REPL."""
    start = len(host.seen)
    host.write(b"\x03")
    assert host.event(P.EV_STOPPED, start=start)["reason"] == "interrupt"
    host.write(b"\r\n")
    host.expect_raw(b">>> ")
