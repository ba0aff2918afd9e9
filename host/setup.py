"""The bring-up of a board, step by step with the person at it: the
firmware's version, the load cell (tare, a known count, a second count of
another number of cards that must agree with it), the touch pad (its
baseline, then a touch), the exit beam and the motor's direction (cards
fed, the person says where they landed; a flip is stored if they landed on
the right), the battery against a meter.

This module drives the steps: the firmware first (flashed if the person
agrees), then each step (host/setup_count.py, setup_touch.py,
setup_feed.py, setup_battery.py), its findings told and done again if the
person asks, then what they measured stored in one write if every one
passed (host/setup_store.py), then the board read as `shuffler check`
reads it, with what this bring-up tried now. Each step says what to do
(host/setup_steps.py), waits for the fact it needs (a steady reading, a
touch, the fed cards' end) and can be done again; what it measures is
stored on the board by `calibrate`, which `shuffler flash` leaves alone.
The person's answers are judged against the physics before anything is
stored: a per-card weight no card gives, two counts that disagree, a pad
that reads a hand, cards said to land on one pile whichever way the motor
turned are the person's slips, said as such and asked again; nothing they
gave is stored. The board cannot see how many cards were put in, nor which
pile they landed on: where it cannot tell, the person's answer is taken.
What a step finds is a finding of host/check.py's kind, one line for each
part, naming the wiring table's row when the part does not answer.
Everything told is a record (host/setup_records.py), worded once
(host/setup_words.py).
"""
from __future__ import annotations

import time
from typing import Callable

from firmware import protocol as wire
from host import check
from host import device_link
from host import device_messages
from host import ports
from host import readings
from host import setup_steps
from host import setup_store
from host.device_link import Link, LinkClosed, LinkError, LinkTimeout, ProtocolMismatch
from host.parts import FAIL, PARTS, Finding, ready
from host.setup_battery import battery
from host.setup_count import counts
from host.setup_feed import feed
from host.setup_records import (BoardNow, NoFirmware, PortHeld, StillOtherFirmware, Stopped, Verdict, INTERRUPTED,
                                LINK, LOST, RESTARTED)
from host.setup_session import TOUCH_WAIT_S, Flash, Person, Session, Stop
from host.setup_touch import HAND_TRIES, touch

__all__ = ["Bringup", "Flash", "HAND_TRIES", "Person", "Stop", "TOUCH_WAIT_S"]

Step = Callable[[Session], list[Finding]]
STEPS: tuple[Step, ...] = (counts, touch, feed, battery)


class Bringup(Session):
    def __init__(self, port: str, person: Person, flash: Flash, open_link: Callable[[str], Link] = Link.open,
                 touch_wait_s: int = TOUCH_WAIT_S) -> None:
        super().__init__(port, person, open_link, touch_wait_s)
        self.flash = flash

    def touch(self) -> list[Finding]:
        return touch(self)

    def connect(self) -> None:
        """The link, after the firmware's version has been checked (and
        flashed, if the person agrees)."""
        for _ in range(2):
            offer = self.offer()
            if offer is None:
                return
            self.close()
            if self.yes(offer):
                self.flash(self.port)
                continue
            if offer.protocol:
                raise Stop(NoFirmware(self.port))
            self.link = self.open_link(self.port)
            self.hello = self.link.handshake()
            return
        raise Stop(StillOtherFirmware(self.port, wire.FIRMWARE_VERSION))

    def offer(self) -> setup_steps.FlashOffer | None:
        """The link opened and the board greeted: None if it runs this
        tool's firmware, else the flash to offer."""
        self.link = self.open_link(self.port)
        try:
            self.hello = ports.greet(self.link)
        except LinkTimeout:
            held = ports.held_words(self.port)
            if held:  # the board's answers go to another program: flashing would not help
                self.close()
                raise Stop(PortHeld(self.port, held)) from None
            return setup_steps.FlashOffer("", wire.FIRMWARE_VERSION, True)
        except ProtocolMismatch:
            return setup_steps.FlashOffer("of another version", wire.FIRMWARE_VERSION, True)
        fw = device_messages.hello_view(self.hello).fw
        if fw == wire.FIRMWARE_VERSION:
            return None
        return setup_steps.FlashOffer(str(fw), wire.FIRMWARE_VERSION, False)

    def stage(self, step: Step) -> list[Finding]:
        """A step, its findings shown, then the person goes on or does it again."""
        while True:
            found = step(self)
            for f in found:
                self.found(f)
            passed = all(f.verdict != FAIL for f in found)
            if self.person.ask(setup_steps.Again(passed)).strip().lower() != "r":
                return found

    def run(self) -> tuple[bool, list[Finding]]:
        """Every step, then what they measured stored in one write if every
        one passed (nothing otherwise), then the board read as `shuffler
        check` reads it: (ready to shuffle, the findings). Stopped part way
        (Ctrl-C, a reset, the port gone), nothing is stored and Stop says so."""
        self.connect()
        try:
            return self.steps()
        except KeyboardInterrupt:
            setup_store.drop(self)
            raise Stop(Stopped(INTERRUPTED, self.port), code=130) from None
        except LinkError as exc:
            why = self.why_stopped(exc)
            setup_store.drop(self)
            raise Stop(why) from None
        finally:
            self.close()

    def steps(self) -> tuple[bool, list[Finding]]:
        """run()'s work, on a board that answers with this tool's firmware."""
        self.found(check.firmware(self.snapshot()))
        self.settle()
        failed = []
        for step in STEPS:
            found = self.stage(step)
            # (a battery too low for a pass is no calibration that failed: a meter refused is)
            failed += [PARTS[f.part].name for f in found if f.verdict == FAIL
                       and (f.part != wire.PART_BATTERY or self.meter_refused)]
            self.settle()
        setup_store.keep(self, failed)
        final = check.findings(readings.snapshot(self.ln(), self.last_feed, touches_before=self.touches_before))
        self.tell(BoardNow())
        for f in final:
            self.found(f)
        ok = ready(final)
        self.tell(Verdict(ok))
        return ok, final

    def why_stopped(self, exc: LinkError) -> Stopped:
        """Why the link failed: a restart of the board (its hello event
        came, perhaps a moment after a request went unanswered), the port
        gone, or what the link said."""
        if isinstance(exc, readings.BoardRestarted) or self.restarted(isinstance(exc, LinkTimeout)):
            return Stopped(RESTARTED, self.port)
        if isinstance(exc, LinkClosed):
            return Stopped(LOST, self.port, str(exc))
        return Stopped(LINK, self.port, ports.link_words(self.port, exc))

    def restarted(self, wait: bool) -> bool:
        """Whether the board's hello event came (within a boot's time, with `wait`)."""
        link = self.ln()
        if any(readings.is_hello(item) for item in list(link.events.queue)):
            return True
        deadline = time.monotonic() + (link.wait_s(device_link.HANDSHAKE_S) if wait else 0)
        try:
            while time.monotonic() < deadline:
                if readings.is_hello(link.next_event(deadline - time.monotonic())):
                    return True
        except LinkError:
            return False
        return False
