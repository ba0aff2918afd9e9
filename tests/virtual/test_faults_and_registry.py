"""Fault specs and the registry of running virtual shufflers."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from simulator.virtual import faults, registry


@given(st.sampled_from(faults.WITH_CARD), st.integers(min_value=0, max_value=10_000))
def test_card_faults_parse_their_card(name: str, k: int) -> None:
    f = faults.parse_fault(f"{name}:{k}")
    assert (f.name, f.k, f.mode) == (name, k, "")
    assert not f.at_boot


@given(st.sampled_from(faults.SENSORS))
@pytest.mark.sensor_loss
def test_sensor_faults_go_in_at_boot(sensor: str) -> None:
    f = faults.parse_fault(f"sensor_missing:{sensor}")
    assert f.at_boot
    assert faults.boot_env([f]) == {"SHUFFLER_SIM_MISSING": sensor}


def test_the_wiring_options_are_the_world_s() -> None:
    # The host lists them for sim-device; the world (MicroPython) models them.
    from simulator.pico.emulator import load_world_module

    world = load_world_module()
    assert faults.WIRING == world.WIRING
    assert faults.SENSORS == world.SENSORS
    with pytest.raises(ValueError):
        world.World(wiring=("motor_backwards",))


@pytest.mark.double_feed
@pytest.mark.battery
def test_double_feed_overlap_and_low_battery() -> None:
    f = faults.parse_fault("double_feed:4:overlap")
    assert (f.k, f.mode) == (4, "overlap")
    env = faults.boot_env([faults.parse_fault("battery_low"), faults.parse_fault("sensor_missing:exit"),
                           faults.parse_fault("sensor_missing:touch")])
    assert env == {"SHUFFLER_SIM_BATTERY_MV": str(faults.LOW_BATTERY_MV), "SHUFFLER_SIM_MISSING": "exit,touch"}


@pytest.mark.parametrize(
    "text",
    ["", "melt", "jam:x", "jam:-1", "jam:1:2", "sensor_missing", "sensor_missing:nose", "battery_low:3",
     "double_feed:1:sideways", "hang:1"],
)
def test_bad_fault_specs_are_refused_with_a_message(text: str) -> None:
    with pytest.raises(ValueError) as err:
        faults.parse_fault(text)
    assert str(err.value)


def test_a_running_device_is_advertised_and_withdrawn(flash, start_virtual_shuffler) -> None:
    dev = start_virtual_shuffler(flash)
    found = registry.running()
    assert [(a.port, a.flash_dir, a.pid) for a in found] == [(dev.port, str(dev.flash_dir), os.getpid())]
    dev.stop()
    assert registry.running() == []


def test_stale_entries_are_ignored_and_removed(tmp_path) -> None:
    folder = registry.registry_dir()
    folder.mkdir(parents=True, exist_ok=True)
    # A process that has ended, and a port that does not exist.
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True, timeout=30)
    dead_pid = int(gone.stdout)
    (folder / "dead.json").write_text(json.dumps({"pid": dead_pid, "port": "/dev/null", "flash_dir": "x", "started": 0}))
    (folder / "noport.json").write_text(
        json.dumps({"pid": os.getpid(), "port": str(tmp_path / "nope"), "flash_dir": "x", "started": 0})
    )
    (folder / "junk.json").write_text("{not json")
    assert registry.running() == []
    assert list(folder.glob("*.json")) == []


def test_registry_folder_follows_the_environment(monkeypatch, tmp_path) -> None:
    monkeypatch.setenv("SHUFFLER_RUNTIME_DIR", str(tmp_path / "a"))
    assert registry.registry_dir() == tmp_path / "a" / "virtual"
    monkeypatch.delenv("SHUFFLER_RUNTIME_DIR")
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path / "xdg"))
    assert registry.registry_dir() == tmp_path / "xdg" / "lotus-shuffler" / "virtual"
    monkeypatch.delenv("XDG_RUNTIME_DIR")
    assert registry.registry_dir().name == "virtual"
    assert registry.registry_dir().parent.name == f"lotus-shuffler-{os.getuid()}"
