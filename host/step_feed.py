"""The guide's steps as JSON lines on a channel of their own (`--steps-file`).

Each step is written, one line per step and flushed, just before the person
is shown it: `simulator.shuffling.steps.to_dict(step)` with the step's `number` and
`round` added. A person's tool, a page or a test can follow the file (or a
named pipe) and act on the data without reading the English on the screen.
"""
from __future__ import annotations

import json
from typing import IO

from host import person as persons
from simulator.shuffling import steps as S


class StepFeedError(OSError):
    """The steps file could not be written."""


def step_line(step: S.Step, number: int, round: int | None) -> str:
    """One step as its JSON line (without the newline)."""
    return json.dumps({**S.to_dict(step), "number": number, "round": round})


class StepFeed:
    """A person that writes each step to `out` before the inner person sees it."""

    def __init__(self, inner: persons.Person, out: IO[str]) -> None:
        self.inner = inner
        self.out = out
        self.unattended = inner.unattended

    def do(self, step: S.Step, number: int, round: int | None = None) -> None:
        try:
            self.out.write(step_line(step, number, round) + "\n")
            self.out.flush()
        except OSError as exc:
            raise StepFeedError(f"cannot write the steps file: {exc.strerror or exc}") from None
        self.inner.do(step, number, round)

    def ready(self, timeout: float) -> bool:
        return self.inner.ready(timeout)
