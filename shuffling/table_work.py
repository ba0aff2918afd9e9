"""Carrying out a step that only moves cards on the table, on a table of
place names to cards (the scripted person's and the virtual table's)."""
from __future__ import annotations

from typing import Any

from shuffling.step_names import *  # noqa: F403 - the places' names
from shuffling.step_records import *  # noqa: F403 - the steps carried out


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


__all__ = ["TableError", "do_on_table"]
