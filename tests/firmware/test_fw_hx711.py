"""The HX711 driver under CPython with a simulated chip on fake pins, in
microseconds: a reading near tare (including -1 and 0) is a reading; a
word already waiting, of any age, never mixes with the next conversion; a
missing chip, a DOUT line stuck low and a clipped reading are not
readings."""

from __future__ import annotations

import sys
import types
from pathlib import Path
from typing import Iterator

import pytest
from hypothesis import given
from hypothesis import strategies as st

pytestmark = [pytest.mark.load_cell]

REPO = Path(__file__).resolve().parents[2]
PERIOD_US = 12500  # RATE high: 80 conversions a second
PIN_US = 4  # one Pin.value() call of MicroPython on a 125 MHz RP2040, about


class TicksClock:
    """The board's ticks, in microseconds, moved only by its waits."""

    def __init__(self) -> None:
        self.us = 0

    def ticks_ms(self) -> int:
        return self.us // 1000

    def ticks_diff(self, a: int, b: int) -> int:
        return a - b

    def sleep_ms(self, ms: int) -> None:
        self.us += ms * 1000


class Chip:
    """What the HX711 does on its two lines: a conversion every 12.5 ms
    pulls DOUT low, each SCK rising edge shifts one bit out (MSB first),
    DOUT goes high again after the 25th edge. The datasheet does not say
    what a conversion does to a word being shifted out: this chip restarts
    the shift with the new word (the worst case, as the emulated Pico's
    HX711 does). `age_us`: how long the first word has waited when the
    driver first looks; `stuck_low` / `absent` model wiring faults."""

    def __init__(self, clock: TicksClock, value: int = 0, age_us: int = 0, absent: bool = False,
                 stuck_low: bool = False) -> None:
        self.clock = clock
        self.word = value & 0xFFFFFF
        self.absent = absent
        self.stuck_low = stuck_low
        self.ready = False
        self.edges = 0
        self.bit = 1
        self.next_conversion = clock.us - age_us
        self.conversions = 0

    def _tick(self) -> None:
        self.clock.us += PIN_US
        while self.clock.us >= self.next_conversion:
            self.next_conversion += PERIOD_US
            self.conversions += 1
            self.ready, self.edges, self.bit = True, 0, 0

    def dout_level(self) -> int:
        self._tick()
        if self.stuck_low:
            return 0
        if self.absent:
            return 1  # the pull-up
        return self.bit

    def sck(self, level: int) -> None:
        self._tick()
        if not level or not self.ready:
            return
        self.edges += 1
        if self.edges <= 24:
            self.bit = (self.word >> (24 - self.edges)) & 1
        else:
            self.ready, self.edges, self.bit = False, 0, 1  # consumed: high until the next


def load_driver(monkeypatch: pytest.MonkeyPatch) -> tuple[types.ModuleType, TicksClock]:
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
    clock = TicksClock()
    monkeypatch.setattr(hx711, "time", clock)
    hx711.chip_box = chip_box  # type: ignore[attr-defined]
    return hx711, clock


@pytest.fixture
def hx(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[types.ModuleType, TicksClock]]:
    yield load_driver(monkeypatch)
    sys.modules.pop("hx711", None)


def read(hx: tuple[types.ModuleType, TicksClock], value: int = 0, **chip_args: object) -> int | None:
    mod, clock = hx
    chip = Chip(clock, value, **chip_args)  # type: ignore[arg-type]
    mod.chip_box["chip"] = chip
    return mod.HX711(16, 17).read()


@given(st.integers(-0x800000 + 1, 0x7FFFFF - 1), st.integers(0, PERIOD_US - 1))
def test_every_unclipped_value_reads_back(value: int, age_us: int) -> None:
    with pytest.MonkeyPatch.context() as mp:
        assert read(load_driver(mp), value, age_us=age_us) == value
    sys.modules.pop("hx711", None)


def test_a_word_of_any_age_is_never_mixed_with_the_next_conversion(hx) -> None:
    """Every age of the waiting word in 10 us steps over a whole period,
    so some reads begin just before the next conversion."""
    value = 0x2A5C3F
    wrong = [age for age in range(0, PERIOD_US, 10) if read(hx, value, age_us=age) != value]
    assert wrong == []


def test_reading_back_to_back_takes_one_conversion_each(hx) -> None:
    mod, clock = hx
    chip = Chip(clock, 1234, age_us=PERIOD_US // 2)
    mod.chip_box["chip"] = chip
    dev = mod.HX711(16, 17)
    t0 = clock.us
    assert [dev.read() for _ in range(8)] == [1234] * 8
    # The stale word is dropped, then one conversion per reading.
    assert chip.conversions == 9
    assert clock.us - t0 < 9 * PERIOD_US


@pytest.mark.parametrize("near_tare", [-1, 0, 1, -2])
def test_readings_near_tare_are_readings(hx, near_tare: int) -> None:
    assert read(hx, near_tare) == near_tare


@pytest.mark.sensor_loss
def test_a_missing_chip_times_out_within_a_few_conversions(hx) -> None:
    mod, clock = hx
    assert read(hx, 123, absent=True) is None
    # The wait is bounded by the conversion time at 80 samples/s, not longer.
    assert 12 < clock.us // 1000 <= mod.READY_TIMEOUT_MS + 2


def test_dout_stuck_low_is_not_a_zero_reading(hx) -> None:
    assert read(hx, 0, stuck_low=True) is None


@pytest.mark.parametrize("clipped", [0x7FFFFF, -0x800000])
def test_a_clipped_reading_is_refused(hx, clipped: int) -> None:
    assert read(hx, clipped) is None
