"""Screenshots of the page at a phone's and a laptop's size for each kind of
step (split, put, a pass dealing, a fault, lift, stack, the end), made anew
by this test (into docs/img/ with SHUFFLER_DOCS_SHOTS=1), with what docs/web.md says of them measured
on each: the smallest text on the screen (at least 14 px on the phone), the
step and Done in sight together, nothing wider than the screen, no two
picture texts on top of one another."""
from __future__ import annotations

from typing import Any

import pytest

from page_support import (LAPTOP, PHONE, SHOTS, done_enabled, in_sight, overlapping_picture_texts, screen,
                          smallest_text_px, until, walk_a_routine)
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
    names = {"load": "put", "jam": "fault"}  # the screenshots' names in docs/img
    seen: list[str] = []

    def at(moment: str) -> None:
        if moment != "touch":  # the same screen as a load's, with the touch's words
            seen.append(names.get(moment, moment))
            shoot(driver, names.get(moment, moment), measured)
            screen(driver, *LAPTOP)
    try:
        end = walk_a_routine(driver, g, at)
        shoot(driver, "end", measured)
        # One random round leaves 162 cards far from random: the end says so, not "ready to deal".
        assert end["verdict"] == {"ready": False, "level": "good", "threshold": 0.25,
                                  "needs": end["verdict"]["needs"]} and end["verdict"]["needs"] > 1
        words = driver.find_element("id", "step-text").text
        assert "short of good" in words
        for shown in ("step-text", "summary-head", "where", "table-picture"):
            el = driver.find_element("id", shown)
            assert "ready to deal" not in (el.text + str(el.get_attribute("aria-label"))), shown
        assert set(seen) >= {"split", "put", "lift", "stack", "fault", "dealing"}, seen
        assert min(v for k, v in measured.items() if k.endswith("phone")) >= 14, measured
    finally:
        g.kill()
