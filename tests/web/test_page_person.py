"""A careless person at the page, in real Chromium: double and triple
clicks on Done, the space bar with a table button focused, Do this step
twice, a second tab pressing Done too, reloads. Each rule does the step's
table work as it should be done (so the run stays a shuffle) and answers
it carelessly. Invariants, after every rule:

- no step that waits for an answer is passed without a press of its own
  (the steps the page saw, in order; the step number never goes past a
  step that waited for Done within one press);
- no table control is sent twice at one step by a page, and the table
  never loses or doubles a card;
- every number the page shows of the table is the table's at that moment.

The run ends in a whole shuffled pack. Few examples and no shrinking, so it
stays within a few minutes; every wait is on the page's state.

The server refuses a repeat of a control or of Do this step at one step
and a Done before the read time, from any tab: Do this step pressed in a
second tab after the first did the step (a second page does not know what
the first pressed) must leave the table as it was."""
from __future__ import annotations

import json
from typing import Any

import pytest

from page_support import (replies_in, LAPTOP, do_step_by_its_controls, done_enabled, press, screen, state_when, step_after,
                          table_counts, until)
from web_support import CHROMEDRIVER, CHROMIUM, Guide, browser, page_state, quit_browser

pytestmark = [pytest.mark.usefixtures("own_runtime"), pytest.mark.slow, pytest.mark.micropython,
              pytest.mark.skipif(not (CHROMIUM and CHROMEDRIVER),
                                 reason="needs Debian's chromium and chromium-driver (.ci/run installs them)")]

# The page's messages and every step it was shown, kept in the page for the test to read.
WATCH = """
if (!window.sentOps) {
  window.sentOps = []; window.seenSteps = [];
  const real = WebSocket.prototype.send;
  WebSocket.prototype.send = function (m) { window.sentOps.push(JSON.parse(m)); return real.call(this, m); };
  const shown = received;
  received = function (msg) {
    if (msg.step) { const last = window.seenSteps[window.seenSteps.length - 1];
      if (!last || last[0] !== msg.step.number) window.seenSteps.push([msg.step.number, msg.step.answer]); }
    shown(msg);
  };
  if (state && state.step) window.seenSteps.push([state.step.number, state.step.answer]);
}"""


def watch(d: Any) -> None:
    state_when(d, lambda s: s["step"] is not None and s["table"] is not None, "the first step")
    d.execute_script(WATCH)


def clicks(d: Any, name: str, n: int) -> None:
    """n clicks in a row on one button, as fast as the browser takes them; a
    button gone from the screen in between (the end) takes no more."""
    from selenium.common.exceptions import ElementNotInteractableException
    from selenium.webdriver.common.action_chains import ActionChains

    if name != "done":  # Done is pressed when it can be (when_done_can_be_pressed)
        # A person presses a button once it is on: a new step's settle for a moment first.
        until(d, lambda drv: not drv.find_element("id", name).get_attribute("disabled"), f"{name} on")
    chain = ActionChains(d)
    for _ in range(n):
        chain.click(d.find_element("id", name))
    try:
        chain.perform()
    except ElementNotInteractableException:
        pass


def when_done_can_be_pressed(d: Any, number: int) -> bool:
    """Wait until Done can be pressed at step `number`; False when the step
    went by itself (the shuffler saw the cards go in)."""
    until(d, lambda drv: done_enabled(drv) or page_state(drv)["finished"] or page_state(drv)["step"]["number"] != number,
          f"Done at step {number}")
    s = page_state(d)
    return not s["finished"] and s["step"]["number"] == number


