"""Exact mode on the MicroPython unix port, over the serial protocol and the
simulated board: the final physical pack is the order the code sorting
predicts; nothing the device sends depends on its random draw; the ways
exactness is lost are reported and the device deals at random after them."""

from __future__ import annotations

import random
import re
from pathlib import Path
from typing import Callable

import pytest

from firmware import protocol as P
from fwtest_support import Device
from simulator.shuffling.exact_mode import codes as C
from simulator.shuffling.exact_mode.physical import run_exact

pytestmark = pytest.mark.micropython


def random_file(tmp_path: Path, seed: int) -> Path:
    path = tmp_path / f"random-{seed}.bin"
    path.write_bytes(random.Random(seed).randbytes(8192))
    return path


def stream(path: Path) -> Callable[[int], bytes]:
    data = path.read_bytes()
    at = [0]

    def take(k: int) -> bytes:
        at[0] += k
        return data[at[0] - k:at[0]]
    return take


def start(start_device: Callable[..., Device], tmp_path: Path, seed: int | None, capacity: int | None = None,
          speed: float = 0.0) -> Device:
    env = {}
    if seed is not None:
        env["SHUFFLER_SIM_RANDOM_FILE"] = str(random_file(tmp_path, seed))
    if capacity is not None:
        env["SHUFFLER_SIM_CAPACITY"] = str(capacity)
    dev = start_device(env=env, data_dir=tmp_path, speed=speed)
    dev.event("hello")
    return dev


def exact_routine(dev: Device, n: int, between: Callable[[int, int], None] | None = None) -> list[int]:
    """The person's side of an exact routine: load what the device expects,
    start, take the piles, pile trade. Returns the final pack (top first)."""
    assert dev.world is not None
    rep = dev.call("exact", n=n)
    assert rep["ok"] is True and rep["n"] == n
    nxt = dev.event("exact_next")
    pack = list(range(n))
    lefts: list[int] = []
    rights: list[int] = []
    start_at = 0
    while True:
        if between is not None:
            between(nxt["round"], ord(nxt["load"]) - 65)
        count = nxt["count"]
        dev.world.load(pack[start_at:start_at + count])
        start_at += count
        assert dev.call("start")["n"] == count
        done = dev.event("done", timeout=60)
        assert done["k"] == count and "left" not in done and "right" not in done
        lefts += dev.world.take("left")
        rights += dev.world.take("right")
        m = dev.wait(lambda m: m.get("ev") in ("exact_next", "exact_round"))
        if m["ev"] == "exact_next":
            nxt = m
            continue
        assert m["round"] == nxt["round"]
        pack, lefts, rights, start_at = lefts + rights, [], [], 0
        m = dev.wait(lambda m: m.get("ev") in ("exact_next", "exact_done"))
        if m["ev"] == "exact_done":
            assert m["rounds"] == C.n_bits(n)
            return pack
        nxt = m


def test_samba_ends_in_the_order_the_code_sorting_predicts(start_device, tmp_path: Path) -> None:
    dev = start(start_device, tmp_path, seed=11)
    final = exact_routine(dev, 162)
    codes = C.code_set(162, 104, uneven=True)
    arrangement = C.uniform_assignment(162, stream(random_file(tmp_path, 11)), codes)
    predicted = run_exact(list(range(162)), arrangement, 104)[-1]
    assert final == predicted
    assert final != list(range(162))
    # Eight rounds of two loads: 81/81, then 79/83 (the uneven code set) every round.
    nexts = [(m["round"], m["load"], m["count"]) for m in dev.seen if m.get("ev") == "exact_next"]
    assert nexts == [(1, "A", 81), (1, "B", 81)] + [(r, x, c) for r in range(2, 9) for x, c in (("A", 79), ("B", 83))]
    assert dev.call("status")["mode"] == "random"


def _transcript(dev: Device) -> list[bytes]:
    # The clock is the one thing that differs between two runs: the idle loop
    # runs as often as the computer lets it.
    return [re.sub(rb'"uptime_ms": \d+', b'"uptime_ms": T', line) for line in dev.raw]


def every_command(dev: Device) -> Callable[[int, int], None]:
    def probe(round_number: int, load: int) -> None:
        if (round_number, load) != (2, 0):
            return
        for cmd, fields in (("hello", {}), ("status", {}), ("config", {}), ("exact", {}),
                            ("exact", {"n": 1}), ("calibrate", {"what": "codes"}), ("resume", {}),
                            ("abort", {}), ("clear", {}), ("start", {})):
            dev.call(cmd, **fields)
        dev.event("fault")  # the start above finds an empty tray
    return probe


