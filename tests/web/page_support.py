"""Helpers for the page's browser tests that play it as a person would:
a phone's screen, waits on the page's own state (never on a time budget
tuned to a fast machine), the step's own controls, and measures of what
is on the screen (text sizes, what is in sight)."""
from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

from web_support import Guide, page_state

PHONE = (390, 844)
LAPTOP = (1280, 900)
# Long enough for a pass on a busy 2-core machine; the waits end as soon as
# their condition holds, so a fast machine never waits this long. Below the
# suite's 300 s limit on a test, so that a wait that fails says what never
# came (and what the page showed) before the test is cut off.
PATIENCE = float(os.environ.get("PAGE_TEST_PATIENCE", "240"))
# Where the screenshots go: docs/img when asked for (SHUFFLER_DOCS_SHOTS=1:
# the pictures docs/web.md shows, made anew), else a folder of this run's
# own, so a test run leaves the checkout as it found it.
SHOTS = (Path(__file__).resolve().parents[2] / "docs" / "img" if os.environ.get("SHUFFLER_DOCS_SHOTS")
         else Path(tempfile.mkdtemp(prefix="shuffler-shots-")))


def screen(d: Any, width: int, height: int) -> None:
    """The page's viewport exactly width x height CSS pixels (a headless
    window cannot be narrower than 500 px; the device metrics can)."""
    d.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                      {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 600})
    d.execute_async_script("const done = arguments[0]; requestAnimationFrame(() => requestAnimationFrame(() => "
                           "{ if (state) render(); done(); }));")


def until(d: Any, ok: Callable[[Any], Any], what: str, timeout: float = PATIENCE) -> Any:
    """WebDriverWait on a condition of the page; its value."""
    from selenium.webdriver.support.ui import WebDriverWait

    try:
        return WebDriverWait(d, timeout, poll_frequency=0.05).until(lambda drv: ok(drv))
    except Exception as exc:  # noqa: BLE001 - one message that says what never came
        s = page_state(d)
        raise AssertionError(f"the page never showed {what}: {str(s)[:1500]}") from exc


def state_when(d: Any, ok: Callable[[dict[str, Any]], bool], what: str, timeout: float = PATIENCE) -> dict[str, Any]:
    return until(d, lambda drv: (lambda s: s if s is not None and ok(s) else None)(page_state(drv)), what, timeout)


def step_after(d: Any, number: int) -> dict[str, Any]:
    return state_when(d, lambda s: s["finished"] or bool(s["step"] and s["step"]["number"] > number),
                      f"a step after {number}")


def done_enabled(d: Any) -> bool:
    return bool(d.execute_script("const b = document.getElementById('done'); return !b.hidden && !b.disabled;"))


def press_done(d: Any, number: int) -> None:
    """Done for step `number`, as a person presses it: once it can be pressed
    (a new step cannot be answered at once: the page holds Done back for a
    moment, and while the guide is silent), and again when the page did not
    take the press (on a busy machine Done can go off just as it is
    pressed) or the guide gave it back."""
    def moved(drv: Any) -> bool:
        s = page_state(drv)
        return bool(s["finished"] or not s["step"] or s["step"]["number"] != number or s["step"]["answered"])

    def taken(drv: Any) -> bool:  # the page's own mark of a Done sent at this step
        return bool(drv.execute_script("return pressed.step === arguments[0] && pressed.keys.has('done');", number))

    while True:
        until(d, lambda drv: moved(drv) or done_enabled(drv), f"Done at step {number}")
        if moved(d):
            return
        d.find_element("id", "done").click()
        if taken(d):
            until(d, lambda drv: moved(drv) or not taken(drv), f"the guide's answer to Done at step {number}")


# Words of the code that a person must never read on the page.
INTERNAL = ("PUTINTRAY", "UNLOAD", "SETASIDE", "EVENOUT", "press Enter", "Enter when")


