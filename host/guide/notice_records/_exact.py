"""Exact mode's own notices: its rounds, exactness lost and the evidence,
and what mends it (a part or a stack dealt again, a fresh run, or the
rest at random)."""
from __future__ import annotations

from dataclasses import dataclass

from host.guide.notice_records._where import Where


@dataclass(frozen=True)
class ExactIntro:
    rounds: int
    passes: int


@dataclass(frozen=True)
class ExactRoundDealt:
    """A round of the exact routine dealt: its loads (place names), the
    stack they were cut from (None: the pack), a part's pass number among
    its passes, and what waits aside (`done`: the parts among it already
    dealt); shuffling/exact_mode/round_loads.py."""

    round: int
    of_rounds: int
    dealt: tuple[str, ...] = ()
    source: str | None = None
    part_pass: int | None = None
    part_passes: int | None = None
    aside: tuple[str, ...] = ()
    done: tuple[str, ...] = ()


@dataclass(frozen=True)
class ExactLost:
    """Exactness is gone, and the evidence that shows it."""

    where: Where | None
    reason: str  # a reason name (reason_words)
    load: str | None = None
    n: int | None = None
    expected: int | None = None


@dataclass(frozen=True)
class PartDealtAgain:
    """A part of the split lost its order while its cards stayed its own: it
    is dealt again from fresh codes (docs/exact-mode.md, "A part dealt
    again"). want, n: the load's count that showed it (cards gone by hand)."""

    where: Where | None
    part: str
    reason: str  # why its order went: a reason name (reason_words)
    passes: int
    seconds: float
    after: bool = False  # a pass of it is in hand: it goes on at random first
    want: int | None = None
    n: int | None = None


@dataclass(frozen=True)
class StackDealtAgain:
    """A load of the split held the wrong set of cards (a part's at its
    first pass, a split round's last load: a card stacked onto the other
    stack when the split round `round` split `stack`): that stack is put
    together again from `stacks` and dealt again from that round with
    fresh codes (docs/exact-mode.md, *Mended in place* (d)). want, n: the
    count that showed it; passes, seconds: what dealing it again costs;
    fresh: a fresh routine's passes."""

    where: Where | None
    load: str
    want: int
    n: int
    stack: str  # a place on the table (shuffling/step_names.py)
    stacks: tuple[str, ...]
    round: int
    passes: int
    seconds: float
    fresh: int


@dataclass(frozen=True)
class ExactNotConfirmed:
    pass


@dataclass(frozen=True)
class FreshExactRun:
    """After exactness was lost: the gathered pack goes through a fresh exact routine."""

    rounds: int
    passes: int


@dataclass(frozen=True)
class FinishAtRandom:
    rounds: int
    distance: float
    quality: str
    threshold: float
