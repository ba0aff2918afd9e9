"""docs/firmware.md's budget block is the benchmark's output: the lines that
do not depend on the machine's speed are recomputed here with the
benchmark's own functions and must appear in the block unchanged."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from fwtest_support import require_micropython

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "benchmarks"))

import firmware_budget as fb  # noqa: E402

pytestmark = pytest.mark.micropython


def block() -> list[str]:
    doc = (REPO / "docs" / "firmware.md").read_text()
    body = doc.split("## Budgets", 1)[1].split("```", 2)[1]
    return body.strip("\n").splitlines()


def test_the_deployed_image_sizes_in_the_doc_are_current() -> None:
    lines = fb.image_lines()
    assert len(lines) == 2
    for line in lines:
        assert line in block()


def test_the_firmware_alone_heap_figures_in_the_doc_are_current() -> None:
    require_micropython()
    for line in fb.heap_lines(fb.alone_heap()):
        assert line in block()


def test_the_heap_figures_do_not_depend_on_where_the_firmware_sits(tmp_path: Path) -> None:
    """The same firmware copied under a short and a long folder name gives the
    same heap, to the byte (module file names are kept on the heap)."""
    require_micropython()
    figures = []
    for name in ("f", "a-much-longer-folder-name-like-a-clone-in-a-ci-workspace" * 2):
        copy = tmp_path / name / "firmware"
        shutil.copytree(fb.FIRMWARE, copy)
        fw = fb.alone_heap(copy)
        figures.append((fw["boot_bytes"], fw["after_pass_bytes"], fw["exact162"]))
    assert figures[0] == figures[1]


def test_the_heap_lock_line_in_the_doc_says_the_loop_allocates_nothing() -> None:
    require_micropython()
    res = fb.run_mp(fb.PASS_SCRIPT, [fb.FIRMWARE, fb.BOARD_SIM])
    locked, cards = res["locked_loop"].split()
    assert (locked, cards) == ("ok", "104")
    assert (f"  card loop under micropython.heap_lock(): {locked}, {cards} cards dealt"
            " (an allocation would raise MemoryError)") in block()


def test_the_image_is_what_flash_deploys_exact_mode_included() -> None:
    from firmware import build
    names = {p.name for p in build.board_sources("esp32")}
    assert {"exact.py", "exact_codes.py", "board_esp32.py"} <= names
    assert "board_rp2.py" not in names
