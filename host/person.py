"""Who follows the guide's steps.

A step is one thing a person does with the cards or the machine, as text for
people and as data for the scripted person. Three people:

* ConsolePerson: reads the step on the screen; confirms table work with Enter
  (with --manual, every step, since no device reports the passes).
* ScriptedPerson: does every step on the virtual shuffler through its world
  client, exactly as told: loads, touches, lifts off piles, stacks and cuts.
  It keeps a record of every card it handled, so a test can check that no
  card was lost or dealt twice.
"""
from __future__ import annotations

import json
import select
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Protocol, TextIO

# Step kinds.
SPLIT = "split"  # cut the pack into loads
LOAD = "load"  # put a load (or the rest of one) in the tray
TOUCH = "touch"  # touch the sensor: start or resume a pass
TAKE = "take"  # lift off a load's left and right piles, keeping them apart
STACK = "stack"  # put stacks on top of one another, top first
MOVE = "move"  # move cards between neighbouring loads, keeping the order
CUT = "cut"  # cut a stack into loads from the top
DRAW = "draw"  # make loads from the tops of stacks (exact mode's gathering)
UNLOAD = "unload"  # take a load back out of the tray
SET_ASIDE = "set_aside"  # lift the top cards off the load in the tray
FREE_JAM = "free_jam"  # free a stuck card, leave the piles alone
CLEAR_EXIT = "clear_exit"  # cards caught in the exit go back under the load in the tray
PUT_BACK = "put_back"  # put cards that left the tray back into it
BATTERY = "battery"  # replace the battery
CHECK = "check"  # check a sensor or the wiring
FINISH = "finish"  # gather the loads into the shuffled pack

# Steps the machine itself notices (the guide waits for its events instead of Enter).
MACHINE_SEES = (LOAD, TOUCH)


@dataclass
class Step:
    kind: str
    text: str
    args: dict[str, Any] = field(default_factory=dict)


class PersonGaveUp(Exception):
    """The person did not confirm a step in time, or cannot do it."""


class Person(Protocol):
    unattended: bool

    def do(self, step: Step, number: int) -> None: ...


# -- the console ---------------------------------------------------------------

def wait_for_enter(stream: TextIO, timeout_s: float) -> str:
    """"" when a line (Enter) arrives within timeout_s, else why not."""
    try:
        ready, _, _ = select.select([stream], [], [], timeout_s)
    except (ValueError, OSError, TypeError):  # not a real file (e.g. under a test runner)
        ready = [stream]
    if not ready:
        return f"no Enter within {timeout_s:g} s"
    return "" if stream.readline() != "" else "the input was closed"


class ConsolePerson:
    """A person at the screen: table steps are confirmed with Enter."""

    unattended = False

    def __init__(self, say: Callable[[str], None], manual: bool, wait_s: float,
                 stream: TextIO | None = None) -> None:
        self.say = say
        self.manual = manual
        self.wait_s = wait_s
        self.stream = stream or sys.stdin

    def do(self, step: Step, number: int) -> None:
        self.say(f"[bold]{number}.[/bold] {step.text}")
        if step.kind in MACHINE_SEES and not self.manual:
            return  # the shuffler reports the load and the touch itself
        self.say("   [dim]press Enter when done[/dim]")
        why = wait_for_enter(self.stream, self.wait_s)
        if why:
            raise PersonGaveUp(why)


# -- the scripted person on the virtual shuffler -------------------------------

class World(Protocol):
    def load(self, ids: list[Any]) -> int: ...
    def take(self, pile: str) -> list[Any]: ...
    def touch(self, ms: int = 100) -> None: ...
    def fix(self) -> None: ...
    def set_battery(self, mv: int) -> None: ...


