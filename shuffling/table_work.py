"""Carrying out a step that only moves cards on the table, on a table of
place names to cards (the scripted person's and the virtual table's)."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from shuffling.step_names import PACK
from shuffling.step_records import (Collect, Cut, CutDoesNotAddUp, Draw, EvenOut, Gather, HoldsTooFew, Move,
                                    NotOnTable, Stack, Step, Swap, TableTrouble)
from shuffling.step_words import trouble_words


# -- carrying out the table work ----------------------------------------------------------

class TableError(ValueError):
    """A step that cannot be done with what is on the table: `record` says why, its words are the message."""

    def __init__(self, record: TableTrouble) -> None:
        super().__init__(trouble_words(record))
        self.record = record


Table = dict[str, list[Any]]  # place name -> cards, top first


def do_on_table(step: Step, table: Table) -> None:
    """Carry out a step that only moves cards on the table (Cut, Stack, Move,
    EvenOut, Draw, Gather, Swap, and Collect's table part) on `table`: place name -> cards, top first. Steps
    that need the machine (PutInTray, Touch, Lift, Unload, SetAside, Fix,
    RoundSummary) are the person's own business and raise TypeError. A step
    that cannot be done (TableError) leaves the table as it was: the work is
    done on a copy, kept only when the step is done."""
    work = _TABLE_WORK.get(type(step))
    if work is None:
        raise TypeError(f"{type(step).__name__} needs the machine, not only the table")
    trial = {name: list(cards) for name, cards in table.items()}
    work(step, trial)
    table.clear()
    table.update(trial)


def _pop(table: Table, name: str) -> list[Any]:
    if name not in table:
        raise TableError(NotOnTable(name, tuple(table)))
    return table.pop(name)


def _cut(step: Cut, table: Table) -> None:
    stack = _pop(table, step.source)
    at = 0
    for name, size in zip(step.names, step.sizes):
        table[name] = stack[at:at + size]
        at += size
    if at != len(stack):
        table[step.source] = stack  # nothing was cut
        for name in step.names:
            table.pop(name, None)
        raise TableError(CutDoesNotAddUp(step.source, at, len(stack)))


def _collect(step: Collect, table: Table) -> None:
    every: list[Any] = []
    for name in list(table):
        every += table.pop(name)
    table[PACK] = every


def _stack(step: Stack | Gather, table: Table) -> None:
    out: list[Any] = []
    for part in step.parts:  # top first
        if isinstance(step, Stack) and part in step.may_be_empty and not table.get(part):
            table.pop(part, None)  # no card went there
            continue
        out += _pop(table, part)
    table[step.result if isinstance(step, Stack) else PACK] = out


def _move(step: Move, table: Table) -> None:
    top, bottom = _pop(table, step.upper), _pop(table, step.lower)
    n = step.cards
    if step.down:  # the bottom n of the upper load onto the top of the lower one
        if n > len(top):
            raise TableError(HoldsTooFew(step.upper, len(top), n))
        top, bottom = top[:len(top) - n], top[len(top) - n:] + bottom
    else:  # the top n of the lower load under the upper one
        if n > len(bottom):
            raise TableError(HoldsTooFew(step.lower, len(bottom), n))
        top, bottom = top + bottom[:n], bottom[n:]
    table[step.upper], table[step.lower] = top, bottom


def _swap(step: Swap, table: Table) -> None:
    a, b = _pop(table, step.first), _pop(table, step.second)
    table[step.first], table[step.second] = b, a


def _even_out(step: EvenOut, table: Table) -> None:
    both = _pop(table, step.upper) + _pop(table, step.lower)
    table[step.upper], table[step.lower] = both[:step.sizes[0]], both[step.sizes[0]:]


def _draw(step: Draw, table: Table) -> None:
    for name, parts in step.loads:
        load: list[Any] = []
        for stack_name, count, _rest in parts:  # the first part ends on top
            stack = _pop(table, stack_name)
            if count > len(stack):
                raise TableError(HoldsTooFew(stack_name, len(stack), count))
            load += stack[:count]
            if stack[count:]:
                table[stack_name] = stack[count:]
        table[name] = load


# The steps done on the table alone, each by its own work.
_TABLE_WORK: dict[type, Callable[[Any, Table], None]] = {
    Cut: _cut, Collect: _collect, Stack: _stack, Gather: _stack, Move: _move, Swap: _swap, EvenOut: _even_out,
    Draw: _draw,
}


__all__ = ["TableError", "do_on_table"]