def run_careless_person(d: Any, g: Guide, choices: list[int]) -> None:
    """One careless person, the rules chosen in turn from `choices`."""
    main = d.current_window_handle
    second: list[str] = []
    sent_keys: dict[str, set[str]] = {}

    def page_matches_table() -> None:
        # The page's numbers against the table's, at one version of the state.
        def same(drv: Any) -> Any:
            s = page_state(drv)
            if s is not None and s["finished"]:
                # The routine is over: the guide may have ended and taken its
                # server with it, so there is no later version to compare.
                return "finished"
            server = g.state()
            if s is None or s["version"] != server["version"] or server["table"] is None:
                return None
            chips = drv.execute_script("return [...document.querySelectorAll('.stack-chip')].map((b) => b.textContent);")
            machine = drv.execute_script("return document.getElementById('machine').textContent;")
            return chips, machine, server["table"]
        got = until(d, same, "the page at the table's version, or the routine's end")
        if got == "finished":
            return
        chips, machine, table = got
        if not table["stacks"] or d.execute_script("return !!state.summary;"):
            return
        assert chips == [f"{x['name']} ({x['count']})" for x in table["stacks"]]
        pl = table["places"]
        assert machine.startswith(f"tray {pl['tray']} · left pile {pl['left']} · right pile {pl['right']}")
        assert table["check"]["missing"] == 0 and table["check"]["twice"] == 0

    def once_per_step() -> None:
        for handle in [main, *second]:
            d.switch_to.window(handle)
            for m in d.execute_script("return window.sentOps || [];"):
                if m["op"] in ("done", "close"):
                    continue
                key = json.dumps(m, sort_keys=True)
                assert key not in sent_keys.setdefault(handle, set()), f"sent twice: {key}"
                sent_keys[handle].add(key)
            d.execute_script("window.sentOps = [];")
        d.switch_to.window(main)

    def no_step_skipped(before: int) -> None:
        # This rule was one press for step `before`: no later step that waited
        # for an answer may have gone by.
        seen = d.execute_script("return window.seenSteps;")
        now = page_state(d)["step"]["number"]
        assert [n for n, answer in seen if answer and before < n < now] == [], (before, now, seen)

    def settle(number: int) -> dict[str, Any]:
        """The step after `number`, once any second half of a press would have landed on it."""
        s = step_after(d, number)
        if not s["finished"] and s["step"]["answer"]:
            n = s["step"]["number"]
            until(d, lambda drv: done_enabled(drv) or page_state(drv)["step"]["number"] != n or page_state(drv)["finished"],
                  "the next step settled")
        return page_state(d)

    def work(step: dict[str, Any], how: int) -> None:
        if step["kind"] == "putintray" and step["rest"]:
            return
        if how == 0 or not step.get("controls"):
            press(d, "do-step")
            until(d, replies_in, "Do this step's answer")
        else:
            do_step_by_its_controls(d, g, step)

    for choice in choices:
        d.switch_to.window(main)
        s = page_state(d)
        if s["finished"]:
            break
        step = s["step"]
        number = step["number"]
        if step["kind"] == "touch":
            clicks(d, "touch", 2)  # a double click on the sensor: one touch (a second is refused while dealing)
            settle(number)
            continue
        if not step["answer"]:
            settle(number)
            continue
        rule = choice % 6
        if rule == 0:  # Done double-clicked
            work(step, 0)
            if when_done_can_be_pressed(d, number):
                clicks(d, "done", 2)
        elif rule == 1:  # Done triple-clicked
            work(step, 1)
            if when_done_can_be_pressed(d, number):
                clicks(d, "done", 3)
        elif rule == 2:  # space twice, with a table button focused
            from selenium.webdriver.common.action_chains import ActionChains
            from selenium.webdriver.common.keys import Keys

            work(step, 1)
            when_done_can_be_pressed(d, number)
            d.execute_script("document.getElementById('do-step').focus();")  # enabled: its work was done by the step's buttons
            ActionChains(d).send_keys(Keys.SPACE).send_keys(Keys.SPACE).perform()
        elif rule == 3:  # Do this step twice, then Done
            clicks(d, "do-step", 2)
            until(d, lambda drv: replies_in(drv) and drv.find_element("id", "do-step").get_attribute("disabled"),
                  "Do this step's answer")
            if when_done_can_be_pressed(d, number):
                clicks(d, "done", 1)
        elif rule == 4:  # a second tab presses Done as well
            work(step, 0)
            if not second:
                d.switch_to.new_window("tab")
                d.get(g.address)
                second.append(d.current_window_handle)
            d.switch_to.window(second[0])
            watch(d)
            until(d, lambda drv: page_state(drv)["step"]["number"] >= number, "the second tab at the step")
            if page_state(d)["step"]["number"] == number:
                # The second tab does not know the first did the step: only the server can refuse it.
                # The stacks on the table, not the machine's places: after a
                # touch the machine deals by itself.
                def on_table() -> dict[str, int]:
                    return {k: v for k, v in table_counts(g).items() if not k.startswith("@")}
                before = on_table()
                press(d, "do-step")
                until(d, replies_in, "the refusal")
                assert on_table() == before
            if when_done_can_be_pressed(d, number):
                clicks(d, "done", 1)
            d.switch_to.window(main)
            if page_state(d)["step"]["number"] == number and done_enabled(d):
                clicks(d, "done", 1)
        else:  # a reload part way through the step
            work(step, 1)
            d.refresh()
            watch(d)
            if when_done_can_be_pressed(d, number):
                clicks(d, "done", 1)
        settle(number)
        no_step_skipped(number)
        once_per_step()
        page_matches_table()


def finish(d: Any, g: Guide) -> dict[str, Any]:
    """Answer honestly to the end."""
    number = 0
    while True:
        s = step_after(d, number)
        if s["finished"]:
            return state_when(d, lambda s: s["summary"] is not None or s["stopped"] is not None, "the end")
        step = s["step"]
        number = step["number"]
        if step["kind"] == "touch":
            press(d, "touch")
            continue
        if step["kind"] != "putintray" or not step["rest"]:
            do_step_by_its_controls(d, g, step)
        if step["answer"] and when_done_can_be_pressed(d, number):
            clicks(d, "done", 1)


# A busy 2-core machine (CI beside another run) takes several times as long as an idle one.
@pytest.mark.timeout(1200)
def test_a_careless_person_never_answers_a_step_unseen_nor_moves_cards_twice() -> None:
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import strategies as st

    @settings(max_examples=2, deadline=None, phases=[Phase.generate], database=None,
              suppress_health_check=list(HealthCheck))
    @given(st.lists(st.integers(0, 5), min_size=30, max_size=30))
    def one_person(choices: list[int]) -> None:
        # The guide's own read time stands, as for a person: a Done that comes
        # before the step could be read does not count, from any tab.
        g = Guide("--sim", "--mode", "random", "--rounds", "2", read_s=0.8)
        d = browser(*LAPTOP)
        try:
            d.get(g.address)
            screen(d, *LAPTOP)
            watch(d)
            run_careless_person(d, g, choices)
            d.switch_to.window(d.window_handles[0])
            s = finish(d, g)
            assert s["stopped"] is None, s["stopped"]
            assert s["table"]["check"] == {"ok": True, "made": 162, "missing": 0, "twice": 0, "stray": 0}
            assert [x["name"] for x in s["table"]["stacks"]] == ["pack"]
        finally:
            quit_browser(d)
            g.kill()

    one_person()
