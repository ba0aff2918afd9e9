"""The bring-up of a board, step by step with the person at it: the
firmware's version, the load cell (tare, a known count, a second count of
another number of cards that must agree with it), the touch pad (its
baseline, then a touch), the exit beam and the motor's direction (cards
fed, the person says where they landed; a flip is stored if they landed on
the right), the battery against a meter.

Each step says what to do (host/setup_steps.py), waits for the fact it
needs (a steady reading, a touch, the fed cards' end) and can be done
again; what it measures is stored on the board by `calibrate`, which
`shuffler flash` leaves alone. The person's answers are judged against the
physics before anything is stored: a per-card weight no card gives, two
counts that disagree, a pad that reads a hand, cards said to land on one
pile whichever way the motor turned are the person's slips, said as such
and asked again; nothing they gave is stored. The board cannot see how
many cards were put in, nor which pile they landed on: where it cannot
tell, the person's answer is taken. What a step finds is a finding of
host/check.py's kind, one line for each part, naming the wiring table's
row when the part does not answer. At the end the board is read as
`shuffler check` reads it, with what this bring-up tried now.
"""
from __future__ import annotations

import time
from typing import Any, Callable, Protocol

from firmware import protocol as wire
from hardware import cards
from host import check
from host import device_link
from host import device_messages
from host import device_words
from host import ports
from host import readings
from host import setup_steps
from host.device_link import DeviceError, Link, LinkClosed, LinkError, LinkTimeout, ProtocolMismatch
from host.parts import FAIL, OK, PARTS, SKIP, Finding, ready

KNOWN = 52  # one deck: the known count
# The second count: at least 80 cards, so that a 2 % error in the per-card
# figure (one card in the deck of 52) reads 1.6 cards off or more, and still
# more than half a card when the first deck is in the second count (28 or
# more cards counted afresh with it). Judged to half a card.
SECOND_LEAST = 80
HALF_CARD = 0.5
COUNT_TRIES = 3  # counts that disagree, asked again before the step gives up
HAND_TRIES = 2  # asks to take a hand off the pad
FEED_LEAST = 10
FEED_CARDS = 2
MAX_FEEDS = 4  # feeds of FEED_CARDS to find which way is left (FEED_LEAST + 2 cards hold them)
METER_TRIES = 3  # meter readings that disagree with the board, asked again before the step gives up
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


def unsettled(r: Any) -> Finding:
    """The load cell's reading with cards on it: never steady (None), or no answer."""
    return Finding(wire.PART_STACK, FAIL, "moving" if r is None else "no answer", "a steady reading",
                   "the reading does not settle with cards on it", wiring=True)


