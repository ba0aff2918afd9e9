"""One press, one answer, as a person presses: at points of the screen, with
a mouse on a laptop's screen and a finger on a phone's, whatever is under
the point at each press taking it. In headless chromium against `shuffler
guide --web --sim`; every wait is on the page or the guide's state.

- a double click on Done (two presses 200 ms apart at the same point)
  answers the step shown and nothing of the next: a new step's buttons take
  no press until it has been on screen a moment, so whatever moved under
  the point is not pressed;
- a control used at a step shows its ✓ in every tab, and is off there too;
- the end says the pack is shuffled and the page may be closed, never
  "reconnecting…"; the page has its icon."""
from __future__ import annotations

from typing import Any

import pytest

from page_support import (LAPTOP, PHONE, do_step_by_its_controls, done_enabled, marks, open_page, point_of, press,
                          press_at, record_renders, renders, replies_in, screen, state_when, step_after, until)
from web_support import CHROMEDRIVER, CHROMIUM, Guide, page_state

pytestmark = [pytest.mark.usefixtures("own_runtime"), pytest.mark.slow, pytest.mark.micropython,
              pytest.mark.skipif(not (CHROMIUM and CHROMEDRIVER),
                                 reason="needs Debian's chromium and chromium-driver (.ci/run installs them)")]


def ops_at(d: Any, number: int) -> list[dict[str, Any]]:
    """What the page sent naming step `number`."""
    return [m for m in d.execute_script("return window.sentOps;") if m.get("step") == number]


@pytest.mark.parametrize("size", [PHONE, LAPTOP], ids=["phone", "laptop"])
def test_a_double_click_on_done_at_one_point_answers_only_the_step_shown(driver: Any, guides: list[Guide],
                                                                         size: tuple[int, int]) -> None:
    # A whole round, every Done pressed twice 200 ms apart at the point where it was, as
    # many people click: whatever the next step puts under that point takes no press.
    g = Guide("--sim", "--mode", "random", "--rounds", "1")
    guides.append(g)
    open_page(driver, g, size)
    screen(driver, *size)
    record_renders(driver)
    number, doubled = 0, 0
    while not (s := step_after(driver, number))["finished"]:
        step = s["step"]
        number = step["number"]
        if step["kind"] == "touch":
            press(driver, "touch")
            continue
        if step["kind"] != "putintray" or not step["rest"]:
            do_step_by_its_controls(driver, g, step)
        if not step["answer"]:
            continue
        until(driver, lambda d: page_state(d)["step"]["number"] != number or done_enabled(d), f"Done at {number}")
        if page_state(driver)["step"]["number"] != number:
            continue  # the shuffler saw this step done itself
        press_at(driver, point_of(driver, "done"), times=2, apart_s=0.2, finger=size == PHONE)
        doubled += 1
        after = step_after(driver, number)
        until(driver, replies_in, "every reply")
        assert [m["op"] for m in ops_at(driver, number)].count("done") == 1
        if not after["finished"]:
            nxt = after["step"]["number"]
            assert ops_at(driver, nxt) == [], (step["kind"], after["step"]["kind"], ops_at(driver, nxt))
    assert doubled >= 8  # every Done of a round, each double clicked
    # Whatever the layout put under the point: no new step's button took a press while it settled.
    early = [(r["step"], r["early"]) for r in renders(driver) if r["early"]]
    assert early == [], early[:3]


@pytest.mark.parametrize("size", [PHONE, LAPTOP], ids=["phone", "laptop"])
def test_a_used_control_shows_its_tick_in_every_tab(driver: Any, guides: list[Guide], size: tuple[int, int]) -> None:
    g = Guide("--sim", "--mode", "random", "--rounds", "1")
    guides.append(g)
    s = open_page(driver, g, size)
    first = driver.current_window_handle
    driver.switch_to.new_window("tab")
    open_page(driver, g, size)
    second = driver.current_window_handle
    try:
        driver.switch_to.window(first)
        until(driver, lambda d: d.execute_script(
            "const b = document.querySelector('#step-buttons button'); return b && !b.disabled;"), "the first control")
        press_at(driver, point_of_first_control(driver), finger=size == PHONE)
        until(driver, lambda d: replies_in(d) and d.execute_script(
            "return document.querySelector('#step-buttons button').classList.contains('used');"), "its ✓ here")
        driver.switch_to.window(second)
        until(driver, lambda d: d.execute_script(
            "const b = document.querySelector('#step-buttons button');"
            "return b.classList.contains('used') && b.disabled && getComputedStyle(b, '::after').content.includes('✓');"),
              "its ✓ in the other tab")
        assert s["step"]["number"] == page_state(driver)["step"]["number"]
    finally:
        driver.switch_to.window(second)
        driver.close()
        driver.switch_to.window(first)


def point_of_first_control(d: Any) -> tuple[int, int]:
    d.execute_script("document.querySelector('#step-buttons button').id = 'first-control';")
    return point_of(d, "first-control")


@pytest.mark.parametrize("size", [PHONE, LAPTOP], ids=["phone", "laptop"])
def test_the_end_says_the_pack_is_shuffled_and_the_page_may_be_closed(driver: Any, guides: list[Guide],
                                                                       size: tuple[int, int]) -> None:
    g = Guide("--sim", "--unattended", "--mode", "random", "--rounds", "1")
    guides.append(g)
    driver.get(g.address)
    screen(driver, *size)
    state_when(driver, lambda s: s["summary"] is not None, "the summary")
    assert driver.execute_script("return [...document.querySelectorAll('link[rel=icon]')].map((l) => l.href);")
    icon = driver.execute_script("return fetch('/favicon.ico').then((r) => r.status);")
    assert icon == 200
    until(driver, lambda d: not d.find_element("id", "close").get_attribute("disabled"), "Close")
    press_at(driver, point_of(driver, "close"), finger=size == PHONE)
    g.proc.wait(60)
    # The guide gone after its end: said as the end (the pack shuffled, the page may be closed), not a reconnect.
    until(driver, lambda d: marks(d, "connection").get("state") == "ended" and marks(d, "banner").get("kind") == "ended",
          "the end's words")
    ready = str(page_state(driver)["verdict"]["ready"]).lower()  # one random round: short of good
    assert marks(driver, "connection") == {"state": "ended", "ready": ready}
    assert marks(driver, "banner")["ready"] == ready and driver.find_element("id", "banner").is_displayed()
