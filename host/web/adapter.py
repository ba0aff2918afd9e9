"""The guide engine's Voice and Person for the page.

Nothing here decides anything about the shuffle: the engine (host/guide.py)
says and asks exactly what it says and asks on the console, and these two
turn it into the page's state (host/web/page_state.py). The current step is
`steps.to_dict` of the step itself, so the page draws from the same data the
console words come from.
"""
from __future__ import annotations

import functools
import re
from typing import Any, Callable

from host import guide as G
from host import person as persons
from host import plan as planlib
from host.web.page_state import LOG_LINES, PageState
from simulator.shuffling import steps as S

_MARKUP = re.compile(r"\[/?[a-z ]+\]")

# Steps that start a new stage of the work: a problem said before them is over.
_NEW_STAGE = (S.Lift, S.Cut, S.Draw, S.Gather)


def plain(text: str) -> str:
    """The console's rich markup taken out."""
    return _MARKUP.sub("", text)


@functools.lru_cache(maxsize=64)
def _distance(cards: int, capacity: int, rounds: int) -> float:
    return planlib.distance_after(cards, capacity, rounds)


class WebVoice(G.Voice):
    """What the guide says goes into the page's log; problems are kept
    apart until the stage they belong to is over; the pass bar is the
    state's live pass. `also` (the console's voice) hears everything too."""

    def __init__(self, page: PageState, also: G.Voice | None = None) -> None:
        self.page = page
        self.also = also
        self.guide: G.Guide | None = None

    def attach(self, guide: G.Guide) -> None:
        self.guide = guide

    def _log(self, line: str, problem: bool = False) -> None:
        def add(state: dict[str, Any]) -> None:
            state["log"] = (state["log"] + [{"text": line, "problem": problem}])[-LOG_LINES:]
            if problem:
                number = state["step"]["number"] if state["step"] else 0
                state["problems"] = state["problems"] + [{"text": line, "after_step": number}]
            state.update(where(self.guide))
        self.page.edit(add)

    def say(self, text: str) -> None:
        if self.also is not None:
            self.also.say(text)
        line = plain(text).strip()
        if line:
            self._log(line)

    def problem(self, text: str) -> None:
        if self.also is not None:
            self.also.problem(text)
        self._log(plain(text).strip(), problem=True)

    def bar_start(self, label: str, total: int, done: int = 0, left: int | None = 0,
                  right: int | None = 0) -> None:
        if self.also is not None:
            self.also.bar_start(label, total, done, left, right)
        # A new pass: the problems of the one before are over.
        self.page.update(**{"pass": {"label": label, "dealt": done, "total": total, "left": left, "right": right,
                                     "active": True}, "problems": []}, **where(self.guide))

    def bar_update(self, done: int, total: int, left: int | None, right: int | None) -> None:
        if self.also is not None:
            self.also.bar_update(done, total, left, right)
        old = self.page.get("pass") or {"label": ""}
        self.page.update(**{"pass": {**old, "dealt": done, "total": total, "left": left, "right": right,
                                     "active": True}})

    def bar_end(self) -> None:
        if self.also is not None:
            self.also.bar_end()
        old = self.page.get("pass")
        if old is not None and old.get("active"):
            self.page.update(**{"pass": {**old, "active": False}})


def where(guide: G.Guide | None) -> dict[str, Any]:
    """Round and pass out of how many, and the distance from random so far."""
    if guide is None:
        return {}
    p = guide.plan
    place = guide.place
    out: dict[str, Any] = {"mode": guide.mode}
    if place is not None:
        out["place"] = {"round": place.round, "of_rounds": place.of_rounds, "load": place.load,
                        "pass": place.pass_number, "of_passes": place.of_passes}
        done = place.round - 1
    else:
        out["place"] = None
        done = p.rounds if guide.round is not None and guide.round >= p.rounds else 0
    if guide.mode == "exact":
        # Exact mode is exactly random once its last round is done and not
        # before; the page says which round that is instead of a figure.
        out["distance"] = {"rounds_done": done, "value": None, "kind": "exact mode"}
    else:
        out["distance"] = {"rounds_done": done, "value": _distance(p.cards, p.capacity, done) if done else 1.0,
                           "kind": "exact"}
    return out


class WebPerson:
    """A person reading the page: table work waits for the page's "done"
    (the button or the space bar); the steps the device sees for itself
    (loading, touching) return at once, and "done" on a load says the cards
    are in. With `manual` (no device) every step waits.

    `inner` is someone who does the step as well (the scripted person, for
    a page that only watches); then nothing waits for the page."""

    def __init__(self, page: PageState, voice: WebVoice, manual: bool, wait_s: float,
                 inner: persons.Person | None = None,
                 after_step: Callable[[], None] | None = None) -> None:
        self.page = page
        self.voice = voice
        self.manual = manual
        self.wait_s = wait_s
        self.inner = inner
        self.unattended = inner is not None and inner.unattended
        self.after_step = after_step  # e.g. look at the virtual table again

    def _answer_kind(self, step: S.Step) -> str | None:
        if self.inner is not None:
            return None
        if isinstance(step, S.MACHINE_SEES) and not self.manual:
            # The device sees the touch; the cards being in may be said.
            return "ready" if isinstance(step, S.PutInTray) else None
        return "done"

    def do(self, step: S.Step, number: int, round: int | None = None) -> None:
        answer = self._answer_kind(step)
        shown = {**S.to_dict(step), "number": number, "round": round, "answer": answer, "answered": False}

        def show(state: dict[str, Any]) -> None:
            state["step"] = shown
            state["log"] = (state["log"] + [{"text": f"{number}. {shown['words']}", "problem": False}])[-LOG_LINES:]
            if isinstance(step, _NEW_STAGE):
                state["problems"] = []
            bar = state["pass"]
            if (isinstance(step, S.Lift) and step.left is not None and step.right is not None and bar is not None
                    and bar.get("label") == f"load {step.load}"):
                # The device's own count at the end of the pass (progress may stop short of it).
                state["pass"] = {**bar, "dealt": step.left + step.right, "left": step.left, "right": step.right,
                                 "active": False}
            state.update(where(self.voice.guide))
        self.page.edit(show)
        self._after()  # the table as it is when the step is shown (a pass may just have ended)
        if self.voice.also is not None:
            self.voice.also.say(f"[bold]{number}.[/bold] {S.words(step)}")
        if self.inner is not None:
            self.inner.do(step, number, round)
            self._after()
            return
        if answer != "done":
            return
        if not self.page.wait_answer(number, self.wait_s):
            if self.page.closed is not None:
                raise persons.PersonGaveUp(self.page.closed)
            raise persons.PersonGaveUp(f"nobody pressed done on the page within {self.wait_s:g} s")
        self._after()

    def _after(self) -> None:
        if self.after_step is not None:
            self.after_step()

    def ready(self, timeout: float) -> bool:
        """The page said the cards of the load shown now are in the tray."""
        if self.inner is not None:
            return self.inner.ready(timeout)
        number = self.page.current_number()
        if self.page.is_answered(number):
            return True
        if timeout <= 0:
            return False
        return self.page.wait_answer(number, timeout)
