"""A person at a virtual shuffler's card table who carries out the guide's
steps (simulator/steps.py) with the real cards, through the control endpoint
`shuffler table` uses.

The steps are data; nothing here reads English. Places keep the steps' names
(pack, A, A.left, left stack, aside), so what the guide calls a place is a
stack of the same name on the table, and `show` can check at any moment that
every card is there once.
"""
from __future__ import annotations

from typing import Any

from simulator import steps as T
from simulator.virtual.faults import FRESH_BATTERY_MV
from simulator.virtual.world_client import WorldClient

# Stacks a person makes for a moment with their hands (never left on the table).
_HAND = "_hand"
_TRAY = "_tray"
_CAUGHT = "_caught"


class TablePerson:
    """Does each step exactly as told; `do` raises WorldError when the table
    cannot (no such stack, too few cards)."""

    def __init__(self, world: WorldClient) -> None:
        self.world = world

    def stacks(self) -> dict[str, list[Any]]:
        return dict(self.world.show()["stacks"])

    def do(self, step: T.Step) -> None:
        w = self.world
        if isinstance(step, T.Cut):
            self._cut(step.source, step.names, step.sizes)
        elif isinstance(step, T.PutInTray):
            if not getattr(step, "rest", False) or step.load in self.stacks():
                w.put(step.load)  # the rest of a load after a stop is in the tray already
        elif isinstance(step, T.Touch):
            w.touch(150)
        elif isinstance(step, T.Lift):
            w.lift("left", T.left_of(step.load))
            w.lift("right", T.right_of(step.load))
        elif isinstance(step, T.Stack):
            self._stack(step.parts, step.result)
        elif isinstance(step, T.Gather):
            self._stack(step.parts, T.PACK)
        elif isinstance(step, T.Move):
            if step.down:
                w.move(step.cards, step.upper, step.lower, from_end="bottom", to_end="top")
            else:
                w.move(step.cards, step.lower, step.upper, from_end="top", to_end="bottom")
        elif isinstance(step, T.EvenOut):
            upper = len(self.stacks().get(step.upper, []))
            want = step.sizes[0]
            if upper > want:
                w.move(upper - want, step.upper, step.lower, from_end="bottom", to_end="top")
            elif upper < want:
                w.move(want - upper, step.lower, step.upper, from_end="top", to_end="bottom")
        elif isinstance(step, T.Draw):
            for name, parts in step.loads:
                for stack, count, _rest in parts:  # the first part ends on top
                    w.move(count, stack, _HAND, from_end="top", to_end="bottom")
                w.put_stack(_HAND, name)
        elif type(step).__name__ == "Swap":
            w.lift("tray", step.second)  # what is in the tray is the other load: back to its place
        elif isinstance(step, T.Unload):
            w.lift("tray", step.load)
        elif isinstance(step, T.SetAside):
            w.lift("tray", _TRAY)
            w.move(step.cards, _TRAY, T.ASIDE)
            w.put(_TRAY)
        elif isinstance(step, T.Fix):
            self._fix(step)
        else:
            raise TypeError(f"not a step: {step!r}")

    def _cut(self, source: str, names: tuple[str, ...], sizes: tuple[int, ...]) -> None:
        w = self.world
        w.put_stack(source, _HAND)
        for name, size in zip(names[:-1], sizes[:-1]):
            w.move(size, _HAND, name, from_end="top", to_end="bottom")
        w.put_stack(_HAND, names[-1])  # the rest is the last load

    def _stack(self, parts: tuple[str, ...], result: str) -> None:
        w = self.world
        for part in reversed(parts):  # the last part is the bottom one
            w.put_stack(part, _HAND)
        w.put_stack(_HAND, result)

    def _fix(self, step: T.Fix) -> None:
        w = self.world
        if step.what == "exit":
            shown = w.show()["places"]
            if shown["throat"]:
                w.lift("throat", _CAUGHT)
                if shown["tray"]:
                    w.lift("tray", _TRAY)
                    w.put_stack(_CAUGHT, _TRAY, end="bottom")
                    w.put(_TRAY)
                else:
                    w.put(_CAUGHT)
        elif step.what == "put_back":
            if w.show()["places"]["removed"]:
                w.lift("removed", _HAND)
                w.put(_HAND)
        if step.what in ("battery", "battery_idle"):
            w.set_battery(FRESH_BATTERY_MV)
        else:
            w.fix()


def from_dict(data: dict[str, Any]) -> T.Step:
    """A step back from `steps.to_dict` (JSON turns tuples into lists)."""
    kinds = {t.__name__.lower(): t for t in T.STEP_TYPES}
    cls = kinds[data["kind"]]
    args: dict[str, Any] = {}
    for name in T.field_names(cls):
        if name in data:
            args[name] = _tuples(data[name])
    return cls(**args)


def _tuples(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_tuples(v) for v in value)
    return value
