"""README's first command as a newcomer meets it: a line before pip's quiet
install, then the guided Samba shuffle on the virtual shuffler, whose round
lines say which load was dealt and what waits aside, whose summary speaks
the game's words, and whose last lines say what to run next."""
from __future__ import annotations

import math
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from host.guide import game_words

REPO = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.micropython


def readme_commands() -> list[str]:
    """The README's set-up commands: its shell blocks before its first section."""
    top = (REPO / "README.md").read_text().split("\n## ", 1)[0]
    return re.findall(r"```sh\n(.+?)\n```", top, re.S)


def test_the_readme_keeps_two_set_up_commands_and_the_first_speaks_before_pip() -> None:
    commands = readme_commands()
    assert len(commands) == 2 and all("\n" not in c for c in commands)
    steps = [s.strip() for s in commands[0].split("&&")]
    pip = next(i for i, s in enumerate(steps) if "/pip " in s)
    said = [s for s in steps[:pip] if s.startswith("echo ")]
    assert said, steps  # pip -q says nothing for a minute or more: a line comes first
    assert re.search(r"minute", said[0]) and "quiet" in said[0]


@pytest.fixture(scope="module")
def first_run(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    steps = [s.strip() for s in readme_commands()[0].split("&&")]
    guide = shlex.split(next(s for s in steps if s.startswith(".venv/bin/shuffler")))
    env = dict(os.environ, SHUFFLER_RUNTIME_DIR=str(tmp_path_factory.mktemp("runtime")))
    out = subprocess.run([sys.executable, "-m", "host.cli", *guide[1:]], capture_output=True, text=True,
                         timeout=180, env=env, cwd=REPO)
    assert out.returncode == 0, out.stderr
    return out.stdout.splitlines()


def test_each_round_says_which_load_was_dealt_and_what_waits_aside(first_run: list[str]) -> None:
    said = [line.strip() for line in first_run if re.match(r"\s*round \d+ of 14 dealt", line)]
    assert len(said) == 14 and not any("every load" in line for line in first_run)
    assert said[0] == "round 1 of 14 dealt: loads A and B"
    for k in range(1, 8):  # P's seven passes, Q on the table
        assert said[k] == f"round {k + 1} of 14 dealt: load P, its pass {k} of 7; load Q waits aside"
    for k in range(1, 7):
        assert said[7 + k] == f"round {8 + k} of 14 dealt: load Q, its pass {k} of 6; load P (done) waits aside"


def test_the_summary_speaks_of_the_deal_and_of_someone_counting_piles(first_run: list[str]) -> None:
    summary = first_run[first_run.index("Summary"):]
    deal = next(line for line in summary if line.startswith("  for the deal"))
    assert "every order of the 162 cards was equally likely" in deal and "fair random hand" in deal
    secrecy = next(line for line in summary if line.startswith("  secrecy: "))
    assert "counted the cards in the piles of round 1" in secrecy
    assert "about 13 equally likely things" in secrecy  # 3.7 bits: 2 ** 3.7 is about 13
    assert f"takes {len(str(math.factorial(162)))} digits" in secrecy  # 162! orders


def test_the_last_lines_say_what_to_run_next(first_run: list[str]) -> None:
    end = [line for line in first_run if line.strip()][-4:]
    assert end[0] == "What next"
    assert "`shuffler flash --port PORT`" in end[1] and "`shuffler setup --port PORT`" in end[1]
    assert "`shuffler guide --port PORT --pack samba`" in end[1] and "`shuffler devices`" in end[1]
    assert "`shuffler guide --sim --pack samba --web`" in end[2]
    assert "`shuffler quality --pack samba`" in end[3]


def test_the_deal_in_words_never_understates_a_random_routine_s_distance() -> None:
    assert "within 23.1 in 100" in game_words.for_the_deal(162, False, 0.2302)
    assert "within 23 in 100" in game_words.for_the_deal(162, False, 0.23)
    assert "almost every time" in game_words.for_the_deal(162, False, 1.0)
    fixed = game_words.secrecy({"fixed": True, "rounds": [], "bits": 0.0, "order_bits": 225.6})
    assert "told nothing" in fixed
    coin = game_words.secrecy({"fixed": False, "rounds": [{"round": 1}], "bits": 0.7, "order_bits": 578.4})
    assert "less than the toss of a coin" in coin
