"""The bring-up's touch step against a scripted board (a device on a
pseudo-terminal that answers as a shuffler does): the person's seconds are
a wall clock's on a device that runs slower than a board, a rest reading
taken with a hand near is found once the hand is lifted and taken again,
and a touch module that reads touched with every hand away is its wiring.
The board's own figures (what it stores, what it reads) are the scripted
board's state, which the test holds."""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import pytest

from firmware import protocol
from host import setup as bringup
from host import setup_findings as finds
from host import setup_steps
from host.device_link import Link
from host.parts import Finding
from host.setup_records import Found, RestWasAHand
from hosttest_support import FakeDevice

pytestmark = pytest.mark.touch

SLOW = 30.0  # as the emulated Pico advertises itself (simulator/pico/emulator.py SLOWDOWN)


@dataclass
class Pad:
    """A board's touch pad and what the board stores of it: `rest` is what the
    pad reads untouched, `hand` what it reads under a hand (None: no hand)."""

    board: str = "sim"
    rest: int = 800
    hand: int | None = None
    touches: int = 0
    baseline: int | None = None
    seen: bool = False
    calibrations: int = 0
    after_calibration: Any = None  # called after each baseline is taken

    def reading(self) -> int:
        return self.rest if self.hand is None else self.hand

    def handle(self, dev: FakeDevice, req: dict[str, Any]) -> None:
        cmd = req["cmd"]
        if cmd == "hello":
            dev.reply(req, fw=protocol.FIRMWARE_VERSION, proto=protocol.PROTOCOL_VERSION, board=self.board,
                      capacity=104, state="idle", uid="5eed", digest=protocol.digest())
        elif cmd == "read":
            touched = self.hand is not None if self.board == "rp2" else False  # its start's rest figure was a hand's
            dev.reply(req, raw=84000, spread=100, n=0, touch=self.reading(), touched=touched, touches=self.touches,
                      beam=False, mv=9000, card_ms=0, feed_ms=0, flip=0)
        elif cmd == "config":
            dev.reply(req, config={"touch_pct": 70})
        elif cmd == "calibrate" and req.get("confirm"):
            self.seen = True
            dev.reply(req, cal={"touch_baseline": self.baseline, "touch_seen": 1})
        elif cmd == "calibrate":
            self.baseline = self.reading()
            self.calibrations += 1
            dev.reply(req, cal={"touch_baseline": self.baseline})
            if self.after_calibration is not None:
                self.after_calibration(self)
        elif cmd == "status":
            dev.reply(req, state="idle", fault=0, k=0, n=0)
        else:
            dev.idle_shuffler(req)


@dataclass
class Person:
    """What the bring-up shows and what this person does: `on_step` acts on
    a step at the table (the pad) before the answer."""

    pad: Pad
    told: list[Any] = field(default_factory=list)  # the records the bring-up told
    asked: list[str] = field(default_factory=list)
    on_step: dict[str, Any] = field(default_factory=dict)

    def ask(self, step: setup_steps.Step) -> str:
        kind = type(step).__name__.lower()
        self.asked.append(kind)
        act = self.on_step.get(kind)
        if act is not None:
            act(self.pad)
        return ""

    def tell(self, told: Any) -> None:
        self.told.append(told)

    def blames_the_wiring(self) -> bool:
        return any(isinstance(t, Found) and t.finding.wiring for t in self.told)


def touch_step(pad: Pad, person: Person, wait_s: int, slowdown: float = 1.0) -> tuple[list[Finding], float]:
    dev = FakeDevice(pad.handle)
    try:
        b = bringup.Bringup(dev.port, person, lambda port: None, open_link=lambda p: Link.open(p, slowdown=slowdown),
                            touch_wait_s=wait_s)
        b.connect()
        t0 = time.monotonic()
        found = b.touch()
        return found, time.monotonic() - t0
    finally:
        dev.close()


def test_the_touch_wait_is_the_person_s_seconds_on_a_device_slower_than_a_board() -> None:
    # Nobody touches: the step says so after the person's seconds, as a wall
    # clock counts them, however slow the device says it is.
    pad = Pad()
    found, took = touch_step(pad, Person(pad), wait_s=2, slowdown=SLOW)
    assert found == [finds.no_touch(pad.rest, 2)]
    assert took < 2 + 10, f"the 2 s wait for a touch took {took:.0f} s"  # not 2 s and the device's slowdown


def test_a_rest_reading_taken_with_a_hand_on_the_pad_is_found_when_the_hand_lifts_and_taken_again() -> None:
    # The board's own rest figure was taken under the hand too (it does not
    # read touched), so the reading taken with no hand near is the hand's.
    pad = Pad(hand=250)

    def lift_after_the_first(p: Pad) -> None:
        if p.calibrations == 1:
            p.hand = None  # the hand comes off, after the rest reading

    def touch(p: Pad) -> None:
        if p.calibrations >= 2:
            p.touches += 1  # a touch the board saw (its count grows)

    pad.after_calibration = lift_after_the_first
    person = Person(pad, on_step={"touchpad": touch})
    found, _ = touch_step(pad, person, wait_s=30)
    assert found == [finds.touched(800)], person.told
    assert RestWasAHand(250, 800) in person.told, person.told
    assert pad.baseline == 800 and pad.calibrations == 2 and pad.seen  # what the board stores: the rest
    assert not person.blames_the_wiring()


def test_a_touch_module_that_reads_touched_with_every_hand_away_is_its_wiring() -> None:
    pad = Pad(board="rp2", rest=0, hand=1)  # a hand, the person says, that is not there: the output held high
    person = Person(pad)
    found, _ = touch_step(pad, person, wait_s=2)
    assert person.asked.count("handaway") == bringup.HAND_TRIES
    assert found == [finds.pad_held_high(1)] and found[0].wiring
    assert pad.calibrations == 0  # nothing stored


def test_a_hand_on_a_touch_module_is_asked_away_and_the_pad_then_calibrated() -> None:
    pad = Pad(board="rp2", rest=0, hand=1)

    def lift(p: Pad) -> None:
        p.hand = None

    def touch(p: Pad) -> None:
        p.touches += 1

    person = Person(pad, on_step={"handaway": lift, "touchpad": touch})
    found, _ = touch_step(pad, person, wait_s=30)
    assert person.asked.count("handaway") == 1 and found == [finds.touched(0)], person.told
    assert pad.baseline == 0 and pad.seen