class ScriptedPerson:
    """Does every step exactly as told on a simulated world.

    The table is a dict of named stacks, each a list of card ids top to
    bottom; "pack" is the whole pack in hand at the start.
    """

    unattended = True
    FRESH_BATTERY_MV = 9000

    def __init__(self, world: World, cards: int, record: Path | None = None,
                 say: Callable[[str], None] | None = None) -> None:
        self.world = world
        self.table: dict[str, list[Any]] = {"pack": list(range(cards))}
        self.in_tray: str | None = None  # which load is in the machine
        self.aside: list[Any] = []
        self.say = say
        self.log: list[dict[str, Any]] = [{"op": "start", "pack": list(self.table["pack"])}]
        self.record = record
        if record is not None:
            record.write_text("")
            self._write(self.log[0])

    def _write(self, entry: dict[str, Any]) -> None:
        if self.record is not None:
            with self.record.open("a") as f:
                f.write(json.dumps(entry) + "\n")

    def _note(self, entry: dict[str, Any]) -> None:
        self.log.append(entry)
        self._write(entry)

    def _pop(self, name: str) -> list[Any]:
        if name not in self.table:
            raise PersonGaveUp(f"there is no {name} on the table (the table has {', '.join(self.table) or 'nothing'})")
        return self.table.pop(name)

    def do(self, step: Step, number: int) -> None:
        if self.say is not None:
            self.say(f"[bold]{number}.[/bold] {step.text}")
        a = step.args
        k = step.kind
        if k == SPLIT or k == CUT:
            stack = self._pop(a.get("source", "pack"))
            at = 0
            for name, size in zip(a["names"], a["sizes"]):
                self.table[name] = stack[at:at + size]
                at += size
            if at != len(stack):
                raise PersonGaveUp(f"the cut sizes add up to {at}, the stack holds {len(stack)}")
        elif k == LOAD:
            name = a["load"]
            ids = self._pop(name) if not a.get("aside") else self.aside
            if a.get("aside"):
                self.aside = []
            self.world.load(ids)
            self.in_tray = name
            self._note({"op": "load", "round": a.get("round"), "load": name, "ids": ids})
        elif k == TOUCH:
            self.world.touch()
        elif k == TAKE:
            name = a["load"]
            left = self.world.take("left")
            right = self.world.take("right")
            self.table[name + ".left"] = left
            self.table[name + ".right"] = right
            self.in_tray = None
            self._note({"op": "take", "round": a.get("round"), "load": name, "left": left, "right": right})
        elif k == STACK:
            out: list[Any] = []
            for part in a["parts"]:  # top first
                out += self._pop(part)
            self.table[a["as"]] = out
        elif k == DRAW:
            for name, parts in a["loads"]:
                load: list[Any] = []
                for stack_name, count in parts:  # the first part ends on top
                    stack = self._pop(stack_name)
                    if count > len(stack):
                        raise PersonGaveUp(f"the {stack_name} holds {len(stack)} cards, not {count}")
                    load += stack[:count]
                    if stack[count:]:
                        self.table[stack_name] = stack[count:]
                self.table[name] = load
        elif k == MOVE:
            upper, lower, count = a["upper"], a["lower"], int(a["count"])
            top, bottom = self._pop(upper), self._pop(lower)
            if count > 0:  # bottom `count` of the upper load onto the top of the lower one
                top, bottom = top[:len(top) - count], top[len(top) - count:] + bottom
            elif count < 0:  # top `-count` of the lower load under the upper one
                top, bottom = top + bottom[:-count], bottom[-count:]
            self.table[upper], self.table[lower] = top, bottom
        elif k == UNLOAD:
            ids = self.world.take("tray")
            self.table[a["load"]] = ids
            self.in_tray = None
            self._note({"op": "unload", "round": a.get("round"), "load": a["load"], "ids": ids})
        elif k == SET_ASIDE:
            tray = self.world.take("tray")
            count = int(a["count"])
            self.aside = tray[:count]
            self.world.load(tray[count:])
            self._note({"op": "set_aside", "round": a.get("round"), "load": a.get("load"), "ids": self.aside})
        elif k == FREE_JAM:
            self.world.fix()
        elif k == CLEAR_EXIT:
            caught = self.world.take("throat")  # first fed first: it was the lowest
            if caught:
                tray = self.world.take("tray")
                self.world.load(tray + caught[::-1])
            self.world.fix()
        elif k == PUT_BACK:
            ids = self.world.take("removed")
            self.world.load(ids)
            self._note({"op": "put_back", "round": a.get("round"), "load": a.get("load"), "ids": ids})
        elif k == BATTERY:
            self.world.set_battery(self.FRESH_BATTERY_MV)
        elif k == CHECK:
            self.world.fix()
        elif k == FINISH:
            out = []
            for part in a["parts"]:
                out += self._pop(part)
            self.table["pack"] = out
            self._note({"op": "final", "pack": out})
        else:
            raise PersonGaveUp(f"does not know how to {k}")
