"""Fixtures for the emulated-Pico tests: every emulator is stopped (its node
process ended) and every port closed at the end of its test."""
from __future__ import annotations

from typing import Any, Callable, Iterator

import pytest

from simulator.pico import EmulatedPico
from picotest_support import Host, require_emulator


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    # On a heavily loaded machine an emulated-Pico test now and then sees a
    # start refused with a sensor fault (seen in the fault tests; the cause is
    # not found yet: the host's bytes reach the chip at an emulated moment
    # that depends on the emulator's speed). Until it is, such a test gets two
    # more tries; one that fails three times running still fails.
    for item in items:
        if item.get_closest_marker("pico") is not None:
            item.add_marker(pytest.mark.flaky(reruns=2))


@pytest.fixture
def start_pico() -> Iterator[Callable[..., EmulatedPico]]:
    require_emulator()
    started: list[EmulatedPico] = []

    def start(**kwargs: Any) -> EmulatedPico:
        # The fast mechanism unless a test asks for the plausible one: the
        # firmware's thresholds follow the card time it measures.
        kwargs.setdefault("mechanism", "fast")
        pico = EmulatedPico(**kwargs)
        started.append(pico)
        return pico.start()

    yield start
    for pico in started:
        pico.stop()


@pytest.fixture
def open_host() -> Iterator[Callable[[EmulatedPico], Host]]:
    opened: list[Host] = []

    def open_(pico: EmulatedPico) -> Host:
        host = Host(pico)
        opened.append(host)
        return host

    yield open_
    for host in opened:
        host.close()
