"""The bring-up of a board, step by step with the person at it: the
firmware's version, the load cell (tare, a known count, a second count
within one card), the touch pad (its baseline, then a touch), the exit beam
and the motor's direction (cards fed, the person says where they landed; a
flip is stored if they landed on the right), the battery against a meter.

Each step says what to do (host/setup_steps.py), waits for the fact it
needs (a steady reading, a touch, the fed cards' end) and can be done
again; what it measures is stored on the board by `calibrate`, which
`shuffler flash` leaves alone. What a step finds is a finding of
host/check.py's kind, one line for each part, naming the wiring table's
row when the part does not answer. At the end the board is read as
`shuffler check` reads it.
"""
from __future__ import annotations

import time
from typing import Any, Callable, Protocol

from firmware import protocol as wire
from host import check
from host import device_messages
from host import device_words
from host import readings
from host import setup_steps
from host.device_link import DeviceError, Link, LinkError, LinkTimeout, ProtocolMismatch
from host.parts import FAIL, OK, SKIP, Finding, ready

KNOWN = 52  # one deck: the known count
SECOND_LEAST = 20
FEED_LEAST = 10
FEED_CARDS = 2
TOUCH_WAIT_S = 30  # the person's time to touch the pad
STEADY_WAIT_S = 30.0  # a reading that has not settled by then will not
STEADY_READS = 3
POLL_S = 0.2
LEFT, RIGHT = "l", "r"


class Person(Protocol):
    """The front-end: shows a step and returns what the person typed ("" for Enter)."""

    def ask(self, step: setup_steps.Step) -> str: ...
    def say(self, text: str) -> None: ...
    def found(self, finding: Finding, board: str) -> None: ...


class Stop(Exception):
    """The bring-up cannot go on; the message says why."""


Flash = Callable[[str], None]  # flashes this tool's firmware onto the port, or raises Stop