def test_the_wire_says_the_same_whatever_the_codes(start_device, tmp_path: Path) -> None:
    """Two routines with different random draws, every command sent mid-way:
    everything the device sends is the same, byte for byte, except the clock."""
    finals = []
    transcripts = []
    for seed in (1, 2):
        dev = start(start_device, tmp_path, seed=seed, capacity=8)
        finals.append(exact_routine(dev, 12, every_command(dev)))
        transcripts.append(_transcript(dev))
    assert finals[0] != finals[1]  # the draws differ (equal by chance: 1 in 12!)
    assert transcripts[0] == transcripts[1]
    assert len(transcripts[0]) > 12 * 4  # a progress line per card per round, and more
    # Both ran a whole routine and answered every command.
    text = b"".join(transcripts[0])
    assert text.count(b'"ev": "exact_round"') == 4 and b'"re": "status"' in text


def test_double_feed_loses_exactness_then_the_device_deals_at_random(start_device, tmp_path: Path) -> None:
    dev = start(start_device, tmp_path, seed=None, capacity=8)
    assert dev.world is not None
    dev.call("exact", n=12)
    nxt = dev.event("exact_next")
    dev.world.load(list(range(nxt["count"])))
    dev.world.inject("double_feed", k=2)
    dev.call("start")
    fault = dev.event("fault")
    lost = dev.event("exact_lost")
    assert fault["code"] == P.FAULT_DOUBLE_FEED and "left" not in fault
    assert (lost["code"], lost["name"], lost["round"], lost["load"]) == (P.LOST_DOUBLE_FEED, "double_feed", 1, "A")
    st = dev.call("status")
    assert st["mode"] == "random" and "next" not in st
    dev.call("clear")
    dev.world.fix()
    dev.world.take("throat")
    dev.call("start")
    done = dev.event("done")
    assert done["left"] + done["right"] == done["k"]  # random again: pile counts are reported


def test_a_load_out_of_turn_is_caught_by_its_count(start_device, tmp_path: Path) -> None:
    dev = start(start_device, tmp_path, seed=5, capacity=8)
    assert dev.world is not None
    dev.call("exact", n=12)
    for _ in range(2):
        nxt = dev.event("exact_next")
        dev.world.load(list(range(nxt["count"])))
        dev.call("start")
        dev.event("done")
    left, right = dev.world.take("left"), dev.world.take("right")
    nxt = dev.event("exact_next")
    assert (nxt["round"], nxt["load"], nxt["count"]) == (2, "A", 5)  # 5 : 7, the uneven set
    dev.world.load(list(range(7)))  # the right stack put in first
    dev.send("start")
    lost = dev.event("exact_lost")
    assert (lost["code"], lost["n"], lost["expected"]) == (P.LOST_COUNT, 7, 5)
    done = dev.event("done")
    assert done["left"] + done["right"] == 7  # dealt at random, and said so
    assert left or right


def test_a_jam_keeps_exactness_and_an_abort_loses_it(start_device, tmp_path: Path) -> None:
    dev = start(start_device, tmp_path, seed=None, capacity=8)
    assert dev.world is not None
    dev.call("exact", n=12)
    nxt = dev.event("exact_next")
    dev.world.load(list(range(nxt["count"])))
    dev.world.inject("jam", k=3)
    dev.call("start")
    assert dev.event("fault")["name"] == "jam"
    st = dev.call("status")
    assert st["state"] == "paused" and st["mode"] == "exact" and "left" not in st
    assert dev.call("exact", cancel=True)["err"] == P.E_STATE  # not while a pass is paused
    assert dev.call("abort")["ok"] is True
    assert dev.event("aborted")["k"] == 3
    lost = dev.event("exact_lost")
    assert (lost["code"], lost["name"]) == (P.LOST_ABORTED, "aborted")
    assert dev.call("status")["mode"] == "random"


def test_begin_is_checked_and_cancel_ends_the_routine(start_device, tmp_path: Path) -> None:
    dev = start(start_device, tmp_path, seed=None)
    for fields, err in (({}, P.E_BAD_FIELD), ({"n": 1}, P.E_BAD_VALUE), ({"n": 513}, P.E_BAD_VALUE),
                        ({"n": "162"}, P.E_BAD_FIELD)):
        assert dev.call("exact", **fields)["err"] == err
    rep = dev.call("exact", n=162)
    assert (rep["loads"], rep["rounds"], rep["uneven"], rep["load"], rep["count"]) == (2, 8, True, "A", 81)
    assert dev.call("status")["next"] == {"round": 1, "rounds": 8, "load": "A", "count": 81}
    assert dev.call("exact", cancel=True)["mode"] == "random"
    assert dev.event("exact_lost")["code"] == P.LOST_CANCELLED
    assert dev.call("status")["mode"] == "random"
