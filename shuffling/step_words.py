"""The one English wording of each step (shuffling/step_records.py): a
function of its fields. No one parses it back."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from shuffling.step_names import ASIDE, LEFT_STACK, PACK, RIGHT_STACK, _count, cards, loads_phrase, number, place
from shuffling.step_records import (Collect, Cut, CutDoesNotAddUp, Draw, EvenOut, Fix, Gather, HoldsTooFew, Lift,
                                    Move, NotOnTable, PutInTray, Reload, RoundSummary, SetAside, Stack, Step, Swap,
                                    TableTrouble, Touch, Unload)


# -- the words ------------------------------------------------------------------------

def words(step: Step) -> str:
    """The one English wording of a step."""
    wording = _WORDING.get(type(step))
    if wording is None:
        raise TypeError(f"not a step: {step!r}")
    return wording(step)


def _reload(step: Reload) -> str:
    if step.after_stop:  # its piles may be off the machine already
        return (f"Put load {step.load} back in the tray, face down{_count(step.cards)}: its left pile on top of its "
                "right pile, if they still lie apart on the machine.")
    return (f"Put {step.load}'s left pile on top of its right pile and put them straight back in the tray, "
            f"face down{_count(step.cards)}.")


def _put_in_tray(step: PutInTray) -> str:
    if step.load == ASIDE:
        return f"Put the {cards(step.cards or 0)} you kept aside in the tray."
    if step.rest:
        return (f"Leave the piles where they are and make sure the cards of load {step.load} not yet dealt "
                "are in the tray, face down, in the same order.")
    where = "back in the tray" if step.again else "face down in the tray"
    return f"Put load {step.load}{_count(step.cards, step.about)} {where}."


def _lift(step: Lift) -> str:
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


def _move(step: Move) -> str:
    text = "M" + move_phrase(step)[1:]
    if step.sizes is not None:
        text += f": {step.upper} {step.sizes[0]}, {step.lower} {step.sizes[1]}"
    return text + "."


def _even_out(step: EvenOut) -> str:
    a, b = step.upper, step.lower
    return (f"Even them out by eye to about {step.sizes[0]} and {step.sizes[1]}: move cards from the bottom "
            f"of load {a} to the top of load {b}, or from the top of {b} to the bottom of {a}.")


def _gather(step: Gather) -> str:
    done = (f"the pack, after fewer rounds than '{step.short_of}' needs" if step.short_of
            else "the pack is shuffled and ready to deal")
    if len(step.parts) == 1:
        return f"{_capital(done)}."
    return f"Put {_on_top(step.parts)}: {'that is ' if step.short_of else ''}{done}."


def _swap(step: Swap) -> str:
    return (f"Those cards are load {step.second}: put them where load {step.second} goes, and take "
            f"load {step.first} instead.")


def _unload(step: Unload) -> str:
    return f"Take the cards you put in as load {step.load} back out of the tray."


def _set_aside(step: SetAside) -> str:
    return f"Lift the top {cards(step.cards)} off the load in the tray and keep them aside, in order."


def _collect(step: Collect) -> str:
    return (f"Put all {cards(step.cards)} together face down into one pack, in any order: both piles on the "
            "machine, any cards in the tray or caught in the exit, and every stack and load on the table."
            + (f" Load {step.load} was {cards(step.missing)} short: look for "
               f"{'them' if step.missing > 1 else 'it'} in the other stacks, in the exit and under the machine too."
               if step.missing else ""))


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


# Each fix's words by its `what`: those that say no count, then those that
# name the load and its cards.
_FIX_WORDS = {
    "stopped": ("The guide was stopped: did anyone touch the cards since, on the table or on the machine? If not, "
                "press Enter and answer the steps below as the cards lie. If they were moved, put them back as they "
                "lay when the guide stopped, then press Enter; if that cannot be done, press Ctrl-C, gather every "
                "card into one pack and run the guide again without --resume (a fresh routine)."),
    "jam": "Free the stuck card and push it back under the load; do not touch the piles.",
    "exit": f"{_CAUGHT}; do not touch the piles.",
    "battery": f"Replace the battery. {_CAUGHT}; leave the piles as they are.",
    "battery_idle": "Replace the battery; leave the load in the tray.",
    "sensor": "Check the sensors' wiring and plugs; leave the cards as they are.",
    "exit_sensor": f"{_CAUGHT}. If the exit is empty, check the exit sensor's wiring and plug. Do not touch the piles.",
    "count_sensor": "Check the count sensor's (load cell's) wiring and plug; leave the cards as they are.",
    "touch_sensor": "Check the touch sensor's wiring and plug; leave the cards as they are.",
    "battery_sensor": "Check the battery's clip and the wire to the board; leave the cards as they are.",
}
_FIX_WORDS_OF_CARDS: dict[str, Callable[[Fix], str]] = {
    "put_back": lambda step: (f"Find the {cards(step.cards or 0)} that came out of the tray and put them back in "
                              "the tray in the same order."),
    "missing": lambda step: (f"Find the {cards(step.cards or 0)} missing from load {step.load} (on the table, in "
                             f"the exit, under the machine) and put them at its bottom."),
    "extra": lambda step: f"Take {cards(step.cards or 0)} off the bottom of load {step.load} and keep them apart.",
    "foreign": lambda step: (f"Look through load {step.load} for {cards(step.cards or 0)} of another pack (a back "
                             "or a face unlike the rest), take them out and put them away from the table: they are "
                             "not this pack's."),
    "anywhere": lambda step: (f"Find the {cards(step.cards or 0)} missing from load {step.load} (on the table, in "
                              f"the exit, under the machine) and put them into it anywhere: its codes are drawn "
                              "afresh, so where they go does not matter."),
    "regather": lambda step: (f"Take load {step.load}'s piles off the machine and put them together with any of its "
                              f"cards left in the tray into one stack, face down, in any order: its codes are drawn "
                              "afresh, so the order does not matter."),
}


def _fix(step: Fix) -> str:
    if step.what in _FIX_WORDS:
        return _FIX_WORDS[step.what]
    if step.what in _FIX_WORDS_OF_CARDS:
        return _FIX_WORDS_OF_CARDS[step.what](step)
    raise ValueError(f"no such fix: {step.what!r}")


_ONE_LOAD = "Run the pack as one load and put the left pile on the right pile"


def _top(n: int) -> str:
    """'the top card', 'the top 40 cards'."""
    return "the top card" if n == 1 else f"the top {n} cards"


def _exact_summary(step: RoundSummary) -> str:
    sizes = list(step.sizes)
    gather = ("put the left pile on top of the right pile" if len(sizes) == 1
              else "stack all the left piles on top of all the right piles, as pile-trade does, "
                   "and cut where the device says")
    b = step.rounds
    return (f"The device sends each card to the side one bit of its random code names; run every load "
            f"({loads_phrase(sizes)}) and {gather}: exactly random after {number(b)} "
            f"{'round' if b == 1 else 'rounds'}, at random after that.")


def _split_summary(step: RoundSummary) -> str:
    sizes = list(step.sizes)  # the parts: they differ, so each is said
    parts = " and ".join([", ".join(str(x) for x in sizes[:-1]), str(sizes[-1])] if len(sizes) > 1
                         else [str(sizes[0])])
    p = step.rounds
    return (f"The pack is dealt into {number(len(sizes))} parts that each fit the tray ({parts} cards, top "
            f"first), and each part is then dealt on its own, its left pile on its right pile between passes; "
            f"the device sends each card to the side its place in the final pack names: exactly random after "
            f"{number(p)} {'pass' if p == 1 else 'passes'}, at random after that.")


def _pipelined_summary(step: RoundSummary) -> str:
    sizes = list(step.sizes)
    whole, held = sizes[0], sizes[1]
    return (f"One pass of the top {whole} cards holds {number(held)} of them out; the rest, on top of the "
            f"bottom {number(held)}, are dealt on their own, then the {number(held)} held out, each load's left "
            f"pile on its right pile between passes, and the held-out cards go between the last two piles; the "
            f"device sends each card to the side its place in the final pack names: exactly random after "
            f"{number(step.rounds)} passes, at random after that.")


def _stack_trade_summary(step: RoundSummary) -> str:
    sizes = list(step.sizes)
    if len(sizes) == 1:
        return f"{_ONE_LOAD}; with one load there is nothing to trade."
    head = f"Run each load ({loads_phrase(sizes)}) and put its left pile on its right pile, then "
    t = _top(step.trade)
    if len(sizes) == 2:
        return head + f"trade {t} of load A for {t} of load B."
    last = f"load {chr(ord('A') + len(sizes) - 1)}" if len(sizes) <= 26 else "the last load"
    return head + f"move {t} of each load onto the next load, and those of {last} onto load A."


def _pile_trade_summary(step: RoundSummary) -> str:
    sizes = list(step.sizes)
    if len(sizes) == 1:
        return f"{_ONE_LOAD}."
    if len(sizes) == 2:
        return (f"Run both loads ({loads_phrase(sizes)}), then stack A's left pile, B's left pile, "
                "A's right pile and B's right pile, top to bottom, and cut that into two loads.")
    return (f"Run every load ({loads_phrase(sizes)}), then stack all the left piles in load order "
            "on top of all the right piles in load order, and cut that into even loads.")


# Each routine's summary of a round, by its name.
_ROUND_SUMMARIES: dict[str, Callable[[RoundSummary], str]] = {
    "exact": _exact_summary, "exact-split": _split_summary, "exact-pipelined": _pipelined_summary,
    "stack-trade": _stack_trade_summary, "pile-trade": _pile_trade_summary,
}


def _round_summary(step: RoundSummary) -> str:
    if step.routine not in _ROUND_SUMMARIES:
        raise ValueError(f"unknown routine {step.routine!r}")
    return _ROUND_SUMMARIES[step.routine](step)


# Each kind of step's wording (a Reload is a PutInTray of its own kind, worded apart).
_WORDING: dict[type, Callable[[Any], str]] = {
    Cut: _cut, Reload: _reload, PutInTray: _put_in_tray, Touch: _touch, Lift: _lift, Stack: _stack, Move: _move,
    EvenOut: _even_out, Draw: _draw, Gather: _gather, Swap: _swap, Unload: _unload, SetAside: _set_aside, Fix: _fix,
    Collect: _collect, RoundSummary: _round_summary,
}


def trouble_words(trouble: TableTrouble) -> str:
    """Why a step cannot be done with what is on the table, in words."""
    if isinstance(trouble, NotOnTable):
        return (f"there is no {place(trouble.name)} on the table "
                f"(the table has {', '.join(place(x) for x in trouble.on_table) or 'nothing'})")
    if isinstance(trouble, CutDoesNotAddUp):
        return f"the cut sizes add up to {trouble.total}, {place(trouble.source)} holds {trouble.holds}"
    return f"{place(trouble.name)} holds {trouble.holds} cards, not {trouble.wanted}"


__all__ = ["words", "move_phrase", "trouble_words"]
