"""What the page says is true at the moment it says it, on a phone's screen
(390 px), in real Chromium against `shuffler guide --web --sim`, played by
clicks as a person plays it: a problem goes when its cause does; the pass
card shows one pass at one moment; Done is refused, with the reason, where
the shuffler or the virtual table sees the step is not done; the hints
name the controls that can be pressed. Each test judges by what it can see
for itself: the virtual table as the simulated world has it, and every
moment the page drew (`record_renders`), not only the moments a test
happens to look at. Every wait is on a fact."""
from __future__ import annotations

import json
from typing import Any

import pytest

from page_support import (PHONE, Player, do_step_by_its_controls, done_enabled, marks, open_page, press, press_done,
                          record_renders, renders, replies_in, shown_problems, tap, state_when, step_after,
                          step_buttons, until)
from shuffling import steps
from web_support import CHROMEDRIVER, CHROMIUM, Guide, page_state

pytestmark = [pytest.mark.usefixtures("own_runtime"), pytest.mark.slow, pytest.mark.micropython,
              pytest.mark.skipif(not (CHROMIUM and CHROMEDRIVER),
                                 reason="needs Debian's chromium and chromium-driver (.ci/run installs them)")]

EMPTY = "TrayStillEmpty"  # the notice: "the cards are in" said, and the tray reads empty


def places(g: Guide) -> dict[str, int]:
    """The machine's places as the simulated world has them now."""
    return dict(g.state()["table"]["places"])


def toast(d: Any) -> dict[str, str]:
    """The record of the one-line notice on the page (its reason and fields), if one is up."""
    return dict(d.execute_script("const t = document.getElementById('toast');"
                                 "return t.hidden ? {} : Object.assign({}, t.dataset);"))


def problems(d: Any) -> list[str]:
    """The kinds of the problems on screen."""
    return [p["kind"] for p in shown_problems(d)]


def empty_for(d: Any) -> list[str]:
    """The loads the problems on screen say the tray reads empty for."""
    return [p["load"] for p in shown_problems(d) if p["kind"] == EMPTY]


EXACT_52 = ("--sim", "--mode", "exact", "--cards", "52")
ONE_ROUND = ("--sim", "--mode", "random", "--rounds", "1")


def on_a_phone(driver: Any, guides: list[Guide], args: tuple[str, ...], watch: bool = False) -> tuple[Guide, Player]:
    """A guide started with `args`, its page open on a phone's screen (every
    render recorded, with `watch`), and a player of its steps."""
    g = Guide(*args)
    guides.append(g)
    open_page(driver, g, PHONE)
    if watch:
        record_renders(driver)
    return g, Player(driver, g)


def test_the_tray_read_empty_is_said_then_gone_once_the_load_is_in(driver: Any, guides: list[Guide]) -> None:
    # Exact mode, 52 cards: load A's first load, then load A again after each pass (its piles put back).
    g, player = on_a_phone(driver, guides, EXACT_52, watch=True)
    s = player.to(lambda s: s["step"]["kind"] == "reload")
    number = s["step"]["number"]
    assert places(g)["tray"] == 0, places(g)  # the piles are still on the machine: the tray is empty
    until(driver, done_enabled, f"The cards are in at step {number}")
    assert marks(driver, "done")["answer"] == "ready"  # the shuffler counts the cards in the tray itself
    driver.find_element("id", "done").click()
    # The shuffler reads an empty tray: the page says so.
    until(driver, lambda d: EMPTY in problems(d), f"'{EMPTY}' said at step {number}")
    assert page_state(driver)["step"]["number"] == number, "an empty tray was taken for the load"
    renders(driver)
    press(driver, "do-step")  # the piles go back in the tray
    s = step_after(driver, number)
    assert s["step"]["kind"] == "touch" and places(g)["tray"] == 52, (s["step"], places(g))
    until(driver, lambda d: d.find_element("id", "step-number").text == f"Step {s['step']['number']}",
          "the touch's step drawn")
    shown = renders(driver)
    filled = [r for r in shown if r["tray"]]
    assert filled, "the page never drew the tray holding the load"
    stale = [r for r in filled if EMPTY in r["problem_kinds"]]
    assert not stale, f"'{EMPTY}' beside a tray holding {stale[0]['tray']} cards, at step {stale[0]['step']}"
    assert EMPTY not in problems(driver)


