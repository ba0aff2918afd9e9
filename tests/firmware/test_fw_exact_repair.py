"""A part of the split whose order is lost is dealt again from fresh codes,
on the MicroPython unix port: asked for by the host (cards of the load in
hand moved by hand) or found by the device itself (a pass that went wrong).
The truth is the board's own: the codes it keeps in its flash (exact.json),
read here as no host ever reads them, and the pack the person ends with."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from firmware import exact_routes
from firmware import protocol
from fwtest_support import FwProcess
from test_fw_exact import exact_routine, start

pytestmark = [pytest.mark.micropython, pytest.mark.exact_mode]

N, CAPACITY = 12, 8  # the split: a round of two loads, then P (8 cards, 3 passes) and Q (4 cards, 2 passes)


def codes_in_flash(data: Path) -> list[int]:
    return list(json.loads((data / "exact.json").read_text())["codes"])


def deal_round(dev: FwProcess, pack: list[int], lo: int, nxt: dict) -> tuple[list[int], list[int], dict]:
    """One split round (its first load `nxt`) dealt as told from pack
    position lo: its left and right stacks, and the load expected next."""
    assert dev.world is not None
    lefts: list[int] = []
    rights: list[int] = []
    rnd = nxt["round"]
    at = lo
    while nxt["round"] == rnd:
        dev.world.load(pack[at:at + nxt["count"]])
        at += nxt["count"]
        dev.call("start")
        dev.event("done")
        lefts += dev.world.take("left")
        rights += dev.world.take("right")
        nxt = dev.wait(lambda m: m.get("ev") == "exact_next" and m is not nxt)
    return lefts, rights, nxt


def split_round(dev: FwProcess, pack: list[int]) -> list[int]:
    """Round 1 dealt as told: the pack after it (all left piles on all right piles)."""
    lefts, rights, _ = deal_round(dev, pack, 0, dev.event("exact_next"))
    return lefts + rights


def by_codes(pack: list[int], codes: list[int]) -> list[int]:
    """The final pack the codes give: the card at position i ends at place codes[i]."""
    out: list[Any] = [None] * len(pack)
    for card, code in zip(pack, codes):
        out[code] = card
    return out


def test_a_part_whose_cards_were_moved_by_hand_is_dealt_again_from_fresh_codes(start_fw_process, tmp_path: Path) -> None:
    dev = start(start_fw_process, tmp_path, seed=31, capacity=CAPACITY)
    assert dev.world is not None
    assert dev.call("exact", n=N)["routine"]["kind"] == "split"
    pack = split_round(dev, list(range(N)))
    route = exact_routes.route(N, CAPACITY)
    # P's first pass, as told; then, before its second, its top card slips to its bottom.
    dev.world.load(pack[0:8])
    dev.call("start")
    dev.event("done")
    pack[0:8] = dev.world.take("left") + dev.world.take("right")
    dev.wait(lambda m: m.get("ev") == "exact_next" and m["round"] == 3)
    before = codes_in_flash(tmp_path)
    pack[0:8] = pack[1:8] + pack[0:1]
    start_mark = len(dev.seen)
    rep = dev.call("exact", repair=True)
    assert rep["ok"] is True and rep["routine"]["next"] == {"round": 2, "load": "P", "count": 8}
    repair = dev.event("exact_repair", start=start_mark)
    assert (repair["part"], repair["code"], repair["round"], repair["rounds"]) == ("P", protocol.LOST_HAND, 2, route.rounds)
    assert dev.event("exact_next", start=start_mark)["round"] == 2
    fresh = codes_in_flash(tmp_path)
    assert sorted(fresh[0:8]) == list(range(8)) and fresh[8:] == before[8:]  # P's codes drawn anew, Q's kept
    final = exact_routine(dev, N, start_pack=list(pack), begun="split", capacity=CAPACITY)
    assert final == by_codes(pack, fresh)  # P in the order of its fresh codes, Q of its own
    # Every pass of P dealt again: 3 of them, from its first round.
    nexts = [(m["round"], m["load"]) for m in dev.seen[start_mark:] if m.get("ev") == "exact_next"]
    assert nexts == [(2, "P"), (3, "P"), (4, "P"), (5, "Q"), (6, "Q")]


def test_a_pass_that_went_wrong_has_its_part_dealt_again(start_fw_process, tmp_path: Path) -> None:
    """Two of P's cards go out beyond the beam's count (a double feed, put
    back): the device cannot tell which pile one of them should be on. The
    rest of that pass goes at random, then P again from fresh codes."""
    dev = start(start_fw_process, tmp_path, seed=32, capacity=CAPACITY)
    assert dev.world is not None
    dev.call("exact", n=N)
    pack = split_round(dev, list(range(N)))
    dev.world.load(pack[0:8])
    dev.world.inject("double_feed", k=2)
    dev.call("start")
    assert dev.event("fault")["code"] == protocol.FAULT_DOUBLE_FEED
    dev.call("clear")
    dev.world.fix()
    caught = dev.world.take("throat")
    mark = len(dev.seen)
    dev.world.load(dev.world.take("tray"))  # the two caught cards are kept back a moment
    dev.call("start")
    repair = dev.event("exact_repair", start=mark)
    assert (repair["part"], repair["code"], repair["round"], repair["after"]) == ("P", protocol.LOST_DOUBLE_FEED, 2, True)
    done = dev.event("done", start=mark)
    assert done["left"] + done["right"] == done["k"]  # dealt at random: its piles may be told
    assert dev.event("exact_next", start=mark)["round"] == 2
    # The person puts P back together, the kept cards anywhere: any order will do.
    stack = dev.world.take("left") + caught + dev.world.take("right")
    for card in dev.world.take("tray"):
        stack.append(card)
    fresh = codes_in_flash(tmp_path)
    pack[0:8] = stack
    final = exact_routine(dev, N, start_pack=list(pack), begun="split", capacity=CAPACITY)
    assert final == by_codes(pack, fresh)
    assert [m for m in dev.seen if m.get("ev") == "exact_lost"] == []  # the routine was never lost


@pytest.mark.parametrize("routine", ["radix", "split"])
def test_only_a_part_dealt_alone_can_be_dealt_again(start_fw_process, tmp_path: Path, routine: str) -> None:
    """Whole-pack radix has no parts, and a split round's loads are not a
    part: repair is refused there (the host begins afresh instead)."""
    dev = start(start_fw_process, tmp_path, seed=33, capacity=CAPACITY)
    dev.call("exact", n=N, routine=routine)
    dev.event("exact_next")
    rep = dev.call("exact", repair=True)
    assert rep["ok"] is False and (rep["err"], rep["why"]) == (protocol.E_STATE, protocol.WHY_NO_PART)
    assert dev.call("status")["next"]["round"] == 1  # nothing changed
