"""docs/bring-up.md shows what the commands print: `shuffler flash` onto a
blank board, `shuffler setup` with a person at the machine, `shuffler
check`, `shuffler setup` with a person who makes the ordinary slips (a
miscounted deck, a hand on the pad, the wrong pile said), and `shuffler
setup` on a board whose exit beam has no receiver,
each run here on the unix-port virtual shuffler and compared line by line
with the page (the numbers a run reads, a pseudo-terminal's name and the
person's counts differ from run to run and are compared as numbers only).

    python tests/host/test_bring_up_doc.py   # prints the sessions for the page
"""
from __future__ import annotations

import os
import random
import re
import sys
import tempfile
from pathlib import Path

import pytest

from firmware import build
from pty_screen import Screen, SimDevice, StepFeed, end_process, launch_sim_device, screen_lines
from setup_person import PACK, SLIPS, SetupPerson, follow
from simulator.virtual.world_client import WorldClient
from suite import transcript as shuffler

pytestmark = [pytest.mark.micropython, pytest.mark.slow]

DOC = Path(__file__).resolve().parents[2] / "docs" / "bring-up.md"
BLOCKS = ("flash", "setup", "check", "slips", "wired wrong")
PERSON = (0.0, 0.05)



def setup_session(dev: SimDevice, tmp: Path, seed: int, *extra: str, slips: frozenset[str] = frozenset()) -> list[str]:
    with WorldClient.connect(dev.control, timeout=10) as world:
        world.clear_table()
        world.new(104, PACK)
        steps = tmp / f"steps-{seed}.jsonl"
        argv = ["setup", "--port", dev.port, *extra]
        screen = Screen([sys.executable, "-m", "host.cli", *argv, "--steps-file", str(steps)],
                        dict(os.environ, TERM="xterm-256color", COLUMNS="400"), cols=400)
        try:
            person = SetupPerson(world, random.Random(seed), PERSON, slips=set(slips))
            follow(screen, StepFeed(steps), person, timeout=300)
            assert not person.slips, person.slips  # every slip made
        finally:
            screen.close()
    return [f"$ shuffler {' '.join(argv)}"] + [x for x in screen_lines(bytes(screen.raw)) if x.strip()]


def sessions(tmp: Path) -> dict[str, list[str]]:
    """The five sessions of the page, as a terminal leaves them."""
    blank = tmp / "blank"
    blank.mkdir()
    wrong = tmp / "wrong"
    slipping = tmp / "slipping"
    build.install_to_dir(build.build_image("sim", tmp / "image"), wrong)
    build.install_to_dir(build.build_image("sim", tmp / "image2"), slipping)
    devs = [launch_sim_device(blank, 0, "--no-install", firmware=False)]
    try:
        dev = devs[0]
        out = {"flash": shuffler("flash", "--port", dev.port)}
        out["setup"] = setup_session(dev, tmp, 1)
        out["check"] = shuffler("check", "--port", dev.port)
        devs.append(launch_sim_device(slipping, 0, "--no-install"))
        out["slips"] = setup_session(devs[-1], tmp, 3, slips=frozenset(SLIPS))
        devs.append(launch_sim_device(wrong, 0, "--no-install", "--wiring", "beam_receiver_missing"))
        out["wired wrong"] = setup_session(devs[-1], tmp, 2)
    finally:
        for d in devs:
            end_process(d.proc)
    return out


def plain(line: str) -> str:
    """A line as compared: every number, a port's name and the person's typing alike."""
    line = re.sub(r"/dev/pts/\d+", "/dev/pts/N", line.rstrip())
    return re.sub(r"[-+]?\d+(\.\d+)?", "#", line)


def doc_blocks() -> dict[str, list[str]]:
    text = DOC.read_text()
    out = {}
    for name in BLOCKS:
        body = text.split(f"<!-- {name} -->", 1)[1].split("```", 2)[1]
        out[name] = body.split("\n", 1)[1].rstrip("\n").splitlines()
    return out


def test_the_bring_up_page_shows_what_the_commands_print(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SHUFFLER_RUNTIME_DIR", str(tmp_path / "runtime"))
    got = sessions(tmp_path)
    shown = doc_blocks()
    for name in BLOCKS:
        assert [plain(x) for x in shown[name]] == [plain(x) for x in got[name]], (name, "\n".join(got[name]))


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as folder:
        os.environ["SHUFFLER_RUNTIME_DIR"] = str(Path(folder) / "runtime")
        for name, lines in sessions(Path(folder)).items():
            print(f"<!-- {name} -->")
            print("```text")
            print("\n".join(re.sub(r"/dev/pts/\d+", "/dev/pts/3", x) for x in lines))
            print("```")
