"""The guide engine's Voice and Person for the page.

Nothing here decides anything about the shuffle: the engine (host/guide/)
says and asks exactly what it says and asks on the console, and these two
turn it into the page's state (host/web/page_state.py). The current step is
`steps.to_dict` of the step itself, so the page draws from the same data the
console words come from.
"""
from __future__ import annotations

import dataclasses
import functools
from typing import Any, Callable

from host import guide as guide_machine
from host import person as persons
from host import plan as planlib
from host.guide import notices
from host.web.page_state import LOG_LINES, PageState, put_table
from shuffling import steps


# Steps that start a new stage of the work: a problem said before them is over.
_NEW_STAGE = (steps.Lift, steps.Cut, steps.Draw, steps.Gather)

# Problems whose cause ends before their stage does. "tray": the tray read
# empty; it goes once the tray holds cards (the virtual table shows it) or
# the step it was said at is over. "judged": a load of the wrong size; it
# goes once the load is judged right, which is when its touch is shown.
_UNTIL: dict[type, str] = {notices.TrayStillEmpty: "tray", notices.EmptyTouch: "tray",
                           notices.LoadToMove: "judged", notices.LoadShort: "judged", notices.LoadLong: "judged"}


def _begins_a_pass(step: steps.Step) -> bool:
    """A step that comes before a pass none of whose cards is dealt yet: the
    pass card of the one before is history (its piles are lifted, or go back
    in the tray)."""
    if isinstance(step, steps.PutInTray):
        return not step.rest and step.load != steps.ASIDE
    return isinstance(step, steps.Touch) and step.why == "start"


@functools.lru_cache(maxsize=64)
def _distance(cards: int, capacity: int, rounds: int) -> float:
    return planlib.distance_after(cards, capacity, rounds)