class Stop(Exception):
    """The bring-up cannot go on; the message says why (`code`: the exit code)."""

    def __init__(self, message: str, code: int = 1) -> None:
        super().__init__(message)
        self.code = code


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
        self.touches_before: int | None = None  # the board's touch count before the touch was asked for
        self.last_feed: Any = None  # the last feed's end: its Done or Fault event record, or check.Refused
        self.meter_refused = False  # the battery step's meter and the board disagreed: nothing trimmed

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
                self.hello = ports.greet(self.link)
            except LinkTimeout:
                held = ports.held_words(self.port)
                if held:  # the board's answers go to another program: flashing would not help
                    self.close()
                    raise Stop(held) from None
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

    def req(self, cmd: str, **fields: Any) -> dict[str, Any]:
        """A request answered; readings.BoardRestarted once the board has
        started again since the last one (its hello event came): what the
        bring-up held on it is gone, and a reading now is a fresh board's."""
        reply = self.ln().request(cmd, **fields)
        if any(readings.is_hello(item) for item in list(self.ln().events.queue)):
            raise readings.BoardRestarted(f"{self.port} restarted")
        return reply

    def settle(self) -> None:
        """Idle again: a paused pass aborted, a latched fault cleared (the board tests its sensors again)."""
        st = device_messages.reply_view(self.req(wire.CMD_STATUS)).state
        if st == wire.ST_PAUSED:
            self.req(wire.CMD_ABORT)
        if st in (wire.ST_PAUSED, wire.ST_ALARM):
            self.req(wire.CMD_CLEAR)

    def read(self) -> Any:
        """The sensors as the board reads them now (a ReadReply)."""
        return device_messages.reply_view(self.req(wire.CMD_READ))

    def cal(self, what: str, **fields: Any) -> Any:
        """Calibrate `what`, held on the board (in use, not stored: keep()
        stores it whole once every step passed): the calibration after it (a CalObject)."""
        return device_messages.reply_view(self.req(wire.CMD_CALIBRATE, what=what, hold=True, **fields)).cal

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
        """Tare, a known count judged against what a card can weigh, then a
        second count of another number of cards, which must read as typed
        by the first count's weight. Only then is the per-card figure stored
        (from the second count, the larger); two counts that disagree are
        counted again, since the board cannot see which of them is wrong."""
        capacity = int(device_messages.hello_view(self.hello).capacity or 104)
        known = min(KNOWN, capacity)
        tare = self.tare()
        if isinstance(tare, Finding):
            return [tare]
        lo, hi = cards.per_card_range()
        value = "no count"
        empty_said = False  # a tray that reads empty is said once as the person's, then as the load cell's
        for attempt in range(COUNT_TRIES):
            self.person.ask(setup_steps.LoadCards(known, again=attempt > 0))
            r = self.steady()
            if r is not None and r.raw is not None and abs(r.raw - tare) < 2 * lo and not empty_said:
                empty_said = True
                self.person.ask(setup_steps.TrayEmpty(known, r.raw, tare))
                r = self.steady()
            fault = self.load_cell_fault(r, tare, known)
            if fault is not None:
                return [fault]
            first = (r.raw - tare) / known
            if not lo <= first <= hi:
                value = f"{known} cards at {first:.0f} a card"
                self.person.say(f"As {known} cards that is {first:.0f} a card, and a card of any stock weighs {lo} to "
                                f"{hi} on this load cell: the tray does not hold {known} cards (or something presses "
                                "on it). Count them again.")
                continue
            self.person.say(f"{known} cards: {first:.0f} a card (stored once a second count agrees).")
            found, value = self.second_count(tare, first, known, capacity)
            if found is not None:
                return [found]
        return [Finding(wire.PART_STACK, FAIL, value, f"two counts that agree within half a card ({lo} to {hi} a card)",
                        f"the counts disagreed {COUNT_TRIES} times, so nothing is stored: count each card one by one, "
                        "and do this step again (r)")]

    def tare(self) -> int | Finding:
        """The empty tray's steady reading, stored as the tare; the finding
        instead when it does not settle or the load cell does not answer."""
        self.person.ask(setup_steps.EmptyTray())
        r = self.steady()
        if r is None:
            return Finding(wire.PART_STACK, FAIL, "moving", "a steady reading", "the reading does not settle: nothing "
                           "may touch the tray; a loose load cell wire", wiring=True)
        if r.raw is None:
            return check.stack(self.snapshot())  # no answer: the same words as `shuffler check`
        tare = self.cal(wire.CAL_STACK, n=0).tare
        self.person.say(f"Empty tray: {tare} (the tare).")
        return tare

    def second_count(self, tare: int, first: float, known: int, capacity: int) -> tuple[Finding | None, str]:
        """Another number of cards, read by the first count's weight (`first`
        a card): the finding when it reads as typed (the per-card figure
        stored) or gives no steady reading; else None, the counts said to
        disagree. With it, what the count read."""
        least = min(SECOND_LEAST, capacity)
        m = self.ask_number(setup_steps.SecondCount(least, capacity))
        r = self.steady(int(first))
        if r is not None and r.raw is not None and (r.raw - tare) / first < HALF_CARD:
            self.person.say(setup_steps.second_empty_words(m))  # cards counted, never put in
            m = self.ask_number(setup_steps.SecondCount(least, capacity))
            r = self.steady(int(first))
        if r is None or r.raw is None:
            return unsettled(r), ""
        read = (r.raw - tare) / first
        value = f"{m} cards read as {setup_steps.tenths(read)} by the weight of the {known}"
        if abs(read - m) < HALF_CARD:
            per_card = self.cal(wire.CAL_STACK, n=m).per_card
            return Finding(wire.PART_STACK, OK, value, "within half a card",
                           f"calibrated: tare {tare}, {per_card} a card"), value
        off = abs(read - m)
        self.person.say(f"{value}: the two counts disagree "
                        f"by {off:.1f} card{'s' * (f'{off:.1f}' != '1.0')} ({off / m * 100:.1f} %). "
                        "The board cannot see which count is off: count both again; nothing is stored yet.")
        return None, value

    def load_cell_fault(self, r: Any, tare: int, known: int) -> Finding | None:
        """The load cell's fault, if a reading with `known` cards on the tray
        shows one: no steady reading, or one that falls (its signal wires
        swapped) or barely grows (no load on it, a wire open) with a deck on."""
        if r is None or r.raw is None:
            return unsettled(r)
        grew, least = r.raw - tare, check.profile(self.board)["stack_per_card_min"] * known
        if grew >= least:
            return None
        if grew < -least:  # falls as a deck goes on: not a tray left empty
            why = f"the reading falls by {-grew} for {known} cards: its signal wires A+ and A- are swapped"
        else:
            why = (f"the reading grows by only {grew} for {known} cards: nothing presses on the load cell, "
                   "or a wire is open")
        return Finding(wire.PART_STACK, FAIL, f"raw {r.raw}, tare {tare}", "growing with every card", why, wiring=True)

    def touch(self) -> list[Finding]:
        """The baseline with no hand near, then a touch the board itself
        must see. A pad that reads as touched when no hand should be near
        is a hand, until the person says it is away: the person is asked
        to take it away, and the wiring is named only when the pad still
        reads so. A baseline taken with a hand near shows once the hand is
        lifted (the pad then reads well above it): it is taken again."""
        part = wire.PART_TOUCH
        self.person.ask(setup_steps.HandsOff())
        r = self.read()
        for _ in range(HAND_TRIES):
            if not r.touched:
                break
            self.person.ask(setup_steps.HandAway(r.touch))
            r = self.read()
        digital = check.profile(self.board)["touch_kind"] == "digital"
        if r.touched and digital:
            return [Finding(part, FAIL, f"reads {r.touch} (touched) with your hand away", "0 at rest, 1 touched",
                            "it reads touched with no hand near: its output is held high (a short)", wiring=True)]
        try:
            base = self.cal(wire.CAL_TOUCH).touch_baseline
        except DeviceError:
            r = self.read()
            return [Finding(part, FAIL, f"reads {r.touch} at rest", "a steady reading at rest",
                            "no pad answers (a broken lead, or a short)", wiring=True)]
        pct = int(device_messages.reply_view(self.req(wire.CMD_CONFIG)).config.touch_pct or 70)
        wait = self.touch_wait_s
        touches = int(self.read().touches or 0)
        self.touches_before = touches
        self.person.ask(setup_steps.TouchPad(wait))
        # The person's seconds, as a clock on the wall counts them: the board
        # counts the touch itself, so a slow device answers for it later.
        deadline = time.monotonic() + wait
        seen = False
        while True:
            r = self.read()
            if int(r.touches or 0) > touches:
                seen = True
                break
            if not digital and isinstance(base, int) and r.touch is not None and base * 100 < r.touch * pct \
                    and not r.touched:
                # The rest reading reads as a touch against the pad now.
                self.person.say(f"The pad read {base} when no hand was to be near and reads {r.touch} now: a hand "
                                "was on it then, not a fault of the pad. Its rest reading is taken again.")
                base = self.cal(wire.CAL_TOUCH).touch_baseline
                touches = int(self.read().touches or 0)
                self.person.ask(setup_steps.TouchPad(wait))
                deadline = time.monotonic() + wait
                continue
            if time.monotonic() >= deadline:
                break
            time.sleep(POLL_S)
        if not seen:
            return [Finding(part, FAIL, f"reads {r.touch}, no touch seen in {wait} s",
                            "a touch seen", "the pad does not answer a touch", wiring=True)]
        self.cal(wire.CAL_TOUCH, confirm=True)
        self.settle()  # the touch asked for a pass, which the empty tray refused
        return [Finding(part, OK, f"reads {base} at rest", "a touch seen", "a touch seen and confirmed")]

    def feed(self) -> list[Finding]:
        """A few cards fed to the left: the exit beam counts them, the person
        says where they landed. Cards that landed on the right are fed again
        the other way (the motor wired the other way round), and the
        direction is stored only once an answer says they landed on the
        left and no answer before contradicts it: the motor turned both ways
        (the beam counted every feed), so cards cannot land on one pile
        both ways, and answers that say so are a slip, said as such and
        asked again, never the wiring."""
        r, unfed = self.loaded_to_feed()
        if unfed:
            return unfed
        stored = int(r.flip or 0)  # the board's direction now: nothing is stored until the answers agree
        said: list[int] = []  # the direction each answer gives for the person's left (a flip)
        side = wire.LEFT
        beam = None
        for _ in range(MAX_FEEDS):
            end = self.fed(side)
            self.last_feed = end  # what the board ends with says it, done or not
            if end is not None and not check.ended(end, wire.EV_DONE):
                return self.feed_fault(end)
            if end is None:
                return [Finding(wire.PART_MOTOR, FAIL, "no end to the feed", "the fed cards counted",
                                "the board did not finish the feed", wiring=True)]
            if beam is None:
                beam = self.cal(wire.CAL_BEAM).beam_ms
            answer = self.ask_side(setup_steps.WhereLanded(FEED_CARDS))
            turned = stored ^ (side == wire.RIGHT)  # the flip this feed dealt by
            says = turned if answer == LEFT else 1 - turned
            if said and says != said[-1]:
                self.person.say(f"Your answer and where the cards landed disagree: these {FEED_CARDS} cards went "
                                f"the other way from the {FEED_CARDS} before (the exit beam counted both), so they "
                                "cannot have landed on the same pile. One of the two answers was a slip: "
                                f"{FEED_CARDS} more cards go the way your last answer puts on your left; look where "
                                "they land.")
            elif answer == LEFT:
                if said:
                    self.person.say("Your answers and where the cards landed agree now.")
                self.cal(wire.CAL_MOTOR, flip=says)
                s = self.snapshot(end)
                return [Finding(wire.PART_EXIT, OK, f"saw the {FEED_CARDS} cards fed", "every card counted",
                                f"{beam} ms a card in the beam"), check.motor(s)]
            else:
                self.person.say(f"Then the motor is wired the other way round: the next {FEED_CARDS} cards go the "
                                "other way and should land on your left.")
            said.append(says)
            side = wire.LEFT if says == stored else wire.RIGHT
        return [Finding(wire.PART_MOTOR, FAIL, f"{len(said)} answers, {FEED_CARDS} cards each", "left for left",
                        "your answers and where the cards landed disagree each time: the motor turned both ways (the "
                        "exit beam counted every card), so cards cannot land on one pile both ways; nothing is stored: "
                        "watch the piles as the cards land and do this step again (r)")]

    def loaded_to_feed(self) -> tuple[Any, list[Finding]]:
        """The tray loaded for the feed: (its reading, []), or why it cannot
        feed. Too few cards is the person's to put right, asked once."""
        self.person.ask(setup_steps.FeedCards(FEED_LEAST, FEED_CARDS))
        r = self.steady()
        if r is not None and r.n is not None and 0 <= r.n < FEED_LEAST:
            self.person.ask(setup_steps.TooFewCards(r.n, FEED_LEAST))
            r = self.steady()
        if r is None:
            return r, [unsettled(r)]
        if r.n is None:
            return r, [Finding(wire.PART_MOTOR, SKIP, "not judged", "-",
                               "the tray cannot be counted until the load cell's step has passed: do it first")]
        if r.n < 0:
            return r, [check.stack(self.snapshot())]  # a load cell that reads fewer than no cards
        if r.n < FEED_CARDS:
            return r, [Finding(wire.PART_STACK, FAIL, f"the tray reads {setup_steps.cards(r.n)}",
                               f"{FEED_LEAST} or more",
                               f"put {FEED_LEAST} or more cards in the tray, then do this step again (r)")]
        return r, []

    def fed(self, side: str = wire.LEFT) -> Any:
        """The feed's end: its Done or Fault event record, check.Refused, or None."""
        try:
            return readings.feed(self.ln(), FEED_CARDS, side)
        except DeviceError as exc:
            return check.Refused.of(exc.reply)

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
        """The board's reading trimmed to a meter's. A meter reading more
        than 10 % off is first the person's misread (a wrong range, a probe
        off the terminal), said as such and asked again; the divider is named
        only when the person reads the same voltage again."""
        self.meter_refused = False
        said: list[int] = []
        while True:
            mv = self.ask_volts()
            if mv is None:
                break
            try:
                self.cal(wire.CAL_BATTERY, mv=mv)
                break
            except DeviceError as exc:
                board = int(exc.reply.get("mv") or self.read().mv or 0)
                value = f"the board reads {board / 1000:.2f} V, the meter {mv / 1000:.2f} V"
                if exc.reply.get("why") == wire.WHY_IMPLAUSIBLE or (said and abs(mv - said[-1]) * 50 <= mv):
                    self.meter_refused = True  # no battery reads so, or the meter read the same again
                    return [Finding(wire.PART_BATTERY, FAIL, value, "within 10 % of the meter",
                                    "more than 10 % apart on the same meter reading again: its divider", wiring=True)]
                said.append(mv)
                if len(said) >= METER_TRIES:
                    self.meter_refused = True
                    return [Finding(wire.PART_BATTERY, FAIL, value, "within 10 % of the meter",
                                    "more than 10 % apart each time, the meter reading different voltages: nothing "
                                    "is trimmed; measure across the battery's terminals and do this step again (r)")]
                self.person.say(setup_steps.meter_words(board, mv))
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
        """Every step, then what they measured stored in one write if every
        one passed (nothing otherwise), then the board read as `shuffler
        check` reads it: (ready to shuffle, the findings). Stopped part way
        (Ctrl-C, a reset, the port gone), nothing is stored and Stop says so."""
        self.connect()
        try:
            self.person.found(check.firmware(self.snapshot()), self.board)
            self.settle()
            failed = []
            for step in (self.counts, self.touch, self.feed, self.battery):
                found = self.stage(step)
                # (a battery too low for a pass is no calibration that failed: a meter refused is)
                failed += [PARTS[f.part].name for f in found if f.verdict == FAIL
                           and (f.part != wire.PART_BATTERY or self.meter_refused)]
                self.settle()
            self.keep(failed)
            final = check.findings(readings.snapshot(self.ln(), self.last_feed, touches_before=self.touches_before))
            self.person.say("The board now:")
            for f in final:
                self.person.found(f, self.board)
            ok = ready(final)
            self.person.say("Ready to shuffle: put a load in the tray and touch the pad (or `shuffler guide`)."
                            if ok else "Not ready to shuffle: put right the lines marked FAIL, then "
                                       "`shuffler setup` again (or `shuffler check` to look).")
            return ok, final
        except KeyboardInterrupt:
            self.drop()
            raise Stop(setup_steps.stopped_words(setup_steps.INTERRUPTED, self.port), code=130) from None
        except LinkError as exc:
            why = self.why_stopped(exc)
            self.drop()
            raise Stop(setup_steps.stopped_words(why, self.port)) from None
        finally:
            self.close()

    def keep(self, failed: list[str]) -> None:
        """Store what the steps held, in one write, when every step passed;
        else go back to what the board had stored."""
        if failed:
            self.req(wire.CMD_CALIBRATE, what=wire.CAL_DROP)
            self.person.say(setup_steps.unstored_words(failed))
            return
        self.req(wire.CMD_CALIBRATE, what=wire.CAL_STORE)
        config = bool(int(device_messages.hello_view(self.hello).bad or 0) & wire.BAD_CONFIG)
        if config:
            self.req(wire.CMD_CONFIG, set={})  # the defaults it runs on, stored over the unusable file
        self.person.say(setup_steps.stored_words(config))

    def drop(self) -> None:
        """What the steps held on the board dropped, if it still answers (a
        reset dropped it already)."""
        if self.link is None or self.link.closed:
            return
        try:
            self.link.request(wire.CMD_CALIBRATE, timeout=self.link.wait_s(1.0), what=wire.CAL_DROP)
        except LinkError:
            pass

    def why_stopped(self, exc: LinkError) -> str:
        """Why the link failed, in words: a restart of the board (its hello
        event came, perhaps a moment after a request went unanswered), the
        port gone, or what the link said."""
        if isinstance(exc, readings.BoardRestarted) or self.restarted(isinstance(exc, LinkTimeout)):
            return setup_steps.restarted_words(self.port)
        if isinstance(exc, LinkClosed):
            return setup_steps.lost_words(str(exc))
        return ports.link_words(self.port, exc)

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
