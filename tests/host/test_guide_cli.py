"""`shuffler guide` on the command line: bad input is one line, non-zero, no traceback."""
from __future__ import annotations

import contextlib
import io
import subprocess
import sys

import pytest

from host.cli import main


def run(*args: str) -> subprocess.CompletedProcess[str]:
    """The command in this process, through the real entry point (host.cli.main)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["guide", *args])
    return subprocess.CompletedProcess(["shuffler", "guide", *args], code, out.getvalue(), err.getvalue())


@pytest.mark.parametrize("args,word", [
    ((), "choose one of --port PORT, --sim or --manual"),
    (("--sim", "--manual"), "got --sim and --manual"),
    (("--manual", "--unattended"), "--unattended needs the virtual shuffler"),
    (("--manual", "--record", "x.jsonl"), "--record goes with --unattended"),
    (("--port", "/dev/no-such-shuffler"), "no such port: /dev/no-such-shuffler"),
    (("--manual", "--pack", "nosuchgame"), "unknown pack"),
    (("--manual", "--cards", "1"), "--cards"),
    (("--manual", "--cards", "lots"), "lots"),
    (("--manual", "--capacity", "1"), "--capacity"),
    (("--manual", "--capacity", "0"), "--capacity"),
    (("--manual", "--quality", "perfect"), "unknown quality"),
    (("--manual", "--from-round", "99"), "--from-round"),
    (("--port", "/dev/null"), "/dev/null"),
])
def test_bad_input_is_one_line_and_nonzero(args: tuple[str, ...], word: str) -> None:
    out = run(*args)
    assert out.returncode != 0
    assert "Traceback" not in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1, out.stderr
    assert word in out.stderr


def test_manual_mode_without_a_person_stops_at_its_place() -> None:
    out = subprocess.run([sys.executable, "-m", "host.cli", "guide", "--manual", "--pack", "canasta", "--wait", "1"],
                         capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert out.returncode != 0
    assert "Put load A (about 54 cards)" not in out.stdout  # it stopped at the first step
    assert "Square the pack" in out.stdout
    assert "stopped at round 1 of 10, load A (pass 1 of 20)" in out.stderr
    assert "--from-round 1" in out.stderr and len(out.stderr.strip().splitlines()) == 1
