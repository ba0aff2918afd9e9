"""A pass on the MicroPython unix port over the simulated board: touch,
deal, done; the piles hold the cards in the mechanism's order."""

from __future__ import annotations

import pytest

from fwtest_support import FwProcess, deal_order
from firmware import protocol

pytestmark = pytest.mark.micropython


def runs(seq: list[int]) -> int:
    return 1 + sum(1 for a, b in zip(seq, seq[1:]) if a != b)


def sides_from_piles(load: list[int], left: list[int]) -> list[int]:
    """Side of the k-th fed card (0 left, 1 right), read off the piles."""
    on_left = set(left)
    return [0 if load[len(load) - 1 - k] in on_left else 1 for k in range(len(load))]


@pytest.mark.touch
def test_touch_deals_every_card_into_two_piles_in_mechanism_order(fw_process: FwProcess) -> None:
    load = list(range(104))
    assert fw_process.world is not None
    assert fw_process.world.load(load) == 104
    fw_process.world.touch(100)
    fw_process.event("touch")
    assert fw_process.event("loaded")["n"] == 104
    done = fw_process.event("done", timeout=30)
    q = fw_process.world.query()
    left, right = q["left"], q["right"]
    # No card lost or duplicated.
    assert sorted(left + right) == load
    assert q["tray"] == [] and q["throat"] == []
    # The counts the firmware reports are the piles' real sizes.
    assert (done["left"], done["right"], done["n"]) == (len(left), len(right), 104)
    # Each pile, top to bottom, keeps the load's relative order (a stable
    # partition: bottom card fed first, each card lands on top).
    assert left == sorted(left) and right == sorted(right)
    sides = sides_from_piles(load, left)
    assert deal_order(load, sides) == (left, right)
    # Progress events count every card, and agree with the piles.
    progress = [m for m in fw_process.seen if m.get("ev") == "progress"]
    assert [m["k"] for m in progress] == list(range(1, 105))
    for m in progress:
        assert m["left"] == sum(1 for s in sides[: m["k"]] if s == 0)
    # The motor is off (braked) after the pass.
    assert q["motor"]["dir"] == 0 and q["motor"]["brake"] is True


def test_sides_look_random_not_a_fixed_pattern(fw_process: FwProcess) -> None:
    """Two 104-card passes. With fair independent sides the left count is
    52 +- 5.1 (one standard error) and the number of runs 52.5 +- 5.1; the
    bounds below are six standard errors, and the two passes' side
    sequences must differ (equal by chance with probability 2**-104)."""
    assert fw_process.world is not None
    load = list(range(104))
    seqs = []
    for _ in range(2):
        fw_process.world.load(load)
        assert fw_process.call("start")["ok"] is True
        fw_process.event("done", timeout=30)
        left = fw_process.world.take("left")
        fw_process.world.take("right")
        seqs.append(sides_from_piles(load, left))
    for s in seqs:
        assert 52 - 31 <= s.count(0) <= 52 + 31
        assert 52.5 - 31 <= runs(s) <= 52.5 + 31
    assert seqs[0] != seqs[1]


def test_start_command_replies_then_reports_loaded_and_done(fw_process: FwProcess) -> None:
    assert fw_process.world is not None
    fw_process.world.load(["a", "b", "c"])
    rep = fw_process.call("start")
    assert rep["ok"] is True and rep["n"] == 3
    done = fw_process.event("done")
    assert done["left"] + done["right"] == 3


def test_empty_tray_is_refused(fw_process: FwProcess) -> None:
    rep = fw_process.call("start")
    assert rep["ok"] is False and rep["err"] == protocol.E_REFUSED
    fault = fw_process.event("fault")
    assert fault["code"] == protocol.FAULT_EMPTY and fault["latched"] is False
    assert fw_process.call("status")["state"] == "idle"


