"""docs/guide.md's example transcripts are what `shuffler guide --sim
--unattended --pack samba` prints now. The exact-mode example is compared
line for line (it is deterministic: the code set fixes every count); the
random-mode example, whose pile counts come from the firmware's random
source, is compared where it does not depend on them: the header, the
first load and the summary. Only the pseudo-terminal's number and the time
taken are left out of the comparison."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
DOC = REPO / "docs" / "guide.md"

pytestmark = pytest.mark.micropython


def normal(line: str) -> str:
    line = re.sub(r"/dev/pts/\d+", "/dev/pts/N", line.rstrip())
    return re.sub(r"time: \d+ s", "time: N s", line)


def run_guide(tmp_path: Path, *extra: str) -> list[str]:
    env = dict(os.environ, SHUFFLER_RUNTIME_DIR=str(tmp_path))
    out = subprocess.run([sys.executable, "-m", "host.cli", "guide", "--sim", "--unattended", "--pack", "samba",
                          *extra], capture_output=True, text=True, timeout=120, env=env, cwd=REPO)
    assert out.returncode == 0, out.stderr
    return [normal(x) for x in out.stdout.splitlines()]


def doc_blocks() -> list[list[str]]:
    text = DOC.read_text().split("### An example", 1)[1]
    return [[normal(x) for x in b.strip("\n").splitlines()] for b in re.findall(r"```text\n(.*?)```", text, re.S)]


def excerpt(lines: list[str], rounds: int) -> list[str]:
    """Round 1 and the last round, the rounds between left out as '...'."""
    second = next(i for i, x in enumerate(lines) if x.startswith(f"Round 2 of {rounds}"))
    last = next(i for i, x in enumerate(lines) if x.startswith(f"Round {rounds} of {rounds}"))
    return lines[:second + 1] + ["..."] + lines[last:]


@pytest.mark.exact_mode
def test_the_exact_mode_example_is_the_command_s_output(tmp_path: Path) -> None:
    doc = doc_blocks()[0]
    assert doc == excerpt(run_guide(tmp_path), 14)


def test_the_random_mode_example_matches_where_it_does_not_depend_on_the_draw(tmp_path: Path) -> None:
    doc = doc_blocks()[1]
    out = run_guide(tmp_path, "--mode", "random")
    head = out[:out.index("3. Touch the sensor to start the pass.") + 1]
    assert doc[:len(head)] == head
    summary = out[out.index("Summary"):]
    assert doc[-len(summary):] == summary
    assert any(x.startswith("Round 10 of 10") for x in doc) and "..." in doc
