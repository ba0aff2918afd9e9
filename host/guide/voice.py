"""How the guide's state machine reaches a front-end: the steps it shows,
the notices it gives and the live pass. The console (host/commands/guide.py),
the page (host/web/adapter.py) and the tests each render these; none keeps
any state of its own about the shuffle."""
from __future__ import annotations

from dataclasses import dataclass

from host.guide import notices
from shuffling import steps

# What a shown step waits for from the person.
DONE = "done"  # the person says the table work is done
READY = "ready"  # the person may say the cards are in the tray (the device sees them anyway)


@dataclass(frozen=True)
class Shown:
    step: steps.Step
    number: int
    round: int | None
    answer: str | None  # DONE, READY, or None: nothing to answer
    at: float  # the guide's clock when it was shown


class Voice:
    """A front-end. `keyboard`: the person answers at this terminal with Enter."""

    keyboard = False

    def say(self, text: str) -> None:
        raise NotImplementedError

    def problem(self, text: str) -> None:
        self.say(f"! {text}")

    def notice(self, notice: notices.Notice) -> None:
        text = notices.words(notice)
        if notices.level(notice) == notices.PROBLEM:
            self.problem(text)
        elif notices.level(notice) == notices.HINT:
            self.say(f"   {text}")
        else:
            self.say(text)

    def step(self, shown: Shown) -> None:
        self.say(f"{shown.number}. {steps.words(shown.step)}")
        if shown.answer == DONE and self.keyboard:
            self.say("   press Enter when done")

    def bar_start(self, label: str, total: int, done: int = 0, left: int | None = 0,
                  right: int | None = 0) -> None:
        """A pass (or the rest of one) begins: `done` of `total` cards are
        through already, onto piles of `left` and `right` (None: not known)."""

    def bar_update(self, done: int, total: int, left: int | None, right: int | None) -> None:
        pass

    def bar_end(self) -> None:
        pass