def open_page(d: Any, g: Guide, size: tuple[int, int] = LAPTOP) -> dict[str, Any]:
    d.get(g.address)
    screen(d, *size)
    # Every message the page sends, kept for the test to count.
    d.execute_script("window.sentOps = []; const real = WebSocket.prototype.send;"
                     "WebSocket.prototype.send = function (m) { window.sentOps.push(JSON.parse(m)); return real.call(this, m); };")
    def first_step(s: dict[str, Any]) -> bool:
        if g.proc.poll() is not None:  # a guide that ended shows no step: say why at once
            raise AssertionError(f"the guide ended ({g.proc.returncode}) before its first step:\n"
                                 f"{g.stdout()[-2000:]}\n{g.stderr()[-2000:]}")
        return s["step"] is not None and s["table"] is not None
    return state_when(d, first_step, "the first step")


def sent(d: Any, op: str) -> list[dict[str, Any]]:
    return [m for m in d.execute_script("return window.sentOps;") if m["op"] == op]


class Player:
    """Does each step with its own controls and Done; `to(ok)` stops at the
    first state where ok(state) holds, that step not yet done, so the next
    call starts there."""

    def __init__(self, d: Any, g: Guide) -> None:
        self.d, self.g, self.number = d, g, 0

    def to(self, ok: Any) -> dict[str, Any]:
        d = self.d
        while True:
            s = step_after(d, self.number)
            if s["finished"] or ok(s):
                return s
            step = s["step"]
            self.number = step["number"]
            for text in INTERNAL:
                assert text not in page_text(d), (text, step)
            if step["kind"] == "touch":
                press(d, "touch")
                continue
            if step["kind"] != "putintray" or not step["rest"]:
                do_step_by_its_controls(d, self.g, step)
            if step["answer"]:
                press_done(d, self.number)


def play_to(d: Any, g: Guide, ok: Any) -> dict[str, Any]:
    return Player(d, g).to(ok)


# What a person sees after each time the page draws itself, kept in the page:
# every moment, not only those a test happens to look at.
RECORD_RENDERS = """
if (!window.renders) {
  window.renders = [];
  const drawn = render;
  render = function () {
    drawn();
    const s = state;
    if (!s) return;
    const e = (id) => document.getElementById(id);
    const seen = (id) => !e(id).closest('[hidden]');
    const st = s.step;
    window.renders.push({
      version: s.version,
      step: st ? {number: st.number, kind: st.kind, why: st.why || null, answer: st.answer, answered: st.answered} : null,
      words: e('step-text').textContent, said: Object.assign({}, e('step-text').dataset),
      pass: s.pass, tray: s.table ? s.table.places.tray : null,
      problems: seen('problems') ? e('problem-list').textContent : '',
      problem_kinds: seen('problems') ? [...document.querySelectorAll('#problem-list .problem')].map((p) => p.dataset.kind || null) : [],
      card: seen('pass') ? {label: e('pass-label').textContent, count: e('pass-count').textContent,
                            piles: e('pass-piles').textContent, counts: Object.assign({}, e('pass-count').dataset),
                            piles_shown: Object.assign({}, e('pass-piles').dataset)} : null,
      machine: seen('vtable') ? e('machine').textContent : null,
      hint: seen('step-controls') ? e('step-controls-hint').textContent : null,
      controls: seen('step-controls') ? [...document.querySelectorAll('#step-buttons button')].map((b) => b.textContent) : [],
      done: {text: e('done').textContent, disabled: e('done').disabled, hidden: e('done').hidden},
      // Buttons a press would reach while a new step is still settling (its first 0.7 s on screen).
      early: performance.now() - pressed.shownAt < 680 ? [...document.querySelectorAll('main button')]
        .filter((b) => !b.disabled && b.offsetParent !== null && !['done', 'close'].includes(b.id)
                && !b.classList.contains('stack-chip')).map((b) => b.id || b.textContent) : [],
    });
  };
}"""


def record_renders(d: Any) -> None:
    """From now on the page keeps what it showed each time it drew itself (see `renders`)."""
    d.execute_script(RECORD_RENDERS)


def renders(d: Any) -> list[dict[str, Any]]:
    """What the page showed each time it drew itself since the last call."""
    return list(d.execute_script("const r = window.renders || []; window.renders = []; return r;"))


def table_counts(g: Guide) -> dict[str, int]:
    """The virtual table's stacks and the machine's places, as the table itself has them now."""
    t = g.state()["table"]
    return {**{s["name"]: s["count"] for s in t["stacks"]}, **{"@" + k: v for k, v in t["places"].items()}}


