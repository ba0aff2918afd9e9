"""The page in a real browser (Debian's chromium, headless, under Selenium)
against `shuffler guide --web --sim`: the real firmware on the virtual
shuffler, every card moved by the page's own controls.

Kept few and short: one browser for the module, one guide per test."""
from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from firmware import protocol
from page_support import done_enabled, marks, press, shown_problems, summary_rows, until
from page_support import SHOTS
from web_support import CHROMEDRIVER, CHROMIUM, ROOT, Guide, page_state, screenshot, wait_page

pytestmark = [pytest.mark.usefixtures("own_runtime"), pytest.mark.slow, pytest.mark.micropython,
              pytest.mark.skipif(not (CHROMIUM and CHROMEDRIVER),
                                 reason="needs Debian's chromium and chromium-driver (.ci/run installs them)")]

DOCS_SHOT = SHOTS / "guide-web.png"
TABLET = (820, 1180)
LAPTOP = (1366, 900)


def by_id(d: Any, name: str) -> Any:
    from selenium.webdriver.common.by import By

    return d.find_element(By.ID, name)


def click(d: Any, name: str) -> None:
    from selenium.common.exceptions import StaleElementReferenceException

    for _ in range(20):
        try:
            # A new step's buttons settle a moment before they take a press.
            until(d, lambda drv: not by_id(drv, name).get_attribute("disabled"), f"{name} enabled")
            by_id(d, name).click()
            return
        except StaleElementReferenceException:  # the page redrew it
            time.sleep(0.05)
    raise AssertionError(f"could not click {name}")


def choose(d: Any, stack: str) -> None:
    from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException
    from selenium.webdriver.common.by import By

    for _ in range(100):
        try:
            d.find_element(By.CSS_SELECTOR, f'.stack-chip[data-name="{stack}"]').click()
            if page_chosen(d) == stack:
                return
        except (StaleElementReferenceException, NoSuchElementException):
            pass
        time.sleep(0.05)
    raise AssertionError(f"no stack {stack} to choose")


def page_chosen(d: Any) -> str | None:
    return d.execute_script("return chosen;")


def type_onto(d: Any, name: str) -> None:
    box = by_id(d, "onto")
    box.clear()
    box.send_keys(name)


def space_bar(d: Any) -> None:
    # Wherever the focus is (often the table button just pressed): the space
    # bar is Done, never that button again.
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    ActionChains(d).send_keys(Keys.SPACE).perform()


def next_step(d: Any, after: int, timeout: float = 120.0) -> dict[str, Any]:
    return wait_page(d, lambda s: s["finished"] or bool(s["step"] and s["step"]["number"] > after), timeout)


def act(d: Any, step: dict[str, Any], by_hand: bool, use_space: bool) -> None:
    """Do the step with the virtual table's controls, then answer it."""
    kind = step["kind"]
    if by_hand and kind == "putintray" and not step["rest"]:
        choose(d, step["load"])
        click(d, "put")
    elif by_hand and kind == "touch":
        click(d, "touch")
    elif by_hand and kind == "lift":
        for side in ("left", "right"):
            type_onto(d, f"{step['load']}.{side}")
            click(d, f"lift-{side}")
    else:
        click(d, "do-step")
    if step["answer"]:
        wait_page(d, lambda s: s["step"]["number"] == step["number"] and not s["step"]["answered"])
        # A new step is held back from Done for a moment (a double click's second half).
        wait_page(d, lambda s: s["step"]["number"] != step["number"] or done_enabled(d))
        if use_space:
            space_bar(d)
        else:
            click(d, "done")


def play(d: Any, until: Any = None, by_hand_passes: int = 1) -> dict[str, Any]:
    """Follow the guide on the page until `until(state)` or the end; the
    first passes by hand (choose, put, touch, lift onto), the rest with
    "do this step"."""
    number, touches = 0, 0
    while True:
        s = next_step(d, number)
        if s["finished"] or (until is not None and until(s)):
            return s
        step = s["step"]
        number = step["number"]
        by_hand = touches < by_hand_passes
        if step["kind"] == "lift":
            touches += 1
        act(d, step, by_hand, use_space=number % 2 == 0)


