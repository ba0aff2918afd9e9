"""Passes on the emulated Pico: the firmware's real rp2 drivers move the
simulated mechanism through the chip's pins (the DRV8833 inputs' PWM, the
exit beam, the HX711's two wires, the touch module, the battery divider).
One pass on the fast mechanism profile (twice the plausible speed), and
one at the plausible speed of hardware/mechanism.py, as fast as the Lotus
deals: the same firmware, whose thresholds follow the card times it
measures."""
from __future__ import annotations

import collections
import time
from typing import Any

import pytest

from hardware import mechanism

from firmware import protocol
from picotest_support import PicoClient, flashed_fs


pytestmark = [pytest.mark.slow, pytest.mark.pico]


def deal_104(pico: Any, host: PicoClient) -> dict[str, Any]:
    """Load 104 cards, touch, and check every card is accounted for; the world's state after."""
    host.hello()
    load = list(range(104))
    pico.load(load)
    pico.touch(150)
    start = len(host.seen)
    assert host.event("loaded", start=start)["n"] == 104  # counted by the HX711, bit by bit
    done = host.event("done", start=start)
    assert not [m for m in host.seen[start:] if m.get("ev") == protocol.EV_FAULT]
    q = pico.query()
    left, right = q["left"], q["right"]
    assert sorted(left + right) == load
    assert q["tray"] == [] and q["throat"] == []
    assert (done["left"], done["right"], done["n"]) == (len(left), len(right), 104)
    # Each pile keeps the load's relative order: the bottom card fed first.
    assert left == sorted(left) and right == sorted(right)
    progress = [m["k"] for m in host.seen[start:] if m.get("ev") == "progress"]
    assert progress == list(range(1, 105))
    assert q["motor"]["dir"] == 0 and q["driver_awake"] is False  # braked, nSLEEP low
    return dict(q)


def test_a_104_card_pass_accounts_for_every_card(emulated_pico) -> None:
    pico, host = emulated_pico
    deal_104(pico, host)
    # The PWM duty the firmware set (the profile's motor_duty) reached the
    # motor model through the pins, forward (+1) and reverse (-1); the
    # rest are the 1 ms slices in which the motor started or stopped.
    duty = int(_rp2_default("motor_duty"))
    driven: collections.Counter[int] = collections.Counter()
    for (d, pct), ms in pico.drives.items():
        if abs(pct - duty) <= 1:
            driven[d] += ms
    assert set(driven) == {1, -1}
    assert sum(driven.values()) >= 0.85 * sum(pico.drives.values())


def test_a_104_card_pass_at_the_lotus_speed(start_emulated_pico, open_pico_client) -> None:
    pico = start_emulated_pico(fs=flashed_fs(), mechanism="plausible")
    host = open_pico_client(pico)
    host.hello()
    t0, wall0 = pico.emulated_ms(), time.monotonic()
    deal_104(pico, host)
    # The mechanism's 61 ms a card (hardware/mechanism.py at 9 V) and the
    # firmware's own time between cards: about seven seconds of emulated
    # time from the touch, not the fast profile's four.
    emulated_s = (pico.emulated_ms() - t0) / 1000
    assert 104 * mechanism.card_ms(9000, 65) / 1000 < emulated_s < 104 * (mechanism.card_ms(8700, 65) + 20) / 1000
    print(f"Lotus-speed pass: {emulated_s:.1f} s emulated in {time.monotonic() - wall0:.0f} s wall")


def _rp2_default(name: str) -> object:
    from firmware import profile_rp2

    return profile_rp2.PROFILE["defaults"][name]
