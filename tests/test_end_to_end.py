"""End to end on the virtual shuffler with the real tools: `shuffler flash`
(mpremote over the pseudo-terminal), then `shuffler guide` with a scripted
person through a full samba routine. The record of every card the person
took off the machine is checked against the plan and docs/mechanism.md:
the rounds and passes the plan said, every card dealt exactly once a round,
each pile in its load's order, the pile trade between rounds, and a final
pack that is a permutation of the 162 cards."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterator

import pytest

from firmware import exact_routes
from firmware import protocol
from host import port_words
from host.port_records import Flashed
from route_record import check_route_record
from shuffling.quality.riffle_distance import tv_riffle_exact
from simulator.virtual import VirtualShuffler
from suite import shuffler

pytestmark = pytest.mark.micropython
CARDS = 162



@pytest.fixture
def blank_virtual_shuffler() -> Iterator[VirtualShuffler]:
    dev = VirtualShuffler(time_scale=0.0)  # empty flash: boots to the REPL
    dev.start()
    yield dev
    dev.stop()


def planned() -> dict[str, Any]:
    out = shuffler("plan", "--pack", "samba", "--json")
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def check_routine(record: Path, plan: dict[str, Any]) -> None:
    log = [json.loads(line) for line in record.read_text().splitlines()]
    names = [load["name"] for load in plan["loads"]]
    schedule = plan
    rounds = schedule["rounds"]
    pack = list(range(CARDS))
    assert log[0] == {"op": "start", "pack": pack}
    takes = [e for e in log if e["op"] == "take"]
    loads = [e for e in log if e["op"] == "load"]
    # The passes the plan said: every load, in order, every round.
    assert [(e["round"], e["load"]) for e in takes] == [(r, n) for r in range(1, rounds + 1) for n in names]
    assert len(takes) == schedule["passes"]
    current = pack
    for r in range(1, rounds + 1):
        these = [e for e in takes if e["round"] == r]
        put_in = [e["ids"] for e in loads if e["round"] == r]
        # The loads put in the tray this round are the pack as it stood, cut in order.
        assert [c for ids in put_in for c in ids] == current
        for ids, took in zip(put_in, these):
            # Mechanism: each pile, top to bottom, keeps the load's order; together they are the load.
            pos = {c: i for i, c in enumerate(ids)}
            for pile in (took["left"], took["right"]):
                assert [pos[c] for c in pile] == sorted(pos[c] for c in pile)
            assert sorted(took["left"] + took["right"]) == sorted(ids)
        dealt = [c for e in these for c in e["left"] + e["right"]]
        assert sorted(dealt) == pack, f"round {r}: a card was lost or dealt twice"
        # Pile trade: left piles in load order, then right piles in load order.
        current = [c for e in these for c in e["left"]] + [c for e in these for c in e["right"]]
    final = [e for e in log if e["op"] == "final"]
    assert len(final) == 1 and final[0]["pack"] == current
    assert sorted(current) == pack and current != pack


def flashed_line(port: str) -> str:
    """What a flash that took says: this tool's firmware answers on `port`, on the sim board."""
    return port_words.words(Flashed(protocol.FIRMWARE_VERSION, port, "sim", protocol.PROTOCOL_VERSION))


@pytest.mark.slow
def test_flash_then_guide_a_full_samba_routine_on_the_port(blank_virtual_shuffler: VirtualShuffler, tmp_path: Path) -> None:
    flashed = shuffler("flash", "--port", blank_virtual_shuffler.port, "--board", "sim")
    assert flashed.returncode == 0, flashed.stderr
    assert flashed_line(blank_virtual_shuffler.port) in flashed.stdout.splitlines(), flashed.stdout
    record = tmp_path / "cards.jsonl"
    out = shuffler("guide", "--port", blank_virtual_shuffler.port, "--world", blank_virtual_shuffler.control_address,
                   "--unattended", "--pack", "samba", "--mode", "random", "--record", str(record), "--json")
    assert out.returncode == 0, out.stderr
    plan = planned()
    check_routine(record, plan)
    summary = json.loads(out.stdout)  # --json: the JSON alone
    assert summary["rounds"] == plan["rounds"] and summary["passes"] == plan["passes"]
    assert summary["distance"]["value"] == float(tv_riffle_exact(CARDS, plan["rounds"]))
    assert summary["notes"] == []
    # Nothing was left in the machine.
    counts = blank_virtual_shuffler.query()["counts"]
    assert (counts["tray"], counts["left"], counts["right"]) == (0, 0, 0)


def test_the_readme_command_runs_the_whole_exact_routine_and_prints_the_summary(tmp_path: Path) -> None:
    """Exact mode by default: for samba the split, 14 rounds in 15 passes (a
    round of two loads, then loads P of 98 and Q of 64 dealt on their own),
    every card of a round's stack dealt once in the round, the final pack a
    permutation of the 162 cards."""
    record = tmp_path / "cards.jsonl"
    steps = tmp_path / "steps.jsonl"
    out = shuffler("guide", "--sim", "--unattended", "--pack", "samba", "--record", str(record), "--json",
                   "--steps-file", str(steps))
    assert out.returncode == 0, out.stderr
    plan = planned()
    assert (plan["exact_mode"]["routine"], plan["exact_mode"]["rounds"], plan["exact_mode"]["passes"]) == \
        ("split", 14, 15)
    final = check_route_record([json.loads(line) for line in record.read_text().splitlines()],
                               exact_routes.route(CARDS, 104))
    assert final != list(range(CARDS))
    # --json: stdout is the JSON alone; the transcript goes to stderr.
    summary = json.loads(out.stdout)
    text = out.stderr
    [started] = [r for r in map(json.loads, steps.read_text().splitlines()) if r.get("kind") == "VirtualStarted"]
    assert flashed_line(started["port"]) in text.splitlines(), text  # the flash's report joins the transcript
    assert "Summary" in text.splitlines()  # the summary shown there too, worded from the same record
    assert (summary["mode"], summary["rounds"], summary["passes"]) == ("exact", 14, 15)
    assert summary["distance"]["kind"] == "exact" and summary["distance"]["value"] == 0 and summary["notes"] == []
    # The loads: the split round's 81/81 as cut, then each of its loads, whole, pass after pass.
    assert summary["loads"] == [[81, 81]] + [[98]] * 7 + [[64]] * 6
