"""`shuffler quality`: tables, JSON, plot, and one clear line for bad input."""
import itertools
import json
import subprocess
import sys

import pytest

from firmware import exact_routes
from host.cli import main
from shuffling import time_model
from shuffling.exact_mode.physical import exact_steps, split_steps

SMALL = ["--samples", "400", "--rounds", "3"]


def run(capsys, *args):
    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.parametrize(
    "args, names",
    [
        (["--cards", "0"], "--cards"),
        (["--cards", "-5"], "--cards"),
        (["--cards", "1"], "--cards"),
        (["--cards", "100001"], "--cards"),
        (["--capacity", "1"], "--capacity"),
        (["--capacity", "-104"], "--capacity"),
        (["--threshold", "0"], "--threshold"),
        (["--threshold", "1"], "--threshold"),
        (["--threshold", "1.5"], "--threshold"),
        (["--threshold", "-0.1"], "--threshold"),
        (["--threshold", "nan"], "--threshold"),
        (["--pack", "pinochle"], "pinochle"),
        (["--routine", "overhand"], "overhand"),
        (["--samples", "0"], "--samples"),
        (["--samples", "-3"], "--samples"),
        (["--rounds", "0"], "--rounds"),
        (["--rounds", "101"], "--rounds must be between 1 and 100, not 101"),
        (["--plot", "x.txt"], "cannot write the plot to x.txt: a plot is a .png, .svg or .pdf file"),
        (["--plot", "q.jpeg"], "a plot is a .png, .svg or .pdf file"),
        (["--plot", ""], "give a file name ending in .png, .svg or .pdf"),
        (["--plot", "figures/"], "give a file name ending in .png, .svg or .pdf"),
        (["--capacity", "100001"], "--capacity must be between 2 and 100,000 cards"),
        (["--samples", "10000001"], "--samples must be between 3 and 10,000,000"),
        (["--bias", "1.5"], "--bias"),
        (["--clump", "-0.1"], "--clump"),
        (["--double-feed", "2"], "--double-feed"),
        (["--trade-sd", "-1"], "--trade-sd"),
        (["--start", "samba", "--pack", "bridge"], "two decks"),
        (["--start", "samba", "--cards", "150"], "two decks"),
        (["--cards", "1001"], "1,000"),
        (["--samples", "2"], "--samples must be between 3"),
        (["--pack", "samba", "--cards", "100"], "--pack or --cards, not both"),
        (["--pack", "deck", "--cards", "52"], "--pack or --cards, not both"),
        (["--start", "sorted"], "--start"),
        (["--cards", "many"], "--cards"),
        (["--seed", "-1"], "--seed"),
        (["--routine", "exact", "--bias", "0.4"], "--routine exact"),
        (["--routine", "exact", "--clump", "0.1"], "--routine exact"),
        (["--routine", "pile-trade", "--routine", "exact", "--double-feed", "0.01"], "--routine exact"),
    ],
)
def test_bad_input_is_one_line_and_nonzero(capsys, tmp_path, monkeypatch, args, names):
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, "quality", *SMALL, *args)
    assert code != 0
    assert "Traceback" not in err + out
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert names in lines[0]
    assert not list(tmp_path.iterdir())  # nothing written


def test_unknown_pack_lists_valid_packs(capsys):
    code, _, err = run(capsys, "quality", "--pack", "nope")
    assert code != 0 and "samba" in err and "hand-and-foot" in err


def test_json_output_and_plot(capsys, tmp_path):
    png = tmp_path / "q.png"
    code, out, err = run(capsys, "quality", "--pack", "canasta", "--json", "--plot", str(png), *SMALL)
    assert code == 0, err
    report = json.loads(out)
    assert report["pack"]["cards"] == 108
    assert report["settings"]["samples"] == 400
    # Exact mode as the shuffler runs it for canasta (the pipelined routine), whole-pack radix beside it.
    assert [r["name"] for r in report["routines"]] == ["stack-trade", "pile-trade", "exact", "exact-radix"]
    assert report["routines"][2]["exact"] and report["routines"][2]["rounds"][0]["guessing"]["stderr"] > 0
    assert [(r["exact_routine"]["kind"], r["exact_routine"]["chosen"]) for r in report["routines"][2:]] == [
        ("pipelined", True), ("radix", False)]
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert report["plot"] == str(png)


