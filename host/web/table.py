"""The virtual shuffler's card table, worked from the page (with --sim).

Each control on the page is one request to the virtual shuffler's control
endpoint, the same requests `shuffler table` makes (WorldClient); the
cards live in the simulated board, so whatever is done by hand, the check
of every card holds. "Do this step" carries out the guide's current step
with the table person (simulator/virtual/table_person.py), exactly as the
step's data says; the person still presses "done".
"""
from __future__ import annotations

import threading
from typing import Any, Callable

from host.web import refusals
from host.web.messages import Message
from shuffling import steps
from simulator.virtual import faults as faultlib
from simulator.virtual.table_person import BACK, CAUGHT, Command, TablePerson, commands, from_dict
from simulator.virtual.world_client import WorldClient, WorldError

MARKED = 4  # cards whose journey the summary shows


class TableRefused(Exception):
    """The table cannot do what the page asked; one line."""


def marked_positions(cards: int) -> list[int]:
    """Which places of the starting pack (from 0, top first) are marked:
    the top two, the middle one and the bottom one."""
    return sorted({0, min(1, cards - 1), cards // 2, cards - 1})[:MARKED]


class WebTable:
    """One connection to the control endpoint, shared by the page's
    requests and the guide's thread (so one lock)."""

    def __init__(self, world: WorldClient) -> None:
        self.world = world
        self.lock = threading.Lock()
        self.person = TablePerson(world)
        self.start_ids: list[Any] = []

    def bring_pack(self, cards: int) -> None:
        """A fresh pack on a bare table, as stack 'pack' (the guide's first step cuts it)."""
        with self.lock:
            self.world.clear_table()
            self.world.new(cards, steps.PACK)
            self.start_ids = list(self.world.show()["stacks"][steps.PACK])

    def snapshot(self) -> dict[str, Any]:
        """The table for the page: stacks with counts, the machine's places, the check."""
        with self.lock:
            shown = self.world.show()
        return describe(shown, self.start_ids)

    def do(self, msg: Message, current_step: dict[str, Any] | None) -> str:
        """Carry out one page request; returns what happened in words."""
        act = _ACTS.get(msg.op)
        if act is None:
            raise TableRefused(f"not a table request: {msg.op}")
        try:
            with self.lock:
                return act(self, msg.args, current_step)
        except WorldError as exc:
            raise TableRefused(str(exc)) from None
        except (KeyError, TypeError, ValueError) as exc:  # a step the table person cannot read
            raise TableRefused(f"cannot do that: {exc}") from None

    def _do_step(self, a: dict[str, Any], current_step: dict[str, Any] | None) -> str:
        if current_step is None or current_step.get("number") != a["step"]:
            raise TableRefused(f"step {a['step']} is not the step shown now")
        step = from_dict(current_step)
        self.person.do(step)
        return f"did step {a['step']}: {steps.words(step)}"

    def _put(self, a: dict[str, Any], _: Any) -> str:
        return f"tray: {self.world.put(a['stack'], a.get('n'), _end_of(a, 'under'))} cards"

    def _touch(self, a: dict[str, Any], _: Any) -> str:
        self.world.touch(a.get("ms", 150))
        return "touched the sensor"

    def _lift(self, a: dict[str, Any], _: Any) -> str:
        n = self.world.lift(a["pile"], a["onto"], _end_of(a, "under"), a.get("n"))
        return f"lifted {n} cards from the {a['pile']} onto {a['onto']}"

    def _stack(self, a: dict[str, Any], _: Any) -> str:
        return f"{a['onto']}: {self.world.put_stack(a['what'], a['onto'], _end_of(a, 'under'))} cards"

    def _cut(self, a: dict[str, Any], _: Any) -> str:
        self.world.cut(a["stack"], a.get("n"))
        return f"cut {a['stack']}"

    def _move(self, a: dict[str, Any], _: Any) -> str:
        self.world.move(a["n"], a["from"], a["to"], _end_of(a, "from_bottom"), _end_of(a, "to_bottom"))
        return f"moved {a['n']} cards from {a['from']} to {a['to']}"

    def _clear(self, a: dict[str, Any], _: Any) -> str:
        self.world.fix()
        self.world.set_battery(faultlib.FRESH_BATTERY_MV)
        return "faults cleared"

    def controls(self, step: steps.Step) -> list[dict[str, Any]]:
        """The page's buttons for `step`: what the table person would do,
        one control each, pre-filled from the step's data and the table as
        it is now (see `control`). Empty for a step with no table work."""
        try:
            with self.lock:
                todo = commands(step, self.world.show())
        except (WorldError, KeyError, TypeError, ValueError):
            return []
        out = [control(c) for c in todo]
        if isinstance(step, steps.Cut) and todo and todo[-1][0] == "stack":
            # The cut's last command renames what is left: that is the last load.
            rest = step.sizes[-1]
            out[-1] = {**out[-1], "label": f"What is left of {_place(step.source)} ({steps.cards(rest)}) "
                                           f"is {_place(step.names[-1])}"}
        return out

    def rename(self, step: steps.Step) -> None:
        """A step that asks nothing of the person (the left stack is load A)
        still names the stacks: the table takes the names as it is shown."""
        with self.lock:
            try:
                self.person.do(step)
            except (WorldError, KeyError, ValueError):
                pass  # the stacks are not where the step says: the next steps will show it

    def _fault(self, a: dict[str, Any], _: Any) -> str:
        spec = a["spec"]
        try:
            f = faultlib.parse_fault(spec)
        except ValueError as exc:
            raise TableRefused(str(exc)) from None
        if f.name in ("hang", "save_fail"):
            raise TableRefused(f"{f.name} is not offered on the page (use `shuffler table fault`)")
        if f.name == "sensor_missing":
            self.world.inject(f.name, 0, sensor=f.mode)
        else:
            self.world.inject(f.name, f.k, mode=f.mode if f.name == "double_feed" else "")
        return f"injected {spec}"


# Each page request's op, carried out on the table (the lock held).
_ACTS: dict[str, Callable[[WebTable, dict[str, Any], dict[str, Any] | None], str]] = {
    "do_step": WebTable._do_step, "put": WebTable._put, "touch": WebTable._touch, "lift": WebTable._lift,
    "stack": WebTable._stack, "cut": WebTable._cut, "move": WebTable._move, "fault": WebTable._fault,
    "clear": WebTable._clear,
}


def _end_of(args: dict[str, Any], flag: str) -> str:
    """Which end of a stack a request's flag names: its bottom when set."""
    return "bottom" if args.get(flag) else "top"


_PILE_WORDS = {"left": "the left pile off the machine", "right": "the right pile off the machine",
               "tray": "the cards out of the tray", "throat": "the cards caught in the exit",
               "removed": "the cards lifted out of the tray"}


def _place(name: str) -> str:
    if name == CAUGHT:
        return "the caught cards"
    if name == BACK:
        return "the cards found"
    return steps.place(name)


def _end(flags: set[str], flag: str) -> str:
    return "bottom" if flag in flags else "top"


def control(command: Command) -> dict[str, Any]:
    """One table command (simulator/virtual/table_person.py) as a page
    control: {"label": words, "msg": the message without its step}."""
    name, *args = command
    make = _CONTROLS.get(name)
    if make is None:
        raise ValueError(f"not a table command: {name}")
    flags = {a for a in args if a.startswith("--")}
    return make([a for a in args if not a.startswith("--")], flags, args)


def _move_control(words: list[str], flags: set[str], _: list[str]) -> dict[str, Any]:
    n, src, dst = int(words[0]), words[1], words[2]
    msg: dict[str, Any] = {"op": "move", "n": n, "from": src, "to": dst}
    if "--from-bottom" in flags:
        msg["from_bottom"] = True
    if "--to-bottom" in flags:
        msg["to_bottom"] = True
    label = (f"Move {steps.cards(n)} from the {_end(flags, '--from-bottom')} of {_place(src)} "
             f"to the {_end(flags, '--to-bottom')} of {_place(dst)}")
    if not flags:  # a cut or a draw: the top cards of one stack start (or go on top of) another
        label = f"Take {steps.cards(n)} off the top of {_place(src)} onto {_place(dst)}"
    return {"label": label, "msg": msg}


def _stack_control(words: list[str], flags: set[str], _: list[str]) -> dict[str, Any]:
    what, onto = words[0], words[1]
    under = "--under" in flags
    msg = {"op": "stack", "what": what, "onto": onto, **({"under": True} if under else {})}
    return {"label": f"Put {_place(what)} {'under' if under else 'on top of'} {_place(onto)}", "msg": msg}


def _lift_control(words: list[str], flags: set[str], args: list[str]) -> dict[str, Any]:
    pile, onto = words[0], words[1]
    if "--top" in flags:
        top = int(args[args.index('--top') + 1])
        return {"label": f"Lift the top {steps.cards(top)} out of the tray as {_place(onto)}",
                "msg": {"op": "lift", "pile": pile, "onto": onto, "n": top}}
    under = "--under" in flags
    return {"label": f"Take {_PILE_WORDS.get(pile, pile)} as {_place(onto)}",
            "msg": {"op": "lift", "pile": pile, "onto": onto, **({"under": True} if under else {})}}


def _put_control(words: list[str], flags: set[str], _: list[str]) -> dict[str, Any]:
    stack = words[0]
    if "--under" in flags:
        return {"label": f"Put {_place(stack)} back under the cards in the tray",
                "msg": {"op": "put", "stack": stack, "under": True}}
    msg = {"op": "put", "stack": stack, **({"n": int(words[1])} if len(words) > 1 else {})}
    return {"label": f"Put {_place(stack)} in the tray", "msg": msg}


_CONTROLS: dict[str, Callable[[list[str], set[str], list[str]], dict[str, Any]]] = {
    "move": _move_control, "stack": _stack_control, "lift": _lift_control, "put": _put_control,
    "touch": lambda *_: {"label": "Touch the sensor", "msg": {"op": "touch"}},
    "clear": lambda *_: {"label": "Clear faults (frees a stuck card, fresh battery)", "msg": {"op": "clear"}},
}


# The steps whose end the table sees: the piles off the machine, the load out of the tray.
SEES_DONE = ("lift", "unload")


def not_done(step: dict[str, Any], table: dict[str, Any]) -> dict[str, Any] | None:
    """Why the table (`describe`d) shows that `step` (the page's step, as
    data) is not done, as a refusal (host/web/refusals.py) that says what to
    do; None when it may be."""
    places = table.get("places") or {}
    number = step.get("number")
    if step.get("kind") == "lift" and (places.get("left") or places.get("right")):
        return refusals.reply("piles_on_machine", step=number, left=places.get("left") or 0,
                              right=places.get("right") or 0)
    if step.get("kind") == "unload" and places.get("tray"):
        return refusals.reply("tray_holds", step=number, tray=places["tray"])
    return None


def describe(shown: dict[str, Any], start_ids: list[Any]) -> dict[str, Any]:
    stacks = [{"name": name, "count": len(ids), "top": ids[0] if ids else None}
              for name, ids in shown["stacks"].items() if not name.startswith("_")]
    places = {name: len(ids) for name, ids in shown["places"].items()}
    check = shown["check"]
    out: dict[str, Any] = {
        "stacks": stacks, "places": places,
        "check": {"ok": bool(check["ok"]), "made": check["made"], "missing": len(check["missing"]),
                  "twice": len(check["twice"]), "stray": len(check["stray"])},
    }
    pack = shown["stacks"].get(steps.PACK)
    if start_ids and pack is not None and len(pack) == len(start_ids):
        where = {card: i for i, card in enumerate(pack)}
        out["marked"] = [{"card": start_ids[i], "was": i + 1, "now": where[start_ids[i]] + 1
                          if start_ids[i] in where else None} for i in marked_positions(len(start_ids))]
    return out
