"""The guide's steps as JSON lines on a channel of their own (`--steps-file`).

A front-end of the guide like the console and the page: each step is
written, one line per step and flushed, just before the front-end it wraps
shows it: `shuffling.steps.to_dict(step)` with the step's
`number`, `round` and `answer` (what the guide waits for: "done", "ready" or
none) added. A person's tool, a page or a test can follow the file (or a
named pipe) and act on the data without reading the English on the screen.
"""
from __future__ import annotations

import json
from typing import IO

from host.guide import notices
from host.guide.voice import Shown, Voice
from shuffling import steps


class StepFeedError(OSError):
    """The steps file could not be written."""


def step_line(shown: Shown) -> str:
    """One step as its JSON line (without the newline)."""
    return json.dumps({**steps.to_dict(shown.step), "number": shown.number, "round": shown.round,
                       "answer": shown.answer})


class StepFeed(Voice):
    """Writes each step to `out`, then has `inner` show it."""

    def __init__(self, inner: Voice, out: IO[str]) -> None:
        self.inner = inner
        self.out = out
        self.keyboard = inner.keyboard

    def step(self, shown: Shown) -> None:
        try:
            self.out.write(step_line(shown) + "\n")
            self.out.flush()
        except OSError as exc:
            raise StepFeedError(f"cannot write the steps file: {exc.strerror or exc}") from None
        self.inner.step(shown)

    def say(self, text: str) -> None:
        self.inner.say(text)

    def notice(self, notice: notices.Notice) -> None:
        self.inner.notice(notice)

    def bar_start(self, label: str, total: int, done: int = 0, left: int | None = 0,
                  right: int | None = 0) -> None:
        self.inner.bar_start(label, total, done, left, right)

    def bar_update(self, done: int, total: int, left: int | None, right: int | None) -> None:
        self.inner.bar_update(done, total, left, right)

    def bar_end(self) -> None:
        self.inner.bar_end()
