"""A person at a board being brought up: `shuffler setup` runs in a
pseudo-terminal, and this person reads each step (the data the command
writes with --steps-file) only once its words are on the screen, waits a
human moment, does it with the cards on the virtual table (through the
control endpoint `shuffler table` uses: the sim board's or the emulated
Pico's), and types the answer: Enter, a count, the pile the cards landed
on as seen on the table, the battery's voltage as a meter reads it.

A person may make the ordinary slips once each (`slips`): a deck of two
cards fewer put in as the known count ("miscount"), a hand left on the
touch pad when asked to keep hands away ("hand_on_pad", lifted when the
bring-up asks, or at the latest to touch the pad), and the wrong pile said
for the first cards fed ("wrong_side"), and the slips of TRAY_SLIPS."""
from __future__ import annotations

import random
import time
from dataclasses import dataclass, field
from typing import Any

from pty_screen import Screen, StepFeed, next_shown
from simulator.virtual.world_client import WorldClient

PACK = "pack"
PLACES = ("tray", "left", "right", "throat")
SLIPS = ("miscount", "hand_on_pad", "wrong_side")
# And the ones that leave the tray or the meter wrong: the deck not put in
# ("empty_tray"), the second count typed but not put in ("second_empty"),
# no cards put in for the feed ("empty_feed"), and a meter read 30 % low
# ("meter_misread"); each is put right when the bring-up says so.
TRAY_SLIPS = ("empty_tray", "second_empty", "empty_feed", "meter_misread")
HAND_MS = 24 * 3600 * 1000  # a hand resting on the pad: until lifted


@dataclass
class SetupPerson:
    world: WorldClient
    rng: random.Random
    delays: tuple[float, float] = (0.1, 0.4)
    repeat: set[str] = field(default_factory=set)  # step kinds to do twice (typing r the first time)
    slips: set[str] = field(default_factory=set)  # the slips still to make, once each (SLIPS)
    made: list[str] = field(default_factory=list)  # the slips made, in order
    hand_on: bool = False
    piles: dict[str, int] = field(default_factory=dict)
    done: list[dict[str, Any]] = field(default_factory=list)  # the steps shown, as the steps file has them
    records: list[dict[str, Any]] = field(default_factory=list)  # what the bring-up told, as the steps file has it

    def told(self, kind: str, **fields: Any) -> list[dict[str, Any]]:
        """The records of `kind` the bring-up told, those with these fields'
        values: what the tests judge its telling by (the words are
        tests/host/test_setup_words.py's)."""
        return [r for r in self.records if r["kind"] == kind and all(r.get(k) == v for k, v in fields.items())]

    def gather(self) -> None:
        """Every card back on the pack in hand: out of the tray, off the piles, out of the exit."""
        places = self.world.show()["places"]
        for place in PLACES:
            if places[place]:
                self.world.lift(place, PACK)

    def slip(self, name: str) -> bool:
        """Make slip `name` now, if it is still to be made."""
        if name not in self.slips:
            return False
        self.slips.discard(name)
        self.made.append(name)
        return True

    def lift_hand(self) -> None:
        if self.hand_on:
            self.world.touch(0)
            self.hand_on = False
            time.sleep(max(1.0, self.rng.uniform(*self.delays)))  # a moment before anything else

    def act(self, step: dict[str, Any]) -> str | None:
        """Do the step at the table; what to type (None: nothing)."""
        kind = step["kind"]
        if kind == "flashoffer":
            return "y\r"
        if kind == "emptytray":
            self.gather()
            return "\r"
        if kind == "handsoff":
            self.gather()
            if self.slip("hand_on_pad"):
                self.world.touch(HAND_MS)  # resting there while Enter is pressed
                self.hand_on = True
            return "\r"
        if kind == "handaway":
            self.lift_hand()
            return "\r"
        if kind == "loadcards":
            self.gather()
            if not self.slip("empty_tray"):  # the deck left in hand
                self.world.put(PACK, step["cards"] - 2 if self.slip("miscount") else step["cards"])
            return "\r"
        if kind == "trayempty":
            self.gather()
            self.world.put(PACK, step["cards"])
            return "\r"
        if kind == "secondcount":
            self.gather()
            n = self.rng.randint(step["least"], step["most"])
            if not self.slip("second_empty"):  # counted out, typed, never put in
                self.world.put(PACK, n)
            return f"{n}\r"
        if kind == "touchpad":
            self.lift_hand()
            self.world.touch(150)
            return None
        if kind in ("feedcards", "toofewcards"):
            self.gather()
            if not self.slip("empty_feed"):
                self.world.put(PACK, step["least"] + 2)
            self.piles = self.pile_sizes()
            return "\r"
        if kind == "wherelanded":
            now = self.pile_sizes()
            side = "l" if now["left"] > self.piles["left"] else "r"
            self.piles = now
            if self.slip("wrong_side"):
                side = "r" if side == "l" else "l"
            return side + "\r"
        if kind == "meter":
            mv = self.world.query()["mv"] + self.rng.randint(-15, 15)  # a meter's last digit
            if self.slip("meter_misread"):
                mv = mv * 7 // 10  # read 30 % low
            return f"{mv / 1000:.2f}\r"
        if kind == "again":
            last = self.done[-2]["kind"] if len(self.done) >= 2 else ""
            if last in self.repeat:
                self.repeat.discard(last)
                return "r\r"
            return "\r"
        raise AssertionError(f"a set-up step this person does not know: {step}")

    def pile_sizes(self) -> dict[str, int]:
        places = self.world.show()["places"]
        return {"left": len(places["left"]), "right": len(places["right"])}


def follow(screen: Screen, feed: StepFeed, person: SetupPerson, timeout: float) -> list[dict[str, Any]]:
    """Act on each step once its words are on the screen, until the command
    ends; what the bring-up told (the lines with no `reply`) kept in
    `person.records`, those after the last step too."""
    seen = 0
    deadline = time.monotonic() + timeout
    while True:
        step, seen = next_shown(screen, feed, seen, None, deadline, "setup", keep=True)
        if step is None:
            person.records += [r for r in iter(feed.next, None) if "reply" not in r]
            return person.done
        if "reply" not in step:
            person.records.append(step)
            continue
        person.done.append(step)
        time.sleep(person.rng.uniform(*person.delays))
        keys = person.act(step)
        if keys is not None:
            screen.type(keys.encode())
