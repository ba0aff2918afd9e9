"""The one state object every page shows, and the page's answers.

The guide's thread writes into it (through host/web/adapter.py); the
server's thread reads it and sends it to every page. Each change bumps
`version`, so a page that connects (or reloads) gets the whole current
state at once and a slow page simply skips to the newest one.

The page answers a step by its number: "done" for step 12 confirms step 12
and nothing else, so a second click, a stale tab or a reload never confirms
a step nobody has seen (the console throws away keys typed ahead for the
same reason).
"""
from __future__ import annotations

import json
import threading
from typing import Any, Callable

LOG_LINES = 12  # lines of the transcript the page shows under the step


def fresh_state() -> dict[str, Any]:
    return {
        "title": "",
        "mode": None,
        "step": None,  # steps.to_dict of the current step, plus number, round and what answers it
        "place": None,  # round, of_rounds, load, pass, of_passes
        "pass": None,  # the live pass: label, dealt, total, left, right, active
        "distance": None,  # from random so far
        "problems": [],  # faults and refusals in plain words, newest last
        "log": [],  # the last lines said
        "summary": None,
        "stopped": None,  # why the guide stopped, with the command that goes on
        "finished": False,
        "table": None,  # the virtual table, with --sim
        "table_error": None,
        "sim": False,
    }


class PageState:
    """Thread-safe: the guide writes, the server reads and answers."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._state = fresh_state()
        self.version = 0
        self._text = json.dumps({"version": 0, **self._state})
        self._listeners: list[Callable[[], None]] = []
        self.answered = 0  # the highest step number the page said is done
        self.closed: str | None = None  # why nobody will answer any more
        self.quit = threading.Event()  # the page's "close" after the summary

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
    def current_number(self) -> int:
        with self._cond:
            step = self._state["step"]
            return int(step["number"]) if step else 0

    def answer(self, number: int) -> bool:
        """The page says step `number` is done; True when that is the step
        shown now and it waits for an answer."""
        with self._cond:
            step = self._state["step"]
            if step is None or step["number"] != number or not step.get("answer"):
                return False
            if self.answered < number:
                self.answered = number
                self._state["step"] = {**step, "answered": True}
                self._changed()
            return True

    def unanswer(self, number: int) -> None:
        """The guide did not take the answer to step `number` (it came before
        the step could be read): the page shows it waiting again."""
        with self._cond:
            step = self._state["step"]
            if self.answered == number:
                self.answered = number - 1
            if step is not None and step["number"] == number and step.get("answered"):
                self._state["step"] = {**step, "answered": False}
                self._changed()

    def wait_answer(self, number: int, timeout: float) -> bool:
        """Block until step `number` is answered (True), the time is up or
        the page state is closed (False)."""
        with self._cond:
            return self._cond.wait_for(lambda: self.answered >= number or self.closed is not None, timeout) \
                and self.answered >= number

    def is_answered(self, number: int) -> bool:
        with self._cond:
            return self.answered >= number

    def close(self, why: str) -> None:
        """Nobody answers any more (the command is stopping)."""
        with self._cond:
            self.closed = why
            self._cond.notify_all()
