"""Who follows the guide's steps, and how their answers come back.

A step is data (shuffling/steps.py); a front-end shows its words
(host/guide/voice.py). A person carries it out, or not, and answers: the
guide's state machine asks `answers()` for what was said since it last
asked, each answer naming the step it was given for (the step on screen when
it was given), and decides whether it counts. Two people:

* ConsolePerson: reads the step on the screen and presses Enter when table
  work is done. Key presses typed before a step appears are thrown away, and
  an Enter carries the number of the step on screen when it was pressed, so
  a stray or doubled Enter never answers a step nobody has read yet.
* ScriptedPerson: does every step on the virtual shuffler through its world
  client, exactly as told: loads, touches, lifts off piles, stacks and cuts,
  and answers each step at once. It keeps a record of every card it handled,
  so a test can check that no card was lost or dealt twice.
"""
from __future__ import annotations

import json
import os
import select
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, TextIO

from shuffling import steps as step_kinds


class PersonGaveUp(Exception):
    """The person cannot go on (the input was closed, a step cannot be
    done): `record` says why (a step's trouble on the table, shuffling's
    TableTrouble; the page closed, the guide's stop reason), or its words alone."""

    def __init__(self, what: object) -> None:
        self.record = None if isinstance(what, str) else what
        super().__init__(what if isinstance(what, str) else repr(what))


@dataclass(frozen=True)
class Said:
    """An answer: step `number` is done (for a load: its cards are in)."""

    number: int
    via: str = "Enter"


class Person(Protocol):
    unattended: bool

    def do(self, step: step_kinds.Step, number: int, round: int | None = None) -> None: ...

    def answers(self) -> list[Said]: ...


# -- the console ---------------------------------------------------------------

def _fd(stream: TextIO) -> int | None:
    try:
        fd = stream.fileno()
    except (AttributeError, OSError, ValueError):
        return None
    return fd if os.isatty(fd) else None


def flush_typed_ahead(stream: TextIO) -> None:
    """Throw away key presses typed before the prompt (a terminal only)."""
    fd = _fd(stream)
    if fd is None:
        return
    try:
        import termios

        termios.tcflush(fd, termios.TCIFLUSH)
    except (ImportError, OSError):
        pass


def read_line(stream: TextIO, timeout_s: float) -> str | None:
    """A line typed within timeout_s (with its newline), "" at the end of
    the input, or None when nothing came. On a terminal the line is read
    from the descriptor itself, so nothing typed after it waits in a buffer."""
    fd = _fd(stream)
    try:
        ready, _, _ = select.select([fd if fd is not None else stream], [], [], max(0.0, timeout_s))
    except (ValueError, OSError, TypeError):  # not a real file (e.g. under a test runner)
        ready = [stream]
    if not ready:
        return None
    if fd is not None:
        return os.read(fd, 4096).decode(errors="replace")
    return stream.readline()


class ConsolePerson:
    """A person at the terminal: Enter answers the step on screen."""

    unattended = False

    def __init__(self, stream: TextIO | None = None) -> None:
        self.stream = stream or sys.stdin
        self.closed = False  # the input ended: no answer can come any more
        self.number = 0  # the step on screen
        # At a terminal a person reads each step before answering; answers
        # piped in from a file or a program are taken as they come.
        self.reads = _fd(self.stream) is not None

    def do(self, step: step_kinds.Step, number: int, round: int | None = None) -> None:
        flush_typed_ahead(self.stream)
        self.number = number

    def answers(self) -> list[Said]:
        """The Enters pressed since the last call, each for the step on screen."""
        if self.closed:
            return []
        line = read_line(self.stream, 0.0)
        if line is None:
            return []
        if line == "":
            self.closed = True
            return []
        return [Said(self.number)] * max(1, line.count("\n"))


# -- the scripted person on the virtual shuffler -------------------------------

class World(Protocol):
    def load(self, ids: list[Any]) -> int: ...
    def take(self, pile: str) -> list[Any]: ...
    def touch(self, ms: int = 100) -> None: ...
    def fix(self) -> None: ...
    def set_battery(self, mv: int) -> None: ...


