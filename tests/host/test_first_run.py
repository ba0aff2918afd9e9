"""README's first command as a newcomer meets it: a line before pip's quiet
install, then the guided Samba shuffle on the virtual shuffler, whose round
lines say which load was dealt and what waits aside, whose summary speaks
the game's words, and whose last lines say what to run next. Judged by the
guide's records (its steps file); the words they are said in are
test_notice_words.py's and test_guide_console.py's."""
from __future__ import annotations

import json
import math
import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

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


@dataclass
class FirstRun:
    lines: list[str]  # what the newcomer reads
    notices: list[dict[str, Any]]  # the guide's notices, from its steps file (host/step_feed.py)
    summary: dict[str, Any]  # the summary's record


@pytest.fixture(scope="module")
def first_run(tmp_path_factory: pytest.TempPathFactory) -> FirstRun:
    """The README's command as written, with the guide's records written to a steps file beside the screen."""
    steps = [s.strip() for s in readme_commands()[0].split("&&")]
    guide = shlex.split(next(s for s in steps if s.startswith(".venv/bin/shuffler")))
    folder = tmp_path_factory.mktemp("runtime")
    env = dict(os.environ, SHUFFLER_RUNTIME_DIR=str(folder))
    out = subprocess.run([sys.executable, "-m", "host.cli", *guide[1:], "--steps-file", str(folder / "steps.jsonl")],
                         capture_output=True, text=True, timeout=180, env=env, cwd=REPO)
    assert out.returncode == 0, out.stderr
    records = [json.loads(line) for line in (folder / "steps.jsonl").read_text().splitlines()]
    assert records[-1]["record"] == "summary"
    return FirstRun(out.stdout.splitlines(), [r for r in records if r["record"] == "notice"], records[-1])


def test_each_round_says_which_load_was_dealt_and_what_waits_aside(first_run: FirstRun) -> None:
    said = [(n["round"], n["of_rounds"], n["dealt"], n["part_pass"], n["part_passes"], n["aside"], n["done"])
            for n in first_run.notices if n["kind"] == "ExactRoundDealt"]
    assert said[0] == (1, 14, ["A", "B"], None, None, [], [])  # the pack's two loads, nothing aside
    for k in range(1, 8):  # P's seven passes, Q on the table
        assert said[k] == (k + 1, 14, ["P"], k, 7, ["Q"], [])
    for k in range(1, 7):  # then Q's six, P aside and done
        assert said[7 + k] == (8 + k, 14, ["Q"], k, 6, ["P"], ["P"])
    assert len(said) == 14


def test_the_summary_speaks_of_the_deal_and_of_someone_counting_piles(first_run: FirstRun) -> None:
    """The figures the summary's game words say (their words: test_guide_console.py)."""
    s = first_run.summary
    assert s["cards"] == 162 and s["distance"]["kind"] == "exact" and s["distance"]["value"] == 0.0
    seen = s["onlooker"]
    assert not seen["fixed"] and [r["round"] for r in seen["rounds"]] == [1]  # only round 1's piles tell anything
    assert round(2 ** seen["bits"]) == 13  # 3.7 bits: about 13 equally likely things
    assert seen["order_bits"] == pytest.approx(math.log2(math.factorial(162)))  # 162! orders
    shown = first_run.lines[first_run.lines.index("Summary"):]
    assert any(line.endswith(game_words.for_the_deal(162, True, 0.0)) for line in shown), shown
    assert any(line.endswith(game_words.secrecy(seen)) for line in shown), shown


def test_the_last_lines_say_what_to_run_next(first_run: FirstRun) -> None:
    end = [line for line in first_run.lines if line.strip()][-3:]
    assert [line.strip() for line in end] == game_words.what_next("samba", 162)
