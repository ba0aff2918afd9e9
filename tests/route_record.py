"""The check of a guided exact routine's record of every card handled
(host/person.py's log) against its routine (firmware/exact_routes.py),
shared by the host, end-to-end and emulated-Pico tests."""
from __future__ import annotations

from typing import Any


def check_route_record(log: list[dict[str, Any]], route: Any) -> list[Any]:
    """A routine of firmware/exact_routes.py as the person carried it out:
    every card of a round's stack dealt exactly once in the round, each pile
    in its load's order, the round's left piles then its right piles laid
    where its stack lay; the final pack is that, and a permutation. Returns
    the final pack."""
    pack = list(range(route.n))
    assert log[0] == {"op": "start", "pack": pack}
    takes = [e for e in log if e["op"] == "take"]
    assert len(takes) == route.passes(), "a pass too many or too few"
    current = pack
    for r in range(route.rounds):
        lo, size = route.lo[r], route.size[r]
        mine = [e for e in takes if e["round"] == r + 1]
        assert len(mine) == route.loads[r]
        stack = current[lo:lo + size]
        dealt = [c for e in mine for c in e["left"] + e["right"]]
        assert sorted(dealt) == sorted(stack), f"round {r + 1}: not every card of its stack dealt exactly once"
        order = {c: i for i, c in enumerate(stack)}
        for e in mine:
            for pile in (e["left"], e["right"]):
                assert [order[c] for c in pile] == sorted(order[c] for c in pile), \
                    f"round {r + 1}, load {e['load']}: a pile is out of the load's order"
        current = current[:lo] + [c for e in mine for c in e["left"]] + [c for e in mine for c in e["right"]] \
            + current[lo + size:]
    if route.kind == "pipelined":
        # Q (positions 0 to h - 1) goes between P's last two piles.
        h = route.part_size[1]
        p_last = max(r for r in range(route.rounds) if route.lo[r] == route.part_lo[0])
        k = len(next(e for e in takes if e["round"] == p_last + 1)["left"])
        current = current[h:h + k] + current[:h] + current[h + k:]
    final = [e for e in log if e["op"] == "final"]
    assert len(final) == 1 and final[0]["pack"] == current
    assert sorted(current) == pack
    return current
