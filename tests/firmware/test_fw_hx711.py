"""The HX711 driver under CPython with a simulated chip on fake pins: a
reading near tare (including -1 and 0) is a reading; a missing chip, a
DOUT line stuck low and a clipped reading are not."""

from __future__ import annotations

import sys
import types
from pathlib import Path
from typing import Iterator

import pytest
from hypothesis import given
from hypothesis import strategies as st

REPO = Path(__file__).resolve().parents[2]


class Clock:
    def __init__(self) -> None:
        self.ms = 0

    def ticks_ms(self) -> int:
        return self.ms

    def ticks_diff(self, a: int, b: int) -> int:
        return a - b

    def sleep_ms(self, ms: int) -> None:
        self.ms += ms


class Chip:
    """What the HX711 does on its two lines: DOUT low when a conversion is
    ready, one bit out per SCK rising edge (MSB first), DOUT high again
    after the 25th edge. `stuck_low` / `absent` model wiring faults."""

    def __init__(self, value: int = 0, absent: bool = False, stuck_low: bool = False) -> None:
        self.word = value & 0xFFFFFF
        self.absent = absent
        self.stuck_low = stuck_low
        self.edges = 0
        self.bit = 1

    def dout_level(self) -> int:
        if self.stuck_low:
            return 0
        if self.absent:
            return 1  # the pull-up
        return self.bit

    def sck(self, level: int) -> None:
        if level:
            self.edges += 1
            if self.edges <= 24:
                self.bit = (self.word >> (24 - self.edges)) & 1
            else:
                self.bit = 1  # conversion consumed: DOUT high until the next one
        elif self.edges == 0:
            self.bit = 0  # ready

    def ready(self) -> None:
        self.edges = 0
        self.bit = 0


def load_driver(monkeypatch: pytest.MonkeyPatch) -> tuple[types.ModuleType, Clock]:
    """firmware/hx711.py imported against a fake `machine` whose pins are
    wired to a Chip, with a fake clock."""
    chip_box: dict[str, Chip] = {}

    class Pin:
        IN, OUT, PULL_UP = 0, 1, 2

        def __init__(self, n: int, mode: int = 0, pull: int | None = None, value: int | None = None) -> None:
            self.n = n

        def value(self, v: int | None = None) -> int | None:
            chip = chip_box["chip"]
            if v is None:
                return chip.dout_level()
            chip.sck(v)
            return None

    machine = types.ModuleType("machine")
    machine.Pin = Pin  # type: ignore[attr-defined]
    machine.disable_irq = lambda: 0  # type: ignore[attr-defined]
    machine.enable_irq = lambda s: None  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "machine", machine)
    monkeypatch.syspath_prepend(str(REPO / "firmware"))
    sys.modules.pop("hx711", None)
    import hx711
    clock = Clock()
    monkeypatch.setattr(hx711, "time", clock)
    hx711.chip_box = chip_box  # type: ignore[attr-defined]
    return hx711, clock


@pytest.fixture
def hx(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[types.ModuleType, Clock]]:
    yield load_driver(monkeypatch)
    sys.modules.pop("hx711", None)


def read(hx: tuple[types.ModuleType, Clock], chip: Chip) -> int | None:
    mod, _ = hx
    mod.chip_box["chip"] = chip
    chip.ready()
    return mod.HX711(16, 17).read()


@given(st.integers(-0x800000 + 1, 0x7FFFFF - 1))
def test_every_unclipped_value_reads_back(value: int) -> None:
    with pytest.MonkeyPatch.context() as mp:
        assert read(load_driver(mp), Chip(value)) == value
    sys.modules.pop("hx711", None)


@pytest.mark.parametrize("near_tare", [-1, 0, 1, -2])
def test_readings_near_tare_are_readings(hx, near_tare: int) -> None:
    assert read(hx, Chip(near_tare)) == near_tare


def test_a_missing_chip_times_out_within_a_few_conversions(hx) -> None:
    mod, clock = hx
    assert read(hx, Chip(123, absent=True)) is None
    # The wait is bounded by the conversion time at 80 samples/s, not longer.
    assert 12 < clock.ms <= mod.READY_TIMEOUT_MS + 2


def test_dout_stuck_low_is_not_a_zero_reading(hx) -> None:
    assert read(hx, Chip(0, stuck_low=True)) is None


@pytest.mark.parametrize("clipped", [0x7FFFFF, -0x800000])
def test_a_clipped_reading_is_refused(hx, clipped: int) -> None:
    assert read(hx, Chip(clipped)) is None
