"""What a person does at the card table, as records: each step's kind and
fields, nothing worded (shuffling/step_words.py words them, once;
shuffling/steps.py is where the rest of the project reads them)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Union


# -- the steps ---------------------------------------------------------------------

@dataclass(frozen=True)
class Cut:
    """Cut `source` from the top into loads, keeping the order."""

    source: str
    names: tuple[str, ...]
    sizes: tuple[int, ...]
    by_eye: bool = False  # the sizes are aimed at, not counted out
    counted: bool = False  # the shuffler counts each load before it deals it
    first: bool = False  # the pack comes from the hand: square it first


@dataclass(frozen=True)
class PutInTray:
    """Put a load (or the cards kept aside) face down in the tray."""

    load: str
    cards: int | None  # None: nobody knows how many
    about: bool = False
    again: bool = False  # it was taken out to be put right
    rest: bool = False  # what is left of it after a pass stopped: make sure it is in the tray


@dataclass(frozen=True)
class Reload(PutInTray):
    """After a pass of `load` dealt on its own: its left pile on top of its
    right pile, straight back in the tray for the next pass (one step: the
    piles never reach the table). after_stop: shown again when the guide
    goes on after a stop, when its piles may be off the machine already."""

    after_stop: bool = False


TOUCH_WHYS = ("start", "go_on", "rest", "aside", "rest_in_tray", "again", "retry", "manual")


@dataclass(frozen=True)
class Touch:
    """Touch the sensor. why: start, go_on (after a jam), rest (deal the rest
    of `load`, `cards` of it, onto the same piles), aside (deal the cards kept
    aside onto the same piles), rest_in_tray (what is in the tray, after
    lifting cards aside), again (the tray read empty), retry, manual (no
    device follows the pass)."""

    why: str = "start"
    load: str | None = None
    cards: int | None = None

    def __post_init__(self) -> None:
        if self.why not in TOUCH_WHYS:
            raise ValueError(f"no such touch: {self.why!r}")


@dataclass(frozen=True)
class Lift:
    """Lift load's two piles off the machine, keeping them apart: they are
    then `load`.left and `load`.right. rows: exact mode's rows on the table.
    stacked: the load's passes are over: its left pile goes on its right
    pile as they come off, and the load waits for the gathering."""

    load: str
    left: int | None = None
    right: int | None = None
    rows: bool = False
    stacked: bool = False


@dataclass(frozen=True)
class Stack:
    """Put `parts` on one another, the first on top; the result is `result`.
    may_be_empty: parts that may have no card (exact mode's piles: how many
    cards of a load go to each side depends on the codes, which nobody is
    told); a person stacks what there is."""

    parts: tuple[str, ...]
    result: str
    cards: int | None = None
    may_be_empty: tuple[str, ...] = ()


@dataclass(frozen=True)
class Move:
    """Move cards between two neighbouring loads, keeping the pack's order:
    down, from the bottom of `upper` to the top of `lower`; otherwise from
    the top of `lower` to the bottom of `upper`."""

    cards: int
    upper: str
    lower: str
    down: bool
    sizes: tuple[int, int] | None = None  # what the two then hold


@dataclass(frozen=True)
class EvenOut:
    """Even two neighbouring loads out by eye (no device counts them)."""

    upper: str
    lower: str
    sizes: tuple[int, int]


@dataclass(frozen=True)
class Draw:
    """Make loads for the next round from the tops of stacks: each load is
    its parts, the first on top; a part takes `count` cards from the top of
    a stack (`rest`: all that is left of it)."""

    loads: tuple[tuple[str, tuple[tuple[str, int, bool], ...]], ...]
    next_round: int


@dataclass(frozen=True)
class Gather:
    """Put the parts on one another, the first on top: the shuffled pack.
    short_of: the quality asked for, when the rounds dealt fall short of it
    (fewer rounds asked for than it needs)."""

    parts: tuple[str, ...]
    short_of: str = ""


@dataclass(frozen=True)
class Swap:
    """Two loads were taken for one another: swap their places."""

    first: str
    second: str


@dataclass(frozen=True)
class Unload:
    """Take a load back out of the tray."""

    load: str


@dataclass(frozen=True)
class SetAside:
    """Lift the top `cards` off the load in the tray and keep them aside."""

    load: str
    cards: int


FIX_WHATS = ("stopped", "jam", "exit", "put_back", "battery", "battery_idle", "sensor", "exit_sensor", "count_sensor",
             "touch_sensor", "battery_sensor", "missing", "extra", "anywhere", "regather", "foreign")


@dataclass(frozen=True)
class Fix:
    """Put a fault right. what: stopped (a guide going on after a stop asks
    whether the cards were touched meanwhile), jam, exit (cards caught in the exit go back
    under the tray's cards), put_back (`cards` that left the tray go back in),
    battery, battery_idle (before a pass), sensor (one the device did not
    name), exit_sensor, count_sensor, touch_sensor, battery_sensor, missing
    (`cards` missing from `load` go under it), extra (`cards` too many come
    off its bottom), anywhere (`cards` missing from `load` go into it
    anywhere: it is dealt again from fresh codes), regather (`load`'s piles
    and whatever of it is in the tray into one stack, any order: it is dealt
    again from fresh codes), foreign (`cards` of another pack looked for in
    `load` and kept apart)."""

    what: str
    cards: int | None = None
    load: str | None = None

    def __post_init__(self) -> None:
        if self.what not in FIX_WHATS:
            raise ValueError(f"no such fix: {self.what!r}")


@dataclass(frozen=True)
class Collect:
    """Put every card together into one pack, in any order: the piles on the
    machine, the cards in the tray and in the exit, and every stack and load
    on the table. What follows does not depend on the order. missing:
    cards a load was found short of (`load`), to be looked for too."""

    cards: int
    missing: int = 0
    load: str | None = None


@dataclass(frozen=True)
class RoundSummary:
    """A whole round of a routine in one sentence, for the quality report:
    every load (`sizes`) dealt, then gathered the routine's way. routine:
    stack-trade (each load's left pile on its right pile, then the top
    `trade` cards of each load moved on), pile-trade, exact (the device's
    exact mode, whole-pack radix, `rounds` rounds), or exact-split (the
    split: `sizes` its parts, top of the pack first, `rounds` its passes)."""

    routine: str
    sizes: tuple[int, ...]
    trade: int = 0
    rounds: int = 0


Step = Union[Cut, PutInTray, Reload, Touch, Lift, Stack, Move, EvenOut, Draw, Gather, Swap, Unload, SetAside, Fix,
             Collect, RoundSummary]
STEP_TYPES: tuple[type, ...] = (Cut, PutInTray, Reload, Touch, Lift, Stack, Move, EvenOut, Draw, Gather, Swap, Unload,
                                SetAside, Fix, Collect, RoundSummary)
# Steps the machine notices by itself (the tray's count, the touch event).
MACHINE_SEES: tuple[type, ...] = (PutInTray, Touch)


def asks_action(step: Step) -> bool:
    """Whether the step asks the person to do something. A step that only
    names what is already there (the left stack is load A; one part is the
    pack) asks nothing, so nobody is asked to confirm it."""
    if isinstance(step, Draw):
        return not all(len(parts) == 1 and parts[0][2] for _, parts in step.loads)
    if isinstance(step, Gather):
        return len(step.parts) > 1
    if isinstance(step, Stack):
        return len(step.parts) > 1 or step.parts[0] != step.result
    return not isinstance(step, RoundSummary)


# -- what a step done on the table can run into (shuffling/table_work.py) ---------------------

@dataclass(frozen=True)
class NotOnTable:
    """The step names a place the table does not have."""

    name: str
    on_table: tuple[str, ...]  # the places it has


@dataclass(frozen=True)
class CutDoesNotAddUp:
    """A cut's sizes do not add up to the cards of the place cut."""

    source: str
    total: int  # what the sizes add up to
    holds: int


@dataclass(frozen=True)
class HoldsTooFew:
    """The step takes more cards from a place than it holds."""

    name: str
    holds: int
    wanted: int


TableTrouble = Union[NotOnTable, CutDoesNotAddUp, HoldsTooFew]


__all__ = ["Cut", "PutInTray", "Reload", "TOUCH_WHYS", "Touch", "Lift", "Stack", "Move", "EvenOut", "Draw",
           "Gather", "Swap", "Unload", "SetAside", "FIX_WHATS", "Fix", "Collect", "RoundSummary", "Step",
           "STEP_TYPES", "MACHINE_SEES", "asks_action", "NotOnTable", "CutDoesNotAddUp", "HoldsTooFew", "TableTrouble"]
