"""What the guide's machine keeps of the pass in hand and of the tray's
count while a load goes in: plain records, changed only by the handlers."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Pass:
    """What the machine keeps of the pass in hand."""

    load: str
    want: int  # the load's planned size
    size: int | None = None  # cards the pass deals in all (the device's count at its start, plus any kept aside)
    dealt: int = 0  # over the finished parts
    left: int | None = 0
    right: int | None = 0
    parts: int = 0
    part_n: int | None = None  # cards in the part being dealt now
    k: int = 0  # cards of that part through so far
    k_left: int | None = 0
    k_right: int | None = 0
    aside: int = 0  # cards lifted off an over-full load, dealt last
    aside_coming: bool = False  # the part begun next is those cards (they come in, nothing came back)
    fruitless: int = 0  # parts in a row that ended before their first card
    restarts: int = 0
    reconnects: int = 0
    recounts: int = 0
    off_said: bool = False  # a count off the plan was said once
    counted: int | None = None  # the tray's count the load was last judged by

    @property
    def through(self) -> int:
        return self.dealt + (self.k if self.part_n is not None else 0)

    @property
    def total(self) -> int:
        return self.size if self.size is not None else self.want

    def piles(self) -> tuple[int | None, int | None]:
        def add(a: int | None, b: int | None) -> int | None:
            return None if a is None or b is None else a + b
        if self.part_n is None:
            return self.left, self.right
        return add(self.left, self.k_left), add(self.right, self.k_right)


@dataclass
class TrayWatch:
    """The tray as the machine last read it: the count, since when it has
    held, and whether it has read empty since cards were last to come out
    of it (cards still in it are not a new load until it has been empty)."""

    n: int | None = None
    since: float = 0.0
    saw_empty: bool = False

    def settled(self, n: int, now: float, settle_s: float) -> bool:
        """The count n has held still for settle_s."""
        if n != self.n:
            self.n, self.since = n, now
        return now - self.since >= settle_s
