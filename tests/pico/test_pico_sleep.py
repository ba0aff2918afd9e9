"""Light sleep on the emulated Pico: after idle_sleep_s without activity the
firmware puts the motor driver and the sensors to sleep and the core idles
in machine.lightsleep; a touch on the TTP223 wakes it, and the next touch
deals (the waking touch itself is over before the sensors have settled)."""
from __future__ import annotations

import pytest

from firmware import protocol as P
from picotest_support import flashed_fs

pytestmark = [pytest.mark.slow, pytest.mark.pico]


def test_light_sleep_idles_the_core_and_a_touch_wakes_it_to_deal(start_pico, open_host) -> None:
    # host_awake_ms (60 s after the last line from a host, and after boot)
    # shortened so the test does not idle a minute of emulated time first.
    pico = start_pico(fs=flashed_fs(config={"idle_sleep_s": 1}, profile={"host_awake_ms": 1500}))
    host = open_host(pico)  # listens only: a line from a host would keep the board awake
    pico.load(range(6))
    pico.wait_until(lambda: pico.query()["sleeps"] >= 1, timeout=240)
    q = pico.query()
    assert q["sleeping"] is True and q["driver_awake"] is False
    assert q["slept_at"] >= 1500  # not before host_awake_ms after boot
    asleep_at = pico.emulated_ms()
    pico.wait_until(lambda: pico.emulated_ms() > asleep_at + 2000, timeout=240)
    assert pico.query()["sleeping"] is True  # nothing woke it
    pico.touch(150)  # wakes it: sensor power back, the HX711 settles
    pico.wait_until(lambda: not pico.query()["sleeping"], timeout=240)
    woke_at = pico.emulated_ms()
    pico.wait_until(lambda: pico.emulated_ms() > woke_at + 600, timeout=240)
    pico.touch(150)  # the touch that starts the pass
    done = host.event(P.EV_DONE)
    assert done["k"] == 6
    q = pico.query()
    assert q["sleeping"] is False and sorted(q["left"] + q["right"]) == list(range(6))
    # While asleep the core waited for interrupts almost all the time.
    assert pico.idle_while_asleep and pico.idle_while_asleep[0] > 0.9, pico.idle_while_asleep
