"""The guide's console on a real pseudo-terminal, as a person sees it: every
line wrapped between words to the terminal's width (down to 40 columns),
a step's continuation lines indented under its text; with NO_COLOR not one
escape code (no colour, no bold, no live bar). Piped, a line stays one line."""
from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from rich.console import Console

from pty_screen import Screen, screen_lines


def guide_on_a_terminal(tmp_path: Path, cols: int, no_color: bool) -> tuple[bytes, list[dict[str, object]]]:
    """README's first run, `shuffler guide --sim --unattended --pack samba`, on
    a terminal `cols` wide; its screen's bytes and the steps it showed."""
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES", "NO_COLOR", "FORCE_COLOR")}
    env["TERM"] = "xterm-256color"
    if no_color:
        env["NO_COLOR"] = "1"
    steps = tmp_path / "steps.jsonl"
    screen = Screen([sys.executable, "-m", "host.cli", "guide", "--sim", "--unattended", "--pack", "samba",
                     "--steps-file", str(steps)], env, cols=cols, rows=50)
    try:
        screen.proc.wait(timeout=180)  # the whole routine, on a busy machine
    except subprocess.TimeoutExpired:
        pass  # ended below; its exit status fails the test
    code = screen.close()
    assert code == 0, screen.text()[-3000:]
    records = [json.loads(line) for line in steps.read_text().splitlines()]
    return bytes(screen.raw), [r for r in records if r["record"] == "step"]


def _flat(text: str) -> str:
    return " ".join(text.split())


@pytest.mark.parametrize("cols", [40, 57])
def test_without_colour_no_escape_code_and_every_line_fits_the_terminal(tmp_path: Path, cols: int) -> None:
    raw, steps = guide_on_a_terminal(tmp_path, cols, no_color=True)
    assert b"\x1b" not in raw  # no colour, no bold, no cursor codes
    lines = screen_lines(raw)
    assert max(len(line) for line in lines) <= cols, [line for line in lines if len(line) > cols]
    flat = _flat("\n".join(lines))
    for step in steps:  # every step's words, in full, on the screen
        assert _flat(f"{step['number']}. {step['words']}") in flat, step
    assert "Summary" in lines
    # A step that takes several lines goes on under its text, not under its number.
    long = next(i for i, line in enumerate(lines) if line.startswith("4. Take out A's piles"))
    assert lines[long + 1].startswith("   ") and not lines[long + 1].startswith("    ")


def test_with_colour_the_steps_are_bold_and_still_wrapped(tmp_path: Path) -> None:
    raw, steps = guide_on_a_terminal(tmp_path, 40, no_color=False)
    assert b"\x1b[1m" in raw  # bold: the terminal is not asked for NO_COLOR
    lines = screen_lines(raw)
    assert max(len(line) for line in lines) <= 40, [line for line in lines if len(line) > 40]
    assert _flat(f"4. {steps[3]['words']}") in _flat("\n".join(lines))


def test_piped_a_line_stays_one_line() -> None:
    from host import terminal

    long = "12. " + "word " * 60
    console = Console(file=io.StringIO(), width=40, color_system=None)
    assert [t.plain for t in terminal.lines(console, long)] == [long]


def test_on_a_narrower_terminal_it_wraps_at_40() -> None:
    from host import terminal

    console = Console(file=io.StringIO(), width=20, force_terminal=True, color_system=None)
    shown = [t.plain for t in terminal.lines(console, "! " + "a card caught in the exit " * 6)]
    assert len(shown) > 1 and max(len(x) for x in shown) <= 40 and max(len(x) for x in shown) > 20
    assert all(x.startswith("  ") for x in shown[1:])  # under the problem's text, not its "!"


