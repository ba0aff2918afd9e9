"""Fixtures for the emulated-Pico tests: every emulator is stopped (its node
process ended) and every port closed at the end of its test."""
from __future__ import annotations

from typing import Any, Callable, Iterator, NamedTuple

import pytest

from simulator.pico import EmulatedPico
from picotest_support import PicoClient, flashed_fs, require_emulator


class RunningPico(NamedTuple):
    """An emulated Pico and the suite's protocol client on its USB port."""

    pico: EmulatedPico
    host: PicoClient


@pytest.fixture
def start_emulated_pico() -> Iterator[Callable[..., EmulatedPico]]:
    require_emulator()
    started: list[EmulatedPico] = []

    def start(**kwargs: Any) -> EmulatedPico:
        # The fast mechanism (twice the plausible speed) unless a test asks
        # for the plausible one: the firmware's thresholds follow the card
        # times it measures.
        kwargs.setdefault("mechanism", "fast")
        pico = EmulatedPico(**kwargs)
        started.append(pico)
        return pico.start()

    yield start
    for pico in started:
        pico.stop()


@pytest.fixture
def open_pico_client() -> Iterator[Callable[[EmulatedPico], PicoClient]]:
    opened: list[PicoClient] = []

    def open_(pico: EmulatedPico) -> PicoClient:
        host = PicoClient(pico)
        opened.append(host)
        return host

    yield open_
    for host in opened:
        host.close()


@pytest.fixture
def emulated_pico(start_emulated_pico: Callable[..., EmulatedPico],
                  open_pico_client: Callable[[EmulatedPico], PicoClient]) -> RunningPico:
    """A Pico as `shuffler flash` and `shuffler setup` leave it (the firmware
    and a calibration on its filesystem), started, with a client on its port."""
    pico = start_emulated_pico(fs=flashed_fs())
    return RunningPico(pico, open_pico_client(pico))