def step_buttons(d: Any) -> list[Any]:
    from selenium.webdriver.common.by import By

    return d.find_elements(By.CSS_SELECTOR, "#step-buttons button")


def do_step_by_its_controls(d: Any, g: Guide, step: dict[str, Any]) -> None:
    """Press the step's own buttons in order (each once, waiting for the
    table to change); a step with a part only "Do this step for me" can
    do is done by it."""
    controls = step.get("controls") or []
    if not controls or any(c["msg"] is None for c in controls):
        before = g.state()["version"]
        press(d, "do-step")
        # The table looked at again after the step (a newer state), and no reply still to come.
        until(d, lambda drv: replies_in(drv) and page_state(drv)["version"] > before, "the table's answer to Do this step")
        return
    for i in range(len(controls)):
        until(d, lambda drv: drv.execute_script(f"const b = document.querySelectorAll('#step-buttons button')[{i}];"
                                                "return b && !b.disabled;"), f"step button {i + 1}")
        tap(d, step_buttons(d)[i])
        until(d, lambda drv: drv.execute_script(f"const b = document.querySelectorAll('#step-buttons button')[{i}];"
                                                "return b && b.disabled;") and replies_in(drv), f"step button {i + 1} done")


def tap(d: Any, element: Any) -> None:
    """Click an element as a person does on a phone: scrolled to the middle of
    the screen first, clear of the step's bar fixed at the bottom."""
    d.execute_script("arguments[0].scrollIntoView({block: 'center', inline: 'nearest'});", element)
    # A new step's buttons settle a moment (off) before they take a press.
    until(d, lambda drv: not element.get_attribute("disabled"), "the control ready to press")
    element.click()


def replies_in(d: Any) -> bool:
    """Every message the page sent has its reply (a page without the count: taken as so)."""
    return bool(d.execute_script("return typeof busy === 'undefined' || busy === 0;"))


def press(d: Any, name: str) -> None:
    from selenium.common.exceptions import StaleElementReferenceException

    for _ in range(50):
        try:
            until(d, lambda drv: not drv.find_element("id", name).get_attribute("disabled"), f"{name} enabled")
            tap(d, d.find_element("id", name))
            return
        except StaleElementReferenceException:  # the page redrew it
            time.sleep(0.05)
    raise AssertionError(f"could not press {name}")


def smallest_text_px(d: Any) -> dict[str, Any]:
    """The smallest text on the screen in CSS pixels, with where it is:
    every visible HTML text by its computed font size, every picture text
    by its font size times the picture's scale (getScreenCTM)."""
    return d.execute_script("""
        let best = {px: 1e9, where: ''};
        const seen = (e) => { const r = e.getBoundingClientRect(); return r.width > 0 && r.height > 0 &&
                              getComputedStyle(e).visibility !== 'hidden'; };
        const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
        for (let n = walker.nextNode(); n; n = walker.nextNode()) {
          if (!n.textContent.trim()) continue;
          const e = n.parentElement;
          if (!e || !seen(e) || e.closest('[hidden]')) continue;
          let px = parseFloat(getComputedStyle(e).fontSize);
          if (e instanceof SVGElement) { const m = e.getScreenCTM(); px = px * (m ? m.a : 1); }
          if (px < best.px) best = {px: px, where: (e.id || e.className.baseVal || e.className || e.tagName) + ': ' + n.textContent.trim().slice(0, 40)};
        }
        return best;""")


def in_sight(d: Any, element_id: str) -> bool:
    """The element wholly inside the viewport as it is scrolled now."""
    return bool(d.execute_script("""
        const e = document.getElementById(arguments[0]); if (!e || e.hidden) return false;
        const r = e.getBoundingClientRect();
        return r.height > 0 && r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight && r.right <= innerWidth;""",
                                 element_id))


def picture_numbers(d: Any) -> dict[str, Any]:
    """What the picture says of the machine and what the progress card says, read at one moment."""
    return d.execute_script("""
        const svg = document.getElementById('table-picture');
        const count = (side) => { const t = svg.querySelector(`text[data-count="${side}"]`); return t ? t.textContent : null; };
        const tray = svg.querySelector('text[data-count="tray"]');
        return {state: state, left: count('left'), right: count('right'), tray: tray ? tray.textContent : null,
                piles: document.getElementById('pass-piles').textContent,
                count: document.getElementById('pass-count').textContent,
                step: document.getElementById('step-text').textContent,
                marks: Object.fromEntries(['pass-piles', 'pass-count', 'pass-label', 'step-text'].map(
                  (id) => [id, Object.assign({}, document.getElementById(id).dataset)]))};""")


