"""Every feature the README names works after the README's first command's
install: a clean virtual environment made exactly as that command makes it
(pip may take the packages from its cache) reaches a port with `shuffler
sim-device --board pico`, the emulated Pico, whose Python dependencies come
with the project and whose npm packages are installed on first use; and a
machine without node is told so in one line."""
from __future__ import annotations

import os
import re
import select
import signal
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

pytestmark = [pytest.mark.slow, pytest.mark.pico]


def readme_install(venv: Path) -> list[str]:
    """The README's first command up to the one that runs `shuffler`, with
    the environment's folder moved to `venv`."""
    text = (REPO / "README.md").read_text()
    first = re.search(r"```sh\n(.+?)\n```", text, re.S)
    assert first is not None
    steps = [s.strip() for s in first.group(1).split("&&")]
    install = [s for s in steps if "shuffler" not in s.split()[0] and s.split()[0] != "echo"]
    assert install == ["python3 -m venv .venv", ".venv/bin/pip install -q -e ."], install
    return [s.replace(".venv", str(venv)) for s in install]


def first_line(proc: subprocess.Popen[str], seconds: float) -> str:
    assert proc.stdout is not None
    ready, _, _ = select.select([proc.stdout], [], [], seconds)
    return proc.stdout.readline() if ready else ""


@pytest.mark.timeout(1800)
def test_the_readme_install_runs_the_emulated_pico(tmp_path: Path) -> None:
    from simulator.pico import find_image

    find_image()  # the stock image and boot ROM are test tools kept outside the repository
    venv = tmp_path / "venv"
    for step in readme_install(venv):
        done = subprocess.run(step, shell=True, cwd=REPO, capture_output=True, text=True, timeout=1500)
        assert done.returncode == 0, step + "\n" + done.stderr[-3000:]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("VIRTUAL_ENV", "PYTHON"))}
    env["SHUFFLER_RUNTIME_DIR"] = str(tmp_path / "runtime")
    proc = subprocess.Popen([str(venv / "bin" / "shuffler"), "sim-device", "--board", "pico", "--time-scale", "0"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=tmp_path)
    try:
        line = first_line(proc, 300)
        assert line.startswith("emulated Pico on /dev/"), line + (proc.stderr.read() if proc.poll() is not None else "")
        assert os.path.exists(line.split()[3])
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=60)


def test_without_node_the_emulated_pico_says_so_in_one_line(tmp_path: Path) -> None:
    env = dict(os.environ, PATH=str(tmp_path), SHUFFLER_RUNTIME_DIR=str(tmp_path / "runtime"))
    done = subprocess.run([sys.executable, "-m", "host.cli", "sim-device", "--board", "pico"],
                          capture_output=True, text=True, timeout=120, env=env, cwd=REPO)
    assert done.returncode != 0
    assert done.stderr.count("\n") == 1 and "needs node" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr
