"""One test for each thing a person at the table met on the page, in real
Chromium against `shuffler guide --web --sim`: a double click, the space
bar after a table button, Do this step twice, the pass screen, a jam
cleared, a guide killed or stopped or started again, the end screen, a
phone's screen, the live regions, the keyboard and the contrast. Every wait
is on the page's state, never on a time budget."""
from __future__ import annotations

import json
import os
import signal
import socket
from typing import Any

import pytest

from firmware import protocol

from page_support import (INTERNAL, LAPTOP, PHONE, Player, do_step_by_its_controls, done_enabled, in_sight, marks,
                          open_page, page_text, picture_numbers, play_to, press, press_done, replies_in, screen, sent,
                          shown_problems, smallest_text_px, state_when, step_after, table_counts, until)
from web_support import CHROMEDRIVER, CHROMIUM, Guide, page_state

pytestmark = [pytest.mark.usefixtures("own_runtime"), pytest.mark.slow, pytest.mark.micropython,
              pytest.mark.skipif(not (CHROMIUM and CHROMEDRIVER),
                                 reason="needs Debian's chromium and chromium-driver (.ci/run installs them)")]

def double_click(d: Any, name: str) -> None:
    from selenium.webdriver.common.action_chains import ActionChains

    ActionChains(d).double_click(d.find_element("id", name)).perform()


# -- item 2: answers only a person gives -------------------------------------------------------

def test_a_double_click_on_done_answers_only_the_step_shown(driver: Any, guides: list[Guide]) -> None:
    g = Guide("--sim", "--mode", "random", "--rounds", "1")
    guides.append(g)
    s = open_page(driver, g)
    do_step_by_its_controls(driver, g, s["step"])  # the cut into A and B
    until(driver, done_enabled, "Done at step 1")
    double_click(driver, "done")
    s = step_after(driver, 1)
    # Step 2 (load A in the tray) is shown and, once Done could be pressed for it, still waits.
    until(driver, lambda d: done_enabled(d) or page_state(d)["step"]["number"] != 2, "Done at step 2")
    s = page_state(driver)
    assert s["step"]["number"] == 2 and not s["step"]["answered"], s["step"]
    assert [m["step"] for m in sent(driver, "done")] == [1]
    assert not any("missing" in p["text"] for p in s["problems"])


def test_the_space_bar_after_a_table_button_answers_the_step_and_never_repeats_the_button(driver: Any,
                                                                                          guides: list[Guide]) -> None:
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    g = Guide("--sim", "--mode", "random", "--rounds", "1")
    guides.append(g)
    open_page(driver, g)
    driver.find_element(By.CSS_SELECTOR, '.stack-chip[data-name="pack"]').click()
    driver.find_element("id", "onto").send_keys("A")
    driver.find_element("id", "n").send_keys("5")
    press(driver, "move")
    until(driver, lambda d: table_counts(g).get("A") == 5, "5 cards moved to A")
    until(driver, lambda d: not d.find_element("id", "move").get_attribute("disabled"), "the move button back")
    driver.execute_script("document.getElementById('move').focus();")  # where a click leaves the focus
    assert driver.execute_script("return document.activeElement.id;") == "move"
    until(driver, done_enabled, "Done at step 1")
    ActionChains(driver).send_keys(Keys.SPACE).pause(0.05).send_keys(Keys.SPACE).perform()
    step_after(driver, 1)
    until(driver, lambda d: done_enabled(d) or page_state(d)["step"]["number"] != 2, "Done at step 2")
    assert page_state(driver)["step"]["number"] == 2  # space answered step 1, once
    assert table_counts(g)["A"] == 5 and len(sent(driver, "move")) == 1
    assert [m["step"] for m in sent(driver, "done")] == [1]


def test_do_this_step_twice_does_the_step_once(driver: Any, guides: list[Guide]) -> None:
    g = Guide("--sim", "--mode", "random", "--rounds", "1")
    guides.append(g)
    open_page(driver, g)
    until(driver, lambda d: not d.find_element("id", "do-step").get_attribute("disabled"), "Do this step ready")
    double_click(driver, "do-step")
    until(driver, lambda d: table_counts(g).get("B") == 81, "the cut done")
    until(driver, replies_in, "the reply")
    assert driver.find_element("id", "do-step").get_attribute("disabled")  # done at this step
    driver.execute_script("document.getElementById('do-step').click();")
    counts = table_counts(g)
    assert counts["A"] == 81 and counts["B"] == 81 and "pack" not in counts
    assert len(sent(driver, "do_step")) == 1