def marks(d: Any, element_id: str) -> dict[str, str]:
    """The record an element shows (its data-* attributes, by their names in camelCase)."""
    return dict(d.execute_script("return Object.assign({}, document.getElementById(arguments[0]).dataset);",
                                 element_id))


def shown_problems(d: Any) -> list[dict[str, Any]]:
    """The records of the problems on screen (none while the problems are hidden)."""
    return list(d.execute_script(
        "return document.getElementById('problems').hidden ? [] : [...document.querySelectorAll('#problem-list "
        ".problem')].map((p) => p.dataset.record ? JSON.parse(p.dataset.record) : {kind: null});"))


def summary_rows(d: Any) -> list[dict[str, str]]:
    """The records of the end screen's summary rows and marked cards, as shown."""
    return list(d.execute_script(
        "return document.getElementById('summary').hidden ? [] : [...document.querySelectorAll('#summary-list dd, "
        "#marked .marked-card')].map((e) => Object.assign({}, e.dataset));"))


def page_text(d: Any) -> str:
    return str(d.execute_script("return document.body.innerText + ' ' + "
                                "document.getElementById('table-picture').getAttribute('aria-label');"))


def overlapping_picture_texts(d: Any) -> list[str]:
    """Pairs of picture texts whose boxes overlap on the screen."""
    return list(d.execute_script("""
        const ts = [...document.querySelectorAll('#table-picture text')].filter((t) => t.textContent.trim());
        const rs = ts.map((t) => t.getBoundingClientRect());
        const out = [];
        for (let i = 0; i < ts.length; i++) for (let j = i + 1; j < ts.length; j++) {
          const a = rs[i], b = rs[j];
          if (a.left < b.right - 1 && b.left < a.right - 1 && a.top < b.bottom - 1 && b.top < a.bottom - 1)
            out.push(ts[i].textContent + ' / ' + ts[j].textContent);
        }
        return out;"""))


# A finger's width (WCAG 2.5.5, and the platforms' own guides): every control on a phone at least this.
FINGER_PX = 44
# What a person can press or tap on the page: controls, labels (a tap on one focuses its
# field) and anything the page gave a click handler of its own.
CLICKABLE = "button, input, select, textarea, a[href], label, summary, [role='button'], [onclick]"


def small_targets(d: Any, least: float = FINGER_PX) -> list[str]:
    """Every visible clickable thing less than `least` CSS pixels tall or wide,
    with its size: [] when none."""
    return list(d.execute_script("""
        const least = arguments[0], sel = arguments[1];
        const all = new Set(document.querySelectorAll(sel));
        for (const e of document.querySelectorAll('body *')) if (typeof e.onclick === 'function') all.add(e);
        const out = [];
        for (const e of all) {
          const r = e.getBoundingClientRect();
          if (r.width === 0 || r.height === 0 || getComputedStyle(e).visibility === 'hidden') continue;
          if (r.width < least || r.height < least) {
            const name = (e.id ? '#' + e.id : e.tagName.toLowerCase() + (e.className ? '.' + e.className : '')) +
                         ' "' + (e.textContent || e.value || '').trim().slice(0, 30) + '"';
            out.push(`${name} ${Math.round(r.width * 10) / 10}x${Math.round(r.height * 10) / 10}`);
          }
        }
        return out;""", least, CLICKABLE))


# axe-core, pinned in tests/web/package.json (.ci/run installs it with npm ci).
AXE = Path(__file__).resolve().parent / "node_modules" / "axe-core" / "axe.min.js"