def test_the_quality_report_under_no_color_has_no_escape_code(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES", "FORCE_COLOR")}
    env.update(TERM="xterm-256color", NO_COLOR="1")
    screen = Screen([sys.executable, "-m", "host.cli", "quality", "--pack", "samba", "--routine", "exact",
                     "--samples", "400", "--no-plot"], env, cols=120, rows=50)
    try:
        screen.proc.wait(timeout=180)
    except subprocess.TimeoutExpired:
        pass
    assert screen.close() == 0, screen.text()[-3000:]
    assert "Samba" in screen.text()
    assert b"\x1b" not in bytes(screen.raw)  # the title was bold, the bar a live one


# -- the summary in a card game's words (host/guide/game_words.py), as the console prints it ---

def test_the_deal_in_words_never_understates_a_random_routine_s_distance() -> None:
    from host.guide import game_words

    assert "within 23.1 in 100" in game_words.for_the_deal(162, False, 0.2302)
    assert "within 23 in 100" in game_words.for_the_deal(162, False, 0.23)
    assert "almost every time" in game_words.for_the_deal(162, False, 1.0)
    fixed = game_words.secrecy({"fixed": True, "rounds": [], "bits": 0.0, "order_bits": 225.6})
    assert "told nothing" in fixed
    coin = game_words.secrecy({"fixed": False, "rounds": [{"round": 1}], "bits": 0.7, "order_bits": 578.4})
    assert "less than the toss of a coin" in coin


def test_a_first_run_s_summary_speaks_of_the_deal_of_someone_counting_piles_and_what_to_run_next() -> None:
    """The summary of README's first run (exact mode, samba's 162 cards, round
    1's piles telling 3.7 bits), as the console prints it after `--sim`."""
    import math

    from host import plan as planlib
    from host.commands.guide import RichVoice, _print_summary
    from host.guide.results import EXACT, EXACT_METHOD, Summary

    order_bits = math.log2(math.factorial(162))
    summary = Summary(rounds=14, passes=15, seconds=60.0, distance=0.0, cards=162, mode=EXACT, method=EXACT_METHOD,
                      condition="on condition that nobody saw the cards' codes",
                      onlooker={"fixed": False, "rounds": [{"round": 1, "loads": [81, 81], "bits": 3.7}], "bits": 3.7,
                                "order_bits": order_bits})
    out = io.StringIO()
    plan = planlib.make_plan(planlib.choose_pack("samba", None), 104, "good")
    _print_summary(RichVoice(Console(file=out, width=1000)), plan, summary, None, first_run=True)
    lines = out.getvalue().splitlines()
    deal = next(line for line in lines if line.startswith("  for the deal, on that condition: "))
    assert "every order of the 162 cards was equally likely" in deal and "fair random hand" in deal
    secrecy = next(line for line in lines if line.startswith("  secrecy: "))
    assert "counted the cards in the piles of round 1" in secrecy
    assert "about 13 equally likely things" in secrecy  # 3.7 bits: 2 ** 3.7 is about 13
    assert f"takes {len(str(math.factorial(162)))} digits" in secrecy  # 162! orders
    end = [line for line in lines if line.strip()][-4:]
    assert end[0] == "What next"
    assert "`shuffler flash --port PORT`" in end[1] and "`shuffler setup --port PORT`" in end[1]
    assert "`shuffler guide --port PORT --pack samba`" in end[1] and "`shuffler devices`" in end[1]
    assert "`shuffler guide --sim --pack samba --web`" in end[2]
    assert "`shuffler quality --pack samba`" in end[3]


def test_a_faults_reason_is_in_the_console_s_words() -> None:
    """The device says why a pass stopped (the exit beam missed 3 cards);
    the console prints that reason in the words `shuffler check` uses
    (host/device_words.py), as the page does
    (test_adapter.py::test_a_faults_reason_reaches_the_page_in_the_words_check_uses)."""
    import io

    from rich.console import Console

    from guide_in_memory import exit_beam_missed_three
    from host import device_words
    from host.commands.guide import RichVoice

    out = io.StringIO()
    fault = exit_beam_missed_three(RichVoice(Console(file=out, width=200)))
    assert device_words.why_words(fault) == "the exit beam missed 3 cards that left the tray"
    printed = " ".join(out.getvalue().split())
    assert "the exit beam missed 3 cards that left the tray" in printed, printed


def test_a_stop_line_says_where_why_and_the_command_that_goes_on() -> None:
    from host.commands.guide import AS_THEY_LIE, FRESH, GATHERED, StopRecord, stop_words
    from host.guide.notices import Where

    at = Where(2, 8, "A", 3, 16)
    command = "shuffler guide --port /dev/ttyACM0 --pack samba"
    assert stop_words(StopRecord(at, "no pass started within 30 s", AS_THEY_LIE, f"{command} --resume")) == (
        "stopped at round 2 of 8, load A (pass 3 of 16): no pass started within 30 s; to go on, leave the cards as "
        f"they lie and run `{command} --resume`")
    assert stop_words(StopRecord(at, "interrupted", FRESH, command)) == (
        "stopped at round 2 of 8, load A (pass 3 of 16): interrupted; to go on, put every card together face down "
        f"into one pack (any order) and run `{command}` (a fresh exact routine)")
    assert stop_words(StopRecord(None, "the input ended, so no step can be answered", GATHERED,
                                 f"{command} --mode random")) == (
        "stopped: the input ended, so no step can be answered; to go on, put every card together face down into one "
        f"pack (any order) and run `{command} --mode random`")
