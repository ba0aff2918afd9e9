"""Who follows the guide's steps.

A step is data (simulator/shuffling/steps.py); the console prints its words, the
scripted person carries it out. Two people:

* ConsolePerson: reads the step on the screen; confirms table work with Enter
  (with --manual, every step, since no device reports the passes). Key
  presses typed before a prompt appears are thrown away, so a stray Enter
  never confirms a step nobody has read yet.
* ScriptedPerson: does every step on the virtual shuffler through its world
  client, exactly as told: loads, touches, lifts off piles, stacks and cuts.
  It keeps a record of every card it handled, so a test can check that no
  card was lost or dealt twice.

Both go through the same calls: `do(step, number, round)` shows or carries
out a step (and, for table work, returns once it is done), and `ready(t)`
says whether the person has said the cards are in the tray (the guide also
watches the tray's count for that).
"""
from __future__ import annotations

import json
import os
import select
import sys
from pathlib import Path
from typing import Any, Callable, Protocol, TextIO

from simulator.shuffling import steps as S


class PersonGaveUp(Exception):
    """The person did not confirm a step in time, or cannot do it."""


class Person(Protocol):
    unattended: bool

    def do(self, step: S.Step, number: int, round: int | None = None) -> None: ...

    def ready(self, timeout: float) -> bool: ...


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
    """A person at the screen: table steps are confirmed with Enter."""

    unattended = False

    def __init__(self, say: Callable[[str], None], manual: bool, wait_s: float,
                 stream: TextIO | None = None) -> None:
        self.say = say
        self.manual = manual
        self.wait_s = wait_s
        self.stream = stream or sys.stdin
        self.closed = False

    def do(self, step: S.Step, number: int, round: int | None = None) -> None:
        flush_typed_ahead(self.stream)
        self.say(f"[bold]{number}.[/bold] {S.words(step)}")
        if isinstance(step, S.MACHINE_SEES) and not self.manual:
            return  # the shuffler reports the load and the touch itself
        self.say("   [dim]press Enter when done[/dim]")
        line = read_line(self.stream, self.wait_s)
        if line is None:
            raise PersonGaveUp(f"no Enter within {self.wait_s:g} s")
        if line == "":
            self.closed = True
            raise PersonGaveUp("the input was closed")

    def ready(self, timeout: float) -> bool:
        """Enter pressed (the cards are in the tray) within `timeout`."""
        if self.closed:
            return False
        line = read_line(self.stream, timeout)
        if line == "":
            self.closed = True
            return False
        return line is not None


# -- the scripted person on the virtual shuffler -------------------------------

class World(Protocol):
    def load(self, ids: list[Any]) -> int: ...
    def take(self, pile: str) -> list[Any]: ...
    def touch(self, ms: int = 100) -> None: ...
    def fix(self) -> None: ...
    def set_battery(self, mv: int) -> None: ...


class ScriptedPerson:
    """Does every step exactly as told on a simulated world.

    The table is a dict of named places (simulator/shuffling/steps.py), each a list of
    card ids top to bottom; "pack" is the whole pack in hand at the start.
    """

    unattended = True
    FRESH_BATTERY_MV = 9000

    def __init__(self, world: World, cards: int, record: Path | None = None,
                 say: Callable[[str], None] | None = None) -> None:
        self.world = world
        self.table: dict[str, list[Any]] = {S.PACK: list(range(cards))}
        self.in_tray: str | None = None  # which load is in the machine
        self.say = say
        self.round: int | None = None
        self.log: list[dict[str, Any]] = [{"op": "start", "pack": list(self.table[S.PACK])}]
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
            raise PersonGaveUp(f"there is no {S.place(name)} on the table "
                               f"(the table has {', '.join(self.table) or 'nothing'})")
        return self.table.pop(name)

    def ready(self, timeout: float) -> bool:
        return True  # it says so as soon as it has done a step

    def do(self, step: S.Step, number: int, round: int | None = None) -> None:
        self.round = round
        if self.say is not None:
            self.say(f"[bold]{number}.[/bold] {S.words(step)}")
        self.carry_out(step)

    def carry_out(self, step: S.Step) -> None:
        r = self.round
        if isinstance(step, S.PutInTray) and step.rest and step.load not in self.table:
            return  # the rest of the load is still in the tray
        if isinstance(step, S.PutInTray):
            name = step.load
            ids = self._pop(name)
            self.world.load(ids)
            if name != S.ASIDE:
                self.in_tray = name
            self._note({"op": "load", "round": r, "load": self.in_tray or name, "ids": ids})
        elif isinstance(step, S.Touch):
            self.world.touch()
        elif isinstance(step, S.Lift):
            name = step.load
            left = self.world.take("left")
            right = self.world.take("right")
            self.table[S.left_of(name)] = left
            self.table[S.right_of(name)] = right
            self.in_tray = None
            self._note({"op": "take", "round": r, "load": name, "left": left, "right": right})
        elif isinstance(step, S.Unload):
            ids = self.world.take("tray")
            self.table[step.load] = ids
            self.in_tray = None
            self._note({"op": "unload", "round": r, "load": step.load, "ids": ids})
        elif isinstance(step, S.SetAside):
            tray = self.world.take("tray")
            self.table[S.ASIDE] = tray[:step.cards]
            self.world.load(tray[step.cards:])
            self._note({"op": "set_aside", "round": r, "load": step.load, "ids": tray[:step.cards]})
        elif isinstance(step, S.Fix):
            self._fix(step)
        elif isinstance(step, S.Gather):
            S.do_on_table(step, self.table)
            self._note({"op": "final", "pack": self.table[S.PACK]})
        else:
            try:
                S.do_on_table(step, self.table)
            except S.TableError as exc:
                raise PersonGaveUp(str(exc)) from None

    def _fix(self, step: S.Fix) -> None:
        r = self.round
        if step.what == "exit":
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
            self.world.set_battery(self.FRESH_BATTERY_MV)
        else:  # jam, sensor
            self.world.fix()
