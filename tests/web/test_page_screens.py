"""Screenshots of the page at a phone's and a laptop's size for each kind of
step (split, put, a pass dealing, a fault, lift, stack, the end), made anew
by this test (into docs/img/ with SHUFFLER_DOCS_SHOTS=1), with what docs/web.md says of them measured
on each: the smallest text on the screen (at least 14 px on the phone), the
step and Done in sight together, nothing wider than the screen, no two
picture texts on top of one another."""
from __future__ import annotations

from typing import Any

import pytest

from page_support import (LAPTOP, done_enabled, until, PHONE, SHOTS, do_step_by_its_controls, in_sight, overlapping_picture_texts,
                          press, press_done, screen, smallest_text_px, state_when, step_after)
from web_support import CHROMEDRIVER, CHROMIUM, Guide, screenshot

pytestmark = [pytest.mark.usefixtures("own_runtime"), pytest.mark.slow, pytest.mark.micropython,
              pytest.mark.skipif(not (CHROMIUM and CHROMEDRIVER),
                                 reason="needs Debian's chromium and chromium-driver (.ci/run installs them)")]


def shoot(d: Any, kind: str, measured: dict[str, float]) -> None:
    if d.execute_script("return !!(state.step && state.step.answer && !state.step.answered && !state.finished);"):
        until(d, done_enabled, "Done ready to press")  # shown as a person sees it, not in its first moment
    for name, size in (("phone", PHONE), ("laptop", LAPTOP)):
        screen(d, *size)
        d.execute_script("window.scrollTo(0, 0);")
        small = smallest_text_px(d)
        measured[f"{kind}-{name}"] = small["px"]
        assert d.execute_script("return document.documentElement.scrollWidth <= innerWidth;"), (kind, name)
        assert overlapping_picture_texts(d) == [], (kind, name)
        if name == "phone":
            assert small["px"] >= 14, (kind, small)
            assert in_sight(d, "step-text") and (in_sight(d, "done") or in_sight(d, "close")), kind
        shot = screenshot(d, SHOTS / f"page-{kind}-{name}.png")
        assert shot.stat().st_size > 5_000


# A busy 2-core machine (CI beside another run) takes several times as long as an idle one.
@pytest.mark.timeout(1200)
def test_each_kind_of_step_at_phone_and_laptop_size(driver: Any) -> None:
    # Half of real speed, so that a pass is on screen long enough to be caught dealing.
    g = Guide("--sim", "--mode", "random", "--rounds", "1", "--time-scale", "0.5")
    measured: dict[str, float] = {}
    try:
        driver.get(g.address)
        seen: set[str] = set()
        number = 0
        while True:
            s = step_after(driver, number)
            if s["finished"]:
                break
            step = s["step"]
            number = step["number"]
            kind = {"cut": "split", "putintray": "put", "lift": "lift", "stack": "stack", "gather": "stack",
                    "fix": "fault"}.get(step["kind"])
            if kind and kind not in seen:
                seen.add(kind)
                shoot(driver, kind, measured)
                screen(driver, *LAPTOP)
            if step["kind"] == "touch" and "fault" not in seen:
                # A jam part way through the first pass: the fault's own screen.
                driver.execute_script("send({op: 'fault', spec: 'jam:30'});")
                state_when(driver, lambda s: s["table"] is not None, "the table")
            if step["kind"] == "touch":
                press(driver, "touch")
                if "dealing" not in seen and step["why"] == "go_on":
                    state_when(driver, lambda s: bool(s["pass"] and s["pass"]["active"] and s["pass"]["dealt"] > 32),
                               "the pass dealing again after the jam")
                    seen.add("dealing")
                    shoot(driver, "dealing", measured)
                    screen(driver, *LAPTOP)
                continue
            if step["kind"] != "putintray" or not step["rest"]:
                do_step_by_its_controls(driver, g, step)
            if step["answer"]:
                press_done(driver, number)
        end = state_when(driver, lambda s: s["summary"] is not None, "the summary")
        shoot(driver, "end", measured)
        # One random round leaves 162 cards far from random: the end says so, not "ready to deal".
        assert end["verdict"] == {"ready": False, "level": "good", "threshold": 0.25,
                                  "needs": end["verdict"]["needs"]} and end["verdict"]["needs"] > 1
        words = driver.find_element("id", "step-text").text
        assert "short of good" in words
        for shown in ("step-text", "summary-head", "where", "table-picture"):
            el = driver.find_element("id", shown)
            assert "ready to deal" not in (el.text + str(el.get_attribute("aria-label"))), shown
        assert seen >= {"split", "put", "lift", "stack", "fault", "dealing"}, seen
        assert min(v for k, v in measured.items() if k.endswith("phone")) >= 14, measured
    finally:
        g.kill()