class WebVoice(guide_machine.Voice):
    """What the guide shows goes into the page's state: the step as data,
    notices into the log (problems kept apart until the stage they belong to
    is over), the pass bar as the state's live pass. `also` (the console's
    voice) hears everything too."""

    def __init__(self, page: PageState, also: guide_machine.Voice | None = None) -> None:
        self.page = page
        self.also = also
        self.guide: guide_machine.Guide | None = None
        self.watching = False  # someone else (the scripted person) answers: the page only watches
        self.table: Any = None  # the virtual table (host/web/table.py), whose controls each step gets
        # Looks at the virtual table (with --sim): a pass's end shows the piles it left.
        self.look: Callable[[], dict[str, Any]] | None = None

    def attach(self, guide: guide_machine.Guide) -> None:
        self.guide = guide

    def _log(self, line: str, problem: bool = False, until: str | None = None,
             record: dict[str, Any] | None = None) -> None:
        """A line in the log; a problem also among the problems shown, with
        the record (kind and fields) its words were made from."""
        def add(state: dict[str, Any]) -> None:
            said = {"text": line, "problem": problem, **({"kind": record["kind"]} if record else {})}
            state["log"] = (state["log"] + [said])[-LOG_LINES:]
            if problem and all(p["text"] != line for p in state["problems"]):  # said again: still one line
                number = state["step"]["number"] if state["step"] else 0
                state["problems"] = state["problems"] + [{"text": line, "after_step": number, "until": until,
                                                          "record": record}]
            state.update(where(self.guide))
        self.page.edit(add)

    def say(self, text: str) -> None:
        if self.also is not None:
            self.also.say(text)
        if text.strip():
            self._log(text.strip())

    def notice(self, notice: notices.Notice) -> None:
        if self.also is not None:
            self.also.notice(notice)
        if isinstance(notice, notices.TooSoon):
            self.page.unanswer(notice.number)
        if isinstance(notice, notices.TrayStillEmpty):
            # "The cards are in" with the tray reading empty is not taken: the
            # button is given back, with this notice as the reason.
            shown = self.page.get("step")
            if shown is not None:
                self.page.unanswer(int(shown["number"]))
        self._log(page_words(notice), problem=notices.level(notice) == notices.PROBLEM, until=_UNTIL.get(type(notice)),
                  record=record(notice))

    def step(self, shown: guide_machine.Shown) -> None:
        if self.also is not None:
            self.also.step(shown)
        step = shown.step
        data = {**steps.to_dict(step), "number": shown.number, "round": shown.round,
                "answer": None if self.watching else shown.answer, "answered": False, "controls": []}
        if self.table is not None and not self.watching and steps.asks_action(step):
            # What the table person would do, one button each (the table as it is now).
            data["controls"] = self.table.controls(step)

        def show(state: dict[str, Any]) -> None:
            state["step"] = data
            state["doing"] = None  # a new step: whatever the machine was doing is over
            state["log"] = (state["log"] + [{"text": f"{shown.number}. {data['words']}", "problem": False}])[-LOG_LINES:]
            if isinstance(step, _NEW_STAGE):
                state["problems"] = []
            # A new step: the problems tied to the step before are over, and a
            # load's size problems once its touch shows it was judged right.
            state["problems"] = [p for p in state["problems"] if p.get("until") != "tray"
                                 and not (p.get("until") == "judged" and isinstance(step, steps.Touch))]
            if _begins_a_pass(step):
                state["pass"] = None
            bar = state["pass"]
            if (isinstance(step, steps.Lift) and step.left is not None and step.right is not None and bar is not None
                    and bar.get("label") == f"load {step.load}"):
                # The device's own count at the end of the pass (progress may stop short of it).
                state["pass"] = {**bar, "dealt": step.left + step.right, "left": step.left, "right": step.right,
                                 "active": False}
            state.update(where(self.guide))
        self.page.edit(show)

    def bar_start(self, label: str, total: int, done: int = 0, left: int | None = 0,
                  right: int | None = 0) -> None:
        if self.also is not None:
            self.also.bar_start(label, total, done, left, right)
        # A new pass (or a stopped one going on): the problems before it are
        # over, and the step that started it (touch the sensor) is done, so
        # the page says what the machine does instead of the touch.
        at = where(self.guide)
        load = None if at.get("place") is None else at["place"]["load"]  # the pass's load, as a record has it
        self.page.update(**{"pass": {"label": label, "load": load, "dealt": done, "total": total, "left": left,
                                     "right": right, "active": True}, "problems": [],
                            "doing": doing("dealing", label, load)}, **at)

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
            # The table looked at as the pass ends, in the same change: the
            # page never shows the pass over beside the piles as they were
            # before it (the table is not looked at while it deals).
            seen = self._look()

            def end(state: dict[str, Any]) -> None:
                state["pass"] = {**old, "active": False}
                # Until the next step: what the shuffler did, not the touch that began it.
                over = "dealt" if old["dealt"] >= old["total"] else "stopped_dealing"
                state["doing"] = doing(over, old["label"], old.get("load"))
                if seen is not None:
                    put_table(state, seen)
            self.page.edit(end)

    def _look(self) -> dict[str, Any] | None:
        if self.look is None:
            return None
        try:
            return self.look()
        except (OSError, ValueError, RuntimeError):
            return None  # the table cannot be seen now: it is looked at again with the next step


# What the machine is doing between the steps, in the page's words (the pass's
# label is the guide's: "load A").
DOING_WORDS = {"dealing": "The shuffler is dealing {label}: wait until it stops, and leave the piles alone.",
               "dealt": "The shuffler has dealt {label}.",
               "stopped_dealing": "The shuffler has stopped dealing {label}."}


def doing(kind: str, label: str, load: str | None) -> dict[str, Any]:
    """What the machine is doing, as the page shows it: the record (its kind
    and the load) with the words made from it."""
    return {"kind": kind, "load": load, "label": label, "words": DOING_WORDS[kind].format(label=label)}


def record(notice: notices.Notice) -> dict[str, Any]:
    """A notice's record for the page: its kind, level and fields, as JSON
    data (its words are the page's own, apart)."""
    return {"level": notices.level(notice), **_plain(notice)}


