"""Screenshots of the page at a phone's and a laptop's size for each kind of
step (split, put, a pass dealing, a fault, lift, stack, the end), made anew
by this test (into docs/img/ with SHUFFLER_DOCS_SHOTS=1), with what docs/web.md says of them measured
on each: the smallest text on the screen (at least 14 px on the phone), the
step and Done in sight together, nothing wider than the screen, no two
picture texts on top of one another."""
from __future__ import annotations

from typing import Any

import pytest

from host.web.adapter import doing
from host.web.page_state import PageState
from host.web.server import PageServer
from page_support import (LAPTOP, PHONE, SHOTS, done_enabled, in_sight, overlapping_picture_texts, screen,
                          smallest_text_px, until, walk_a_routine)
from shuffling import steps
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


# -- the page's own words for each record it shows, once (the other browser tests read the records) --

def shows(d: Any, element_id: str, text: str) -> None:
    """Wait until the element's words are `text` (a state is drawn once it arrives)."""
    until(d, lambda drv: drv.find_element("id", element_id).get_attribute("textContent") == text,
          f"{element_id} saying {text!r} (it says "
          f"{d.find_element('id', element_id).get_attribute('textContent')!r})")


def served(page: PageState) -> PageServer:
    server = PageServer(page, host="127.0.0.1", port=0)
    server.start()
    return server


def a_step(step: steps.Step, number: int, answer: str | None) -> dict[str, Any]:
    return {**steps.to_dict(step), "number": number, "round": 1, "answer": answer, "answered": False, "controls": []}


def test_the_words_of_each_record_the_page_shows(driver: Any) -> None:
    page = PageState()
    server = served(page)
    try:
        page.update(mode="random", step=a_step(steps.PutInTray("A", 81), 2, "ready"),
                    place={"round": 1, "of_rounds": 2, "load": "A", "pass": 1, "of_passes": 4},
                    distance={"rounds_done": 0, "value": 1.0, "kind": "exact"})
        driver.get(server.address)
        shows(driver, "where", "random mode · round 1 of 2 · pass 1 of 4 · load A · not shuffled yet")
        shows(driver, "done", "The cards are in")
        # A pass dealing: what the shuffler does, the progress card.
        page.update(**{"pass": {"label": "load A", "load": "A", "dealt": 30, "total": 81, "left": 14, "right": 16,
                                "active": True}, "doing": doing("dealing", "load A", "A"),
                       "distance": {"rounds_done": 1, "value": 0.5, "kind": "exact"}})
        shows(driver, "step-text", doing("dealing", "load A", "A")["words"])
        shows(driver, "pass-label", "Dealing load A")
        shows(driver, "pass-count", "30 of 81 cards")
        shows(driver, "pass-piles", "left pile 14 · right pile 16")
        shows(driver, "where", "random mode · round 1 of 2 · pass 1 of 4 · load A · "
                               "distance from random: 0.5000 after 1 round")
        page.update(**{"pass": {"label": "load A", "load": "A", "dealt": 81, "total": 81, "left": None, "right": None,
                                "active": False}, "doing": doing("dealt", "load A", "A"),
                       "step": a_step(steps.Touch("start"), 3, None)})
        shows(driver, "pass-label", "Dealt load A")
        shows(driver, "pass-piles", "the piles' counts are not known")
        page.update(mode="exact", distance={"rounds_done": 1, "value": None, "kind": "exact mode"})
        shows(driver, "pass-piles", "in exact mode the shuffler keeps the piles' counts to itself until the pass ends")
        shows(driver, "where", "exact mode · round 1 of 2 · pass 1 of 4 · load A · "
                               "rounds done: 1 (exactly random when all are done)")
        # Another run of the guide on the same address: the old tab is told so.
        page.update(run="a-later-run")
        shows(driver, "banner-head", "A new run of the guide started")
        driver.refresh()  # the new run, followed
        # The end: ready to deal, and what the summary says.
        page.update(summary={"mode": "exact", "rounds": 14, "passes": 15, "seconds": 100.4, "simulated": True,
                             "distance": {"value": 0.0, "kind": "exact", "method": "exact"}, "cards": 162,
                             "loads": [], "notes": [], "note_records": [], "exactness": [], "condition": "",
                             "resumed": False, "onlooker": None},
                    verdict={"ready": True, "level": "good", "threshold": 0.25, "needs": None}, finished=True,
                    table={"stacks": [], "places": {}, "marked": [{"card": 7, "was": 1, "now": 17}],
                           "check": {"ok": True, "made": 162, "missing": 0, "twice": 0, "stray": 0}})
        shows(driver, "step-text", "Shuffled: the pack is ready to deal.")
        shows(driver, "summary-head", "Shuffled: ready to deal")
        shows(driver, "where", "exact mode · 14 rounds done · ready to deal")
        rows = driver.execute_script("return [...document.querySelectorAll('#summary-list dd, #marked p')]"
                                     ".map((e) => e.textContent);")
        assert "exactly 0" in rows and "every one of 162 is there once" in rows, rows
        assert "card 7: was 1. from the top, now 17." in rows, rows
        page.update(verdict={"ready": False, "level": "good", "threshold": 0.25, "needs": 3})
        shows(driver, "step-text", "The routine is done, but the pack is short of good (distance from random at "
                                   "most 0.25): it needs 3 rounds.")
        page.update(verdict={"ready": True, "level": "good", "threshold": 0.25, "needs": None})
        shows(driver, "summary-head", "Shuffled: ready to deal")
        server.stop()  # the guide ended, its page goes
        shows(driver, "connection", "the pack is shuffled; you may close this page")
        shows(driver, "banner-head", "The guide has ended")
        shows(driver, "banner-text", "Shuffled: the pack is ready to deal. You may close this page.")
    finally:
        server.stop()
    # A guide gone mid-routine: where the page lost it.
    page = PageState()
    server = served(page)
    try:
        lift = a_step(steps.Lift("A", 40, 41), 4, "done")
        page.update(mode="random", step=lift)
        driver.get(server.address)
        shows(driver, "step-text", lift["words"])
        page.guide_looked()  # and never again: the beat says how long the guide has been silent
        shows(driver, "banner-head", "The guide is not answering")
        assert driver.find_element("id", "banner-text").text.startswith("Nothing has come from the guide for ")
    finally:
        server.stop()
    shows(driver, "banner-head", "The guide is not running")
    assert driver.find_element("id", "banner-text").text.startswith(f"This page lost it at step 4 ({lift['words']}).")
