"""The page within a finger's and a screen reader's reach, at each kind of
step of a whole routine in real Chromium against `shuffler guide --web
--sim` (split, load, touch, a pass dealing, a jam, lift, stack, the end):
on a phone's screen (390 px wide) every button, field, list, stack chip
and label is at least 44 x 44 px; and axe-core finds nothing of impact
serious or critical, on a phone's screen and a laptop's. The routine is
played once for both tests; every wait is on the page's state."""
from __future__ import annotations

from typing import Any

import pytest

from page_support import AXE, FINGER_PX, LAPTOP, PHONE, axe_faults, done_enabled, screen, small_targets, until, walk_a_routine
from web_support import CHROMEDRIVER, CHROMIUM, Guide

pytestmark = [pytest.mark.usefixtures("own_runtime"), pytest.mark.slow, pytest.mark.micropython,
              pytest.mark.skipif(not (CHROMIUM and CHROMEDRIVER),
                                 reason="needs Debian's chromium and chromium-driver (.ci/run installs them)")]

def look(d: Any, where: str, seen: dict[str, dict[str, Any]]) -> None:
    """What the two tests measure, at one moment of the routine."""
    if d.execute_script("return !!(state.step && state.step.answer && !state.step.answered && !state.finished);"):
        until(d, done_enabled, "Done ready to press")  # as a person sees it, not in its first moment
    screen(d, *PHONE)
    found: dict[str, Any] = {"small": small_targets(d), "axe": None}
    if AXE.exists():
        found["axe"] = {"phone": axe_faults(d)}
        screen(d, *LAPTOP)
        found["axe"]["laptop"] = axe_faults(d)
    seen[where] = found
    screen(d, *LAPTOP)


@pytest.fixture(scope="module")
def routine(driver: Any, tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    """One random round of a Samba shuffle, every step done by the page's controls,
    looked at at the first step of each kind, mid-pass and at the end."""
    mp = pytest.MonkeyPatch()
    mp.setenv("SHUFFLER_RUNTIME_DIR", str(tmp_path_factory.mktemp("runtime")))
    # Half of real speed, so that a pass is on screen long enough to be looked at dealing.
    g = Guide("--sim", "--mode", "random", "--rounds", "1", "--time-scale", "0.5")
    seen: dict[str, dict[str, Any]] = {}
    try:
        walk_a_routine(driver, g, lambda moment: look(driver, moment, seen))
        look(driver, "end", seen)
    finally:
        g.kill()
        mp.undo()
    assert set(seen) >= {"split", "load", "touch", "jam", "dealing", "lift", "stack", "end"}, sorted(seen)
    return seen


# A busy 2-core machine (CI beside another run) takes several times as long as an idle one.
@pytest.mark.timeout(1200)
def test_every_control_is_a_finger_wide_on_a_phone(routine: dict[str, dict[str, Any]]) -> None:
    small = {where: found["small"] for where, found in routine.items() if found["small"]}
    assert not small, f"controls under {FINGER_PX} x {FINGER_PX} px at 390 px wide, by step: {small}"


@pytest.mark.timeout(1200)
def test_axe_finds_nothing_serious_at_any_step(routine: dict[str, dict[str, Any]]) -> None:
    if not AXE.exists():
        pytest.skip("needs axe-core (tests/web/package.json; .ci/run installs it with npm ci)")
    faults = {f"{where} ({size})": found["axe"][size] for where, found in routine.items()
              for size in ("phone", "laptop") if found["axe"][size]}
    assert not faults, f"axe-core's serious or critical findings, by step: {faults}"
