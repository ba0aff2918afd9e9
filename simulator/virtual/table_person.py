"""A person at a virtual shuffler's card table who carries out the guide's
steps (shuffling/steps.py) with the real cards.

`commands(step, table)` says what a person types for a step: `shuffler table`
command lines (without the `shuffler table` in front). `TablePerson` runs
them through the control endpoint, the same requests the command line sends;
a test or a page may instead run them as commands. The steps are data;
nothing here reads English. Places keep the steps' names (pack, A, A.left,
left stack, aside), so what the guide calls a place is a stack of the same
name on the table, and `show` can check at any moment that every card is
there once.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from shuffling import steps
from simulator.virtual.faults import FRESH_BATTERY_MV
from simulator.virtual.world_client import WorldClient

Command = tuple[str, ...]
CAUGHT = "caught"  # the cards taken out of the exit, for a moment
BACK = "found"  # the cards found around the machine, for a moment


def _stack_up(parts: tuple[str, ...], result: str) -> list[Command]:
    """parts on one another, the first on top, named result."""
    out: list[Command] = [("stack", part, parts[-1]) for part in reversed(parts[:-1])]
    if result != parts[-1]:
        out.append(("stack", parts[-1], result))
    return out


def commands(step: steps.Step, table: dict[str, Any]) -> list[Command]:
    """The table commands that carry out `step`; `table` is what `show` gives now."""
    hands = _HANDS.get(type(step))
    if hands is None:
        raise TypeError(f"not a step: {step!r}")
    return hands(step, table["stacks"], table["places"])


Stacks = dict[str, list[Any]]  # the stacks on the table by name, as `show` gives them
Places = dict[str, list[Any]]  # the machine's places (left, right, tray, throat, removed)


def _cut(step: steps.Cut, stacks: Stacks, places: Places) -> list[Command]:
    out: list[Command] = [("move", str(size), step.source, name)
                          for name, size in zip(step.names[:-1], step.sizes[:-1]) if size]
    if step.names[-1] != step.source:
        out.append(("stack", step.source, step.names[-1]))  # the rest is the last load
    return out


def _reload(step: steps.Reload, stacks: Stacks, places: Places) -> list[Command]:
    """The piles off the machine, the left on the right, straight back in."""
    return _lift(step, stacks, places, stacked=True) + [("put", step.load)]


def _put(step: steps.PutInTray, stacks: Stacks, places: Places) -> list[Command]:
    if getattr(step, "rest", False) and step.load not in stacks:
        return []  # the rest of a load after a stop: it is in the tray already
    return [("put", step.load)]


def _touch(step: steps.Touch, stacks: Stacks, places: Places) -> list[Command]:
    return [("touch",)]


def _lift(step: steps.Lift | steps.Reload, stacks: Stacks, places: Places, stacked: bool = False) -> list[Command]:
    left, right = steps.left_of(step.load), steps.right_of(step.load)
    lift: list[Command] = [("lift", "left", left), ("lift", "right", right)]
    if stacked or getattr(step, "stacked", False):
        return lift + _stack_up((left, right), step.load)
    return lift


def _stack(step: steps.Stack, stacks: Stacks, places: Places) -> list[Command]:
    # A pile the step says may have no card, and has none, is left out.
    there = tuple(part for part in step.parts if part in stacks or part not in step.may_be_empty)
    return _stack_up(there, step.result) if there else []


def _gather(step: steps.Gather, stacks: Stacks, places: Places) -> list[Command]:
    return _stack_up(step.parts, steps.PACK)


def _move(step: steps.Move, stacks: Stacks, places: Places) -> list[Command]:
    if step.down:
        return [("move", str(step.cards), step.upper, step.lower, "--from-bottom")]
    return [("move", str(step.cards), step.lower, step.upper, "--to-bottom")]


def _even_out(step: steps.EvenOut, stacks: Stacks, places: Places) -> list[Command]:
    upper, want = len(stacks.get(step.upper, [])), step.sizes[0]
    if upper > want:
        return [("move", str(upper - want), step.upper, step.lower, "--from-bottom")]
    if upper < want:
        return [("move", str(want - upper), step.lower, step.upper, "--to-bottom")]
    return []


def _draw(step: steps.Draw, stacks: Stacks, places: Places) -> list[Command]:
    out: list[Command] = []
    left = {name: len(cards) for name, cards in stacks.items()}
    for name, parts in step.loads:
        for i, (stack, count, _rest) in enumerate(parts):  # the first part ends on top
            if count and count == left.get(stack):
                out.append(("stack", stack, name, *(("--under",) if i else ())))  # all that is left of it
            elif count:
                out.append(("move", str(count), stack, name, *(("--to-bottom",) if i else ())))
            left[stack] = left.get(stack, 0) - count
    return out


def _swap(step: steps.Swap, stacks: Stacks, places: Places) -> list[Command]:
    return [("lift", "tray", step.second)]  # the cards in the tray are the other load


def _unload(step: steps.Unload, stacks: Stacks, places: Places) -> list[Command]:
    return [("lift", "tray", step.load)]


def _set_aside(step: steps.SetAside, stacks: Stacks, places: Places) -> list[Command]:
    return [("lift", "tray", steps.ASIDE, "--top", str(step.cards))]


def _collect(step: steps.Collect, stacks: Stacks, places: Places) -> list[Command]:
    out: list[Command] = [("lift", place, steps.PACK) for place in ("left", "right", "tray", "throat", "removed")
                          if places[place]]
    return out + [("stack", name, steps.PACK) for name in stacks if name != steps.PACK]


def _fix(step: steps.Fix, stacks: Stacks, places: Places) -> list[Command]:
    if step.what == "stopped":  # a question after a stop: nothing to do at the table
        return []
    out: list[Command] = []
    if step.what in ("exit", "exit_sensor", "battery") and places["throat"]:
        out += [("lift", "throat", CAUGHT), ("put", CAUGHT, "--under")]
    elif step.what == "put_back" and places["removed"]:
        out += [("lift", "removed", BACK), ("put", BACK)]
    elif step.what == "regather" and step.load:
        out += [("lift", place, step.load, *(("--under",) if i else ())) for i, place in
                enumerate(p for p in ("left", "right", "tray") if places[p])]
        return out
    return out + [("clear",)]


# What a person types for each kind of step (a Reload is a PutInTray of its own kind).
_HANDS: dict[type, Callable[[Any, Stacks, Places], list[Command]]] = {
    steps.Cut: _cut, steps.Reload: _reload, steps.PutInTray: _put, steps.Touch: _touch, steps.Lift: _lift,
    steps.Stack: _stack, steps.Gather: _gather, steps.Move: _move, steps.EvenOut: _even_out, steps.Draw: _draw,
    steps.Swap: _swap, steps.Unload: _unload, steps.SetAside: _set_aside, steps.Collect: _collect, steps.Fix: _fix,
}


def apply(world: WorldClient, command: Command) -> None:
    """Run one table command line through the client, as `shuffler table` does."""
    name, *args = command
    flags = {a for a in args if a.startswith("--")}
    words = [a for a in args if not a.startswith("--")]
    top = None
    if "--top" in flags:
        top = int(args[args.index("--top") + 1])
        words.remove(args[args.index("--top") + 1])
    end = "bottom" if "--under" in flags else "top"
    if name == "put":
        world.put(words[0], int(words[1]) if len(words) > 1 else None, end)
    elif name == "touch":
        world.touch(150)
    elif name == "lift":
        world.lift(words[0], words[1], end, top)
    elif name == "stack":
        world.put_stack(words[0], words[1], end)
    elif name == "move":
        world.move(int(words[0]), words[1], words[2], "bottom" if "--from-bottom" in flags else "top",
                   "bottom" if "--to-bottom" in flags else "top")
    elif name == "clear":
        world.fix()
        world.set_battery(FRESH_BATTERY_MV)
    else:
        raise ValueError(f"a person at the table does not {name}")


class TablePerson:
    """Does each step exactly as told; `do` raises WorldError when the table
    cannot (no such stack, too few cards). `typed` keeps every command run."""

    def __init__(self, world: WorldClient) -> None:
        self.world = world
        self.typed: list[Command] = []

    def stacks(self) -> dict[str, list[Any]]:
        return dict(self.world.show()["stacks"])

    def do(self, step: steps.Step) -> list[Command]:
        todo = commands(step, self.world.show())
        for command in todo:
            apply(self.world, command)
            self.typed.append(command)
        return todo


def from_dict(data: dict[str, Any]) -> steps.Step:
    """A step back from `steps.to_dict` (JSON turns tuples into lists)."""
    kinds = {t.__name__.lower(): t for t in steps.STEP_TYPES}
    cls = kinds[data["kind"]]
    args: dict[str, Any] = {}
    for name in steps.field_names(cls):
        if name in data:
            args[name] = _tuples(data[name])
    return cls(**args)


def _tuples(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_tuples(v) for v in value)
    return value
