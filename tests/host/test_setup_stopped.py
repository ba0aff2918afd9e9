"""`shuffler setup` stopped at every step, on a board brought up before:
Ctrl-C at the keyboard, or the power cut and given back (the board
restarts), at each step a person meets. The board's stored files (the
virtual board's flash folder, every file in it) are byte for byte what
they were, the command says nothing was stored and what to run, and it
never blames the wiring; a set-up that runs to its end stores what it
measured in one write. On the unix-port virtual shuffler.

Each stop is a test of its own, on one board per worker brought up once
(a module's fixture): every stop is judged against the files as they were
just before it, so the stops share the board's start and the suite's
workers share the stops."""
from __future__ import annotations

import json
import os
import random
import shutil
import signal
import sys
from pathlib import Path
from typing import Any, Iterator

import pytest

from pty_screen import Screen, SimDevice, StepFeed, end_process, launch_sim_device, reconnect
from setup_person import PACK, SetupPerson, follow
from simulator.virtual.world_client import WorldClient

pytestmark = [pytest.mark.micropython, pytest.mark.slow]

FAST = (0.0, 0.05)
CONFIG = {"motor_duty": 75, "touch_pct": 65}
# The steps of a set-up of a working board, in order (a person who repeats none).
STEPS = ("emptytray", "loadcards", "secondcount", "again", "handsoff", "touchpad", "again", "feedcards",
         "wherelanded", "again", "meter", "again")


def files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


class Stopping(SetupPerson):
    """The person, who at the step numbered `at` presses Ctrl-C, or cuts the
    power and gives it back and then does the step as usual."""

    def __init__(self, *args: Any, dev: SimDevice, screen: Screen, at: int, how: str, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.dev, self.screen, self.at, self.how = dev, screen, at, how

    def act(self, step: dict[str, Any]) -> str | None:
        if len(self.done) - 1 != self.at:
            return super().act(step)
        if self.how == "ctrl-c":
            self.screen.proc.send_signal(signal.SIGINT)  # as the terminal sends it for Ctrl-C
            return None
        self.world.unplug()
        self.world.close()
        self.world = reconnect(self.dev.control, 30, "the board did not come back after the power came back")
        return super().act(step)


def set_up(dev: SimDevice, runtime: Path, at: int = -1, how: str = "") -> tuple[int, str, list[str], list[dict]]:
    """`shuffler setup` stopped at step `at` (`how`), or run to its end: its
    exit code, the screen, the kinds of the steps done and the records told.
    `runtime`: the folder the board is advertised in."""
    world = WorldClient.connect(dev.control, timeout=20)
    try:
        world.clear_table()
        world.new(104, PACK)
        steps = runtime / f"steps-{how}-{at}.jsonl"
        screen = Screen([sys.executable, "-m", "host.cli", "setup", "--port", dev.port, "--steps-file", str(steps)],
                        dict(os.environ, TERM="xterm-256color", COLUMNS="200", SHUFFLER_RUNTIME_DIR=str(runtime)))
        person = Stopping(world, random.Random(at), FAST, dev=dev, screen=screen, at=at, how=how)
        try:
            done = follow(screen, StepFeed(steps), person, timeout=120)
        finally:
            code = screen.close()
        return code, screen.text(), [s["kind"] for s in done], person.records
    finally:
        person.world.close()


@pytest.fixture(scope="module")
def ready_board(sim_image_flash: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[SimDevice, Path, Path]]:
    """A virtual board brought up once (its calibration stored, in one
    write) with a configuration of its own, which the set-up keeps: the
    board, its flash folder and the runtime folder it is advertised in (the
    board's own, as the tests that share it each have theirs)."""
    runtime = tmp_path_factory.mktemp("runtime-stopped")
    flash = tmp_path_factory.mktemp("stopped") / "board"
    shutil.copytree(sim_image_flash, flash)
    (flash / "config.json").write_text(json.dumps(CONFIG))
    before = files(flash)
    with pytest.MonkeyPatch.context() as env:
        env.setenv("SHUFFLER_RUNTIME_DIR", str(runtime))
        dev = launch_sim_device(flash, 0, "--no-install")
    try:
        code, text, kinds, told = set_up(dev, runtime)
        assert code == 0 and stored(told) == [("stored", False)], text[-3000:]  # its configuration was usable
        assert tuple(kinds) == STEPS, kinds
        after = files(flash)
        assert after["cal.json"] != before.get("cal.json") and "cal.json.tmp" not in after
        assert after["config.json"] == before["config.json"]
        assert json.loads(after["cal.json"])["touch_seen"] == 1
        yield dev, flash, runtime
    finally:
        end_process(dev.proc)


@pytest.mark.parametrize("how", ["unplug", "ctrl-c"])
@pytest.mark.parametrize("at, kind", list(enumerate(STEPS)))
def test_setup_stopped_at_any_step_leaves_the_stored_files_as_they_were(ready_board, how: str, at: int,
                                                                        kind: str) -> None:
    dev, flash, runtime = ready_board
    before = files(flash)
    code, text, kinds, told = set_up(dev, runtime, at, how)
    assert kinds[at] == kind and len(kinds) == at + 1, (at, kinds, text[-2000:])
    assert code == (130 if how == "ctrl-c" else 1), (at, kind, text[-2000:])
    # Its last word: stopped, by the Ctrl-C or the board's restart, on this port; nothing stored.
    cause = "interrupted" if how == "ctrl-c" else "restarted"
    assert told and {k: told[-1].get(k) for k in ("kind", "cause", "port")} == \
        {"kind": "stopped", "cause": cause, "port": dev.port}, (at, kind, told[-3:], text[-2000:])
    assert text.strip().splitlines()[-1].endswith(told[-1]["words"]), (at, kind, text[-2000:])
    assert stored(told) == [] and not [t for t in told if t["kind"] == "found" and t["wiring"]], (at, told)
    assert "wiring" not in text and "Traceback" not in text, text[-2000:]
    assert files(flash) == before, (how, at, kind)


def test_a_set_up_run_to_its_end_on_a_board_brought_up_before_stores_in_one_write(ready_board) -> None:
    # (after the stops this worker made on the board, if any)
    dev, flash, runtime = ready_board
    before = files(flash)
    code, text, _, told = set_up(dev, runtime)
    assert code == 0 and stored(told) == [("stored", False)], text[-2000:]
    after = files(flash)
    assert after["cal.json"] != before["cal.json"] and "cal.json.tmp" not in after
    assert after["config.json"] == before["config.json"]


def stored(told: list[dict]) -> list[tuple[str, bool | None]]:
    """What the set-up said it stored, or did not: ("stored", config) or ("unstored", None)."""
    return [(t["kind"], t.get("config")) for t in told if t["kind"] in ("stored", "unstored")]