# -- item 3: one fact on screen ------------------------------------------------------------------

def test_while_a_pass_deals_the_step_the_picture_and_the_progress_say_the_same(driver: Any,
                                                                                guides: list[Guide]) -> None:
    g = Guide("--sim", "--mode", "random", "--rounds", "1", "--time-scale", "0.5")
    guides.append(g)
    open_page(driver, g)
    play_to(driver, g, lambda s: s["step"]["kind"] == "touch")
    press(driver, "touch")
    for at_least in (5, 40):
        state_when(driver, lambda s: bool(s["pass"] and s["pass"]["active"] and s["pass"]["dealt"] >= at_least
                                          and s["pass"]["dealt"] < s["pass"]["total"]), f"{at_least} cards dealt")
        seen = picture_numbers(driver)
        p = seen["state"]["pass"]
        if not p["active"]:
            continue  # it ended between the two reads
        said = seen["marks"]
        # The step says what the shuffler does (not the touch that started it); the progress, the same numbers.
        assert (said["step-text"]["say"], said["step-text"]["kind"], said["step-text"]["load"]) == ("doing", "dealing", "A")
        assert (seen["left"], seen["right"]) == (str(p["left"]), str(p["right"]))
        assert seen["tray"] == f"tray {p['total'] - p['dealt']}"
        assert said["pass-piles"] == {"known": "true", "left": str(p["left"]), "right": str(p["right"])}
        assert said["pass-count"] == {"dealt": str(p["dealt"]), "total": str(p["total"])}


def test_after_a_jam_is_cleared_no_stale_problem_stays_while_it_deals(driver: Any, guides: list[Guide]) -> None:
    g = Guide("--sim", "--mode", "random", "--rounds", "1", "--time-scale", "0.5")
    guides.append(g)
    open_page(driver, g)
    s = play_to(driver, g, lambda s: s["step"]["kind"] == "touch")
    driver.execute_script("send({op: 'fault', spec: 'jam:20'});")
    until(driver, replies_in, "the jam set")
    press(driver, "touch")
    s = state_when(driver, lambda s: s["step"]["kind"] == "fix", "the jam's fix")
    def jams(d: Any) -> list[dict[str, Any]]:
        return [p for p in shown_problems(d) if p["kind"] == "PassPaused" and p["code"] == protocol.FAULT_JAM]

    assert [(p["dealt"], p["of"]) for p in jams(driver)] == [(20, 81)]  # the jam, where it stopped the pass
    # The step's own control is the one that frees the card: Clear faults.
    ops = [b.get_attribute("data-op") for b in driver.find_elements("css selector", "#step-buttons button")]
    assert "clear" in ops, ops
    do_step_by_its_controls(driver, g, s["step"])
    press_done(driver, s["step"]["number"])
    state_when(driver, lambda s: s["step"]["kind"] == "touch" and s["step"]["why"] == "go_on", "touch to go on")
    press(driver, "touch")
    state_when(driver, lambda s: bool(s["pass"] and s["pass"]["active"] and s["pass"]["dealt"] > 21), "dealing again")
    assert jams(driver) == [] and marks(driver, "step-text")["kind"] == "dealing"


