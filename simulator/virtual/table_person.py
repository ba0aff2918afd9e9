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
    stacks: dict[str, list[Any]] = table["stacks"]
    places: dict[str, list[Any]] = table["places"]
    if isinstance(step, steps.Cut):
        out: list[Command] = [("move", str(size), step.source, name)
                              for name, size in zip(step.names[:-1], step.sizes[:-1]) if size]
        if step.names[-1] != step.source:
            out.append(("stack", step.source, step.names[-1]))  # the rest is the last load
        return out
    if isinstance(step, steps.Reload):  # the piles off the machine, the left on the right, straight back in
        lift = [("lift", "left", steps.left_of(step.load)), ("lift", "right", steps.right_of(step.load))]
        return lift + _stack_up((steps.left_of(step.load), steps.right_of(step.load)), step.load) + [("put", step.load)]
    if isinstance(step, steps.PutInTray):
        if getattr(step, "rest", False) and step.load not in stacks:
            return []  # the rest of a load after a stop: it is in the tray already
        return [("put", step.load)]
    if isinstance(step, steps.Touch):
        return [("touch",)]
    if isinstance(step, steps.Lift):
        lift: list[Command] = [("lift", "left", steps.left_of(step.load)), ("lift", "right", steps.right_of(step.load))]
        if step.stacked:
            return lift + _stack_up((steps.left_of(step.load), steps.right_of(step.load)), step.load)
        return lift
    if isinstance(step, steps.Stack):
        # A pile the step says may have no card, and has none, is left out.
        there = tuple(part for part in step.parts if part in stacks or part not in step.may_be_empty)
        return _stack_up(there, step.result) if there else []
    if isinstance(step, steps.Gather):
        return _stack_up(step.parts, steps.PACK)
    if isinstance(step, steps.Move):
        if step.down:
            return [("move", str(step.cards), step.upper, step.lower, "--from-bottom")]
        return [("move", str(step.cards), step.lower, step.upper, "--to-bottom")]
    if isinstance(step, steps.EvenOut):
        upper, want = len(stacks.get(step.upper, [])), step.sizes[0]
        if upper > want:
            return [("move", str(upper - want), step.upper, step.lower, "--from-bottom")]
        if upper < want:
            return [("move", str(want - upper), step.lower, step.upper, "--to-bottom")]
        return []
    if isinstance(step, steps.Draw):
        out = []
        left = {name: len(cards) for name, cards in stacks.items()}
        for name, parts in step.loads:
            for i, (stack, count, _rest) in enumerate(parts):  # the first part ends on top
                if count and count == left.get(stack):
                    out.append(("stack", stack, name, *(("--under",) if i else ())))  # all that is left of it
                elif count:
                    out.append(("move", str(count), stack, name, *(("--to-bottom",) if i else ())))
                left[stack] = left.get(stack, 0) - count
        return out
    if isinstance(step, steps.Swap):
        return [("lift", "tray", step.second)]  # the cards in the tray are the other load
    if isinstance(step, steps.Unload):
        return [("lift", "tray", step.load)]
    if isinstance(step, steps.SetAside):
        return [("lift", "tray", steps.ASIDE, "--top", str(step.cards))]
    if isinstance(step, steps.Collect):
        out = [("lift", place, steps.PACK) for place in ("left", "right", "tray", "throat", "removed") if places[place]]
        return out + [("stack", name, steps.PACK) for name in stacks if name != steps.PACK]
    if isinstance(step, steps.Fix):
        if step.what == "stopped":  # a question after a stop: nothing to do at the table
            return []
        out = []
        if step.what in ("exit", "exit_sensor", "battery") and places["throat"]:
            out += [("lift", "throat", CAUGHT), ("put", CAUGHT, "--under")]
        elif step.what == "put_back" and places["removed"]:
            out += [("lift", "removed", BACK), ("put", BACK)]
        elif step.what == "regather" and step.load:
            out += [("lift", place, step.load, *(("--under",) if i else ())) for i, place in
                    enumerate(p for p in ("left", "right", "tray") if places[p])]
            return out
        return out + [("clear",)]
    raise TypeError(f"not a step: {step!r}")


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