def test_the_cards_are_in_with_an_empty_tray_is_answered_with_why_and_can_be_pressed_again(
        driver: Any, guides: list[Guide]) -> None:
    g, player = on_a_phone(driver, guides, ONE_ROUND)
    s = player.to(lambda s: s["step"]["kind"] == "putintray")
    number, load = s["step"]["number"], s["step"]["load"]
    assert places(g)["tray"] == 0
    for _ in range(2):  # pressed again while it is still empty: the same answer, and the button still usable
        until(driver, done_enabled, f"The cards are in at step {number}")
        driver.find_element("id", "done").click()
        until(driver, lambda d: empty_for(d) == [load] and done_enabled(d),
              f"why the cards are not taken, and The cards are in to press again at step {number}")
        assert page_state(driver)["step"]["number"] == number and places(g)["tray"] == 0
    # One line, however often it is said.
    assert problems(driver).count(EMPTY) == 1 and empty_for(driver) == [load], problems(driver)
    # Once the cards are in, the answer counts (or the shuffler has seen them itself first).
    controls = step_buttons(driver)
    assert [json.loads(b.get_attribute("data-key")) for b in controls] == [{"op": "put", "stack": load}]
    tap(driver, controls[0])
    until(driver, lambda d: places(g)["tray"] > 0 and replies_in(d), "the load in the tray")
    if page_state(driver)["step"]["number"] == number and done_enabled(driver):
        driver.find_element("id", "done").click()
    s = step_after(driver, number)
    assert s["step"]["kind"] == "touch" and EMPTY not in problems(driver)


def test_done_on_a_lift_is_refused_while_the_piles_are_on_the_machine(driver: Any, guides: list[Guide]) -> None:
    g, player = on_a_phone(driver, guides, ONE_ROUND)
    s = player.to(lambda s: s["step"]["kind"] == "lift")
    number = s["step"]["number"]
    at_start = places(g)
    assert at_start["left"] + at_start["right"] == 81, at_start

    def refused(left: int, right: int) -> None:
        """Done pressed, and refused: the piles still on the machine, as many cards as the table holds."""
        why = {"reason": "piles_on_machine", "step": str(number), "left": str(left), "right": str(right)}
        until(driver, done_enabled, f"Done at step {number}")
        driver.find_element("id", "done").click()
        until(driver, lambda d: page_state(d)["step"]["number"] != number or toast(d) == why,
              f"Done at step {number} refused: {why}")
        assert page_state(driver)["step"]["number"] == number, \
            f"Done at step {number} was taken with the piles on the machine: {places(g)}"
        until(driver, done_enabled, f"Done given back at step {number}")  # refused: it can be pressed again

    left, right = at_start["left"], at_start["right"]
    refused(left, right)
    assert places(g) == at_start
    # One pile lifted by its own control: the other one still stops it.
    controls = step_buttons(driver)
    load = s["step"]["load"]
    assert [json.loads(b.get_attribute("data-key")) for b in controls] == [
        {"op": "lift", "pile": "left", "onto": steps.left_of(load)},
        {"op": "lift", "pile": "right", "onto": steps.right_of(load)}]
    tap(driver, controls[0])
    until(driver, lambda d: places(g)["left"] == 0 and replies_in(d), "the left pile lifted")
    refused(0, right)
    tap(driver, step_buttons(driver)[1])
    until(driver, lambda d: places(g)["right"] == 0 and replies_in(d), "the right pile lifted")
    press_done(driver, number)
    assert step_after(driver, number)["step"]["number"] > number