@pytest.mark.timeout(900)  # a whole exact routine, on a machine that may be busy
def test_an_exact_routine_ends_on_a_screen_that_says_the_pack_is_ready(driver: Any, guides: list[Guide]) -> None:
    g = Guide("--sim", "--mode", "exact", "--cards", "52")
    guides.append(g)
    open_page(driver, g)
    player = Player(driver, g)
    s = player.to(lambda s: s["step"]["kind"] == "lift")
    # Exact mode: the device keeps the piles' counts; the progress says what the picture shows.
    seen = picture_numbers(driver)
    assert seen["marks"]["pass-piles"] == {"known": "true", "left": seen["left"], "right": seen["right"]}
    s = player.to(lambda s: False)
    s = state_when(driver, lambda s: s["summary"] is not None, "the summary")
    assert s["summary"]["mode"] == "exact" and s["table"]["check"]["ok"]
    # The state itself says how far the routine got, not "no rounds done".
    assert s["distance"]["rounds_done"] == s["summary"]["rounds"] > 0 and s["distance"]["value"] == 0
    assert marks(driver, "where") == {"mode": "exact", "rounds": str(s["summary"]["rounds"]), "verdict": "ready"}
    assert marks(driver, "step-text") == {"say": "end", "kind": "ready"}
    assert marks(driver, "summary-head") == {"verdict": "ready"}
    close = driver.find_element("id", "close")
    assert close.is_displayed() and close.size["height"] >= 48 and close.size["width"] >= 200
    assert not driver.find_element("id", "done").is_displayed()
    ghosts = driver.execute_script("return document.querySelectorAll('#table-picture g.stack.absent, "
                                   "#table-picture path.arrow').length;")
    assert ghosts == 0
    for text in INTERNAL:
        assert text not in page_text(driver)
    press(driver, "close")  # once it can be pressed: not in the end screen's first moment
    assert g.proc.wait(60) == 0



def test_a_double_click_on_the_last_done_does_not_close_the_guide(driver: Any, guides: list[Guide]) -> None:
    # Close takes Done's place at the end: a click that lands on it the moment it shows (the
    # second half of a double click on the last Done) is not taken; one after a moment is.
    g = Guide("--sim", "--mode", "random", "--rounds", "1")
    guides.append(g)
    open_page(driver, g)
    s = Player(driver, g).to(lambda s: s["step"]["kind"] == "gather")
    assert s["step"]["kind"] == "gather" and not s["finished"], s["step"]
    do_step_by_its_controls(driver, g, s["step"])
    # In the very task that shows the end screen, whatever the machine's speed: a click on Close.
    driver.execute_script("""
        const shown = received;
        received = function (msg) {
          const ended = !!(state && state.summary);
          shown(msg);
          if (msg.summary && !ended) document.getElementById('close').click();
        };""")
    press_done(driver, s["step"]["number"])
    state_when(driver, lambda s: s["summary"] is not None, "the end screen")
    until(driver, lambda d: not d.find_element("id", "close").get_attribute("disabled"), "Close ready to press")
    assert sent(driver, "close") == [] and g.proc.poll() is None and g.state()["finished"]
    driver.find_element("id", "close").click()
    assert g.proc.wait(60) == 0

# -- item 4: a guide that is gone ----------------------------------------------------------------

def test_a_killed_guide_is_a_banner_with_its_step_and_every_control_off(driver: Any, guides: list[Guide]) -> None:
    g = Guide("--sim", "--mode", "random", "--rounds", "1")
    guides.append(g)
    open_page(driver, g)
    s = play_to(driver, g, lambda s: s["step"]["number"] >= 2)
    os.killpg(g.proc.pid, signal.SIGKILL)
    until(driver, lambda d: d.find_element("id", "banner").is_displayed(), "the banner")
    banner = marks(driver, "banner")
    assert (banner["kind"], banner["step"]) == ("lost", str(s["step"]["number"]))
    enabled = driver.execute_script("return [...document.querySelectorAll('main button, main input, main select')]"
                                    ".filter((b) => !b.disabled && b.offsetParent !== null).map((b) => b.id || b.textContent);")
    assert enabled == []


