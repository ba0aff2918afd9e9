"""`shuffler plan` on the command line: output a person can follow, JSON, and
one clear line for bad input."""
from __future__ import annotations

import json
import re
import contextlib
import io
import subprocess

import pytest

from host.cli import main

from shuffling.quality.riffle_distance import tv_riffle_exact


def run(*args: str) -> subprocess.CompletedProcess[str]:
    """The command in this process, through the real entry point (host.cli.main)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["plan", *args])
    return subprocess.CompletedProcess(["shuffler", "plan", *args], code, out.getvalue(), err.getvalue())


def test_samba_plan_names_loads_trade_rounds_and_time() -> None:
    out = run("--pack", "samba")
    assert out.returncode == 0, out.stderr
    text = out.stdout
    assert "Loads: 81 / 81" in text
    assert "A's left pile on top of B's left pile" in text
    assert "Rounds: 10 (20 passes)" in text
    assert f"{float(tv_riffle_exact(162, 10)):.4f}" in text
    assert "Expected time" in text and "assuming" in text
    # The deal time a pass takes, from the mechanism, with the time a card takes.
    assert re.search(r"assuming \d+ ms a card \(hardware/mechanism\.py at 9 V and 65 % duty\): "
                     r"81 cards in [4-6]\.\d s a pass", text), text
    data = json.loads(run("--pack", "samba", "--json").stdout)["time"]
    assert f"assuming {data['per_card_ms']} ms a card" in text
    assert f"81 cards in {data['pass_s'][0]:.1f} s a pass" in text


def test_json_plan_matches_the_simulator() -> None:
    out = run("--pack", "hand-and-foot", "--quality", "near random", "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert [load["cards"] for load in data["loads"]] == [90, 90, 90]
    assert data["quality"]["threshold"] == 0.1
    r = data["rounds"]
    assert data["distance"]["value"] == float(tv_riffle_exact(270, r)) <= 0.1
    assert float(tv_riffle_exact(270, r - 1)) > 0.1
    assert data["passes"] == 3 * r


@pytest.mark.parametrize("args,word", [
    (("--pack", "nosuchgame"), "unknown pack"),
    (("--cards", "1"), "--cards"),
    (("--cards", "many"), "many"),
    (("--capacity", "1"), "--capacity"),
    (("--pack", "samba", "--cards", "52"), "not both"),
    (("--quality", "perfect"), "unknown quality"),
    (("--rounds", "0"), "--rounds"),
    (("--routine", "zigzag"), "--routine must be radix or split or pipelined, not 'zigzag'"),
    (("--pack", "samba", "--routine", "pipelined"), "--routine pipelined: no pipelined routine"),
    (("--pack", "bridge", "--routine", "split"), "--routine split: no split: the pack fits the tray"),
    (("--cards", "600", "--routine", "radix"), "exact mode is not available for 600 cards"),
    (("--routine",), "--routine"),
])
def test_bad_input_is_one_line_and_nonzero(args: tuple[str, ...], word: str) -> None:
    out = run(*args)
    assert out.returncode != 0
    assert "Traceback" not in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1
    assert word in out.stderr


def test_a_tiny_custom_pack_reads_as_one_load_in_the_singular() -> None:
    text = run("--cards", "2").stdout
    lines = text.splitlines()
    assert lines[0] == "2 cards on a 104-card machine"  # the size once, not "2 cards: 2 cards"
    assert "One load: A, 2 cards" in lines
    assert "Rounds: 1 (1 pass)" in text
    assert any(ln.startswith("  1 pass, about ") for ln in lines) and "  Its passes: A once." in lines  # the exact routine, in the singular
    assert "1 passes" not in text and "(1 cards)" not in text and "1 times" not in text


def test_a_custom_pack_header_names_its_size_once() -> None:
    first = run("--cards", "300").stdout.splitlines()[0]
    assert first == "300 cards on a 104-card machine"
    assert first.count("300") == 1


def test_loads_line_counts_the_loads_in_words() -> None:
    text = run("--pack", "samba").stdout
    assert "Loads: 81 / 81 cards in 2 loads (A 81 cards, B 81 cards; A is the top of the pack)" in text


def test_plan_says_once_what_three_passes_of_each_load_give() -> None:
    text = run("--pack", "samba").stdout
    assert text.count("three passes of each load") == 1
    d3 = float(tv_riffle_exact(162, 3))
    assert f"(3 rounds, 6 passes), leave a distance from random of {d3:.4f}." in text
    data = json.loads(run("--pack", "samba", "--json").stdout)
    assert data["home_game"] == {"rounds": 3, "passes": 6, "distance": d3}


def test_the_loosest_level_is_not_called_a_home_game() -> None:
    from host import plan as planlib
    names = [q.name for q in planlib.QUALITY_LEVELS]
    assert "casual" in names and not any("home" in n for n in names)
    assert planlib.quality_level("casual").threshold == 0.5


def test_plan_and_quality_share_one_card_limit() -> None:
    from shuffling.limits import MAX_PACK_CARDS
    out = run("--cards", str(MAX_PACK_CARDS + 1))
    assert out.returncode != 0 and str(MAX_PACK_CARDS) in out.stderr


def test_the_guide_doc_figures_for_three_passes_are_the_simulator_s() -> None:
    from pathlib import Path
    from host import plan as planlib
    doc = (Path(__file__).resolve().parents[2] / "docs" / "guide.md").read_text()
    deck3 = float(tv_riffle_exact(52, 3))
    deck_rounds = planlib.rounds_for(52, 104, planlib.quality_level("casual").threshold)
    assert (f"(a single 52-card deck is still at {deck3:.4f} after three rounds and needs {deck_rounds}\n"
            "for `casual`)") in doc
    assert f"for Samba a distance of\n  {float(tv_riffle_exact(162, 3)):.4f} to four decimals" in doc


@pytest.mark.parametrize("capacity, words", [(81, "on an 81-card machine"), (104, "on a 104-card machine"),
                                             (8, "on an 8-card machine"), (11, "on an 11-card machine"),
                                             (18000, "on an 18000-card machine"), (52, "on a 52-card machine")])
def test_the_machine_is_named_with_the_right_article(capacity: int, words: str) -> None:
    out = run("--cards", "60", "--capacity", str(capacity))
    assert out.returncode == 0, out.stderr
    assert words in out.stdout.splitlines()[0]


def test_the_plan_leads_with_what_the_guide_runs_then_the_other_routines_then_random_mode() -> None:
    lines = run("--pack", "samba").stdout.splitlines()
    assert lines[4] == "  Its passes: A and B once each, then P 7 times, then Q 6 times."
    random_at = next(i for i, ln in enumerate(lines) if ln.startswith("Random mode instead"))
    other = next(i for i, ln in enumerate(lines) if ln.startswith("Also exact, with `--routine radix`"))
    assert other < random_at  # every exact routine before random mode
    lines = run("--cards", "600").stdout.splitlines()
    assert lines[2].startswith("Exact mode: not available for 600 cards")
    assert lines[4] == "What `shuffler guide` runs here: random mode, random sides for the quality's rounds"


def test_the_exact_routines_are_said_from_the_figures_the_json_carries() -> None:
    from host import plan as planlib
    from host.commands.plan import minutes

    data = json.loads(run("--pack", "samba", "--json").stdout)["exact_mode"]
    split, radix = (next(r for r in data["routines"] if r["routine"] == kind) for kind in ("split", "radix"))
    text = run("--pack", "samba").stdout
    assert ("What `shuffler guide` runs with the shuffler connected: exact mode, the split (the shuffler's choice: "
            f"the least time at the table)\n  {split['passes']} passes, about {minutes(split['time']['total_s'])} "
            "at a real table") in text
    assert (f"Also exact, with `--routine radix`: the whole-pack radix, {radix['passes']} passes, about "
            f"{minutes(radix['time']['total_s'])}") in text
    parts = ", ".join(f"{p['load']} ({p['cards']} cards)" for p in split["parts"])
    assert f"The pack is split into loads that fit the tray, {parts}; each is then dealt on its own" in text
    flat = " ".join(text.split())
    seen = split["onlooker"]
    assert flat.count(f"The counts of its first round's piles depend on the order: someone who counts them learns "
                      f"{seen['bits']:.1f} bits of it (of the {seen['order_bits']:.1f} bits of a random order), and "
                      "every order that gives those counts stays equally likely.") == 2  # the split's, the radix's
    assert "No exact routine here keeps every pile's count fixed" in flat
    assert ("Every pile's count is fixed by the routine: counting the piles tells nothing of the order."
            in run("--pack", "bridge").stdout)
    lines = run("--pack", "samba", "--routine", "radix").stdout.splitlines()
    assert lines[2] == ("What `shuffler guide --routine radix` runs with the shuffler connected: exact mode, "
                        "the whole-pack radix (the shuffler's own choice is the split)")
    assert lines[3].startswith(f"  {radix['passes']} passes, about {minutes(radix['time']['total_s'])} at a real")
    assert f"Also exact, with `--routine split`: the split, {split['passes']} passes" in "\n".join(lines)
    assert (f"Exact mode: not available for 600 cards on a 104-card machine (at most {planlib.EXACT_MAX_CARDS} "
            f"cards in at most {planlib.EXACT_MAX_LOADS} loads).") in run("--cards", "600").stdout