def check_the_end(d: Any, s: dict[str, Any], cards: int = 162) -> None:
    assert s["stopped"] is None, s["stopped"]
    assert s["table"]["check"] == {"ok": True, "made": cards, "missing": 0, "twice": 0, "stray": 0}
    summary = by_id(d, "summary")
    shown = summary_rows(d)
    assert summary.is_displayed() and {"row": "check", "ok": "true", "made": str(cards), "missing": "0", "twice": "0",
                                       "stray": "0"} in shown
    marked = s["table"]["marked"]
    assert [m["was"] for m in marked] == [1, 2, cards // 2 + 1, cards]
    assert sorted({m["now"] for m in marked}) == sorted(m["now"] for m in marked)  # distinct places
    assert all(1 <= m["now"] <= cards for m in marked)
    assert [r for r in shown if "card" in r] == [{"card": str(m["card"]), "was": str(m["was"]), "now": str(m["now"])}
                                                 for m in marked]


def picture_elements(d: Any) -> dict[str, int]:
    return d.execute_script("""
        const svg = document.getElementById('table-picture');
        return {tray: svg.querySelectorAll('#tray').length, sensor: svg.querySelectorAll('#sensor').length,
                left: svg.querySelectorAll('g.pile.left').length, right: svg.querySelectorAll('g.pile.right').length,
                stacks: svg.querySelectorAll('g.stack').length, arrows: svg.querySelectorAll('path.arrow').length};""")


def test_a_whole_random_shuffle_by_the_pages_controls_at_tablet_and_laptop_widths(driver: Any,
                                                                                   guides: list[Guide],
                                                                                   tmp_path: Path) -> None:
    g = Guide("--sim", "--mode", "random", "--rounds", "2")
    guides.append(g)
    driver.set_window_size(*LAPTOP)
    driver.get(g.address)
    # Mid-shuffle: after the first pass, lifting its piles.
    s = play(driver, until=lambda s: s["step"]["kind"] == "lift" and s["step"]["load"] == "A")
    step = s["step"]
    assert step["left"] + step["right"] == 81 and s["pass"]["dealt"] == 81
    for name, size in (("laptop", LAPTOP), ("tablet", TABLET)):
        driver.set_window_size(*size)
        driver.execute_script("window.scrollTo(0, 0);")
        shot = screenshot(driver, tmp_path / f"guide-{name}.png")
        assert shot.stat().st_size > 10_000
        text = by_id(driver, "step-text")
        assert text.is_displayed() and text.text == step["words"]
        where = marks(driver, "where")
        assert (where["round"], where["ofRounds"], where["pass"], where["ofPasses"]) == ("1", "2", "1", "4")
        assert picture_elements(driver) == {"tray": 1, "sensor": 1, "left": 1, "right": 1,
                                            "stacks": 3, "arrows": 2}  # B, A.left, A.right; an arrow to each
        assert driver.execute_script("return document.documentElement.scrollWidth <= window.innerWidth;")
        if name == "laptop":
            DOCS_SHOT.parent.mkdir(exist_ok=True)
            screenshot(driver, DOCS_SHOT)
    driver.set_window_size(*LAPTOP)
    s = play(driver)
    check_the_end(driver, s)
    assert s["summary"]["mode"] == "random" and s["summary"]["passes"] == 4
    assert s["summary"]["loads"] == [[81, 81], [81, 81]]
    press(driver, "close")  # once it can be pressed: not in the end screen's first moment
    code, out = g.proc.wait(60), g.stdout()
    assert code == 0 and "Summary" in out


def test_a_whole_exact_shuffle_by_the_pages_controls(driver: Any, guides: list[Guide]) -> None:
    g = Guide("--sim", "--mode", "exact")
    guides.append(g)
    driver.get(g.address)
    s = play(driver, by_hand_passes=2)
    check_the_end(driver, s)
    assert s["summary"]["mode"] == "exact" and s["summary"]["rounds"] == 14 and s["summary"]["passes"] == 15
    distance = next(r for r in summary_rows(driver) if r["row"] == "distance")
    assert (distance["kind"], distance["value"]) == ("exact", "0")


def test_a_jam_is_shown_survives_a_reload_mid_pass_and_is_cleared_from_the_page(driver: Any,
                                                                                guides: list[Guide]) -> None:
    from selenium.webdriver.support.ui import Select

    g = Guide("--sim", "--mode", "random", "--rounds", "1")
    guides.append(g)
    driver.get(g.address)
    s = play(driver, until=lambda s: s["step"]["kind"] == "touch")
    Select(by_id(driver, "fault-kind")).select_by_value("jam")
    k = by_id(driver, "fault-k")
    k.clear()
    k.send_keys("30")
    click(driver, "inject")
    click(driver, "touch")
    s = next_step(driver, s["step"]["number"])
    assert s["step"]["kind"] == "fix" and s["step"]["what"] == "jam"
    problem = by_id(driver, "problems")
    jam = [(p["kind"], p["code"], p["dealt"], p["of"]) for p in shown_problems(driver)]
    assert problem.is_displayed() and jam == [("PassPaused", protocol.FAULT_JAM, 30, 81)], jam
    assert by_id(driver, "fix-picture").get_attribute("data-what") == "jam"
    before = s
    driver.refresh()  # mid-pass: 30 of 81 cards dealt, the pass paused by the jam
    s = wait_page(driver, lambda s: s["step"] is not None)
    assert s["step"]["number"] == before["step"]["number"] and s["pass"]["dealt"] == 30
    assert [(p["kind"], p["dealt"]) for p in shown_problems(driver)] == [("PassPaused", 30)]
    assert by_id(driver, "step-text").text == before["step"]["words"]
    click(driver, "do-step")  # free the card
    wait_page(driver, lambda s: done_enabled(driver))
    click(driver, "done")
    s = next_step(driver, before["step"]["number"])
    assert s["step"]["kind"] == "touch" and s["step"]["why"] == "go_on"
    click(driver, "touch")
    s = next_step(driver, s["step"]["number"])
    assert s["step"]["kind"] == "lift" and s["step"]["left"] + s["step"]["right"] == 81
    s = play(driver)
    check_the_end(driver, s)
    assert any(r["kind"] == "PassPaused" and r["where"]["round"] == 1 for r in s["summary"]["note_records"])
    assert {"row": "note", "kind": "PassPaused", "round": "1"} in summary_rows(driver)  # the note, on the end screen


def test_a_wrong_load_is_shown_with_its_message_and_put_right_on_the_page(driver: Any, guides: list[Guide]) -> None:
    g = Guide("--sim", "--mode", "random", "--rounds", "1")
    guides.append(g)
    driver.get(g.address)
    s = play(driver, until=lambda s: s["step"]["kind"] == "putintray")
    # 30 cards too many in load A: from the top of B to the bottom of A, which keeps the order.
    driver.execute_script("send({op: 'move', n: 30, from: 'B', to: 'A', to_bottom: true});")
    wait_page(driver, lambda s: any(x["name"] == "A" and x["count"] == 111 for x in s["table"]["stacks"]))
    choose(driver, "A")
    click(driver, "put")
    s = next_step(driver, s["step"]["number"])
    # Load A holds 111 of about 81, more than the tray's 104: the page says so, and what to move (30 cards
    # from the bottom of load A to the top of load B).
    said = [{k: p[k] for k in ("kind", "load", "want", "n", "about", "capacity")} for p in shown_problems(driver)]
    assert s["step"]["kind"] == "unload" and said == [
        {"kind": "LoadToMove", "load": "A", "want": 81, "n": 111, "about": True, "capacity": 104}], said
    move = shown_problems(driver)[0]["move"]
    assert {k: move[k] for k in ("kind", "cards", "upper", "lower", "down")} == {
        "kind": "Move", "cards": 30, "upper": "A", "lower": "B", "down": True}
    s = play(driver)
    check_the_end(driver, s)
    assert s["summary"]["loads"] == [[81, 81]]


def test_the_virtual_table_refuses_what_cannot_be_done_in_one_line(driver: Any, guides: list[Guide]) -> None:
    g = Guide("--sim", "--mode", "random", "--rounds", "1")
    guides.append(g)
    driver.get(g.address)
    wait_page(driver, lambda s: s["step"] is not None and s["table"] is not None)
    choose(driver, "pack")
    type_onto(driver, "A")
    n = by_id(driver, "n")
    n.clear()
    n.send_keys("500")
    click(driver, "move")  # more cards than the pack holds
    wait_page(driver, lambda s: by_id(driver, "toast").is_displayed())
    toast = by_id(driver, "toast")
    assert "error" in toast.get_attribute("class") and "162" in toast.text and "\n" not in toast.text
    s = page_state(driver)
    assert s["table"]["check"]["ok"] and [x["name"] for x in s["table"]["stacks"]] == ["pack"]
    assert s["step"]["number"] == 1 and s["stopped"] is None  # the guide still waits on its first step


def test_a_reload_during_a_live_pass_comes_back_to_the_same_pass(driver: Any, guides: list[Guide]) -> None:
    # The motor at half of real speed: a pass of 81 cards lasts many seconds, so the
    # reload below lands mid-pass on any machine.
    g = Guide("--sim", "--mode", "random", "--rounds", "1", "--time-scale", "0.5")
    guides.append(g)
    driver.get(g.address)
    s = play(driver, until=lambda s: s["step"]["kind"] == "touch")
    touch = s["step"]["number"]
    click(driver, "touch")
    before = wait_page(driver, lambda s: bool(s["pass"] and s["pass"]["active"] and 0 < s["pass"]["dealt"] < 40))
    driver.refresh()
    after = wait_page(driver, lambda s: s["step"] is not None and s["pass"] is not None)
    # The same step and the same pass, as far on as the device has dealt by now.
    assert after["step"]["number"] == touch and after["pass"]["load"] == "A"
    assert after["pass"]["dealt"] >= before["pass"]["dealt"]
    # The touch that started the pass is over: the step says what the shuffler does.
    said = marks(driver, "step-text")
    assert (said["say"], said["kind"], said["load"]) == ("doing", "dealing", "A")
    s = next_step(driver, touch)
    assert s["step"]["kind"] == "lift", s
    assert s["step"]["left"] + s["step"]["right"] == 81 and s["pass"]["dealt"] == 81, s
