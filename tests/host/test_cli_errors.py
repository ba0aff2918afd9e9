"""The command line never shows a traceback for bad input."""
import subprocess
import sys


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "host.cli", *args], capture_output=True, text=True, timeout=60
    )


def test_help_lists_the_program():
    out = run("--help")
    assert out.returncode == 0
    assert "shuffler" in out.stdout.lower()


def test_unknown_command_is_one_line_and_nonzero():
    out = run("no-such-command")
    assert out.returncode != 0
    assert "Traceback" not in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1
    assert "no-such-command" in out.stderr
