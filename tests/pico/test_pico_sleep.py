"""Light sleep on the emulated Pico: after idle_sleep_s without activity the
firmware puts the motor driver and the sensors to sleep and the core idles
in machine.lightsleep; a touch on the TTP223 wakes it and deals: the waking
touch is the one that asked for the pass, although it is over before the
sensors have settled."""
from __future__ import annotations

import pytest

from firmware import profile_rp2
from firmware import protocol
from picotest_support import flashed_fs

pytestmark = [pytest.mark.light_sleep, pytest.mark.slow, pytest.mark.pico]


@pytest.mark.touch
def test_light_sleep_idles_the_core_and_a_touch_wakes_it_to_deal(start_emulated_pico, open_pico_client) -> None:
    # host_awake_ms (60 s after the last line from a host, and after boot)
    # shortened so the test does not idle a minute of emulated time first.
    pico = start_emulated_pico(fs=flashed_fs(config={"idle_sleep_s": 1}, profile={"host_awake_ms": 1500}))
    host = open_pico_client(pico)  # listens only: a line from a host would keep the board awake
    pico.load(range(6))
    pico.wait_until(lambda: pico.query()["sleeps"] >= 1, timeout=240)
    q = pico.query()
    assert q["sleeping"] is True and q["driver_awake"] is False
    assert q["slept_at"] >= 1500  # not before host_awake_ms after boot
    asleep_at = pico.emulated_ms()
    pico.wait_until(lambda: pico.emulated_ms() > asleep_at + 2000, timeout=240)
    assert pico.query()["sleeping"] is True  # nothing woke it
    touched_at = pico.emulated_ms()
    pico.touch(150)  # one short touch: it wakes the board and starts the pass
    settle_ms = profile_rp2.PROFILE["sensor_settle_ms"]
    assert 150 < settle_ms  # over before the HX711 has settled

    def done_or_late() -> bool:
        host.read_some()
        return any(m.get("ev") in (protocol.EV_DONE, protocol.EV_FAULT) for m in host.seen) \
            or pico.emulated_ms() > touched_at + 20000
    pico.wait_until(done_or_late, timeout=240)
    host.read_some()  # what the USB port still held
    done = [m for m in host.seen if m.get("ev") == protocol.EV_DONE]
    assert done and done[0]["k"] == 6, f"the waking touch did not start the pass: {host.seen!r}"
    assert len([m for m in host.seen if m.get("ev") == protocol.EV_TOUCH]) == 1
    q = pico.query()
    # Awake for the pass; asleep again only by a sleep begun after the touch
    # (idle_sleep_s is 1 s: a busy machine may run the emulator past it
    # before this looks).
    assert (q["sleeping"] is False or q["slept_at"] > touched_at) and sorted(q["left"] + q["right"]) == list(range(6))
    # While asleep the core waited for interrupts almost all the time.
    assert pico.idle_while_asleep and pico.idle_while_asleep[0] > 0.9, pico.idle_while_asleep
