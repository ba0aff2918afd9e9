"""A load cell calibrated 4 % low (a deck of 50 counted as 52 at set-up) is
found and corrected by the first pass of a guided shuffle: `shuffler
guide --port` in a pseudo-terminal against `shuffler sim-device`, with the
person model at the table. The per-card figure is read from the board's
own cal.json before the guide, after the first pass (as the person is
about to start the second) and at the end; the guide says it once, deals
the load as the exit counted it and ends with every card in one pack."""
from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from simulator.virtual.board.sim_world import STACK_PER_CARD, STACK_TARE
from simulator.virtual.table_person import TablePerson
from test_guide_person_pty import DELAYS, guided

pytestmark = [pytest.mark.micropython, pytest.mark.slow, pytest.mark.load_cell]

LOW = STACK_PER_CARD * 50 // 52  # 4 % low: 81 cards read as 84
CLOSE = 0.005  # a full tray counted to the card


def test_a_load_cell_4_percent_off_is_corrected_by_the_first_pass_of_a_guided_shuffle(
        sim_devices, sim_image_flash: Path, tmp_path: Path) -> None:
    flash = tmp_path / "flash"
    shutil.copytree(sim_image_flash, flash)
    cal = flash / "cal.json"
    cal.write_text(json.dumps({"tare": STACK_TARE, "per_card": LOW, "touch_seen": 1, "beam_ms": 27, "flip": 0}))
    dev = sim_devices(time_scale=0, flash=flash)
    figures: list[tuple[int, int]] = []  # (touches asked for so far, the stored per-card figure)
    touches = 0

    def watch(step: dict[str, Any], person: TablePerson, when: str) -> None:
        nonlocal touches
        if step["kind"] == "touch" and when == "before":
            figures.append((touches, json.loads(cal.read_text())["per_card"]))
            touches += 1

    run = guided(dev, tmp_path, ["--pack", "samba", "--mode", "random", "--quality", "casual"], 162, DELAYS,
                 seed=3, mischief=watch)
    assert run.code == 0, run.screen[-3000:]
    said = [n for n in run.notices if n["kind"] == "LoadCellCorrected"]
    assert [(n["counted"], n["held"], n["level"]) for n in said] == [(84, 81, "problem")], said  # said once
    assert run.summary is not None
    assert [(n["counted"], n["held"]) for n in run.summary["note_records"] if n["kind"] == "LoadCellCorrected"] == \
        [(84, 81)]  # and kept
    print("\n".join(run.lines[:40]))
    before, after = figures[0][1], figures[1][1]
    assert before == LOW and abs(after - STACK_PER_CARD) <= CLOSE * STACK_PER_CARD, figures  # by the first pass
    final = json.loads(cal.read_text())["per_card"]
    assert abs(final - STACK_PER_CARD) <= CLOSE * STACK_PER_CARD
    print(f"per card: {before} before, {after} after the first pass, {final} at the end (true {STACK_PER_CARD})")
    # Every card dealt and gathered into one pack, nothing latched on the way.
    assert run.table["check"]["ok"] and set(run.table["stacks"]) == {"pack"}
    assert sorted(run.table["stacks"]["pack"]) == list(range(162))
    assert not [n for n in run.notices if n["kind"] == "TrayEmptied" or n.get("name") == "tray_emptied"], run.notices