def stop_data(stop: Any) -> dict[str, Any] | None:
    """A stop's record (host/commands/guide.py StopRecord: where, why, its
    reason's record, the way on) as JSON data for the page's stop banner."""
    return None if stop is None else _plain(stop)


def _plain(value: Any) -> Any:
    """A record's field as JSON data: a nested record as its kind and fields."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {"kind": type(value).__name__,
                **{f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}}
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [_plain(v) for v in value]
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return repr(value)  # not a record: as Python shows it


def page_words(notice: notices.Notice) -> str:
    """A notice's words as the page says them: the page has a Done button
    where the console has Enter (the console's words are the guide's own)."""
    if isinstance(notice, notices.TooSoon) and notice.via == "Enter":
        notice = dataclasses.replace(notice, via="Done")
    if isinstance(notice, notices.WaitingForLoad):
        notice = dataclasses.replace(notice, keyboard=False)  # the page's answer is its own button
    return notices.words(notice, answer="Done")


def where(guide: guide_machine.Guide | None) -> dict[str, Any]:
    """Round and pass out of how many, and the distance from random so far."""
    if guide is None:
        return {}
    m = guide.machine
    place = m.place
    out: dict[str, Any] = {"mode": guide.mode}
    out["place"] = None if place is None else {"round": place.round, "of_rounds": place.of_rounds, "load": place.load,
                                               "pass": place.pass_number, "of_passes": place.of_passes}
    routine = m.routine
    done = 0 if routine is None else max(0, min(routine.round - 1, routine.rounds))
    if routine is not None and routine.exact and (routine.finished or m.summary is not None):
        # The exact routine's round stays at its last once that is dealt: all are done.
        done = routine.rounds
    if routine is not None and routine.exact:
        # Exact mode is exactly random once its last round is done and not
        # before; the page says which round that is instead of a figure.
        out["distance"] = {"rounds_done": done, "value": None, "kind": "exact mode"}
    else:
        p = guide.plan if routine is None else routine.plan  # type: ignore[union-attr]
        out["distance"] = {"rounds_done": done, "value": _distance(p.cards, p.capacity, done) if done else 1.0,
                           "kind": "exact"}
    return out


class WebPerson:
    """A person reading the page: an answer is the page's "done" (the button
    or the space bar) or "the cards are in", naming the step it was given
    for; the guide's machine decides whether it counts.

    `inner` is someone who does the step as well (the scripted person, for
    a page that only watches); its answers are the ones that count then."""

    def __init__(self, page: PageState, voice: WebVoice, inner: persons.Person | None = None,
                 after_step: Callable[[], None] | None = None, table: Any = None) -> None:
        self.page = page
        self.voice = voice
        self.inner = inner
        self.table = table  # the virtual table played on the page, if any
        self.unattended = inner is not None and inner.unattended
        self.reads = inner is None  # a person reading the page
        self.after_step = after_step  # e.g. look at the virtual table again
        self.reported = 0  # the page's answers handed to the guide (PageState.counted)
        if table is not None and inner is None:
            voice.table = table

    def do(self, step: steps.Step, number: int, round: int | None = None) -> None:
        if self.table is not None and self.inner is None and not steps.asks_action(step):
            self.table.rename(step)
        self._after()  # the table as it is when the step is shown (a pass may just have ended)
        if self.inner is not None:
            self.inner.do(step, number, round)
            self._after()

    def _after(self) -> None:
        if self.after_step is not None:
            self.after_step()

    def answers(self) -> list[persons.Said]:
        self.page.guide_looked()  # the guide's beat: it asks a few times a second while it waits
        if self.inner is not None:
            return self.inner.answers()
        if self.page.closed is not None:
            raise persons.PersonGaveUp(self.page.closed)
        # Counted answers, not step numbers: an answer the guide gave back
        # (too soon to read, or the tray read empty) and given again before
        # this is asked is still a new answer.
        counted, number = self.page.last_answer()
        if counted <= self.reported:
            return []
        self.reported = counted
        self._after()
        return [persons.Said(number, "Done")]