class ScriptedPerson:
    """Does every step exactly as told on a simulated world, and answers it at once.

    The table is a dict of named places (shuffling/steps.py), each a list of
    card ids top to bottom; "pack" is the whole pack in hand at the start.
    """

    unattended = True
    FRESH_BATTERY_MV = 9000

    def __init__(self, world: World, cards: int, record: Path | None = None) -> None:
        self.world = world
        self.table: dict[str, list[Any]] = {step_kinds.PACK: list(range(cards))}
        self.in_tray: str | None = None  # which load is in the machine
        self.round: int | None = None
        self.log: list[dict[str, Any]] = [{"op": "start", "pack": list(self.table[step_kinds.PACK])}]
        self.record = record
        self.said: list[Said] = []
        self.steps: list[step_kinds.Step] = []  # every step it was shown, in order
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
            raise PersonGaveUp(step_kinds.NotOnTable(name, tuple(self.table)))
        return self.table.pop(name)

    def ready(self, timeout: float) -> bool:
        """Whether it says a load's cards are in (the guide also watches the tray's count)."""
        return True

    def answers(self) -> list[Said]:
        out, self.said = self.said, []
        return out

    def do(self, step: step_kinds.Step, number: int, round: int | None = None) -> None:
        self.round = round
        self.steps.append(step)
        self.carry_out(step)
        if not isinstance(step, step_kinds.PutInTray) or self.ready(0.0):
            self.said.append(Said(number, "script"))

    def carry_out(self, step: step_kinds.Step) -> None:
        if isinstance(step, step_kinds.PutInTray) and step.rest and step.load not in self.table:
            return  # the rest of the load is still in the tray
        for kind, hand in self._HANDS:
            if isinstance(step, kind):
                hand(self, step)
                return
        try:
            step_kinds.do_on_table(step, self.table)
        except step_kinds.TableError as exc:
            raise PersonGaveUp(exc.record) from None

    def _reload(self, step: step_kinds.Reload) -> None:
        # The piles of the load's last pass, in the round before this one.
        r = self.round
        left, right = self.world.take("left"), self.world.take("right")
        self._note({"op": "take", "round": r - 1 if r else r, "load": step.load, "left": left, "right": right})
        self.world.load(left + right)
        self.in_tray = step.load
        self._note({"op": "load", "round": r, "load": step.load, "ids": left + right})

    def _put_in_tray(self, step: step_kinds.PutInTray) -> None:
        name = step.load
        ids = self._pop(name)
        self.world.load(ids)
        if name != step_kinds.ASIDE:
            self.in_tray = name
        self._note({"op": "load", "round": self.round, "load": self.in_tray or name, "ids": ids})

    def _touch(self, step: step_kinds.Touch) -> None:
        self.world.touch()

    def _lift(self, step: step_kinds.Lift) -> None:
        name = step.load
        left = self.world.take("left")
        right = self.world.take("right")
        if step.stacked:
            self.table[name] = left + right
        else:
            self.table[step_kinds.left_of(name)] = left
            self.table[step_kinds.right_of(name)] = right
        self.in_tray = None
        self._note({"op": "take", "round": self.round, "load": name, "left": left, "right": right})

    def _unload(self, step: step_kinds.Unload) -> None:
        ids = self.world.take("tray")
        self.table[step.load] = ids
        self.in_tray = None
        self._note({"op": "unload", "round": self.round, "load": step.load, "ids": ids})

    def _set_aside(self, step: step_kinds.SetAside) -> None:
        tray = self.world.take("tray")
        self.table[step_kinds.ASIDE] = tray[:step.cards]
        self.world.load(tray[step.cards:])
        self._note({"op": "set_aside", "round": self.round, "load": step.load, "ids": tray[:step.cards]})

    def _gather(self, step: step_kinds.Gather) -> None:
        step_kinds.do_on_table(step, self.table)
        self._note({"op": "final", "pack": self.table[step_kinds.PACK]})

    def _collect(self, step: step_kinds.Collect) -> None:
        machine = [c for place in ("left", "right", "tray", "throat") for c in self.world.take(place)]
        step_kinds.do_on_table(step, self.table)
        self.table[step_kinds.PACK] = machine + self.table.get(step_kinds.PACK, [])
        self.in_tray = None
        self._note({"op": "collect", "round": self.round, "pack": self.table[step_kinds.PACK]})

    def _fix(self, step: step_kinds.Fix) -> None:
        r = self.round
        if step.what == "stopped":  # nobody touched the cards while the guide was stopped
            return
        if step.what in ("exit", "exit_sensor"):
            caught = self.world.take("throat")  # first fed first: it was the lowest
            if caught:
                tray = self.world.take("tray")
                self.world.load(tray + caught[::-1])
            self.world.fix()
        elif step.what == "put_back":
            ids = self.world.take("removed")
            self.world.load(ids)
            self._note({"op": "put_back", "round": r, "load": self.in_tray, "ids": ids})
        elif step.what in ("battery", "battery_idle"):
            if step.what == "battery":
                caught = self.world.take("throat")
                if caught:
                    self.world.load(self.world.take("tray") + caught[::-1])
            self.world.set_battery(self.FRESH_BATTERY_MV)
        elif step.what == "foreign":
            # Cards that were never in the pack it began with are another pack's: taken out of the load.
            own = set(self.log[0]["pack"])
            load = self.table.get(step.load or "", [])
            found = [c for c in load if c not in own][:step.cards or 0]
            self.table[step.load or ""] = [c for c in load if c not in found]
            self.kept_apart = getattr(self, "kept_apart", []) + found
            self._note({"op": "foreign", "round": r, "load": step.load, "ids": found})
        elif step.what == "regather":
            ids = self.world.take("left") + self.world.take("right") + self.world.take("tray")
            self.table[step.load or ""] = ids
            self.in_tray = None
            self._note({"op": "regather", "round": r, "load": step.load, "ids": ids})
        else:  # jam, sensor
            self.world.fix()

    # How each step that touches the machine is done, in the order they are
    # tried (a Reload is a PutInTray too); any other is done on the table alone.
    _HANDS: tuple[tuple[type, Any], ...] = (
        (step_kinds.Reload, _reload), (step_kinds.PutInTray, _put_in_tray), (step_kinds.Touch, _touch),
        (step_kinds.Lift, _lift), (step_kinds.Unload, _unload), (step_kinds.SetAside, _set_aside),
        (step_kinds.Fix, _fix), (step_kinds.Gather, _gather), (step_kinds.Collect, _collect))