def test_the_pass_card_never_shows_a_count_dealt_beside_empty_piles(driver: Any, guides: list[Guide]) -> None:
    # Exact mode, 52 cards: six passes of load A, each one's piles put straight back in the tray for
    # the next, then lifted off at the end.
    g, player = on_a_phone(driver, guides, EXACT_52, watch=True)
    shown: list[dict[str, Any]] = []
    lifts = 0
    while True:
        s = player.to(lambda s: s["step"]["kind"] == "lift")
        if s["finished"]:
            break
        # The piles lifted by the step's own controls, and a moment drawn before its Done.
        number = s["step"]["number"]
        do_step_by_its_controls(driver, g, s["step"])
        assert places(g)["left"] == places(g)["right"] == 0
        until(driver, lambda d: page_state(d)["table"]["places"]["left"] == 0, "the piles lifted, drawn")
        lifts += 1
        press_done(driver, number)
        player.number = number
        shown += renders(driver)
    state_when(driver, lambda s: s["summary"] is not None, "the summary")
    shown += renders(driver)
    assert lifts == 1 and any(r["pass"] and r["pass"]["active"] for r in shown)
    wrong = []
    dealing_at = set()  # the steps whose pass has begun
    for r in shown:
        step, card = r["step"], r["card"]
        if step and r["pass"] and r["pass"]["active"]:
            dealing_at.add(step["number"])
        if step and step["number"] in dealing_at and (r["said"]["say"], r["said"]["kind"]) == ("step", "touch"):
            wrong.append(f"'{r['words']}' after its pass began, beside {card}")
        if card is None:
            continue
        dealt = int(card["counts"]["dealt"])
        if dealt and (card["piles_shown"]["left"], card["piles_shown"]["right"]) == ("0", "0"):
            wrong.append(f"'{card['label']} {card['count']}' beside '{card['piles']}' at step {step}")
        if step and step["kind"] == "touch" and step["why"] == "start" and step["number"] not in dealing_at and dealt:
            wrong.append(f"'{card['label']} {card['count']}' before the pass, at step {step}")
    assert not wrong, f"{len(wrong)} moments, the first: {wrong[:3]}"
    # While a pass deals, the virtual table's own line says what the card says.
    for r in shown:
        p, card = r["pass"], r["card"]
        if p and p["active"] and card and r["machine"] is not None:
            assert r["machine"].startswith(f"tray {p['total'] - p['dealt']} · "), (r["machine"], card)


def test_each_hint_names_only_what_can_be_pressed(driver: Any, guides: list[Guide]) -> None:
    g, player = on_a_phone(driver, guides, ONE_ROUND, watch=True)
    player.to(lambda s: s["step"]["kind"] == "lift" and s["step"]["load"] == "B")
    seen = [r for r in renders(driver) if r["hint"] is not None and r["step"]]
    kinds = {r["step"]["kind"] for r in seen}
    assert {"cut", "putintray", "touch", "lift"} <= kinds, kinds
    wrong = []
    for r in seen:
        step, hint, done = r["step"], r["hint"], r["done"]
        says_done = "Done" in hint
        # Done answers only a step that waits for it; a touch or a load the shuffler sees itself.
        if says_done and (step["answer"] != "done" or done["text"] not in ("Done", "Done ✓") or done["hidden"]):
            wrong.append((step, hint, done))
        if step["kind"] == "touch" and (says_done or not done["disabled"]):
            wrong.append((step, hint, done))
        if len(r["controls"]) == 1 and "in order" in hint:
            wrong.append((step, hint, r["controls"]))
    assert not wrong, f"{len(wrong)} moments, the first: {wrong[:3]}"
    touch = next(r for r in seen if r["step"]["kind"] == "touch")
    assert touch["controls"] == ["1. Touch the sensor"] and "Done" not in touch["hint"], touch
