"""The one state object every page shows, and the page's answers.

The guide's thread writes into it (through host/web/adapter.py); the
server's thread reads it and sends it to every page. Each change bumps
`version`, so a page that connects (or reloads) gets the whole current
state at once and a slow page simply skips to the newest one.

The page answers a step by its number: "done" for step 12 confirms step 12
and nothing else, once, and only after step 12 has been on screen for the
read time, so a double click, a stale tab, a second tab or a reload never
confirms a step nobody has seen (the console throws away keys typed ahead
for the same reason). Whatever the page sends, the refusal is one line.
The table's controls are held to the same: each acts at most once per step
(`claim`).

`run` is a random id made once per PageState (one run of the command): a
tab left open from an earlier run sees a different id and knows the state
it holds is not this run's. `read_s` is the read time, so a page can hold
its Done button until a new step has been up that long.
"""
from __future__ import annotations

import json
import secrets
import threading
import time
from typing import Any, Callable, Hashable

from host.web import refusals

LOG_LINES = 12  # lines of the transcript the page shows under the step


def fresh_state() -> dict[str, Any]:
    return {
        "run": secrets.token_hex(8),  # this run of the command; an old tab compares it
        "read_s": 0.0,  # how long a step must be on screen before its "done" counts
        "title": "",
        "mode": None,
        "step": None,  # steps.to_dict of the current step, plus number, round and what answers it
        "place": None,  # round, of_rounds, load, pass, of_passes
        "pass": None,  # the live pass: label, dealt, total, left, right, active
        "distance": None,  # from random so far
        "problems": [],  # faults and refusals in plain words, newest last; "until": what ends one early
        "log": [],  # the last lines said
        "summary": None,
        "verdict": None,  # at the end: ready (as random as the plan asks), level, threshold, needs (rounds)
        "stopped": None,  # why the guide stopped, with the command that goes on
        "stop": None,  # the stop's record as data (adapter.stop_data): the banner's data-* attributes
        "finished": False,
        "table": None,  # the virtual table, with --sim
        "table_error": None,
        "sim": False,
        "used": {"step": 0, "controls": []},  # the table controls used at the step shown, from any page
    }