def axe_faults(d: Any, impacts: tuple[str, ...] = ("serious", "critical")) -> list[str]:
    """What axe-core finds on the page as it is now, of those impacts: one line a
    rule, with the first few elements it found and why; [] when nothing."""
    if not d.execute_script("return typeof window.axe === 'object';"):
        # The driver's script is not the page's: the page's CSP (script-src 'self') does not apply.
        d.execute_script(AXE.read_text())
    d.set_script_timeout(PATIENCE)
    found = d.execute_async_script("""
        const done = arguments[arguments.length - 1], impacts = arguments[0];
        axe.run(document, {resultTypes: ['violations']}).then(
          (r) => done(r.violations.filter((v) => impacts.includes(v.impact)).map((v) =>
            `${v.id} (${v.impact}): ${v.help}: ` +
            v.nodes.slice(0, 3).map((n) => n.target.join(' ') + ' - ' + (n.failureSummary || '').replace(/\\s+/g, ' ')).join('; '))),
          (e) => done(['axe-core failed: ' + e]));""", list(impacts))
    return list(found)


# The moments of a whole routine a walk stops at, by the step kind that first shows each.
MOMENTS = {"cut": "split", "putintray": "load", "touch": "touch", "lift": "lift", "stack": "stack",
           "gather": "stack", "fix": "jam"}


def walk_a_routine(d: Any, g: Guide, at: Callable[[str], None]) -> dict[str, Any]:
    """Play the guide's routine on the page by its controls, as a person
    would, calling at(moment) the first time each moment is on screen: the
    first step of each kind (MOMENTS), a jam made part way through the
    first pass ("jam", its fix step), the pass dealing again after it
    ("dealing"). Returns the page's state at the summary."""
    d.get(g.address)
    seen: set[str] = set()

    def first(moment: str) -> None:
        if moment not in seen:
            seen.add(moment)
            at(moment)

    number = 0
    while True:
        s = step_after(d, number)
        if s["finished"]:
            break
        step = s["step"]
        number = step["number"]
        if step["kind"] in MOMENTS:
            first(MOMENTS[step["kind"]])
        if step["kind"] == "touch":
            if "jam" not in seen:
                # A jam part way through the first pass: the fault's own screen.
                d.execute_script("send({op: 'fault', spec: 'jam:30'});")
                state_when(d, lambda s: s["table"] is not None, "the table")
            press(d, "touch")
            if "dealing" not in seen and step["why"] == "go_on":
                state_when(d, lambda s: bool(s["pass"] and s["pass"]["active"] and s["pass"]["dealt"] > 32),
                           "the pass dealing again after the jam")
                first("dealing")
            continue
        if step["kind"] != "putintray" or not step["rest"]:
            do_step_by_its_controls(d, g, step)
        if step["answer"]:
            press_done(d, number)
    missing = {"split", "load", "touch", "jam", "dealing", "lift", "stack"} - seen
    assert not missing, f"the walk never showed {sorted(missing)}"
    return state_when(d, lambda s: s["summary"] is not None, "the summary")


# -- presses at points of the screen, as a person presses -----------------------------------------

def point_of(d: Any, element_id: str) -> tuple[int, int]:
    """The middle of an element on the screen now (viewport CSS pixels), scrolled into sight first."""
    return tuple(d.execute_script(
        "const e = document.getElementById(arguments[0]); e.scrollIntoView({block: 'nearest'});"
        "const r = e.getBoundingClientRect(); return [Math.round(r.left + r.width / 2), Math.round(r.top + r.height / 2)];",
        element_id))


def press_at(d: Any, point: tuple[int, int], times: int = 1, apart_s: float = 0.2, finger: bool = False) -> None:
    """Press the screen at `point` `times` times, `apart_s` apart, with a mouse
    (or a finger): whatever is under it at each press takes it, as when a
    person presses twice without looking again."""
    from selenium.webdriver.common.actions import interaction
    from selenium.webdriver.common.actions.action_builder import ActionBuilder
    from selenium.webdriver.common.actions.pointer_input import PointerInput

    kind = interaction.POINTER_TOUCH if finger else interaction.POINTER_MOUSE
    actions = ActionBuilder(d, mouse=PointerInput(kind, "finger" if finger else "mouse"))
    pointer = actions.pointer_action
    pointer.move_to_location(*point)
    for i in range(times):
        if i:
            pointer.pause(apart_s)
        pointer.pointer_down().pointer_up()
    actions.perform()


def banner_text(d: Any) -> str:
    return str(d.execute_script("const b = document.getElementById('banner'); return b.hidden ? '' : b.innerText;"))
