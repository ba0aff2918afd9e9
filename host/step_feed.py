"""The guide's records as JSON lines on a channel of their own (`--steps-file`).

A front-end of the guide like the console and the page: every record the
guide shows is written, one line each and flushed, just before the
front-end it wraps shows it. Each line's `record` says what it holds:

- `"step"`: `shuffling.steps.to_dict(step)` (its `kind`, fields and
  `words`) with the step's `number`, `round` and `answer` (what the guide
  waits for: "done", "ready" or none) added;
- `"notice"`: the notice's record (host/guide/notice_records.py, through
  `host.guide.notices`) as `ledger.record_dict` gives it (its `kind` and
  fields, a nested record such as `where` with its own `kind`), with its
  `level` (how the console styles it: "problem" is a line marked "!") and
  its `words`;
- `"summary"`, the last line of a run that ended: what `--json` prints
  (`Summary.to_dict`, its notes as `note_records`);
- `"stop"`, the last line of a run that stopped: where (`where`, a `Where`
  record or null), `why` (in words, and as its record, `reason`:
  host/guide/stop_reasons.py or the port's record; a fault of the device
  also as its note, `fault`), the `command` that goes on and its `way`
  (host/commands/guide.py StopRecord), and the stop line's `words`.

A person's tool, a page or a test can follow the file (or a named pipe) and
act on the data without reading the English on the screen.
"""
from __future__ import annotations

import json
from typing import IO, Any

from host.guide import notices
from host.guide.ledger import record_dict
from host.guide.results import Summary
from host.guide.voice import Shown, Voice
from shuffling import steps

STEP = "step"
NOTICE = "notice"
SUMMARY = "summary"
STOP = "stop"


class StepFeedError(OSError):
    """The steps file could not be written."""


def step_line(shown: Shown) -> str:
    """One step as its JSON line (without the newline)."""
    return json.dumps({"record": STEP, **steps.to_dict(shown.step), "number": shown.number, "round": shown.round,
                       "answer": shown.answer})


def notice_line(notice: notices.Notice) -> str:
    """One notice as its JSON line (without the newline)."""
    return json.dumps({"record": NOTICE, **record_dict(notice), "level": notices.level(notice),
                       "words": notices.words(notice)}, default=_plain)


def summary_line(summary: Summary) -> str:
    """The summary as its JSON line (without the newline): what `--json` prints."""
    return json.dumps({"record": SUMMARY, **summary.to_dict()}, default=_plain)


def stop_line(stop: Any, words: str) -> str:
    """A stop (host/commands/guide.py StopRecord) as its JSON line (without the newline)."""
    return json.dumps({"record": STOP, **record_dict(stop), "words": words}, default=_plain)


def _plain(value: Any) -> Any:
    """A field JSON does not take as it is: a device's event record (a fault's
    reason) as its kind and fields, anything else as its text."""
    from dataclasses import is_dataclass

    return record_dict(value) if is_dataclass(value) else str(value)


class StepFeed(Voice):
    """Writes each step and notice to `out`, then has `inner` show it."""

    def __init__(self, inner: Voice, out: IO[str]) -> None:
        self.inner = inner
        self.out = out

    @property
    def keyboard(self) -> bool:  # type: ignore[override]  # as the front-end it wraps: the console sets it late
        return self.inner.keyboard

    def around(self, inner: Voice) -> StepFeed:
        """The same file, written before `inner` shows each record."""
        return StepFeed(inner, self.out)

    def write(self, line: str) -> None:
        try:
            self.out.write(line + "\n")
            self.out.flush()
        except OSError as exc:
            raise StepFeedError(f"cannot write the steps file: {exc.strerror or exc}") from None

    def step(self, shown: Shown) -> None:
        self.write(step_line(shown))
        self.inner.step(shown)

    def say(self, text: str) -> None:
        self.inner.say(text)

    def notice(self, notice: notices.Notice) -> None:
        self.write(notice_line(notice))
        self.inner.notice(notice)

    def summary(self, summary: Summary) -> None:
        self.write(summary_line(summary))

    def stop(self, stop: Any, words: str) -> None:
        self.write(stop_line(stop, words))

    def bar_start(self, label: str, total: int, done: int = 0, left: int | None = 0,
                  right: int | None = 0) -> None:
        self.inner.bar_start(label, total, done, left, right)

    def bar_update(self, done: int, total: int, left: int | None, right: int | None) -> None:
        self.inner.bar_update(done, total, left, right)

    def bar_end(self) -> None:
        self.inner.bar_end()
