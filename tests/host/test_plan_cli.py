"""`shuffler plan` on the command line: output a person can follow, JSON, and
one clear line for bad input."""
from __future__ import annotations

import json
import contextlib
import io
import subprocess
import sys

import pytest

from host.cli import main

from simulator.quality.exact import tv_riffle_exact


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
])
def test_bad_input_is_one_line_and_nonzero(args: tuple[str, ...], word: str) -> None:
    out = run(*args)
    assert out.returncode != 0
    assert "Traceback" not in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1
    assert word in out.stderr