def control_key(control: tuple[str, tuple[tuple[str, Any], ...]]) -> str:
    """A claimed control, (op, ((name, value), ...)), as the page names it: the
    message without its step, as JSON with its keys in order and no spaces."""
    op, args = control
    return json.dumps({"op": op, **dict(args)}, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def put_table(state: dict[str, Any], table: dict[str, Any]) -> None:
    """The virtual table as just looked at, into `state` (under its lock):
    a problem whose cause the table shows gone goes with it (the tray read
    empty and now holds cards), so no state shows both."""
    state["table"] = table
    if (table.get("places") or {}).get("tray"):
        state["problems"] = [p for p in state["problems"] if p.get("until") != "tray"]


class PageState:
    """Thread-safe: the guide writes, the server reads and answers."""

    def __init__(self, read_s: float = 0.0, clock: Callable[[], float] = time.monotonic) -> None:
        self._cond = threading.Condition()
        self._state = fresh_state()
        self._state["read_s"] = read_s
        self.read_s = read_s
        self.clock = clock
        self.version = 0
        self._text = json.dumps({"version": 0, **self._state})
        self._listeners: list[Callable[[], None]] = []
        self.answered = 0  # the highest step number the page said is done
        self.counted = 0  # answers that counted, ever: each is handed to the guide once
        self.closed: Any = None  # why nobody will answer any more: a stop reason (host/guide/stop_reasons.py)
        self.quit = threading.Event()  # the page's "close" after the summary
        self._shown = 0  # the step number on screen, and since when (by clock)
        self._shown_at = clock()
        self._claimed: set[Hashable] = set()  # the controls used at the step on screen
        self._looked_at: float | None = None  # when the guide's thread last looked for an answer

    # -- the guide's beat ---------------------------------------------------------------
    def guide_looked(self) -> None:
        """The guide's thread is looking for the person's answers (it does, a
        few times a second, whatever it waits for): it is there to answer."""
        self._looked_at = self.clock()

    def guide_silent_s(self) -> float | None:
        """How long since the guide's thread last looked; None before it first
        did and once it has ended (its summary or its stop), when nothing is
        waited for."""
        at = self._looked_at
        with self._cond:
            ended = self._state["finished"] or self._state["stopped"] is not None
        return None if at is None or ended else round(self.clock() - at, 1)

    # -- writing ----------------------------------------------------------------------
    def update(self, **parts: Any) -> None:
        with self._cond:
            self._state.update(parts)
            self._changed()

    def edit(self, fn: Callable[[dict[str, Any]], None]) -> None:
        """Change the state in place under the lock (lists that grow)."""
        with self._cond:
            fn(self._state)
            self._changed()

    def _changed(self) -> None:
        number = int(self._state["step"]["number"]) if self._state["step"] else 0
        if number != self._shown:
            # A new step: its read time starts now, and every control may act once more.
            self._shown, self._shown_at = number, self.clock()
            self._claimed.clear()
            self._state["used"] = {"step": number, "controls": []}
        self.version += 1
        self._text = json.dumps({"version": self.version, **self._state})
        self._cond.notify_all()
        listeners = list(self._listeners)
        for fn in listeners:
            fn()

    def listen(self, fn: Callable[[], None]) -> None:
        """fn() after every change, from the writer's thread (it must only schedule work)."""
        with self._cond:
            self._listeners.append(fn)

    def unlisten(self, fn: Callable[[], None]) -> None:
        with self._cond:
            if fn in self._listeners:
                self._listeners.remove(fn)

    # -- reading ------------------------------------------------------------------------
    def text(self) -> tuple[int, str]:
        """The version and the whole state as JSON."""
        with self._cond:
            return self.version, self._text

    def get(self, key: str) -> Any:
        with self._cond:
            return self._state[key]

    # -- the page's answers ---------------------------------------------------------------
    def answer(self, number: int) -> bool:
        """The page says step `number` is done; True when the answer counts
        (see `try_answer`)."""
        return self.try_answer(number) is None

    def try_answer(self, number: int) -> dict[str, Any] | None:
        """The page says step `number` is done. None when it counts: it is the
        step shown now, it waits for an answer, nobody has answered it yet and
        it has been on screen for the read time; else the refusal why not
        (host/web/refusals.py), and nothing changes. Under the lock, so of two tabs (or a double
        click) answering at once exactly one counts."""
        with self._cond:
            step = self._state["step"]
            shown = int(step["number"]) if step else 0
            if step is None or shown != number:
                if number < shown:
                    return refusals.reply("no_longer_shown", step=number, shown=shown)
                return refusals.reply("not_shown", step=number)
            if not step.get("answer"):
                return refusals.reply("not_asked", step=number)
            if self.answered >= number or step.get("answered"):
                return refusals.reply("already_answered", step=number)
            up = self.clock() - self._shown_at
            if up < self.read_s:
                return refusals.reply("too_soon", step=number, up=round(up, 1), read_s=self.read_s)
            self.answered = number
            self.counted += 1
            self._state["step"] = {**step, "answered": True}
            self._changed()
            return None

    def last_answer(self) -> tuple[int, int]:
        """How many answers have counted, and the step the last one answered."""
        with self._cond:
            return self.counted, self.answered

    def claim(self, number: int, control: Hashable) -> dict[str, Any] | None:
        """A table control (the op and its arguments) pressed at step `number`:
        None when it may act; else the refusal why not. It must name the step
        shown now, and each control acts at most once per step (a double
        click, a key held down, a second tab); another control, or the same
        one with other arguments, may still act (a person correcting a slip)."""
        with self._cond:
            shown = self._shown
            if number != shown:
                if number < shown:
                    return refusals.reply("control_step_gone", step=number, shown=shown)
                return refusals.reply("control_step_not_shown", step=number)
            if control in self._claimed:
                return refusals.reply("control_used", step=number)
            self._claimed.add(control)
            self._show_used()
            return None

    def unclaim(self, number: int, control: Hashable) -> None:
        """The control did nothing (the table refused it): it may be pressed again."""
        with self._cond:
            if number == self._shown:
                self._claimed.discard(control)
                self._show_used()

    def _show_used(self) -> None:
        """Every page shows the controls used at this step with a ✓ (under the lock)."""
        keys = [control_key(c) for c in self._claimed]  # type: ignore[arg-type]
        self._state["used"] = {"step": self._shown, "controls": sorted(keys)}
        self._changed()

    def unanswer(self, number: int) -> None:
        """The guide did not take the answer to step `number` (it came before
        the step could be read, or the tray it says the cards are in reads
        empty): the page shows it waiting again."""
        with self._cond:
            step = self._state["step"]
            if self.answered == number:
                self.answered = number - 1
            if step is not None and step["number"] == number and step.get("answered"):
                # `returned` counts the answers given back, so a page that
                # never saw the step answered (the newest state only reaches
                # a slow page) still knows its press was given back.
                self._state["step"] = {**step, "answered": False, "returned": int(step.get("returned", 0)) + 1}
                self._changed()

    def close(self, why: Any) -> None:
        """Nobody answers any more (the command is stopping): `why`, the
        stop's reason the guide is given (host/guide/stop_reasons.py)."""
        with self._cond:
            self.closed = why
            self._cond.notify_all()