def test_a_stopped_guide_shows_the_command_that_goes_on(driver: Any, guides: list[Guide]) -> None:
    g = Guide("--sim", "--mode", "random", "--rounds", "1")
    guides.append(g)
    open_page(driver, g)
    play_to(driver, g, lambda s: s["step"]["number"] >= 2)
    os.killpg(g.proc.pid, signal.SIGTERM)  # handled as Ctrl-C
    until(driver, lambda d: d.find_element("id", "banner").is_displayed(), "the banner")
    state = page_state(driver)
    stopped = state["stopped"]
    # The console's stop line (where, why, the command that goes on: test_guide_web_cli), on the banner,
    # its record beside as data (why: Ctrl-C, as SIGTERM is taken).
    banner = marks(driver, "banner")
    assert stopped and banner["stopped"] == stopped and stopped in driver.find_element("id", "banner").text
    assert json.loads(banner["stop"]) == state["stop"] and state["stop"]["reason"] == {"kind": "Interrupted"}, banner
    section = marks(driver, "stopped")  # the stop's own card: its reason's kind and the way on
    assert (section["kind"], section["way"]) == ("Interrupted", state["stop"]["way"]), section
    assert json.loads(section["record"]) == state["stop"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_a_new_run_is_announced_to_an_old_tab(driver: Any, guides: list[Guide]) -> None:
    port = free_port()
    g1 = Guide("--sim", "--mode", "random", "--rounds", "1", "--bind", f"127.0.0.1:{port}")
    guides.append(g1)
    open_page(driver, g1)
    s = play_to(driver, g1, lambda s: s["step"]["number"] >= 3)
    g1.kill()
    g2 = Guide("--sim", "--mode", "random", "--rounds", "1", "--bind", f"127.0.0.1:{port}")
    guides.append(g2)
    old = driver.current_window_handle
    driver.switch_to.new_window("tab")  # the new run's address, as a person opens it
    driver.get(g2.address)
    driver.close()
    driver.switch_to.window(old)
    until(driver, lambda d: marks(d, "banner").get("kind") == "new_run", "the new-run banner")
    assert marks(driver, "banner")["step"] == str(s["step"]["number"])
    assert driver.find_element("id", "done").get_attribute("disabled")


# -- items 7 and 8: a phone, live regions, the keyboard, contrast ---------------------------------

def test_on_a_phone_the_step_and_done_are_in_sight_together_and_no_text_is_under_14_px(driver: Any,
                                                                                         guides: list[Guide]) -> None:
    g = Guide("--sim", "--mode", "random", "--rounds", "1")
    guides.append(g)
    open_page(driver, g, PHONE)
    player = Player(driver, g)
    where_b = []
    for target in ("cut", "lift"):
        player.to(lambda s: s["step"]["kind"] == target)
        screen(driver, *PHONE)
        # Load B lies on the table from the split to its own pass: it keeps its place in the picture.
        where_b.append(driver.execute_script("return document.querySelector('#table-picture g.stack[data-name=\"B\"] rect')"
                                             ".getAttribute('x');"))
        for where in ("0", "document.documentElement.scrollHeight"):
            driver.execute_script(f"window.scrollTo(0, {where});")
            assert in_sight(driver, "step-text") and in_sight(driver, "done"), (target, where)
        small = smallest_text_px(driver)
        assert small["px"] >= 14, small
        assert driver.execute_script("return document.documentElement.scrollWidth <= innerWidth;")
    assert where_b[0] == where_b[1]
    screen(driver, *LAPTOP)


def test_live_regions_say_the_step_and_the_problems(driver: Any, guides: list[Guide]) -> None:
    g = Guide("--sim", "--mode", "random", "--rounds", "1")
    guides.append(g)
    open_page(driver, g)
    text = driver.find_element("id", "step-text")
    assert text.get_attribute("aria-live") == "polite"
    assert driver.find_element("id", "problem-list").get_attribute("aria-live") == "assertive"
    s = play_to(driver, g, lambda s: s["step"]["number"] >= 2)
    assert text.text == s["step"]["words"]
    # The picture's words are the step's data: its number, its words, the counts it shows.
    alt = driver.find_element("id", "table-picture").get_attribute("aria-label")
    assert alt.startswith(f"Step {s['step']['number']}: {s['step']['words']}") and "A 81" in alt


def test_a_stack_chosen_with_the_keyboard_keeps_the_focus_and_is_pressed(driver: Any, guides: list[Guide]) -> None:
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    g = Guide("--sim", "--mode", "random", "--rounds", "1")
    guides.append(g)
    open_page(driver, g)
    driver.execute_script("document.querySelector('.stack-chip[data-name=\"pack\"]').focus();")
    ActionChains(driver).send_keys(Keys.ENTER).perform()
    until(driver, lambda d: d.execute_script("return chosen;") == "pack", "pack chosen")
    before = page_state(driver)["version"]
    driver.execute_script("send({op: 'move', n: 3, from: 'pack', to: 'X'});")  # the table changes: a new state
    state_when(driver, lambda s: s["version"] > before and any(x["name"] == "X" for x in s["table"]["stacks"]),
               "the table with X")
    focused = driver.execute_script("const e = document.activeElement;"
                                    "return [e.dataset.name, e.getAttribute('aria-pressed')];")
    assert focused == ["pack", "true"]
    others = driver.execute_script("return [...document.querySelectorAll('.stack-chip')]"
                                   ".filter((b) => b.dataset.name !== 'pack').map((b) => b.getAttribute('aria-pressed'));")
    assert others == ["false"]


CONTRAST = """
const lin = (c) => { c /= 255; return c <= 0.03928 ? c / 12.92 : Math.pow((c + 0.055) / 1.055, 2.4); };
const rgb = (s) => (s.match(/[\\d.]+/g) || []).map(Number);
const lum = ([r, g, b]) => 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
const ratio = (a, b) => { const x = lum(a), y = lum(b); return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05); };
const back = (e) => { for (; e; e = e.parentElement) { const c = rgb(getComputedStyle(e).backgroundColor);
                      if (c.length === 3 || (c.length === 4 && c[3] > 0.9)) return c.slice(0, 3); } return [255, 255, 255]; };
// Picture texts stand on what the picture draws under them.
const svgBack = {label: [47, 107, 63], count: [255, 255, 255], 'machine-label': [216, 210, 194], 'badge-text': [255, 207, 51]};
const out = [];
const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
for (let n = walker.nextNode(); n; n = walker.nextNode()) {
  const e = n.parentElement;
  if (!n.textContent.trim() || !e || e.closest('[hidden]') || !e.getClientRects().length) continue;
  let fg, bg;
  if (e instanceof SVGElement) { fg = rgb(getComputedStyle(e).fill); bg = svgBack[e.getAttribute('class')]; if (!bg) continue; }
  else { fg = rgb(getComputedStyle(e).color); bg = back(e); }
  const r = ratio(fg, bg);
  if (r < 4.5) out.push([n.textContent.trim().slice(0, 30), r.toFixed(2)]);
}
return out;"""


def test_every_text_on_the_page_has_a_contrast_of_at_least_4_5(driver: Any, guides: list[Guide]) -> None:
    g = Guide("--sim", "--mode", "random", "--rounds", "1")
    guides.append(g)
    open_page(driver, g)
    player = Player(driver, g)
    for target in ("cut", "lift", "stack"):
        player.to(lambda s: s["step"]["kind"] == target)
        assert driver.execute_script(CONTRAST) == [], target


def test_a_done_the_guide_found_too_soon_can_be_pressed_again(driver: Any, guides: list[Guide]) -> None:
    # The guide's read time (3 s) is longer than the page's own hold (0.7 s):
    # a Done pressed as soon as the page allows comes too soon for the guide,
    # which gives the step back; the page must let Done be pressed again.
    g = Guide("--sim", "--mode", "random", "--rounds", "1", read_s=3.0)
    guides.append(g)
    s = open_page(driver, g)
    do_step_by_its_controls(driver, g, s["step"])
    until(driver, done_enabled, "Done at step 1")
    driver.find_element("id", "done").click()
    # Too soon for the guide: its notice in the log, or the server's refusal on the page.
    until(driver, lambda d: page_state(d)["step"]["number"] > 1
          or (done_enabled(d) and any(x.get("kind") == "TooSoon" for x in page_state(d)["log"])
              or marks(d, "toast").get("reason") == "too_soon"),
          "step 1 taken, or given back as too soon with Done to press again")
    if page_state(driver)["step"]["number"] == 1:
        # Pressed again once the step has been on the page for the guide's read time.
        until(driver, lambda d: d.execute_script("return performance.now() - pressed.shownAt >= 3200;") and done_enabled(d),
              "Done after the read time")
        driver.find_element("id", "done").click()
    assert step_after(driver, 1)["step"]["number"] == 2
