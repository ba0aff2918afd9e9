"""A guide that stops answering with its page's connection still open (the
process stopped, a laptop asleep, a network gone without closing), noticed
by the page from the guide's beat, at a phone's size and a laptop's: the
page says so within a few seconds without blaming the person, holds Done
and every control, and goes on by itself when the guide answers again. In
headless chromium against `shuffler guide --web --sim`; every wait is on
the page."""
from __future__ import annotations

import os
import signal
from typing import Any

import pytest

from page_support import LAPTOP, PHONE, banner_text, do_step_by_its_controls, done_enabled, marks, open_page, point_of, \
    press_at, screen, step_after, until
from web_support import CHROMEDRIVER, CHROMIUM, Guide, page_state

pytestmark = [pytest.mark.usefixtures("own_runtime"), pytest.mark.slow, pytest.mark.micropython,
              pytest.mark.skipif(not (CHROMIUM and CHROMEDRIVER),
                                 reason="needs Debian's chromium and chromium-driver (.ci/run installs them)")]

BLAME = ("you ", "your ", "wrong", "error", "mistake")


def enabled_controls(d: Any) -> list[str]:
    return d.execute_script("return [...document.querySelectorAll('main button, main input, main select')]"
                            ".filter((b) => !b.disabled && b.offsetParent !== null).map((b) => b.id || b.textContent);")


@pytest.mark.parametrize("size", [PHONE, LAPTOP], ids=["phone", "laptop"])
def test_a_guide_that_stops_answering_is_said_and_done_waits_for_it(driver: Any, guides: list[Guide],
                                                                    size: tuple[int, int]) -> None:
    g = Guide("--sim", "--mode", "random", "--rounds", "1")
    guides.append(g)
    s = open_page(driver, g, size)
    screen(driver, *size)
    until(driver, done_enabled, "Done at step 1")
    assert banner_text(driver) == ""  # a guide that answers is not said to be silent
    os.killpg(g.proc.pid, signal.SIGSTOP)  # the guide and its virtual shuffler, as a machine asleep
    try:
        until(driver, lambda d: marks(d, "banner").get("kind") == "quiet", "the guide not answering")
        said = banner_text(driver)
        assert marks(driver, "banner")["step"] == str(s["step"]["number"]), said
        assert not any(w in said.lower() for w in BLAME), said
        assert not done_enabled(driver) and enabled_controls(driver) == []
        where = point_of(driver, "done")
        press_at(driver, where, finger=size == PHONE)  # a press meanwhile is not sent
        assert [m for m in driver.execute_script("return window.sentOps;") if m["op"] == "done"] == []
    finally:
        os.killpg(g.proc.pid, signal.SIGCONT)
    until(driver, lambda d: banner_text(d) == "" and done_enabled(d), "the guide answering again, Done back")
    # Done works again, pressed where it is on the screen.
    before = page_state(driver)["step"]["number"]
    step = page_state(driver)["step"]
    do_step_by_its_controls(driver, g, step)  # the split, on the virtual table
    until(driver, done_enabled, "Done after the split")
    press_at(driver, point_of(driver, "done"), finger=size == PHONE)
    assert step_after(driver, before)["step"]["number"] > before