class Bringup:
    def __init__(self, port: str, person: Person, flash: Flash, open_link: Callable[[str], Link] = Link.open,
                 touch_wait_s: int = TOUCH_WAIT_S) -> None:
        self.port = port
        self.touch_wait_s = touch_wait_s
        self.person = person
        self.flash = flash
        self.open_link = open_link
        self.link: Link | None = None
        self.hello: dict[str, Any] = {}

    # -- the board ---------------------------------------------------------------
    @property
    def board(self) -> str:
        return str(device_messages.hello_view(self.hello).board or "sim") if self.hello else "sim"

    def ln(self) -> Link:
        assert self.link is not None
        return self.link

    def close(self) -> None:
        if self.link is not None:
            self.link.close()
            self.link = None

    def connect(self) -> None:
        """The link, after the firmware's version has been checked (and
        flashed, if the person agrees)."""
        for _ in range(2):
            self.link = self.open_link(self.port)
            try:
                self.hello = self.link.handshake()
            except LinkTimeout:
                offer = setup_steps.FlashOffer("", wire.FIRMWARE_VERSION, True)
            except ProtocolMismatch:
                offer = setup_steps.FlashOffer("of another version", wire.FIRMWARE_VERSION, True)
            else:
                fw = device_messages.hello_view(self.hello).fw
                if fw == wire.FIRMWARE_VERSION:
                    return
                offer = setup_steps.FlashOffer(str(fw), wire.FIRMWARE_VERSION, False)
            self.close()
            if self.yes(offer):
                self.flash(self.port)
                continue
            if offer.protocol:
                raise Stop(f"no shuffler firmware this tool speaks on {self.port}: run `shuffler flash --port "
                           f"{self.port}`, then `shuffler setup` again")
            self.link = self.open_link(self.port)
            self.hello = self.link.handshake()
            return
        raise Stop(f"the board on {self.port} still does not answer with firmware {wire.FIRMWARE_VERSION} after flashing")

    def yes(self, step: setup_steps.FlashOffer) -> bool:
        while True:
            answer = self.person.ask(step).strip().lower()
            if answer in ("y", "yes", "n", "no"):
                return answer.startswith("y")
            self.person.say("Type y or n, then Enter.")

    def settle(self) -> None:
        """Idle again: a paused pass aborted, a latched fault cleared (the board tests its sensors again)."""
        st = device_messages.reply_view(self.ln().request(wire.CMD_STATUS)).state
        if st == wire.ST_PAUSED:
            self.ln().request(wire.CMD_ABORT)
        if st in (wire.ST_PAUSED, wire.ST_ALARM):
            self.ln().request(wire.CMD_CLEAR)

    def read(self) -> Any:
        """The sensors as the board reads them now (a ReadReply)."""
        return device_messages.reply_view(self.ln().request(wire.CMD_READ))

    def cal(self, what: str, **fields: Any) -> Any:
        """Calibrate `what`: the stored calibration after it (a CalObject)."""
        return device_messages.reply_view(self.ln().request(wire.CMD_CALIBRATE, what=what, **fields)).cal

    def steady(self, per_card: int = 0) -> Any:
        """A reading of the load cell that has held still over STEADY_READS
        readings (or one without its answer); None if it never settles."""
        link = self.ln()
        deadline = time.monotonic() + link.wait_s(STEADY_WAIT_S)
        last: list[Any] = []
        while time.monotonic() < deadline:
            r = self.read()
            if r.raw is None:
                return r
            last = (last + [r])[-STEADY_READS:]
            raws = [x.raw for x in last]
            tol = max(max(x.spread for x in last), per_card // 3 if per_card else 100)
            if len(last) == STEADY_READS and max(raws) - min(raws) <= tol:
                return r
            time.sleep(POLL_S)
        return None

    def ask_number(self, step: setup_steps.SecondCount) -> int:
        while True:
            text = self.person.ask(step).strip()
            if text.isdigit() and step.least <= int(text) <= step.most:
                return int(text)
            self.person.say(f"Type a whole number from {step.least} to {step.most}, then Enter.")

    def ask_side(self, step: setup_steps.WhereLanded) -> str:
        while True:
            text = self.person.ask(step).strip().lower()
            if text in ("l", "left", "r", "right"):
                return text[0]
            self.person.say("Type l or r, then Enter.")

    def ask_volts(self) -> int | None:
        while True:
            text = self.person.ask(setup_steps.Meter()).strip().lower().rstrip("v").strip().replace(",", ".")
            if not text:
                return None
            try:
                v = float(text)
            except ValueError:
                v = -1.0
            if 1.0 <= v <= 20.0:
                return round(v * 1000)
            self.person.say("Type the voltage in volts (for example 9.12), or just Enter.")

    # -- the steps -------------------------------------------------------------------
    def counts(self) -> list[Finding]:
        """Tare, a known count, then a second count that must read within one card."""
        capacity = int(device_messages.hello_view(self.hello).capacity or 104)
        known = min(KNOWN, capacity)
        stack = wire.PART_STACK
        self.person.ask(setup_steps.EmptyTray())
        r = self.steady()
        if r is None:
            return [Finding(stack, FAIL, "moving", "a steady reading", "the reading does not settle: nothing may touch "
                            "the tray; a loose load cell wire", wiring=True)]
        if r.raw is None:
            return [check.stack(self.snapshot())]  # no answer: the same words as `shuffler check`
        tare = self.cal(wire.CAL_STACK, n=0).tare
        self.person.say(f"Empty tray: {tare} (the tare).")
        self.person.ask(setup_steps.LoadCards(known))
        r = self.steady()
        if r is None or r.raw is None:
            return [Finding(stack, FAIL, "moving" if r is None else "no answer", "a steady reading",
                            "the reading does not settle with cards on it", wiring=True)]
        try:
            per_card = self.cal(wire.CAL_STACK, n=known).per_card
        except DeviceError as exc:
            if exc.code != wire.E_BAD_VALUE:
                return [Finding(stack, FAIL, "refused", "a calibration", str(exc))]
            grew = r.raw - tare
            if grew < 0:
                why = f"the reading falls by {-grew} for {known} cards: its signal wires A+ and A- are swapped"
            else:
                why = (f"the reading grows by only {grew} for {known} cards: nothing presses on the load cell, "
                       "or a wire is open")
            return [Finding(stack, FAIL, f"raw {r.raw}, tare {tare}", "growing with every card", why, wiring=True)]
        self.person.say(f"{known} cards: {per_card} a card.")
        m = self.ask_number(setup_steps.SecondCount(SECOND_LEAST, capacity))
        r = self.steady(per_card)
        n = r.n if r is not None else None
        value = f"{m} cards read as {n}"
        if n is not None and abs(n - m) <= 1:
            return [Finding(stack, OK, value, "within one card", f"calibrated: tare {tare}, {per_card} a card")]
        return [Finding(stack, FAIL, value, "within one card",
                        "count again: the known count may not have been exactly right", wiring=n is None)]

    def touch(self) -> list[Finding]:
        """The baseline with no hand near, then a touch the board itself must see."""
        part = wire.PART_TOUCH
        self.person.ask(setup_steps.HandsOff())
        try:
            self.cal(wire.CAL_TOUCH)
        except DeviceError:
            r = self.read()
            return [Finding(part, FAIL, f"reads {r.touch} at rest", "a steady reading at rest",
                            "no pad answers (a broken lead, or a short)", wiring=True)]
        link = self.ln()
        link.drain()
        wait = self.touch_wait_s
        self.person.ask(setup_steps.TouchPad(wait))
        # the person's seconds, and a slow device's time to report the touch
        seen = readings.wait_event(link, (wire.EV_TOUCH,), wait / link.slowdown + 2)
        r = self.read()
        if seen is None:
            return [Finding(part, FAIL, f"reads {r.touch}, no touch seen in {wait} s",
                            "a touch seen", "the pad does not answer a touch", wiring=True)]
        self.cal(wire.CAL_TOUCH, confirm=True)
        self.settle()  # the touch asked for a pass, which the empty tray refused
        return [Finding(part, OK, f"reads {r.touch} at rest", "a touch seen", "a touch seen and confirmed")]

    def feed(self) -> list[Finding]:
        """A few cards fed to the left: the exit beam counts them, the person
        says where they landed, the direction is stored (flipped if they
        landed on the right) and, once flipped, shown again."""
        self.person.ask(setup_steps.FeedCards(FEED_LEAST, FEED_CARDS))
        r = self.steady()
        if r is not None and (r.n or 0) < 0:
            return [check.stack(self.snapshot())]  # a load cell that reads fewer than no cards
        if r is None or (r.n or 0) < FEED_CARDS:
            n = None if r is None else r.n
            return [Finding(wire.PART_STACK, FAIL, f"the tray reads {n} cards", f"{FEED_LEAST} or more",
                            f"put {FEED_LEAST} or more cards in the tray")]
        flip = int(r.flip or 0)
        for _ in range(2):
            end = self.fed()
            if end is not None and not check.ended(end, wire.EV_DONE):
                return self.feed_fault(end)
            if end is None:
                return [Finding(wire.PART_MOTOR, FAIL, "no end to the feed", "the fed cards counted",
                                "the board did not finish the feed", wiring=True)]
            beam = self.cal(wire.CAL_BEAM).beam_ms
            side = self.ask_side(setup_steps.WhereLanded(FEED_CARDS))
            if side == LEFT:
                self.cal(wire.CAL_MOTOR, flip=flip)
                s = self.snapshot(end)
                return [Finding(wire.PART_EXIT, OK, f"saw the {FEED_CARDS} cards fed", "every card counted",
                                f"{beam} ms a card in the beam"), check.motor(s)]
            if flip != int(r.flip or 0):
                break  # flipped already, and still on the right
            flip = 1 - flip
            self.cal(wire.CAL_MOTOR, flip=flip)
            self.person.say("Stored the other direction: the next cards should land on your left.")
        return [Finding(wire.PART_MOTOR, FAIL, "cards land on the right either way", "left for left",
                        "the motor does not follow the direction it is given", wiring=True)]

    def fed(self) -> Any:
        """The feed's end: its Done or Fault event record, check.Refused, or None."""
        try:
            return readings.feed(self.ln(), FEED_CARDS, wire.LEFT)
        except DeviceError as exc:
            return check.Refused(str(exc))

    def feed_fault(self, end: Any) -> list[Finding]:
        s = self.snapshot(end)
        self.settle()
        if isinstance(end, check.Refused):
            what = end.words
        elif end.part == wire.PART_EXIT:
            return [check.beam(s), Finding(wire.PART_MOTOR, SKIP, "not judged", "-",
                                       "which way it deals is judged once the beam counts the cards")]
        elif end.code == wire.FAULT_JAM:
            return [check.motor(s)]
        else:
            what = device_words.why_words(end) or device_words.fault_words(end.code)
        return [Finding(wire.PART_EXIT, FAIL, f"the feed ended: {what}", "every card counted",
                        "take the cards out of the exit and the piles, then do this step again")]

    def battery(self) -> list[Finding]:
        mv = self.ask_volts()
        if mv is not None:
            try:
                self.cal(wire.CAL_BATTERY, mv=mv)
            except DeviceError:
                r = self.read()
                return [Finding(wire.PART_BATTERY, FAIL, f"the board reads {(r.mv or 0) / 1000:.2f} V, "
                                f"the meter {mv / 1000:.2f} V", "within 10 % of the meter",
                                "more than 10 % apart: its divider", wiring=True)]
        return [check.battery(self.snapshot())]

    def snapshot(self, feed: Any = None) -> check.Snapshot:
        return readings.snapshot(self.ln(), feed)

    # -- the whole bring-up ------------------------------------------------------------
    def stage(self, step: Callable[[], list[Finding]]) -> list[Finding]:
        """A step, its findings shown, then the person goes on or does it again."""
        while True:
            found = step()
            for f in found:
                self.person.found(f, self.board)
            passed = all(f.verdict != FAIL for f in found)
            if self.person.ask(setup_steps.Again(passed)).strip().lower() != "r":
                return found

    def run(self) -> tuple[bool, list[Finding]]:
        """Every step, then the board read as `shuffler check` reads it:
        (ready to shuffle, the findings)."""
        self.connect()
        try:
            self.person.found(check.firmware(self.snapshot()), self.board)
            self.settle()
            for step in (self.counts, self.touch, self.feed, self.battery):
                self.stage(step)
                self.settle()
            final = check.findings(self.snapshot())
            self.person.say("The board now:")
            for f in final:
                self.person.found(f, self.board)
            ok = ready(final)
            self.person.say("Ready to shuffle: put a load in the tray and touch the pad (or `shuffler guide`)."
                            if ok else "Not ready to shuffle: put right the lines marked FAIL, then "
                                       "`shuffler setup` again (or `shuffler check` to look).")
            return ok, final
        except LinkError as exc:
            raise Stop(str(exc)) from None
        finally:
            self.close()