def test_default_plot_path_and_table(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, "quality", "--pack", "samba", *SMALL)
    assert code == 0, err
    assert (tmp_path / "quality-samba.png").exists()
    assert "stack-trade" in out and "pile-trade" in out
    assert "(exact)" in out  # pile-trade distances
    assert "at least" in out  # stack-trade lower bounds
    assert "not before pass" in out
    assert "Truly random deal" in out


def test_no_plot_writes_nothing(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, _, _ = run(capsys, "quality", "--pack", "bridge", "--no-plot", "--json", *SMALL)
    assert code == 0
    assert not list(tmp_path.iterdir())


def test_options_reach_the_report(capsys):
    code, out, _ = run(
        capsys, "quality", "--cards", "60", "--capacity", "30", "--routine", "pile-trade",
        "--threshold", "0.3", "--threshold", "0.2", "--bias", "0.4", "--clump", "0.1", "--double-feed", "0.05",
        "--seed", "7", "--start", "random", "--json", "--no-plot", *SMALL,
    )
    assert code == 0
    report = json.loads(out)
    s = report["settings"]
    assert s["cards"] == 60 and s["loads"] == [30, 30] and s["seed"] == 7 and s["start"] == "random"
    assert s["thresholds"] == [0.3, 0.2]
    assert s["machine"] == {"bias": 0.4, "clump": 0.1, "double_feed": 0.05, "trade_sd": 0.0}
    assert [r["name"] for r in report["routines"]] == ["pile-trade"]
    assert not report["routines"][0]["exact"]  # a biased machine has no exact figure


def test_fewest_samples_the_bounds_need(capsys):
    code, out, err = run(capsys, "quality", "--pack", "deck", "--samples", "3", "--rounds", "1",
                         "--no-plot", "--json")
    assert code == 0, err
    report = json.loads(out)
    assert report["settings"]["samples"] == 3
    assert all(r["rounds"][0]["lower_bound"]["kind"] == "lower-bound" for r in report["routines"])


def test_biggest_pack_gets_exact_figures(capsys):
    code, out, err = run(capsys, "quality", "--cards", "1000", "--samples", "3", "--rounds", "1",
                         "--routine", "pile-trade", "--threshold", "0.25", "--no-plot", "--json")
    assert code == 0, err
    report = json.loads(out)
    routine = report["routines"][0]
    assert report["pack"]["name"] == "custom" and report["settings"]["cards"] == 1000
    assert routine["exact"] and routine["thresholds"][0]["kind"] == "exact"


def test_cards_alone_make_a_custom_pack(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, "quality", "--cards", "100", *SMALL)
    assert code == 0, err
    header = out.splitlines()[0]
    assert "Custom pack: 100 cards" in header and "Samba" not in header
    assert (tmp_path / "quality-100-cards.png").exists()


def test_header_reads_as_prose(capsys):
    code, out, err = run(capsys, "quality", "--pack", "samba", "--no-plot", *SMALL)
    assert code == 0, err
    head = " ".join(out.split("stack-trade")[0].split())
    assert head == ("Samba: 162 cards (three decks and six jokers; 15 cards dealt to each of four players). "
                    "The machine holds 104 cards: two loads of 81. Starting order: as gathered after a hand "
                    "of Samba. 400 shuffles per point, seed 0.")


def test_stack_trade_description_fits_the_loads(capsys):
    code, out, _ = run(capsys, "quality", "--pack", "deck", "--routine", "stack-trade", "--no-plot", *SMALL)
    assert code == 0
    text = " ".join(out.split())
    assert "nothing to trade" in text and "half" not in text


def test_unwritable_plot_path_is_one_line(capsys, tmp_path):
    code, _, err = run(capsys, "quality", "--pack", "bridge", "--plot", str(tmp_path / "no" / "dir.png"), *SMALL)
    assert code != 0
    assert len(err.strip().splitlines()) == 1 and "plot" in err


def test_entry_point_bad_input_has_no_traceback():
    out = subprocess.run([sys.executable, "-m", "host.cli", "quality", "--cards", "0"],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode != 0
    assert "Traceback" not in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1


def test_ctrl_c_stops_the_workers_with_one_line(tmp_path):
    import os
    import signal
    import time

    proc = subprocess.Popen(
        [sys.executable, "-m", "host.cli", "quality", "--samples", "200000", "--no-plot"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path,
        start_new_session=True, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    time.sleep(3)
    os.killpg(proc.pid, signal.SIGINT)  # as a terminal's Ctrl-C does: the whole group
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130
    assert "Traceback" not in err
    assert err.strip().splitlines() == ["shuffler: interrupted"]


@pytest.mark.exact_mode
def test_exact_mode_alone(capsys):
    code, out, err = run(capsys, "quality", "--pack", "samba", "--routine", "exact", "--samples", "400",
                         "--no-plot")
    assert code == 0, err
    text = " ".join(out.split())
    # The routine the shuffler runs for Samba: the split, its 14 rounds in 15 passes, then random rounds.
    assert "exact: The pack is dealt into two parts that each fit the tray (98 and 64 cards" in text
    assert "stack-trade" not in text and "exactly random after 15 passes" in text
    assert "│ 1 │ 2 │ 1.000 (exact)" in text and "│ 2 │ 3 │ 1.000 (exact)" in text
    assert "│ 13 │ 14 │ 1.000 (exact)" in text and "│ 14 │ 15 │ 0 (exact)" in text and "│ 16 │ 19 │ 0 (exact)" in text
    split = time_model.timing(es.step for es in split_steps(exact_routes.split_route(162, 104))).total_s
    assert f"pass 15 (round 14, exact 0), about {time_model.duration(split)}" in text
    assert (f"The rounds of exact are the split (the shuffler runs it for this pack): 15 passes, about "
            f"{time_model.duration(split)} at the table, then exactly random.") in text
    assert "someone who counts them learns 3.7 bits of it (of 960.3)" in text
    # Whole-pack radix asked for by name: 8 rounds of two loads, and what it is to the shuffler.
    code, out, err = run(capsys, "quality", "--pack", "samba", "--routine", "exact-radix", "--samples", "400",
                         "--no-plot")
    assert code == 0, err
    text = " ".join(out.split())
    radix = time_model.timing(es.step for es in exact_steps(162, 104, uneven=True)).total_s
    assert "│ 8 │ 16 │ 0 (exact)" in text and "│ 7 │ 14 │ 1.000 (exact)" in text
    assert f"pass 16 (round 8, exact 0), about {time_model.duration(radix)}" in text
    assert ("The rounds of exact-radix are whole-pack radix (the shuffler runs the other routine for this pack; "
            "this one is run when asked for)") in text
    # A pack that fits the tray has no split: one line, and nothing simulated.
    code, out, err = run(capsys, "quality", "--pack", "bridge", "--routine", "exact-split", *SMALL)
    assert code != 0 and err.strip().splitlines() == [
        "shuffler: --routine exact-split: no split: the pack fits the tray (52 cards on a 104-card tray)"]


@pytest.mark.exact_mode
def test_exact_mode_json_has_every_figure(capsys):
    code, out, err = run(capsys, "quality", "--cards", "60", "--routine", "exact", "--json", "--no-plot",
                         "--samples", "200", "--rounds", "7", "--trade-sd", "2")
    assert code == 0, err
    routine = json.loads(out)["routines"][0]
    assert routine["name"] == "exact" and routine["exact_rounds"] == 6
    assert [r["distance"]["value"] for r in routine["rounds"]][5:] == [0.0, 0.0]
    # 60 cards fit the tray: the shuffler runs whole-pack radix, whose time each round carries.
    assert (routine["exact_routine"]["kind"], routine["exact_routine"]["chosen"]) == ("radix", True)
    assert routine["exact_routine"]["onlooker_bits"] == 0.0  # one load: every count fixed
    times = [r["seconds"] for r in routine["rounds"]]
    assert times == sorted(times) and times[5] == pytest.approx(
        time_model.timing(es.step for es in exact_steps(60, 104)).total_s)
    assert all(r["guessing"]["kind"] == "estimate" for r in routine["rounds"])


@pytest.mark.exact_mode
def test_imperfect_machine_leaves_exact_mode_out_of_the_default_set(capsys):
    code, out, err = run(capsys, "quality", "--pack", "bridge", "--clump", "0.1", "--json", "--no-plot", *SMALL)
    assert code == 0, err
    assert [r["name"] for r in json.loads(out)["routines"]] == ["stack-trade", "pile-trade"]


def test_out_of_range_settings_are_refused_before_the_simulator_loads():
    # A refusal is one line, at once: numpy and the simulation are never loaded for it.
    code = ("import sys\n"
            "from host.cli import main\n"
            "rc = main(['quality', '--rounds', '101'])\n"
            "print(rc, 'numpy' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.stdout.split() == ["2", "False"], out.stdout + out.stderr
    assert out.stderr.strip().splitlines()[-1].endswith("--rounds must be between 1 and 100, not 101")


def test_a_plot_name_without_extension_gets_png(capsys, tmp_path):
    code, out, err = run(capsys, "quality", "--pack", "bridge", "--plot", str(tmp_path / "q"), "--json", *SMALL)
    assert code == 0, err
    assert json.loads(out)["plot"] == str(tmp_path / "q.png")
    assert [p.name for p in tmp_path.iterdir()] == ["q.png"]


def test_a_machine_that_never_shuffles_reads_never(capsys):
    code, out, err = run(capsys, "quality", "--pack", "samba", "--bias", "0", "--no-plot", *SMALL)
    assert code == 0, err
    text = " ".join(out.split())
    assert "not before pass" not in text and "at least 1.000" not in text
    # Five rows of the passes table (four thresholds and one deck after seven riffles), two routines each.
    assert text.count("never (the machine does not shuffle)") == 10
    assert "1.000 (exact: never shuffled)" in text and "This machine never shuffles" in text
    assert "exact: The device" not in text  # exact mode takes no bias; it is left out
    code, out, err = run(capsys, "quality", "--pack", "samba", "--bias", "0", "--json", "--no-plot", *SMALL)
    routines = json.loads(out)["routines"]
    assert all(not r["shuffles"] and {t["kind"] for t in r["thresholds"]} == {"never"} for r in routines)


def _header_cells(text, first="round"):
    line = next(ln for ln in text.splitlines() if f"┃ {first}" in ln)
    return [c.strip() for c in line.strip("┃ ").split("┃")]


def test_every_column_is_explained_under_the_tables(capsys):
    code, out, err = run(capsys, "quality", "--pack", "samba", "--no-plot", *SMALL)
    assert code == 0, err
    text = " ".join(out.split())
    headers = _header_cells(out)
    assert headers[:3] == ["round", "passes", "distance from random"]
    assert headers[3] == "guessing game (random: 5.67)"
    assert headers[4:] == ["≥3 of one meld: gap to random", "≥4 of one meld: gap to random"]
    notes = text.split("What the columns say (lower is better in every one):")[1]
    for name in ("distance from random:", "guessing game:", "≥3 and ≥4 of one meld:"):
        assert name in notes, name
    # The guessing game in one sentence with H_N; the melds as a gap to a random deal.
    assert "H_N = 1 + 1/2 + ... + 1/162 = 5.67" in notes
    assert "gap to a random pack's (0.3964 and 0.0442)" in notes
    assert "Passes needed: \"pass X\"" in text


def test_meld_cells_are_gaps_to_a_random_deal(capsys):
    code, out, err = run(capsys, "quality", "--pack", "samba", "--routine", "pile-trade", "--no-plot", *SMALL)
    assert code == 0, err
    report_code, report_out, _ = run(capsys, "quality", "--pack", "samba", "--routine", "pile-trade",
                                     "--no-plot", "--json", *SMALL)
    report = json.loads(report_out)
    random3 = report["reference"]["deal_random"]["3"]["exact"]
    first = report["routines"][0]["rounds"][0]["deal"]["3"]
    row = next(ln for ln in out.splitlines() if ln.startswith("│") and ln.split("│")[1].strip() == "1")
    cell = [c.strip() for c in row.split("│")][5]
    # One round leaves the melds spread round the table: far fewer such hands than a random deal.
    assert cell.endswith("fewer") and float(cell.split()[0]) == pytest.approx(random3 - first["value"], abs=1e-4)


def test_stack_trade_shows_its_bounds_on_both_sides_and_which_pair_gave_them(capsys):
    code, out, err = run(capsys, "quality", "--pack", "samba", "--no-plot", "--samples", "400", "--rounds", "8")
    assert code == 0, err
    text = " ".join(out.split())
    # The strongest pair of positions, named with the rounds it gave.
    assert "2: 0.9823, 3: 0.9441, 4: 0.8500, 5: 0.6498 (cards at positions 80 and 161)" in text
    assert ("Upper bounds for stack-trade by coupling (simulated with 400 pairs of packs, each at 97.5% "
            "confidence), by round: 1: 1.0000") in text
    assert "upper bounds: a pack from the gathered order and a randomly ordered one are shuffled alike" in text
    assert ("whether stack-trade is closer to random than pile-trade is NOT KNOWN: stack-trade's lower bounds "
            "stay at or below pile-trade's exact distance, and no upper bound below pile-trade's is known") in text
    assert "no upper bound for stack-trade is known" not in text
    code, out, err = run(capsys, "quality", "--pack", "samba", "--no-plot", "--json", *SMALL)
    stack = json.loads(out)["routines"][0]
    assert all(r["upper_bound"]["kind"] == "upper-bound" and r["upper_bound"]["confidence"] == 0.975
               for r in stack["rounds"])
    assert [r["pair_bound"]["positions"] for r in stack["rounds"]][1:] == [[80, 161], [80, 161]]


def _row_cells(text, routine, round_):
    """A row's cells in the routine's table, with cells wrapped over several lines joined."""
    lines = [ln for ln in text.split(f"{routine}: ", 1)[1].splitlines() if ln.startswith("│")]
    first = next(i for i, ln in enumerate(lines) if ln.split("│")[1].strip() == str(round_))
    rows = [lines[first]] + [ln for ln in itertools.takewhile(lambda ln: ln.split("│")[1].strip() == "",
                                                               lines[first + 1:])]
    parts = [[c.strip() for c in ln.split("│")[1:-1]] for ln in rows]
    return [" ".join(p for p in column if p) for column in zip(*parts)]


def test_the_distance_column_shows_a_rigorous_bound_where_the_simulated_one_is_unresolved(capsys):
    from shuffling.quality import stack_trade_laws
    from shuffling.quality.words import bound_figure

    code, out, err = run(capsys, "quality", "--pack", "samba", "--routine", "stack-trade", "--no-plot",
                         "--samples", "400", "--rounds", "16")
    assert code == 0, err
    # 400 shuffles cannot resolve the last rounds; the exact law of two positions still proves a little.
    chain = stack_trade_laws.exact_bounds(162, 104, 16)
    assert chain is not None
    for r in (15, 16):
        assert chain[r - 1].pair_positions == (80, 161) and chain[r - 1].pair > chain[r - 1].one_card
        figure = bound_figure(chain[r - 1].value)
        assert _row_cells(out, "stack-trade", r)[2] == f"at least {figure} (exact law of the cards at positions 80 and 161)"
    assert [bound_figure(chain[r].value) for r in (14, 15)] == ["0.00094", "0.00049"]  # as the docs say
    assert "at least 0 (unresolved)" not in out
    text = " ".join(out.split())
    assert "15: 0.00094, 16: 0.00049 (cards at positions 80 and 161)." in text


def test_the_json_carries_the_pair_chain_through_round_16_and_the_stronger_bound_each_round(capsys):
    from shuffling.quality import stack_trade_laws

    code, out, err = run(capsys, "quality", "--pack", "samba", "--routine", "stack-trade", "--no-plot", "--json",
                         "--samples", "400", "--rounds", "16")
    assert code == 0, err
    rounds = json.loads(out)["routines"][0]["rounds"]
    assert len(rounds) == 16
    for row, chain in zip(rounds, stack_trade_laws.exact_bounds(162, 104, 16)):
        pair, law = row["pair_bound"], row["exact_lower_bound"]
        assert pair is not None and pair["kind"] == "lower-bound", row["round"]
        assert (pair["value"], tuple(pair["positions"])) == (chain.pair, chain.pair_positions)
        # The stronger of the pair's and one card's bound, saying which.
        assert law["kind"] == "lower-bound" and law["stderr"] == 0
        assert law["value"] == max(chain.pair, chain.one_card)
        a, b = chain.pair_positions
        assert law["method"] == f"exact law of the cards at positions {a} and {b}", row["round"]
    # Where the chain used to stop (below 0.1, after round 8), the pair stays the stronger.
    assert [r["pair_bound"]["positions"] for r in rounds[8:]] == [[80, 161]] * 8
