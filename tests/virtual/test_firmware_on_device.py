"""The real firmware on the virtual shuffler, spoken to over its pty."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Callable, Iterator

import pytest

from device_client import DeviceClient, SerialTransport
from firmware import protocol
from firmware import build

pytestmark = pytest.mark.micropython


@pytest.fixture(scope="module")
def sim_image(tmp_path_factory: pytest.TempPathFactory) -> list[build.ImageFile]:
    return build.build_image("sim", tmp_path_factory.mktemp("image"))


def installed(flash: Path, sim_image: list[build.ImageFile]) -> Path:
    build.install_to_dir(sim_image, flash)
    return flash


@pytest.fixture
def open_client() -> Iterator[Callable[[str], DeviceClient]]:
    """The suite's protocol client on a port, messages taken in turn (a
    wait looks past the last one it returned); closed at the end."""
    opened: list[DeviceClient] = []

    def open_(port: str) -> DeviceClient:
        client = DeviceClient(SerialTransport(port), consume=True)
        opened.append(client)
        return client

    yield open_
    for client in opened:
        client.close()


def next_message(link: DeviceClient, want: dict, timeout: float | None = None) -> dict:
    """The next protocol message whose fields include `want`."""
    return link.wait(lambda m: all(m.get(k) == v for k, v in want.items()), timeout)


@pytest.fixture
def start_flashed_virtual_shuffler(flash, sim_image, start_virtual_shuffler, open_client):
    def start(**kwargs):
        dev = start_virtual_shuffler(installed(flash, sim_image), time_scale=0, **kwargs)
        return dev, open_client(dev.port)

    return start


def test_hello_answers_with_the_firmware_version_and_sim_board(start_flashed_virtual_shuffler):
    _dev, link = start_flashed_virtual_shuffler()
    rep = link.call("hello")
    assert rep["ok"] is True
    assert (rep["fw"], rep["board"], rep["proto"]) == (protocol.FIRMWARE_VERSION, "sim", protocol.PROTOCOL_VERSION)
    assert rep["state"] == protocol.ST_IDLE


def test_hello_carries_the_virtual_boards_stable_uid(tmp_path, sim_image, start_virtual_shuffler, open_client):
    """The uid is the board's machine.unique_id(): kept across a hard reset
    and a restart on the same flash, different on another flash."""
    first = installed(tmp_path / "a", sim_image)
    dev = start_virtual_shuffler(first, time_scale=0)
    link = open_client(dev.port)
    uid = link.call("hello")["uid"]
    assert protocol.is_uid(uid) and len(uid) == 16 and uid == dev.uid
    dev.hard_reset()
    assert next_message(link, {"ev": "hello"})["uid"] == uid
    link.close()
    dev.stop()
    again = start_virtual_shuffler(first, time_scale=0)
    assert open_client(again.port).call("hello")["uid"] == uid
    other = start_virtual_shuffler(installed(tmp_path / "b", sim_image), time_scale=0)
    other_uid = open_client(other.port).call("hello")["uid"]
    assert protocol.is_uid(other_uid) and other_uid != uid


def test_a_pass_through_the_world_api_deals_every_card(start_flashed_virtual_shuffler):
    dev, link = start_flashed_virtual_shuffler()
    link.call("hello")  # the firmware is up, so is the control endpoint
    load = list(range(30))
    assert dev.load(load) == 30
    dev.touch(100)
    done = next_message(link, {"ev": "done"}, timeout=20)
    left, right = dev.take("left"), dev.take("right")
    assert sorted(left + right) == load
    assert (done["left"], done["right"]) == (len(left), len(right))
    # each pile keeps the load's relative order (docs/mechanism.md)
    assert left == sorted(left) and right == sorted(right)


@pytest.mark.jam
def test_a_standing_jam_stops_the_pass_at_its_card(start_flashed_virtual_shuffler):
    dev, link = start_flashed_virtual_shuffler(faults=["jam:3"])
    link.call("hello")
    dev.load(range(10))
    dev.touch(100)
    fault = next_message(link, {"ev": "fault"}, timeout=20)
    assert fault["code"] == protocol.FAULT_JAM
    assert dev.query()["counts"]["fed"] == 3


@pytest.mark.sensor_loss
def test_a_standing_missing_sensor_is_there_from_boot(start_flashed_virtual_shuffler):
    dev, link = start_flashed_virtual_shuffler(faults=["sensor_missing:stack"])
    assert link.call("hello")["state"] == protocol.ST_ALARM  # latched at start-up
    dev.load(range(10))
    rep = link.call("start")
    assert (rep["ok"], rep["err"]) == (False, protocol.E_ALARM)


@pytest.mark.restart
def test_ctrl_c_stops_the_firmware_and_a_soft_reset_brings_it_back(start_flashed_virtual_shuffler):
    dev, link = start_flashed_virtual_shuffler()
    link.call("hello")
    mark = len(link.received)
    link.write(b"\x03")
    next_message(link, {"ev": "stopped"})
    link.expect_raw(b">>> ", start=mark)
    mark = len(link.received)
    link.write(b"\x04")
    link.expect_raw(b"MPY: soft reboot", start=mark)
    hello = next_message(link, {"ev": "hello"})
    assert hello["fw"] == protocol.FIRMWARE_VERSION
    assert link.call("status")["ok"] is True


@pytest.mark.serial_garbage
def test_a_ctrl_c_byte_inside_a_line_is_a_bad_line_not_an_interrupt(start_flashed_virtual_shuffler):
    # The unix port, as a board's port, would raise KeyboardInterrupt at the
    # byte (the serial bridge turns it into SIGINT while the handler is in);
    # the firmware turns that off while it runs and takes the byte itself.
    _dev, link = start_flashed_virtual_shuffler()
    link.call("hello")
    link.write(b'{"cmd":"sta\x03tus","id":50}\n')
    err = next_message(link, {"ok": False})
    assert err["err"] == protocol.E_BAD_JSON
    assert link.call("status")["state"] == "idle"


def test_mpremote_reaches_the_raw_repl_of_the_running_firmware(start_flashed_virtual_shuffler):
    # mpremote sends \r\x03 then \r\x01 at once: the firmware stops at the
    # 0x03 and leaves the Ctrl-A to the REPL.
    import subprocess
    import sys
    dev, link = start_flashed_virtual_shuffler()
    link.call("hello")
    link.close()  # mpremote opens the port for itself
    out = subprocess.run([sys.executable, "-m", "mpremote", "connect", dev.port, "exec", "print(6 * 7)"],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stdout + out.stderr
    assert out.stdout.strip().endswith("42")


@pytest.mark.serial_garbage
def test_bad_input_gets_an_error_reply_and_the_firmware_keeps_running(start_flashed_virtual_shuffler):
    _dev, link = start_flashed_virtual_shuffler()
    link.call("hello")
    link.write(b"this is not json\n")
    err = next_message(link, {"ok": False})
    assert err["err"] == protocol.E_BAD_JSON
    assert json.loads(json.dumps(link.call("hello")))["ok"] is True


@pytest.mark.restart
def test_a_standing_fault_is_there_again_after_a_soft_reset(start_flashed_virtual_shuffler):
    dev, link = start_flashed_virtual_shuffler(faults=["jam:2"])
    link.call("hello")
    mark = len(link.received)
    link.write(b"\x03")
    link.expect_raw(b">>> ", start=mark)
    link.write(b"\x04")
    next_message(link, {"ev": "hello"})
    link.call("hello")
    dev.load(range(6))
    dev.touch(100)
    assert next_message(link, {"ev": "fault"}, timeout=20)["code"] == protocol.FAULT_JAM
    assert dev.query()["counts"]["fed"] == 2