def test_over_capacity_is_refused_and_nothing_moves(fw_process: FwProcess) -> None:
    assert fw_process.world is not None
    fw_process.world.load(list(range(110)))
    rep = fw_process.call("start")
    assert rep["ok"] is False
    fault = fw_process.event("fault")
    assert fault["code"] == protocol.FAULT_OVER_CAPACITY and fault["n"] == 110
    q = fw_process.world.query()
    assert q["counts"]["tray"] == 110 and q["counts"]["fed"] == 0


def test_status_and_abort_mid_pass(start_fw_process) -> None:
    dev = start_fw_process(speed=2)
    dev.event("hello")
    dev.world.load(list(range(104)))
    dev.send("start")
    dev.wait(lambda m: m.get("ev") == "progress" and m["k"] >= 3)
    st = dev.call("status")
    assert st["state"] == "dealing" and 3 <= st["k"] < 104
    busy = dev.call("start")
    assert busy["ok"] is False and busy["err"] == protocol.E_BUSY
    assert dev.call("config")["err"] == 8  # busy: only hello, status, abort mid-pass
    hello = dev.call("hello")
    assert hello["ok"] is True and hello["state"] == "dealing"
    ab = dev.call("abort")
    assert ab["ok"] is True
    ev = dev.event("aborted")
    assert ev["k"] < 104
    q = dev.world.query()
    assert q["motor"]["dir"] == 0
    cards = q["tray"] + q["left"] + q["right"] + q["throat"]
    assert sorted(cards) == list(range(104))
    assert q["counts"]["left"] + q["counts"]["right"] == ev["k"]
    assert dev.call("status")["state"] == "idle"


@pytest.mark.touch
def test_touch_is_debounced(fw_process: FwProcess) -> None:
    """A 10 ms brush (debounce is 30 ms) does nothing; a 100 ms touch deals."""
    w = fw_process.world
    assert w is not None
    w.load(list(range(6)))
    w.touch(10)
    # Let the firmware run well past the brush: a status round trip per 20 ms loop.
    for _ in range(20):
        fw_process.call("status")
    assert not [m for m in fw_process.seen if m.get("ev") in ("touch", "loaded")]
    assert w.query()["counts"]["fed"] == 0
    w.touch(100)
    fw_process.event("touch")
    assert fw_process.event("done")["k"] == 6


@pytest.mark.touch
def test_touch_in_alarm_does_not_start_a_pass(start_fw_process) -> None:
    dev = start_fw_process(missing=("exit",))
    dev.event("hello")
    dev.event("fault")
    dev.world.load(list(range(6)))
    dev.world.touch(100)
    assert dev.event("touch")["state"] == "alarm"
    assert dev.call("status")["state"] == "alarm"
    assert dev.world.query()["counts"]["fed"] == 0


def test_count_reads_the_tray_without_dealing(fw_process: FwProcess) -> None:
    w = fw_process.world
    assert w is not None
    w.load(list(range(95)))
    rep = fw_process.call("count")
    assert rep["ok"] is True and rep["n"] == 95 and rep["capacity"] == 104
    q = w.query()
    assert q["counts"]["tray"] == 95 and q["counts"]["left"] + q["counts"]["right"] == 0
    assert q["motor"]["dir"] == 0 and fw_process.call("status")["state"] == "idle"
    w.take("tray")
    assert fw_process.call("count")["n"] == 0


def test_count_is_busy_mid_pass_and_refused_in_alarm(start_fw_process) -> None:
    dev = start_fw_process(speed=2)
    dev.event("hello")
    dev.world.load(list(range(104)))
    dev.send("start")
    dev.wait(lambda m: m.get("ev") == "progress" and m["k"] >= 3)
    assert dev.call("count")["err"] == protocol.E_BUSY
    dev.call("abort")
    dev.event("aborted")
    dev.world.inject("sensor_missing", k=0, sensor="stack")
    rep = dev.call("count")
    assert rep["ok"] is False and rep["err"] == protocol.E_REFUSED
    assert (rep["why"], rep["part"]) == (protocol.WHY_NO_ANSWER, protocol.PART_STACK)
