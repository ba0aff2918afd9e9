"""What a person does at the card table, as data, and its one wording.

Every instruction the guide gives (and every instruction of the plan and of
exact mode, and the quality report's one-sentence round of a routine) is one
of the step types below. The console prints `words(step)`;
the scripted person carries out the data; a page may draw it from
`to_dict(step)`. No one parses the English back.

Places on the table are named by strings: "pack" (the whole pack), a load
("A", "B", ...), a load's piles after its pass ("A.left", "A.right"), the
stacks of a trade ("left stack", "right stack"), the cards kept aside
("aside") and the machine's tray ("tray"). Piles and stacks are always read
top first and never turned over.

This module imports nothing from the project, so the simulator and the host
both build on it.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any, Union

PACK = "pack"
ASIDE = "aside"
LEFT_STACK = "left stack"
RIGHT_STACK = "right stack"


def left_of(load: str) -> str:
    return f"{load}.left"


def right_of(load: str) -> str:
    return f"{load}.right"


def cards(n: int) -> str:
    """'1 card', '81 cards'."""
    return f"{n} card{'s' * (n != 1)}"


def group(first: str, last: str) -> str:
    """The stack that holds loads `first` to `last` before it is split into them."""
    return f"{first}-{last}"


def place(name: str) -> str:
    """A place on the table in words: 'load A', "A's left pile", 'the left stack',
    'the stack for loads P to R'."""
    if name == PACK:
        return "the pack"
    if name == ASIDE:
        return "the cards kept aside"
    if name in (LEFT_STACK, RIGHT_STACK):
        return f"the {name}"
    if name.endswith(".left") or name.endswith(".right"):
        load, side = name.rsplit(".", 1)
        return f"{load}'s {side} pile"
    if "-" in name:
        first, last = name.split("-", 1)
        return f"the stack for loads {first} to {last}"
    return f"load {name}"


_SMALL = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")


def number(n: int) -> str:
    """Zero to ten in words, larger counts in figures."""
    return _SMALL[n] if 0 <= n < len(_SMALL) else f"{n:,}"


def loads_phrase(sizes: list[int] | tuple[int, ...]) -> str:
    """The loads of a pack: 'two loads of 81', 'two loads of 55 and 54',
    'three loads: one of 91 and two of 90'. Sizes differ by at most one,
    larger first (routines.load_sizes)."""
    sizes = list(sizes)
    if not sizes or max(sizes) - min(sizes) > 1 or sizes != sorted(sizes, reverse=True):
        raise ValueError(f"loads must be near-equal, larger first, not {sizes!r}")
    count = len(sizes)
    loads = "load" if count == 1 else "loads"
    big, small = sizes[0], sizes[-1]
    if big == small:
        return f"{number(count)} {loads} of {big}"
    if count == 2:
        return f"two loads of {big} and {small}"
    n_big = sizes.count(big)
    return f"{number(count)} loads: {number(n_big)} of {big} and {number(count - n_big)} of {small}"


def _count(n: int | None, about: bool = False) -> str:
    return "" if n is None else f" ({'about ' if about else ''}{cards(n)})"


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


# -- the words ------------------------------------------------------------------------

def words(step: Step) -> str:
    """The one English wording of a step."""
    if isinstance(step, Cut):
        return _cut(step)
    if isinstance(step, Reload) and step.after_stop:  # its piles may be off the machine already
        return (f"Put load {step.load} back in the tray, face down{_count(step.cards)}: its left pile on top of its "
                "right pile, if they still lie apart on the machine.")
    if isinstance(step, Reload):
        return (f"Put {step.load}'s left pile on top of its right pile and put them straight back in the tray, "
                f"face down{_count(step.cards)}.")
    if isinstance(step, PutInTray):
        if step.load == ASIDE:
            return f"Put the {cards(step.cards or 0)} you kept aside in the tray."
        if step.rest:
            return (f"Leave the piles where they are and make sure the cards of load {step.load} not yet dealt "
                    "are in the tray, face down, in the same order.")
        where = "back in the tray" if step.again else "face down in the tray"
        return f"Put load {step.load}{_count(step.cards, step.about)} {where}."
    if isinstance(step, Touch):
        return _touch(step)
    if isinstance(step, Lift):
        if step.stacked:
            return (f"Take out {step.load}'s piles and put the left pile on top of the right pile, without turning "
                    f"them over: load {step.load} is done; keep it aside for the end.")
        if step.rows:
            return (f"Take out {step.load}'s piles without turning them over: its left pile to the left row, "
                    "its right pile to the right row, each on the table, not on another pile.")
        if step.left is None or step.right is None:
            return (f"Lift off load {step.load}'s two piles and keep them apart: left pile on the left, "
                    "right pile on the right.")
        return (f"Lift off load {step.load}'s two piles and keep them apart: left pile ({step.left}) on the left, "
                f"right pile ({step.right}) on the right.")
    if isinstance(step, Stack):
        return _stack(step)
    if isinstance(step, Move):
        text = "M" + move_phrase(step)[1:]
        if step.sizes is not None:
            text += f": {step.upper} {step.sizes[0]}, {step.lower} {step.sizes[1]}"
        return text + "."
    if isinstance(step, EvenOut):
        a, b = step.upper, step.lower
        return (f"Even them out by eye to about {step.sizes[0]} and {step.sizes[1]}: move cards from the bottom "
                f"of load {a} to the top of load {b}, or from the top of {b} to the bottom of {a}.")
    if isinstance(step, Draw):
        return _draw(step)
    if isinstance(step, Gather):
        done = (f"the pack, after fewer rounds than '{step.short_of}' needs" if step.short_of
                else "the pack is shuffled and ready to deal")
        if len(step.parts) == 1:
            return f"{_capital(done)}."
        return f"Put {_on_top(step.parts)}: {'that is ' if step.short_of else ''}{done}."
    if isinstance(step, Swap):
        return (f"Those cards are load {step.second}: put them where load {step.second} goes, and take "
                f"load {step.first} instead.")
    if isinstance(step, Unload):
        return f"Take the cards you put in as load {step.load} back out of the tray."
    if isinstance(step, SetAside):
        return f"Lift the top {cards(step.cards)} off the load in the tray and keep them aside, in order."
    if isinstance(step, Fix):
        return _fix(step)
    if isinstance(step, Collect):
        return (f"Put all {cards(step.cards)} together face down into one pack, in any order: both piles on the "
                "machine, any cards in the tray or caught in the exit, and every stack and load on the table."
                + (f" Load {step.load} was {cards(step.missing)} short: look for {'them' if step.missing > 1 else 'it'} "
                   "in the other stacks, in the exit and under the machine too." if step.missing else ""))
    if isinstance(step, RoundSummary):
        return _round_summary(step)
    raise TypeError(f"not a step: {step!r}")


def move_phrase(step: Move) -> str:
    """'move 5 cards from the bottom of load A to the top of load B': what a
    Move does, in words that can also stand inside a sentence."""
    if step.down:
        return f"move {cards(step.cards)} from the bottom of load {step.upper} to the top of load {step.lower}"
    return f"move {cards(step.cards)} from the top of load {step.lower} to the bottom of load {step.upper}"


def _stack(step: Stack) -> str:
    result = f"{_result(step.result)}{_count(step.cards)}"
    if len(step.parts) == 1:
        text = f"{_capital(place(step.parts[0]))} is {result}"
    else:
        text = f"Put {_on_top(step.parts)}: that is {result}"
    text += "."
    if step.may_be_empty:
        names = [place(p) for p in step.may_be_empty]
        if len(names) == 1:
            text += f" {_capital(names[0])} may have no card: then leave it out."
        else:
            text += f" {_capital(', '.join(names[:-1]))} or {names[-1]} may have no card: leave out any that has none."
    return text


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def _on_top(parts: tuple[str, ...]) -> str:
    return " on top of ".join(place(p) for p in parts)


def _result(name: str) -> str:
    if name == PACK:
        return "the whole pack"
    if name in (LEFT_STACK, RIGHT_STACK) or "-" in name:
        return place(name)
    return f"the new load {name}"


def _cut(step: Cut) -> str:
    total = sum(step.sizes)
    if len(step.names) == 1:
        return f"Square the pack face down ({cards(total)}): it is load {step.names[0]}."
    split = ", ".join(f"{n} {s}" for n, s in zip(step.names, step.sizes))
    how = ""
    if step.by_eye:
        how = " (by eye; the shuffler counts them)" if step.counted else " (by eye)"
    head = (f"Square the pack face down ({cards(total)}) and cut it" if step.first
            else f"Cut {place(step.source)}")
    return f"{head} from the top into {len(step.names)} loads, keeping the order: {split}{how}."


def _touch(step: Touch) -> str:
    if step.why == "go_on":
        return "Touch the sensor to go on with the pass."
    if step.why == "rest":
        return (f"Leave the piles where they are and touch the sensor to deal the rest of load {step.load} "
                f"({cards(step.cards or 0)}) onto them.")
    if step.why == "aside":
        return "Touch the sensor to deal them onto the same piles."
    if step.why == "rest_in_tray":
        return "Touch the sensor to deal the rest."
    if step.why == "again":
        return f"Check that load {step.load} sits flat in the tray, then touch the sensor again."
    if step.why == "retry":
        return "Touch the sensor to try again."
    if step.why == "manual":
        return "Touch the sensor and wait until the shuffler stops."
    return "Touch the sensor to start the pass."


def _draw(step: Draw) -> str:
    nxt = step.next_round
    if all(len(parts) == 1 and parts[0][2] for _, parts in step.loads):
        said = [f"{place(parts[0][0])} is load {name}" for name, parts in step.loads]
        first = said[0][0].upper() + said[0][1:] + f" for round {nxt}"
        return "; ".join([first] + said[1:]) + "."
    out = []
    for name, parts in step.loads:
        bits = []
        for stack, count, rest in parts:
            if rest:
                bits.append(f"what is left of {place(stack)} ({cards(count)})")
            else:
                bits.append(f"the top {cards(count)} of {place(stack)}")
        out.append(f"Load {name} for round {nxt}: {' on top of '.join(bits)}.")
    return " ".join(out)


# Cards caught in the exit go back in the order they had in the tray: the
# codes (and the piles of a random pass) are dealt by place in the load, and
# the card fed first, the tray's bottom card, lies lowest in the exit.
_CAUGHT = ("Take any cards caught in the exit out together, face down, keeping them as they lay (the lowest one "
           "left the tray first and stays lowest: the order they had in the tray), and slide them under the cards "
           "in the tray")


def _fix(step: Fix) -> str:
    if step.what == "stopped":
        return ("The guide was stopped: did anyone touch the cards since, on the table or on the machine? If not, "
                "press Enter and answer the steps below as the cards lie. If they were moved, put them back as they "
                "lay when the guide stopped, then press Enter; if that cannot be done, press Ctrl-C, gather every "
                "card into one pack and run the guide again without --resume (a fresh routine).")
    if step.what == "jam":
        return "Free the stuck card and push it back under the load; do not touch the piles."
    if step.what == "exit":
        return f"{_CAUGHT}; do not touch the piles."
    if step.what == "put_back":
        return (f"Find the {cards(step.cards or 0)} that came out of the tray and put them back in the tray "
                "in the same order.")
    if step.what == "battery":
        return f"Replace the battery. {_CAUGHT}; leave the piles as they are."
    if step.what == "battery_idle":
        return "Replace the battery; leave the load in the tray."
    if step.what == "sensor":
        return "Check the sensors' wiring and plugs; leave the cards as they are."
    if step.what == "exit_sensor":
        return f"{_CAUGHT}. If the exit is empty, check the exit sensor's wiring and plug. Do not touch the piles."
    if step.what == "count_sensor":
        return "Check the count sensor's (load cell's) wiring and plug; leave the cards as they are."
    if step.what == "touch_sensor":
        return "Check the touch sensor's wiring and plug; leave the cards as they are."
    if step.what == "battery_sensor":
        return "Check the battery's clip and the wire to the board; leave the cards as they are."
    if step.what == "missing":
        return (f"Find the {cards(step.cards or 0)} missing from load {step.load} (on the table, in the exit, under "
                f"the machine) and put them at its bottom.")
    if step.what == "extra":
        return f"Take {cards(step.cards or 0)} off the bottom of load {step.load} and keep them apart."
    if step.what == "foreign":
        return (f"Look through load {step.load} for {cards(step.cards or 0)} of another pack (a back or a face unlike "
                "the rest), take them out and put them away from the table: they are not this pack's.")
    if step.what == "anywhere":
        return (f"Find the {cards(step.cards or 0)} missing from load {step.load} (on the table, in the exit, under "
                f"the machine) and put them into it anywhere: its codes are drawn afresh, so where they go does not "
                "matter.")
    if step.what == "regather":
        return (f"Take load {step.load}'s piles off the machine and put them together with any of its cards left in "
                f"the tray into one stack, face down, in any order: its codes are drawn afresh, so the order does "
                "not matter.")
    raise ValueError(f"no such fix: {step.what!r}")


_ONE_LOAD = "Run the pack as one load and put the left pile on the right pile"


def _top(n: int) -> str:
    """'the top card', 'the top 40 cards'."""
    return "the top card" if n == 1 else f"the top {n} cards"


def _round_summary(step: RoundSummary) -> str:
    sizes = list(step.sizes)
    loads = "" if step.routine in ("exact-split", "exact-pipelined") else loads_phrase(sizes)  # parts differ
    if step.routine == "exact":
        gather = ("put the left pile on top of the right pile" if len(sizes) == 1
                  else "stack all the left piles on top of all the right piles, as pile-trade does, "
                       "and cut where the device says")
        b = step.rounds
        return (f"The device sends each card to the side one bit of its random code names; run every load "
                f"({loads}) and {gather}: exactly random after {number(b)} "
                f"{'round' if b == 1 else 'rounds'}, at random after that.")
    if step.routine == "exact-split":
        parts = " and ".join([", ".join(str(x) for x in sizes[:-1]), str(sizes[-1])] if len(sizes) > 1
                             else [str(sizes[0])])
        p = step.rounds
        return (f"The pack is dealt into {number(len(sizes))} parts that each fit the tray ({parts} cards, top "
                f"first), and each part is then dealt on its own, its left pile on its right pile between passes; "
                f"the device sends each card to the side its place in the final pack names: exactly random after "
                f"{number(p)} {'pass' if p == 1 else 'passes'}, at random after that.")
    if step.routine == "exact-pipelined":
        whole, held = sizes[0], sizes[1]
        return (f"One pass of the top {whole} cards holds {number(held)} of them out; the rest, on top of the "
                f"bottom {number(held)}, are dealt on their own, then the {number(held)} held out, each load's left "
                f"pile on its right pile between passes, and the held-out cards go between the last two piles; the "
                f"device sends each card to the side its place in the final pack names: exactly random after "
                f"{number(step.rounds)} passes, at random after that.")
    if step.routine == "stack-trade":
        if len(sizes) == 1:
            return f"{_ONE_LOAD}; with one load there is nothing to trade."
        head = f"Run each load ({loads}) and put its left pile on its right pile, then "
        t = _top(step.trade)
        if len(sizes) == 2:
            return head + f"trade {t} of load A for {t} of load B."
        last = f"load {chr(ord('A') + len(sizes) - 1)}" if len(sizes) <= 26 else "the last load"
        return head + f"move {t} of each load onto the next load, and those of {last} onto load A."
    if step.routine == "pile-trade":
        if len(sizes) == 1:
            return f"{_ONE_LOAD}."
        if len(sizes) == 2:
            return (f"Run both loads ({loads}), then stack A's left pile, B's left pile, "
                    "A's right pile and B's right pile, top to bottom, and cut that into two loads.")
        return (f"Run every load ({loads}), then stack all the left piles in load order "
                "on top of all the right piles in load order, and cut that into even loads.")
    raise ValueError(f"unknown routine {step.routine!r}")


# -- as plain data ---------------------------------------------------------------------

def to_dict(step: Step) -> dict[str, Any]:
    """The step as JSON-ready data: its kind, its fields and its words."""
    out: dict[str, Any] = {"kind": type(step).__name__.lower()}
    out.update(asdict(step))
    out["words"] = words(step)
    return out


def kind_names() -> list[str]:
    return [t.__name__.lower() for t in STEP_TYPES]


def field_names(step_type: type) -> list[str]:
    return [f.name for f in fields(step_type)]


# -- carrying out the table work ----------------------------------------------------------

class TableError(ValueError):
    """A step that cannot be done with what is on the table."""


def do_on_table(step: Step, table: dict[str, list[Any]]) -> None:
    """Carry out a step that only moves cards on the table (Cut, Stack, Move,
    EvenOut, Draw, Gather, Swap, and Collect's table part) on `table`: place name -> cards, top first. Steps
    that need the machine (PutInTray, Touch, Lift, Unload, SetAside, Fix,
    RoundSummary) are the person's own business and raise TypeError."""

    def pop(name: str) -> list[Any]:
        if name not in table:
            raise TableError(f"there is no {place(name)} on the table "
                             f"(the table has {', '.join(place(x) for x in table) or 'nothing'})")
        return table.pop(name)

    if isinstance(step, Cut):
        stack = pop(step.source)
        at = 0
        for name, size in zip(step.names, step.sizes):
            table[name] = stack[at:at + size]
            at += size
        if at != len(stack):
            table[step.source] = stack  # nothing was cut
            for name in step.names:
                table.pop(name, None)
            raise TableError(f"the cut sizes add up to {at}, {place(step.source)} holds {len(stack)}")
    elif isinstance(step, Collect):
        every: list[Any] = []
        for name in list(table):
            every += table.pop(name)
        table[PACK] = every
    elif isinstance(step, (Stack, Gather)):
        out: list[Any] = []
        for part in step.parts:  # top first
            if isinstance(step, Stack) and part in step.may_be_empty and not table.get(part):
                table.pop(part, None)  # no card went there
                continue
            out += pop(part)
        table[step.result if isinstance(step, Stack) else PACK] = out
    elif isinstance(step, Move):
        top, bottom = pop(step.upper), pop(step.lower)
        n = step.cards
        if step.down:  # the bottom n of the upper load onto the top of the lower one
            if n > len(top):
                raise TableError(f"load {step.upper} holds {len(top)} cards, not {n}")
            top, bottom = top[:len(top) - n], top[len(top) - n:] + bottom
        else:  # the top n of the lower load under the upper one
            if n > len(bottom):
                raise TableError(f"load {step.lower} holds {len(bottom)} cards, not {n}")
            top, bottom = top + bottom[:n], bottom[n:]
        table[step.upper], table[step.lower] = top, bottom
    elif isinstance(step, Swap):
        a, b = pop(step.first), pop(step.second)
        table[step.first], table[step.second] = b, a
    elif isinstance(step, EvenOut):
        both = pop(step.upper) + pop(step.lower)
        table[step.upper], table[step.lower] = both[:step.sizes[0]], both[step.sizes[0]:]
    elif isinstance(step, Draw):
        for name, parts in step.loads:
            load: list[Any] = []
            for stack_name, count, _rest in parts:  # the first part ends on top
                stack = pop(stack_name)
                if count > len(stack):
                    raise TableError(f"{place(stack_name)} holds {len(stack)} cards, not {count}")
                load += stack[:count]
                if stack[count:]:
                    table[stack_name] = stack[count:]
            table[name] = load
    else:
        raise TypeError(f"{type(step).__name__} needs the machine, not only the table")
