"""The load cell learns from every pass, on the MicroPython unix port over
the simulated board: the exit beam counts a pass's cards exactly, so a
per-card figure 4 % off (a deck of 50 calibrated as 52, or the other way)
is found by the first pass, said once in a warn naming the load cell,
replaced in cal.json, and the pass ends whole instead of latching an
unexplained alarm; cards lifted out by hand are still the tray emptied,
and an exact pass whose load the load cell miscounted has lost its order.
The truth is the simulated world's: every card weighs STACK_PER_CARD."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from firmware import protocol
from fwtest_support import FwProcess
from simulator.virtual.board.sim_world import STACK_PER_CARD, STACK_TARE

pytestmark = [pytest.mark.micropython, pytest.mark.load_cell]

LOW = STACK_PER_CARD * 50 // 52  # a deck of 50 calibrated as 52: 4 % low
HIGH = STACK_PER_CARD * 54 // 52  # a deck of 54 calibrated as 52: 4 % high
CLOSE = 0.005  # counting a full tray to the card needs the figure within half a percent


def board(start_fw_process, tmp_path: Path, per_card: int) -> FwProcess:
    (tmp_path / "cal.json").write_text(json.dumps({"tare": STACK_TARE, "per_card": per_card}))
    dev = start_fw_process(data_dir=tmp_path)
    assert dev.event("hello")["cal"]["stack"] == "calibrated"
    return dev


def stored(tmp_path: Path) -> int:
    return json.loads((tmp_path / "cal.json").read_text())["per_card"]


def deal(dev: FwProcess, cards: int) -> list[dict]:
    """`cards` in the tray, a pass started: every event up to its end (done or fault)."""
    w = dev.world
    w.take("left")
    w.take("right")
    w.load(list(range(cards)))
    first = len(dev.seen)
    assert dev.call("start")["ok"] is True
    dev.wait(lambda m: m.get("ev") in ("done", "fault"), timeout=60, start=first)
    return dev.events_between(first)


def named(events: list[dict], ev: str) -> list[dict]:
    return [e for e in events if e["ev"] == ev]


def test_a_figure_4_percent_low_is_found_by_the_first_pass_said_once_and_stored(start_fw_process,
                                                                                 tmp_path: Path) -> None:
    dev = board(start_fw_process, tmp_path, LOW)
    w = dev.world
    w.load(list(range(81)))
    assert dev.call("count")["n"] == 84  # 81 cards read as 84
    w.take("tray")
    events = deal(dev, 81)
    # The tray ran out three cards early, with every card counted out: the
    # load cell's figure, said before the pass's end, and the pass is whole.
    [warn] = named(events, "warn")
    assert (warn["code"], warn["part"], warn["why"]) == (protocol.FAULT_SENSOR, protocol.PART_STACK,
                                                         protocol.WHY_MISCOUNTED)
    assert (warn["n"], warn["k"], warn["held"], warn["was"]) == (84, 81, 0, LOW)
    assert abs(warn["per_card"] - STACK_PER_CARD) <= CLOSE * STACK_PER_CARD
    [done] = named(events, "done")
    assert (done["k"], done["n"]) == (81, 84) and events.index(warn) < events.index(done)
    assert not named(events, "fault")
    assert dev.call("status")["state"] == protocol.ST_IDLE
    assert stored(tmp_path) == warn["per_card"]  # in cal.json
    assert w.query()["counts"]["tray"] == 0 and len(w.query()["left"]) + len(w.query()["right"]) == 81
    # The next load counts right, and nothing more is said.
    events = deal(dev, 81)
    assert not named(events, "warn") and (named(events, "done")[0]["k"], named(events, "done")[0]["n"]) == (81, 81)


def test_a_figure_4_percent_high_leaves_cards_in_the_tray_which_the_pass_says(start_fw_process,
                                                                              tmp_path: Path) -> None:
    dev = board(start_fw_process, tmp_path, HIGH)
    events = deal(dev, 81)
    [warn] = named(events, "warn")
    assert warn["why"] == protocol.WHY_MISCOUNTED and (warn["n"], warn["k"], warn["held"]) == (78, 78, 3)
    assert abs(stored(tmp_path) - STACK_PER_CARD) <= CLOSE * STACK_PER_CARD
    assert named(events, "done")[0]["k"] == 78
    assert dev.world.query()["counts"]["tray"] == 3 and dev.call("count")["n"] == 3  # counted right now


def test_cards_lifted_out_by_hand_are_the_tray_emptied_not_the_load_cell(start_fw_process, tmp_path: Path) -> None:
    dev = board(start_fw_process, tmp_path, STACK_PER_CARD)
    dev.world.load(list(range(52)))
    dev.world.inject("empty_at", 20)
    first = len(dev.seen)
    dev.call("start")
    fault = dev.event("fault", timeout=60, start=first)
    assert (fault["code"], fault["why"]) == (protocol.FAULT_TRAY_EMPTIED, protocol.WHY_MISSING)
    assert not named(dev.events_between(first), "warn")
    assert stored(tmp_path) == STACK_PER_CARD  # left alone


@pytest.mark.exact_mode
def test_an_exact_load_the_load_cell_miscounted_loses_its_order_and_says_why(start_fw_process,
                                                                            tmp_path: Path) -> None:
    dev = board(start_fw_process, tmp_path, LOW)
    assert dev.call("exact", n=162)["routine"]["next"]["load"] == "A"
    events = deal(dev, 81)  # load A, cut by eye: 81 cards the load cell reads as 84
    [warn] = named(events, "warn")
    assert warn["why"] == protocol.WHY_MISCOUNTED
    [lost] = named(events, "exact_lost")
    assert (lost["code"], lost["n"], lost["expected"]) == (protocol.LOST_COUNT, 81, 84)
    assert named(events, "done") and dev.call("status")["mode"] == protocol.MODE_RANDOM
    assert abs(stored(tmp_path) - STACK_PER_CARD) <= CLOSE * STACK_PER_CARD
