"""`shuffler devices`: USB ids of the supported boards, and virtual shufflers."""
from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path
from types import SimpleNamespace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from host import port_records, port_words, ports
from simulator.virtual import VirtualShuffler



def port_info(device: str, vid: int | None, pid: int | None) -> SimpleNamespace:
    return SimpleNamespace(device=device, vid=vid, pid=pid, serial_number="SN1")


@pytest.mark.parametrize(
    ("vid", "pid", "board"),
    [
        (0x303A, 0x1001, "esp32"),  # ESP32-S3 native USB (USB-serial-JTAG)
        (0x303A, 0x4001, "esp32"),  # any Espressif product id
        (0x10C4, 0xEA60, "esp32"),  # CP210x
        (0x1A86, 0x7523, "esp32"),  # CH340
        (0x1A86, 0x55D4, "esp32"),  # CH9102, on current ESP32 DevKitC boards
        (0x2E8A, 0x0005, "rp2"),  # Raspberry Pi Pico with MicroPython
    ],
)
def test_supported_usb_ids(vid: int, pid: int, board: str) -> None:
    hit = ports.match_usb(vid, pid)
    assert hit is not None and hit.board == board


def test_the_id_list_is_data() -> None:
    # One frozen record per id, no duplicates: adding a board is one line.
    assert isinstance(ports.USB_IDS, tuple)
    assert all(isinstance(u, ports.UsbId) for u in ports.USB_IDS)
    keys = [(u.vid, u.pid) for u in ports.USB_IDS]
    assert len(keys) == len(set(keys))
    assert {u.board for u in ports.USB_IDS} <= {"esp32", "rp2"}


@given(st.integers(0, 0xFFFF), st.integers(0, 0xFFFF))
def test_other_ids_match_only_through_the_table(vid: int, pid: int) -> None:
    hit = ports.match_usb(vid, pid)
    listed = any(u.vid == vid and (u.pid is None or u.pid == pid) for u in ports.USB_IDS)
    assert (hit is not None) == listed


def test_ports_without_usb_ids_are_left_out() -> None:
    infos = [
        port_info("/dev/ttyS0", None, None),
        port_info("/dev/ttyUSB0", 0x10C4, 0xEA60),
        port_info("/dev/ttyACM0", 0x2E8A, 0x0005),
        port_info("/dev/ttyACM1", 0x2E8A, 0x000A),  # a Pico running other firmware
    ]
    found = ports.usb_candidates(infos)
    assert [(c.port, c.board) for c in found] == [("/dev/ttyACM0", "rp2"), ("/dev/ttyUSB0", "esp32")]
    assert found[0].serial_number == "SN1"


def run_devices(*args: str) -> str:
    from click.testing import CliRunner

    from host.commands.devices import devices

    result = CliRunner().invoke(devices, list(args))
    assert result.exit_code == 0, result.output
    return result.output


def devices_json() -> list[dict]:
    return json.loads(run_devices("--json"))


@pytest.mark.micropython
def test_a_running_virtual_shuffler_is_listed(tmp_path: Path) -> None:
    with VirtualShuffler(tmp_path / "flash") as dev:
        listed = [d for d in devices_json() if d["board"] == "sim"]
        assert [d["port"] for d in listed] == [dev.port]
        # Advertised by this process, with its flash.
        virtual = port_records.VirtualListed("sim", os.getpid(), str(dev.flash_dir))
        assert listed[0]["virtual"] == dataclasses.asdict(virtual)
        line = [row for row in run_devices().splitlines() if row.startswith(dev.port)]
        assert len(line) == 1 and line[0].split()[1] == "sim" and line[0].endswith(port_words.words(virtual))
    assert [d for d in devices_json() if d["board"] == "sim"] == []


def test_nothing_found_is_said_plainly(monkeypatch: pytest.MonkeyPatch) -> None:
    from click.testing import CliRunner

    from host.commands.devices import devices

    monkeypatch.setattr(ports, "candidates", lambda: [])
    result = CliRunner().invoke(devices, [])
    assert result.exit_code == 0
    assert result.output == port_words.words(port_records.NoShufflerFound()) + "\n"
