"""A card stacked into the wrong part at a split round is mended by dealing
the stack that round split (its parent) again from that round, with fresh
codes over its positions as it lies (docs/exact-mode.md, *Mended in place*
(d)), on the MicroPython unix port: asked for by the host (`exact` with
`repair` and `parent`), refused where it does not apply. The truth is the
board's own: the codes it keeps in its flash (exact.json) and the pack the
person ends with."""

from __future__ import annotations

from pathlib import Path

import pytest

from firmware import exact_routes
from firmware import protocol
from fwtest_support import FwProcess
from test_fw_exact import exact_routine, start
from test_fw_exact_repair import by_codes, codes_in_flash, deal_round

pytestmark = [pytest.mark.micropython, pytest.mark.exact_mode]

# 20 cards on an 8-card tray: round 1 splits the pack (3 loads) into a stack
# of 12 and part R (8); round 2 splits the 12 (2 loads) into P (8) and Q (4);
# then P 3 passes, Q 2, R 3.
N, CAPACITY = 20, 8


def test_a_card_stacked_into_the_wrong_part_has_its_parent_dealt_again(start_fw_process, tmp_path: Path) -> None:
    dev = start(start_fw_process, tmp_path, seed=41, capacity=CAPACITY)
    assert dev.call("exact", n=N)["routine"]["kind"] == "split"
    route = exact_routes.route(N, CAPACITY)
    assert [route.size[t] for t in range(2)] == [20, 12] and route.rounds == 10
    pack = list(range(N))
    left, right, nxt = deal_round(dev, pack, 0, dev.event("exact_next"))
    pack = left + right
    left, right, nxt = deal_round(dev, pack, 0, nxt)
    assert nxt["load"] == "P"
    # The top card of P's stack put on top of Q's: P holds 7, Q 5.
    pack[0:12] = left[1:] + left[:1] + right
    before = codes_in_flash(tmp_path)
    mark = len(dev.seen)
    rep = dev.call("exact", repair=True, parent=True)
    assert rep["ok"] is True and rep["routine"]["next"] == {"round": 2, "load": "A", "count": 6}
    repair = dev.event("exact_repair", start=mark)
    assert (repair["part"], repair["code"], repair["round"], repair.get("parent")) == ("P", protocol.LOST_HAND, 2, True)
    fresh = codes_in_flash(tmp_path)
    assert sorted(fresh[0:12]) == list(range(12)) and fresh[12:] == before[12:]  # the parent's codes new, R's kept
    # The person puts the two stacks together (Q's on P's: any order will do) and goes on as told.
    pack[0:12] = pack[7:12] + pack[0:7]
    final = exact_routine(dev, N, start_pack=list(pack), begun="split", capacity=CAPACITY)
    assert final == by_codes(pack, fresh)  # the parent in the order of its fresh codes, R of its own
    nexts = [(m["round"], m["load"]) for m in dev.seen[mark:] if m.get("ev") == "exact_next"]
    assert nexts == [(2, "A"), (2, "B"), (3, "P"), (4, "P"), (5, "P"), (6, "Q"), (7, "Q"), (8, "R"), (9, "R"),
                     (10, "R")]  # round 1 not again: 12 passes in all, not 13 of a fresh routine after 5
    assert [m for m in dev.seen if m.get("ev") == "exact_lost"] == []


def test_a_parent_repair_of_a_part_cut_off_the_whole_pack_is_a_fresh_routine(start_fw_process, tmp_path: Path) -> None:
    """12 cards on an 8-card tray: P and Q are cut off the whole pack, so
    dealing their parent again is a fresh routine: refused, nothing changed."""
    dev = start(start_fw_process, tmp_path, seed=42, capacity=CAPACITY)
    dev.call("exact", n=12)
    deal_round(dev, list(range(12)), 0, dev.event("exact_next"))
    before = codes_in_flash(tmp_path)
    rep = dev.call("exact", repair=True, parent=True)
    assert rep["ok"] is False and (rep["err"], rep["why"]) == (protocol.E_STATE, protocol.WHY_WHOLE_PACK)
    assert dev.call("status")["next"] == {"round": 2, "rounds": 6, "load": "P", "count": 8}
    assert codes_in_flash(tmp_path) == before


@pytest.mark.parametrize("routine", ["radix", "split"])
def test_a_parent_repair_with_no_split_round_before_is_refused(start_fw_process, tmp_path: Path, routine: str) -> None:
    """Whole-pack radix has no split rounds, and the split's first round
    cut nothing yet: refused as no parent, nothing changed."""
    dev = start(start_fw_process, tmp_path, seed=43, capacity=CAPACITY)
    dev.call("exact", n=N, routine=routine)
    dev.event("exact_next")
    before = codes_in_flash(tmp_path)
    rep = dev.call("exact", repair=True, parent=True)
    assert rep["ok"] is False and (rep["err"], rep["why"]) == (protocol.E_STATE, protocol.WHY_NO_PARENT)
    assert dev.call("status")["next"]["round"] == 1
    assert codes_in_flash(tmp_path) == before


def test_a_parent_repair_with_no_routine_held_is_refused(fw_process: FwProcess) -> None:
    rep = fw_process.call("exact", repair=True, parent=True)
    assert (rep["ok"], rep["err"], rep.get("why")) == (False, protocol.E_STATE, protocol.WHY_NO_PARENT), rep
    assert fw_process.call("status")["state"] == protocol.ST_IDLE
