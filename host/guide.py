"""The guided shuffle: the plan, step by step, checked against the device.

The guide walks the plan's rounds and loads. What it believes (which round,
pass and load, how many cards each load and pile holds) changes only from
facts: the device's answers and events (counts, progress, done, faults,
hello and its uid) and the person's confirmations, never from a prompt
having returned. Each step waits for the fact it needs:

* after "put load A in the tray" the tray's count, once it has held still
  for SETTLE_S (or the person says the cards are in); a load that is short
  or long is put right before its touch, with how many cards are missing or
  extra and where;
* after "touch" the pass's events, followed by a PassFollower: one handler
  per event kind, the way a serial host dispatches by message name.

Its place is kept through every problem: a jam, a refused pass, garbage on
the wire, the device restarting or dropping off the port. A pass may be
dealt in parts: dealing the rest of a load onto the same piles gives
exactly the piles of one whole pass, because the bottom card is fed first
and every card lands on top of its pile (docs/mechanism.md). Every wait has
a timeout. Every number it prints comes from the device or the plan; where
neither knows (a pile split after a restart, a load with no device) it
prints none.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable

from firmware import protocol as P
from host import person as persons
from host.link import (HANDSHAKE_S, REQUEST_TIMEOUT_S, BadMessage, DeviceError, Garbage, Link, LinkClosed,
                       LinkError, LinkTimeout, ProtocolFault)
from host.plan import METHOD, Plan, distance_after, trade_steps
from simulator.shuffling import steps as S

# Seconds. The person's waits are long; the machine's are short.
PERSON_WAIT_S = 1800.0  # for a load and a touch
STALL_S = 8.0  # no event while dealing: ask the device how it is doing
RECONNECT_S = 60.0  # how long an unplugged device may take to come back
SETTLE_S = 1.0  # a tray count unchanged this long is the load as it is
POLL_S = 0.25
# Random mode deals a load within this of the plan as it is (the shuffle
# does not depend on where the loads are cut); further off, the person is
# told to move cards first. Exact mode needs the count exactly.
LOAD_TOLERANCE_PCT = 5
MAX_RECOUNTS = 3  # then deal what is there and adjust the loads after it
MAX_RESTARTS_PER_PASS = 3  # more hellos than this in one pass is a device at fault
MAX_RECONNECTS_PER_PASS = 5
MAX_FRUITLESS_PARTS = 3  # parts of one pass in a row that stop before their first card


def load_tolerance(want: int) -> int:
    """Cards a load may be off its planned size in random mode: 5 %, at least 2."""
    return max(2, want * LOAD_TOLERANCE_PCT // 100)


@dataclass
class Place:
    """Where the routine stands."""

    round: int
    load: str
    pass_number: int
    of_rounds: int
    of_passes: int

    def __str__(self) -> str:
        return (f"round {self.round} of {self.of_rounds}, load {self.load} "
                f"(pass {self.pass_number} of {self.of_passes})")


class GuideStopped(Exception):
    """The guide cannot go on; the message says why, `place` where."""

    def __init__(self, message: str, place: Place | None) -> None:
        super().__init__(message)
        self.place = place


@dataclass
class PassResult:
    cards: int
    left: int | None  # None: the device's counts of the piles are not known
    right: int | None
    parts: int


@dataclass
class Summary:
    rounds: int
    passes: int
    seconds: float
    distance: float
    cards: int
    notes: list[str] = field(default_factory=list)
    loads: list[list[int]] = field(default_factory=list)  # cards dealt per load, per round (device counts)
    mode: str = "random"  # "exact", or "exact, then random" after exactness was lost
    distance_kind: str = "exact"  # "exact", or "at most" (an upper bound)
    method: str = METHOD

    def to_dict(self) -> dict[str, Any]:
        return {"mode": self.mode, "rounds": self.rounds, "passes": self.passes, "seconds": round(self.seconds, 2),
                "distance": {"value": self.distance, "kind": self.distance_kind, "method": self.method},
                "cards": self.cards, "loads": self.loads, "notes": self.notes}


class Voice:
    """What the guide says; the console command gives it rich output."""

    def say(self, text: str) -> None:
        raise NotImplementedError

    def problem(self, text: str) -> None:
        self.say(f"[bold red]![/bold red] {text}")

    def bar_start(self, label: str, total: int, done: int = 0, left: int | None = 0,
                  right: int | None = 0) -> None:
        """A pass (or the rest of one) begins: `done` of `total` cards are
        through already, onto piles of `left` and `right` (None: not known)."""

    def bar_update(self, done: int, total: int, left: int | None, right: int | None) -> None:
        pass

    def bar_end(self) -> None:
        pass


class OutOfTurn(Exception):
    """A pass started before the guide asked for the touch."""

    def __init__(self, loaded: dict[str, Any]) -> None:
        super().__init__("a pass started out of turn")
        self.loaded = loaded


def _cards(n: int) -> str:
    return S.cards(n)


class Guide:
    mode = "random"

    def __init__(self, plan: Plan, person: persons.Person, voice: Voice, link: Link | None = None,
                 reopen: Callable[[], Link] | None = None, from_round: int = 1,
                 person_wait_s: float = PERSON_WAIT_S, reconnect_s: float = RECONNECT_S,
                 stall_s: float = STALL_S, settle_s: float = SETTLE_S,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.plan = plan
        self.person = person
        self.voice = voice
        self.link = link
        self.reopen = reopen
        self.from_round = from_round
        self.person_wait_s = person_wait_s
        self.reconnect_s = reconnect_s
        self.stall_s = stall_s
        self.settle_s = settle_s
        self.clock = clock
        self.step_number = 0
        self.notes: list[str] = []
        self.garbage_seen = 0
        self.place: Place | None = None
        self.round: int | None = None
        self.following = False  # a PassFollower reads the events now
        self.restarts = 0  # hellos nobody asked for since the last pass began
        hello = link.hello if link is not None else None
        self.uid = hello.get(P.F_UID) if hello else None  # which shuffler this routine runs on
        self.device_name = link.name if link is not None else "the shuffler"

    # -- small helpers -----------------------------------------------------------
    def step(self, step: S.Step) -> None:
        """Show (or have done) one step; table work returns once confirmed."""
        self.step_number += 1
        try:
            self.person.do(step, self.step_number, self.round)
        except persons.PersonGaveUp as exc:
            raise GuideStopped(f"stopped waiting for the person: {exc}", self.place) from None
        if self.link is not None and not self.following and not isinstance(step, S.MACHINE_SEES):
            self._events_between_steps()

    def note(self, text: str) -> None:
        self.notes.append(text)

    def stop(self, message: str) -> GuideStopped:
        return GuideStopped(message, self.place)

    def protocol_fault(self, what: str) -> GuideStopped:
        return self.stop(f"{self.device_name} broke the protocol: {what}")

    # -- the routine -------------------------------------------------------------
    def run(self) -> Summary:
        p = self.plan
        names, sizes = list(p.names), list(p.loads)
        counted = self.link is not None
        started = self.clock()
        if self.link is not None:
            self._prepare_device()
        self.round = self.from_round
        self.place = Place(self.from_round, names[0], (self.from_round - 1) * len(names) + 1, p.rounds, p.passes)
        self.step(S.Cut(S.PACK, tuple(names), tuple(sizes), by_eye=len(names) > 1, counted=counted, first=True))
        expected = list(sizes)
        per_round: list[list[int]] = []
        for r in range(self.from_round, p.rounds + 1):
            self.round = r
            self.voice.say(f"[bold]Round {r} of {p.rounds}[/bold]")
            results: list[PassResult] = []
            dealt_so_far = 0
            for i, name in enumerate(names):
                self.place = Place(r, name, (r - 1) * len(names) + i + 1, p.rounds, p.passes)
                want = expected[i]
                result = self._deal(name, want, i, names, p.cards - dealt_so_far)
                results.append(result)
                dealt_so_far += result.cards
                if result.cards != want and i + 1 < len(names):
                    # Spread the difference over the loads still to come this round.
                    expected[i + 1:] = even_split(p.cards - dealt_so_far, len(names) - i - 1)
                self.step(S.Lift(name, result.left, result.right))
            if counted:
                per_round.append([x.cards for x in results])
                total = sum(x.cards for x in results)
                if total != p.cards:
                    msg = (f"round {r} dealt {total} cards but the pack has {p.cards}: "
                           f"{'cards are missing' if total < p.cards else 'extra cards came in'}; "
                           "look around the machine before the next hand")
                    self.voice.problem(msg[0].upper() + msg[1:] + ".")
                    self.note(msg)
            known = counted and all(x.left is not None and x.right is not None for x in results)
            lefts = [x.left or 0 for x in results] if known else None
            rights = [x.right or 0 for x in results] if known else None
            for s in trade_steps(names, sizes, lefts, rights, counted=counted):
                self.step(s)
            expected = list(sizes)
        self.place = None
        self.step(S.Gather(tuple(names)))
        rounds_done = p.rounds - self.from_round + 1
        if self.from_round > 1:
            self.note(f"the distance counts rounds 1 to {self.from_round - 1} as done as guided before this run")
        return Summary(rounds=p.rounds, passes=rounds_done * len(names), seconds=self.clock() - started,
                       distance=distance_after(p.cards, p.capacity, p.rounds), cards=p.cards,
                       notes=self.notes, loads=per_round)

    # -- one load ----------------------------------------------------------------
    def _deal(self, name: str, want: int, index: int, names: list[str], left_in_pack: int) -> PassResult:
        if self.link is None:
            # Nothing counts the cards: the plan's sizes, said as "about", and no pile counts.
            self.step(S.PutInTray(name, want, about=True))
            self.step(S.Touch("manual"))
            return PassResult(want, None, None, 1)
        self.step(S.PutInTray(name, want))
        try:
            self._settle_load(name, want, index, names, left_in_pack)
        except OutOfTurn as early:
            return PassFollower(self, name, want, index, names).run(early=early.loaded)
        self.step(S.Touch("start"))
        return PassFollower(self, name, want, index, names).run()

    def _tolerance(self, want: int, index: int, names: list[str]) -> int:
        return load_tolerance(want) if index + 1 < len(names) else 0

    def _settle_load(self, name: str, want: int, index: int, names: list[str], left_in_pack: int) -> int:
        """Before the touch: wait for the tray's count, and while it is off
        the load's size, say how many cards are missing or extra and where,
        have them moved, and count again. Cards move between this load's
        bottom and the next load's top, which keeps the pack's order."""
        tolerance = self._tolerance(want, index, names)
        n = 0
        for attempt in range(MAX_RECOUNTS + 1):
            counted = self._await_tray(name)
            if counted is None:
                return want  # the device cannot count: the pass itself will say
            n = counted
            if abs(n - want) <= tolerance:
                if n != want and index + 1 < len(names):
                    diff = n - want
                    self.voice.problem(
                        f"Load {name} should hold about {want} and holds {n}. It is dealt as it is: the shuffle "
                        f"does not depend on where the loads are cut, only on keeping the order, so load "
                        f"{names[index + 1]} will hold {abs(diff)} {'fewer' if diff > 0 else 'more'}.")
                return n
            if attempt == MAX_RECOUNTS:
                break
            self._events_between_steps(wait=0.1)  # a pass begun since the count makes it stale
            self._put_right(name, want, n, index, names, left_in_pack, tolerance)
        self.voice.problem(f"Load {name} still holds {n} cards, not {want}; it is dealt as it is.")
        self.note(f"load {name} of round {self.round} was dealt with {n} cards instead of {want}")
        return n

    def _put_right(self, name: str, want: int, n: int, index: int, names: list[str], left_in_pack: int,
                   tolerance: int) -> None:
        """Say what is wrong with the load in the tray and have it put right."""
        about = "about " if tolerance else ""
        cap = self.plan.capacity
        over = f", more than the {cap} the tray takes" if n > cap else ""
        move = abs(n - want)
        if index + 1 < len(names):
            trade = S.Move(move, name, names[index + 1], down=n > want)
            self.voice.problem(f"Load {name} should hold {about}{want} and holds {n}{over}: "
                               f"{S.move_phrase(trade)}.")
            self.step(S.Unload(name))
            self.step(trade)
        else:
            self._missing_or_extra(name, want, n)
            return
        self.step(S.PutInTray(name, want, again=True))

    def _missing_or_extra(self, name: str, want: int, n: int) -> None:
        """A load with no load below it to trade cards with is short or long:
        say how many cards and where, have them found or taken off, load again."""
        move = abs(n - want)
        cap = self.plan.capacity
        over = f", more than the {cap} the tray takes" if n > cap else ""
        if n < want:
            self.voice.problem(f"Load {name} should hold {want} and holds {n}: {_cards(move)} "
                               f"{'is' if move == 1 else 'are'} missing from it. Look on the table, in the exit and "
                               f"under the machine, and put them at the bottom of load {name}.")
        else:
            self.voice.problem(f"Load {name} should hold {want} and holds {n}{over}: {_cards(move)} too many. "
                               "Another load or pile may have gone in with it: take the extra cards off its bottom.")
        self.step(S.Unload(name))
        self.step(S.Fix("missing" if n < want else "extra", move, name))
        self.step(S.PutInTray(name, want, again=True))

    def _await_tray(self, name: str) -> int | None:
        """The tray's count once it has held still for settle_s (a count of
        zero never has: nobody has loaded yet), or at once when the person
        says the cards are in. None when the device cannot count."""
        assert self.link is not None
        deadline = self.clock() + self.person_wait_s
        said = False
        last: int | None = None
        since = self.clock()
        while True:
            confirmed = self.person.ready(0.0)
            n = self._tray_count()
            if n is None:
                return None
            now = self.clock()
            if n != last:
                last, since = n, now
            if confirmed or (n > 0 and now - since >= self.settle_s):
                return n
            if now > deadline:
                raise self.stop(f"no cards came into the tray within {self.person_wait_s:g} s")
            if not said:
                said = True
                self.voice.say(f"   waiting for the cards of load {name} in the tray "
                               "(press Enter when they are in)")
            if self.person.ready(POLL_S):
                n = self._tray_count()
                return n

    def _tray_count(self) -> int | None:
        """The device's count of the tray, or None when it cannot say.
        Events that came in meanwhile are looked at first: a pass that began
        (an out-of-turn touch) ends the wait."""
        assert self.link is not None
        self._events_between_steps()
        try:
            rep = self.link.request(P.CMD_COUNT)
        except DeviceError as exc:
            if exc.code in (P.E_BUSY, P.E_STATE):
                self._events_between_steps(wait=1.0)  # a pass has begun: its loaded event says so
            return None  # no calibration or a sensor fault: the pass itself will say
        except LinkTimeout:
            return None
        except LinkClosed as exc:
            self._reconnect(str(exc))
            return self._tray_count()
        n = int(rep["n"])
        if n > self.plan.cards:
            raise self.stop(f"{self.device_name} counts {n} cards in the tray, more than the whole pack "
                            f"({self.plan.cards}): its count sensor needs calibrating")
        return n

    def _events_between_steps(self, wait: float = 0.0) -> None:
        """Look at what the device said while the person worked: an out-of-turn
        touch is explained, a pass that began is taken up (OutOfTurn)."""
        assert self.link is not None
        end = self.clock() + wait
        while True:
            try:
                ev = self.link.next_event(max(0.0, end - self.clock()) if wait else 0.0)
            except LinkClosed as exc:
                self._reconnect(str(exc))
                return
            if ev is None:
                return
            if isinstance(ev, Garbage):
                self._garbage(ev)
                continue
            if isinstance(ev, BadMessage):
                raise ev.fault(self.device_name)
            kind = ev.get(P.F_EV)
            if kind == P.EV_LOADED:
                self.voice.problem("The sensor was touched before the guide asked for it: the shuffler started "
                                   f"dealing {_cards(int(ev['n']))}.")
                self.note(f"a touch out of turn during {self.place}")
                raise OutOfTurn(ev)
            if kind == P.EV_FAULT and ev.get("code") == P.FAULT_EMPTY:
                self.voice.problem("The sensor was touched with the tray empty; nothing moved.")
            elif kind == P.EV_FAULT and ev.get("code") in P.REFUSALS:
                self.voice.problem(f"The sensor was touched before the guide asked for it; the shuffler "
                                   f"refused the pass: {ev.get(P.F_MSG, '')}")
            elif kind == P.EV_HELLO:
                self._hello_between_passes(ev)
            elif kind == P.EV_WARN:
                self.voice.problem(f"The shuffler warns: {ev.get(P.F_MSG, ev.get(P.F_NAME, ''))}")
            else:
                self._other_event(ev)

    def _garbage(self, ev: Garbage) -> None:
        self.garbage_seen += 1
        if self.garbage_seen <= 3:
            shown = ev.line.decode("ascii", "replace")[:60]
            self.voice.problem(f"Ignored a line from the shuffler that is not part of its protocol "
                               f"({shown!r}); carrying on.")

    def _check_uid(self, hello: dict[str, Any]) -> None:
        uid = hello.get(P.F_UID)
        if self.uid is not None and uid != self.uid:
            raise self.stop(f"another shuffler answers on {self.device_name} (uid {uid or 'none'}, not "
                            f"{self.uid}): the guide will not go on with a device it did not start with")

    def _count_restart(self, ev: dict[str, Any]) -> None:
        """A hello nobody asked for: the same shuffler, restarting; more than
        a few in one pass is a device at fault, not a table to wait for."""
        self._check_uid(ev)
        self.restarts += 1
        if self.restarts > MAX_RESTARTS_PER_PASS:
            raise self.protocol_fault(f"it sent hello {self.restarts} times during one pass: it keeps "
                                      "restarting or does not keep to the protocol")

    def _hello_between_passes(self, ev: dict[str, Any]) -> None:
        self._count_restart(ev)
        self.voice.problem("The shuffler restarted between passes; the guide keeps its place.")
        self.note(f"the shuffler restarted during {self.place}")
        self._restarted()

    def _other_event(self, ev: dict[str, Any]) -> None:
        """An event the pass itself does not need (exact mode's, for one)."""

    def _restarted(self) -> None:
        """The device started again (its memory is gone)."""

    def _ask_for_rest(self, name: str, rest: int) -> None:
        if rest <= 0:
            return
        self.step(S.Touch("rest", name, rest))

    def _clear(self) -> None:
        assert self.link is not None
        try:
            self.link.request(P.CMD_CLEAR)
        except DeviceError:
            pass  # nothing latched any more
        except LinkTimeout:
            self.voice.problem("The shuffler did not answer the request to clear the fault; carrying on.")

    DOUBLE_FEED_WORDS = "They landed on the same pile, which is harmless."

    def _refusal(self, follower: "PassFollower", ev: dict[str, Any]) -> None:
        """A pass refused before it began: nothing moved."""
        code = ev.get("code")
        name, want = follower.name, follower.want - follower.dealt
        follower.part_n = None
        follower.state = follower.WAITING
        if code == P.FAULT_OVER_CAPACITY:
            n = int(ev.get("n", 0))
            cap = int(ev.get("capacity", self.plan.capacity))
            over = n - cap
            if follower.index + 1 < len(follower.names) and follower.parts == 0:
                nxt = follower.names[follower.index + 1]
                extra = n - want if n > want else over
                trade = S.Move(extra, name, nxt, down=True)
                self.voice.problem(f"Load {name} should hold about {want} and holds {n}, more than the "
                                    f"{cap} the tray takes: {S.move_phrase(trade)}.")
                self.step(S.Unload(name))
                self.step(trade)
                self.step(S.PutInTray(name, n - extra, again=True))
                self.step(S.Touch("start"))
            else:
                self.voice.problem(f"Load {name} holds {n} cards, more than the {cap} the tray takes: "
                                    "it is dealt in two parts onto the same piles.")
                self.step(S.SetAside(name, over))
                self.step(S.Touch("rest_in_tray"))
                follower.aside = over
            return
        if code == P.FAULT_EMPTY:
            self.voice.problem("The shuffler reads an empty tray.")
            self.step(S.Touch("again", name))
            return
        if code == P.FAULT_BATTERY_LOW:
            self.voice.problem("The battery is too low for a pass.")
            self.step(S.Fix("battery_idle"))
            self.step(S.Touch("start"))
            return
        if code == P.FAULT_NOT_CALIBRATED:
            raise self.stop("the count sensor is not calibrated: calibrate the shuffler first")
        self.voice.problem(f"The shuffler refused the pass: {ev.get(P.F_MSG, code)}")
        self.step(S.Touch("retry"))


    def _check_loaded(self, name: str, want: int, n: int, index: int, names: list[str]) -> None:
        """The count the pass began with, when it differs from the one judged before the touch."""
        if n == want:
            return
        if index + 1 < len(names):
            diff = n - want
            self.voice.problem(f"Load {name} should hold about {want} and the pass began with {n}. It is dealing "
                                "anyway: the shuffle does not depend on where the loads are cut, only on keeping the "
                                f"order, so load {names[index + 1]} will hold {abs(diff)} "
                                f"{'fewer' if diff > 0 else 'more'}.")
        else:
            self.voice.problem(f"Load {name} should hold {want} and the pass began with {n}: "
                                f"{'cards are missing' if n < want else 'extra cards came in'}; the guide carries on "
                                "and counts them at the end of the round.")


    def _device_forgot(self, st: dict[str, Any]) -> bool:
        """Whether the device's status shows it restarted (random mode: never sure; see ExactGuide)."""
        return False

    # -- connection trouble -------------------------------------------------------
    def _prepare_device(self) -> None:
        assert self.link is not None
        for ev in self.link.drain():  # anything from before the routine
            if isinstance(ev, BadMessage):
                raise ev.fault(self.device_name)
        st = self.link.status()
        if st.get("state") in (P.ST_ALARM, P.ST_PAUSED):
            self.voice.problem(f"The shuffler had a fault left over ({st.get('fault_name') or st.get('state')}); "
                               "clearing it.")
            self._clear()
        if self.mode == "random" and st.get("mode") == P.MODE_EXACT:
            # An exact routine left over (a run stopped part way): its codes would deal these passes.
            try:
                self.link.request(P.CMD_EXACT, cancel=True)
            except DeviceError as exc:
                raise self.stop(f"the shuffler could not leave the exact routine it was in: {exc}") from None

    def _reconnect(self, why: str, done: int | None = None, want: int | None = None) -> dict[str, Any]:
        """The port went away: say so, wait up to reconnect_s for the same
        shuffler (its uid) to answer again, return its status."""
        after = f", after {done} of {want} cards" if done is not None and want is not None else ""
        self.voice.problem(f"Lost the connection to the shuffler during {self.place}{after}. Check the USB cable "
                           f"and leave the cards as they are; waiting up to {self.reconnect_s:g} s for it to "
                           "come back.")
        self.note(f"connection lost during {self.place}")
        if self.link is not None:
            self.link.close()
        deadline = self.clock() + self.reconnect_s
        last_error = why
        while self.reopen is not None:
            left = deadline - self.clock()
            if left <= 0:
                break
            try:
                link = self.reopen()
            except LinkError as exc:
                last_error = str(exc)
                time.sleep(min(0.5, max(0.0, deadline - self.clock())))
                continue
            try:
                hello = link.handshake(timeout=max(0.2, min(link.wait_s(HANDSHAKE_S), deadline - self.clock())))
                self._check_uid(hello)
                status = link.status(timeout=max(0.2, min(link.wait_s(REQUEST_TIMEOUT_S), deadline - self.clock())))
            except GuideStopped:
                link.close()
                raise
            except ProtocolFault as exc:  # something answers, and not as a shuffler does
                link.close()
                raise self.stop(str(exc)) from None
            except LinkError as exc:
                link.close()
                last_error = str(exc)
                time.sleep(min(0.5, max(0.0, deadline - self.clock())))
                continue
            self.link = link
            self.voice.say("The shuffler is back.")
            return status
        raise self.stop(f"the shuffler did not come back within {self.reconnect_s:g} s ({last_error})")


class PassFollower:
    """Follows one load's pass, from the touch to its last card, by the
    device's events: one handler per event kind (on_loaded, on_progress,
    on_done, on_fault, on_hello, ...), plus on_closed (the port went away),
    on_quiet (no event for a while) and on_garbage. Handlers change its
    state: waiting (for a touch), dealing, paused (a jam), finished."""

    WAITING, DEALING, PAUSED, FINISHED = "waiting", "dealing", "paused", "finished"

    def __init__(self, guide: Guide, name: str, want: int, index: int, names: list[str]) -> None:
        self.g = guide
        self.name = name
        self.want = want
        self.index = index
        self.names = names
        self.state = self.WAITING
        self.dealt = 0  # over the finished parts of this pass
        self.left: int | None = 0
        self.right: int | None = 0
        self.parts = 0
        self.fruitless = 0  # parts in a row that ended before their first card
        self.part_n: int | None = None  # cards in the part being dealt now
        self.last: dict[str, int | None] = {"k": 0, "left": 0, "right": 0}
        self.aside = 0  # cards lifted off an over-full load, dealt last
        self.dealing_aside = False
        guide.restarts = 0
        self.reconnects = 0
        self.bar = False
        self.result: PassResult | None = None
        self.deadline = guide.clock() + guide.person_wait_s
        self.quiet_since = guide.clock()

    @property
    def link(self) -> Link:
        assert self.g.link is not None
        return self.g.link

    def say(self, text: str) -> None:
        self.g.voice.say(text)

    def problem(self, text: str) -> None:
        self.g.voice.problem(text)

    # -- the loop ------------------------------------------------------------------
    def run(self, early: dict[str, Any] | None = None) -> PassResult:
        self.g.following = True
        try:
            return self._run(early)
        finally:
            self.g.following = False
            self.end_bar()

    def _run(self, early: dict[str, Any] | None) -> PassResult:
        if early is not None:
            self.on_loaded(early)
        while self.result is None:
            try:
                ev = self.link.next_event(POLL_S)
            except LinkClosed as exc:
                self.on_closed(exc)
                continue
            if ev is None:
                self.on_quiet()
                continue
            if isinstance(ev, Garbage):
                self.g._garbage(ev)
                self.on_quiet()  # noise is not a sign of life: the stall clock keeps running
                continue
            if isinstance(ev, BadMessage):
                self.end_bar()
                raise self.g.stop(str(ev.fault(self.g.device_name)))
            self.quiet_since = self.g.clock()
            handler = getattr(self, "on_" + str(ev.get(P.F_EV)), None)
            if handler is None:
                self.g._other_event(ev)
            else:
                handler(ev)
        return self.result

    # -- bookkeeping -----------------------------------------------------------------
    def end_bar(self) -> None:
        if self.bar:
            self.g.voice.bar_end()
            self.bar = False

    def end_part(self, k: int, k_left: int | None, k_right: int | None) -> None:
        """A part of the pass is over: add what it dealt. Parts that end
        before their first card, again and again, are a machine at fault,
        not a table to wait for."""
        self.fruitless = 0 if k > 0 else self.fruitless + 1
        if self.fruitless >= MAX_FRUITLESS_PARTS:
            raise self.g.stop(f"the pass stopped {self.fruitless} times in a row before its first card went "
                              "through: the shuffler needs looking at (its last fault is above)")
        self.dealt += k
        self.left = None if self.left is None or k_left is None else self.left + k_left
        self.right = None if self.right is None or k_right is None else self.right + k_right
        self.parts += 1
        self.part_n = None
        self.last = {"k": 0, "left": 0, "right": 0}
        self.state = self.WAITING

    def finish(self) -> None:
        self.end_bar()
        self.state = self.FINISHED
        self.result = PassResult(self.dealt, self.left, self.right, self.parts)

    def wait_again(self) -> None:
        self.deadline = self.g.clock() + self.g.person_wait_s

    def piles(self, ev: dict[str, Any]) -> tuple[int | None, int | None]:
        return ev.get("left"), ev.get("right")

    # -- one handler per event kind ----------------------------------------------------
    def on_touch(self, ev: dict[str, Any]) -> None:
        if self.state == self.PAUSED:
            self.state = self.DEALING  # the touch resumes the jammed pass

    def on_loaded(self, ev: dict[str, Any]) -> None:
        n = int(ev["n"])
        if self.state == self.DEALING:
            raise self.g.protocol_fault(f"it began a pass of {n} cards in the middle of another")
        self.part_n = n
        self.last = {"k": 0, "left": 0, "right": 0}
        self.state = self.DEALING
        if not self.aside and not self.dealing_aside and self.parts == 0:
            self.g._check_loaded(self.name, self.want, n, self.index, self.names)
        total = max(self.want, self.dealt + n + self.aside)
        self.g.voice.bar_start(f"load {self.name}", total, self.dealt, self.left, self.right)
        self.bar = True

    def on_progress(self, ev: dict[str, Any]) -> None:
        if self.part_n is None:
            return  # the rest of a part that was already ended
        if int(ev["n"]) != self.part_n:
            raise self.g.protocol_fault(f"progress for a pass of {ev['n']} cards while it deals {self.part_n}")
        self.state = self.DEALING
        k_left, k_right = self.piles(ev)
        self.last = {"k": int(ev["k"]), "left": k_left, "right": k_right}
        both = (None if self.left is None or k_left is None else self.left + k_left,
                None if self.right is None or k_right is None else self.right + k_right)
        self.g.voice.bar_update(self.dealt + int(ev["k"]), max(self.want, self.dealt + self.part_n + self.aside),
                                *both)

    def on_done(self, ev: dict[str, Any]) -> None:
        if self.part_n is not None and int(ev["n"]) != self.part_n:
            raise self.g.protocol_fault(f"done for a pass of {ev['n']} cards while it dealt {self.part_n}")
        self.end_bar()
        self.end_part(int(ev["k"]), *self.piles(ev))
        if self.aside:
            # The cards lifted off the top are dealt last, onto the same piles.
            count, self.aside, self.dealing_aside = self.aside, 0, True
            self.g.step(S.PutInTray(S.ASIDE, count))
            self.g.step(S.Touch("aside"))
            self.wait_again()
            return
        self.finish()

    def on_aborted(self, ev: dict[str, Any]) -> None:
        self.end_bar()
        k = int(ev.get("k", self.last["k"] or 0))
        self.end_part(k, *self.piles(ev))
        self.rest_after_stop()

    def on_fault(self, ev: dict[str, Any]) -> None:
        self.end_bar()
        code = ev.get("code")
        if ev.get("latched") is False or (code in P.REFUSALS and "k" not in ev):
            self.g._refusal(self, ev)
            self.wait_again()
            return
        place = self.g.place
        k = int(ev.get("k", 0))
        at = f"after {self.dealt + k} of {self.want} cards"
        if code == P.FAULT_JAM:
            self.state = self.PAUSED
            self.problem(f"A card is stuck in the feed ({place}, {at}). The motor has stopped.")
            self.g.note(f"jam during {place}")
            self.g.step(S.Fix("jam"))
            self.g.step(S.Touch("go_on"))
            self.wait_again()
            return
        if code == P.FAULT_DOUBLE_FEED:
            self.problem(f"Two cards went through together ({place}, {at}); the pass stopped. "
                         f"{self.g.DOUBLE_FEED_WORDS}")
            self.g.note(f"double feed during {place}")
            self.g._clear()
            self.g.step(S.Fix("exit"))
            # The device's count is short of what went through: the tray's count is the truth.
            self.end_part(k, *self.piles(ev))
            self.left = self.right = None
            self.rest_after_stop()
            return
        if code == P.FAULT_TRAY_EMPTIED:
            missing = int(ev.get("n", 0)) - k
            self.problem(f"The tray ran out early ({place}): {self.dealt + k} of {self.want} cards were dealt and "
                         f"{_cards(missing)} {'is' if missing == 1 else 'are'} not in the tray any more.")
            self.g.note(f"cards left the tray during {place}")
            self.g._clear()
            self.end_part(k, *self.piles(ev))
            self.g.step(S.Fix("put_back", missing))
            self.rest_after_stop()
            return
        if code == P.FAULT_BATTERY_LOW:
            self.problem(f"The battery ran down during the pass ({place}, {at}).")
            self.g._clear()
            self.end_part(k, *self.piles(ev))
            self.g.step(S.Fix("battery"))
            self.rest_after_stop()
            return
        if code == P.FAULT_SENSOR:
            self.problem(f"A sensor does not answer ({ev.get('detail', 'sensor')}).")
            self.g.step(S.Fix("sensor"))
        else:
            self.problem(f"The shuffler reports a fault: {ev.get(P.F_MSG, code)}")
        self.g._clear()
        if "k" in ev:
            self.end_part(k, *self.piles(ev))
            self.rest_after_stop()
            return
        self.part_n = None
        self.state = self.WAITING
        self.g.step(S.Touch("start"))
        self.wait_again()

    def rest_after_stop(self) -> None:
        """The pass stopped part way: count what is left in the tray (the
        truth, whatever the device saw go by) and deal it onto the same piles."""
        rest = self.want - self.dealt
        try:
            n = self.g._tray_count() if rest > 0 else 0
        except OutOfTurn as early:  # the rest is being dealt already
            self.on_loaded(early.loaded)
            return
        if n is not None and n != rest:
            # The tray's count is the fact; the cards not in it went onto the piles.
            self.dealt = max(0, self.want - n)
            self.left = self.right = None
            rest = n
        if rest <= 0:
            self.finish()
            return
        self.g._ask_for_rest(self.name, rest)
        self.wait_again()

    def on_hello(self, ev: dict[str, Any]) -> None:
        """A hello nobody asked for: the device started again."""
        self.end_bar()
        self.g._count_restart(ev)
        done_now = self.dealt + (self.last["k"] or 0 if self.part_n is not None else 0)
        self.problem(f"The shuffler restarted during {self.g.place}, after {done_now} of {self.want} cards. "
                     "Nothing is lost: the guide keeps its place.")
        self.g.note(f"the shuffler restarted during {self.g.place}")
        self.g._restarted()
        if self.part_n is None and self.dealt == 0:
            return  # nothing dealt yet: the pass starts with the next touch, as asked
        self.after_restart()

    def after_restart(self) -> None:
        """The device has forgotten the pass: what is on the piles stays, the
        rest is counted in the tray and dealt onto them."""
        if self.part_n is not None:
            self.end_part(int(self.last["k"] or 0), self.last["left"], self.last["right"])
        # Events may have been lost with the restart: the pile split is no longer known.
        self.left = self.right = None
        self.state = self.WAITING
        if self.want - self.dealt <= 0:
            self.finish()
            return
        self.g.step(S.PutInTray(self.name, None, rest=True))
        try:
            n = self.g._await_tray(self.name)
        except OutOfTurn as early:
            self.on_loaded(early.loaded)
            return
        if n is not None:
            self.dealt = max(0, self.want - n)
        self.rest_after_stop()

    def on_warn(self, ev: dict[str, Any]) -> None:
        self.problem(f"The shuffler warns: {ev.get(P.F_MSG, ev.get(P.F_NAME, ''))}")

    def on_stopped(self, ev: dict[str, Any]) -> None:
        self.end_bar()
        raise self.g.stop("the shuffler's firmware was interrupted and left for its prompt; "
                          "unplug it and plug it in again")

    def on_cleared(self, ev: dict[str, Any]) -> None:
        pass

    # -- not events: the port, the clock ------------------------------------------------
    def on_closed(self, exc: LinkClosed) -> None:
        self.end_bar()
        self.reconnects += 1
        if self.reconnects > MAX_RECONNECTS_PER_PASS:
            raise self.g.stop(f"the connection to the shuffler was lost {self.reconnects} times during one pass")
        status = self.g._reconnect(str(exc), self.dealt + int(self.last["k"] or 0), self.want)
        self.quiet_since = self.g.clock()
        self.resync(status)

    def resync(self, st: dict[str, Any]) -> None:
        """After a reconnection: make what the guide believes agree with the device's status."""
        state = st.get("state")
        if self.g._device_forgot(st):
            self.problem("The shuffler restarted while the cable was out.")
            self.g.note(f"the shuffler restarted during {self.g.place}")
            self.g._restarted()
            self.after_restart()
            return
        if self.part_n is None:
            self.resync_between_parts()
            return
        if state == P.ST_DEALING:
            return
        if state == P.ST_PAUSED:
            self.on_fault({P.F_EV: P.EV_FAULT, "code": P.FAULT_JAM, "k": st.get("k", 0), "n": st.get("n", 0),
                           "latched": True})
            return
        if st.get("n") == self.part_n and st.get("k") == self.part_n:
            # The pass finished while the port was away.
            self.on_done({P.F_EV: P.EV_DONE, "k": self.part_n, "n": self.part_n, "left": st.get("left"),
                          "right": st.get("right")})
            return
        # Idle, with no memory of this pass: it restarted while the cable was out.
        self.problem("The shuffler restarted while the cable was out.")
        self.g.note(f"the shuffler restarted during {self.g.place}")
        self.g._restarted()
        self.after_restart()

    def resync_between_parts(self) -> None:
        """No part of the pass was known to run when the cable went: the
        tray's count says whether one began (its events lost with the cable).
        Either way the person is asked to touch again: a touch made while the
        cable was out may never have reached the device."""
        rest = self.want - self.dealt
        try:
            n = self.g._tray_count()
        except OutOfTurn as early:
            self.on_loaded(early.loaded)
            return
        if n is not None and n < rest:
            self.problem(f"The tray holds {n} of the {rest} cards it held: the pass began while the cable "
                         "was out.")
            self.dealt = self.want - n
            self.left = self.right = None
            rest = n
        if rest <= 0:
            self.finish()
            return
        self.state = self.WAITING
        if self.dealt:
            self.g._ask_for_rest(self.name, rest)
        else:
            self.g.step(S.Touch("start"))
        self.wait_again()

    def on_quiet(self) -> None:
        now = self.g.clock()
        if self.state in (self.WAITING, self.PAUSED):
            if now > self.deadline:
                self.end_bar()
                what = "no pass started" if self.state == self.WAITING else "the pass was not taken up again"
                raise self.g.stop(f"{what} within {self.g.person_wait_s:g} s")
            return
        if now - self.quiet_since <= self.link.wait_s(self.g.stall_s):
            return
        self.quiet_since = now
        wait = self.link.wait_s(min(REQUEST_TIMEOUT_S, self.g.stall_s))
        try:
            st = self.link.status(timeout=wait)
        except LinkTimeout:
            self.problem("The shuffler has not answered for a while; checking the connection.")
            self.link.close()
            self.link.events.put(LinkClosed(f"no answer within {wait:g} s"))
            return
        except LinkClosed:
            return
        state = st.get("state")
        if state == P.ST_IDLE and st.get("n") == self.part_n and st.get("k") == self.part_n:
            self.on_done({P.F_EV: P.EV_DONE, "k": self.part_n, "n": self.part_n, "left": st.get("left"),
                          "right": st.get("right")})
        elif state == P.ST_PAUSED and self.state == self.DEALING:
            self.on_fault({P.F_EV: P.EV_FAULT, "code": st.get("fault") or P.FAULT_JAM, "k": st.get("k", 0),
                           "n": st.get("n", 0), "latched": True})


def even_split(cards: int, loads: int) -> list[int]:
    """cards into `loads` near-equal loads, larger ones on top."""
    if loads <= 0:
        return []
    q, r = divmod(max(cards, 0), loads)
    return [q + 1] * r + [q] * (loads - r)
