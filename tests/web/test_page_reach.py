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

from page_support import (AXE, LAPTOP, PHONE, FINGER_PX, axe_faults, do_step_by_its_controls, done_enabled, press,
                          press_done, screen, small_targets, state_when, step_after, until)
from web_support import CHROMEDRIVER, CHROMIUM, Guide

pytestmark = [pytest.mark.usefixtures("own_runtime"), pytest.mark.slow, pytest.mark.micropython,
              pytest.mark.skipif(not (CHROMIUM and CHROMEDRIVER),
                                 reason="needs Debian's chromium and chromium-driver (.ci/run installs them)")]

KINDS = {"cut": "split", "putintray": "load", "touch": "touch", "lift": "lift", "stack": "stack",
         "gather": "stack", "fix": "jam"}


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
        driver.get(g.address)
        number = 0
        while True:
            s = step_after(driver, number)
            if s["finished"]:
                break
            step = s["step"]
            number = step["number"]
            kind = KINDS.get(step["kind"])
            if kind and kind not in seen:
                look(driver, kind, seen)
            if step["kind"] == "touch" and "jam" not in seen:
                # A jam part way through the first pass: the fault's own screen.
                driver.execute_script("send({op: 'fault', spec: 'jam:30'});")
                state_when(driver, lambda s: s["table"] is not None, "the table")
            if step["kind"] == "touch":
                press(driver, "touch")
                if "dealing" not in seen and step["why"] == "go_on":
                    state_when(driver, lambda s: bool(s["pass"] and s["pass"]["active"] and s["pass"]["dealt"] > 32),
                               "the pass dealing again after the jam")
                    look(driver, "dealing", seen)
                continue
            if step["kind"] != "putintray" or not step["rest"]:
                do_step_by_its_controls(driver, g, step)
            if step["answer"]:
                press_done(driver, number)
        state_when(driver, lambda s: s["summary"] is not None, "the summary")
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
