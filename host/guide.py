"""The guided shuffle: the plan, step by step, checked against the device.

The guide walks the plan's rounds and loads. For each load it tells the
person what to do (host/person.py), then follows the device's events: the
loaded count is checked against what the load should hold, progress drives
a bar, faults are explained in plain words with what to do, and the pile
counts of every pass tell the person exactly how to even out the next loads.

Its place (round, load, cards dealt of the load) is kept through every
problem: a jam, a refused pass, garbage on the wire, the device restarting
or dropping off the port. A pass may be dealt in parts: dealing the rest of
a load onto the same piles gives exactly the piles of one whole pass,
because the bottom card is fed first and every card lands on top of its pile
(docs/mechanism.md). Every wait has a timeout.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable

from firmware import protocol as P
from host import person as S
from host.link import DeviceError, Garbage, Link, LinkClosed, LinkError, LinkTimeout
from host.plan import METHOD, Plan, distance_after

# Seconds. The person's waits are long; the machine's are short.
PERSON_WAIT_S = 1800.0  # for a load and a touch
STALL_S = 8.0  # no event while dealing: ask the device how it is doing
RECONNECT_S = 60.0  # how long an unplugged device may take to come back
POLL_S = 0.25
# Random mode deals a load within this of the plan as it is (the shuffle
# does not depend on where the loads are cut); further off, the person is
# told to move cards first. Exact mode needs the count exactly.
LOAD_TOLERANCE_PCT = 5
MAX_RECOUNTS = 3  # then deal what is there and adjust the loads after it


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
    """The guide cannot go on; the message says where it stopped and how to resume."""

    def __init__(self, message: str, place: Place | None) -> None:
        super().__init__(message)
        self.place = place


@dataclass
class PassResult:
    cards: int
    left: int
    right: int
    parts: int


@dataclass
class Summary:
    rounds: int
    passes: int
    seconds: float
    distance: float
    cards: int
    notes: list[str] = field(default_factory=list)
    loads: list[list[int]] = field(default_factory=list)  # cards dealt per load, per round
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

    def bar_start(self, label: str, total: int) -> None:
        pass

    def bar_update(self, done: int, total: int, left: int, right: int) -> None:
        pass

    def bar_end(self) -> None:
        pass


class Guide:
    def __init__(self, plan: Plan, person: S.Person, voice: Voice, link: Link | None = None,
                 reopen: Callable[[], Link] | None = None, from_round: int = 1,
                 person_wait_s: float = PERSON_WAIT_S, reconnect_s: float = RECONNECT_S,
                 stall_s: float = STALL_S, clock: Callable[[], float] = time.monotonic) -> None:
        self.plan = plan
        self.person = person
        self.voice = voice
        self.link = link
        self.reopen = reopen
        self.from_round = from_round
        self.person_wait_s = person_wait_s
        self.reconnect_s = reconnect_s
        self.stall_s = stall_s
        self.clock = clock
        self.step_number = 0
        self.notes: list[str] = []
        self.garbage_seen = 0
        self.place: Place | None = None

    # -- small helpers -----------------------------------------------------------
    def do(self, kind: str, text: str, **args: Any) -> None:
        self.step_number += 1
        if self.place is not None:
            args.setdefault("round", self.place.round)
        try:
            self.person.do(S.Step(kind, text, args), self.step_number)
        except S.PersonGaveUp as exc:
            raise GuideStopped(f"stopped waiting for the person: {exc}", self.place) from None

    def note(self, text: str) -> None:
        self.notes.append(text)

    # -- the routine -------------------------------------------------------------
    def run(self) -> Summary:
        p = self.plan
        names, sizes = list(p.names), list(p.loads)
        started = self.clock()
        if self.link is not None:
            self._prepare_device()
        self.place = Place(self.from_round, names[0], (self.from_round - 1) * len(names) + 1, p.rounds, p.passes)
        split = ", ".join(f"{n} {s}" for n, s in zip(names, sizes))
        if len(names) == 1:
            self.do(S.SPLIT, f"Square the pack face down ({p.cards} cards): it is load {names[0]}.",
                    names=names, sizes=sizes, round=self.from_round)
        else:
            self.do(S.SPLIT, f"Square the pack face down ({p.cards} cards) and cut it from the top into "
                    f"{len(names)} loads, keeping the order: {split} (by eye; the shuffler counts them).",
                    names=names, sizes=sizes, round=self.from_round)
        expected = list(sizes)
        per_round: list[list[int]] = []
        for r in range(self.from_round, p.rounds + 1):
            self.voice.say(f"[bold]Round {r} of {p.rounds}[/bold]")
            results: list[PassResult] = []
            dealt_so_far = 0
            for i, name in enumerate(names):
                self.place = Place(r, name, (r - 1) * len(names) + i + 1, p.rounds, p.passes)
                want = expected[i]
                result = self._deal(name, want, i, names)
                results.append(result)
                dealt_so_far += result.cards
                if result.cards != want and i + 1 < len(names):
                    # Spread the difference over the loads still to come this round.
                    rest = p.cards - dealt_so_far
                    expected[i + 1:] = even_split(rest, len(names) - i - 1)
                self.do(S.TAKE, f"Lift off load {name}'s two piles and keep them apart: "
                        f"left pile ({result.left}) on the left, right pile ({result.right}) on the right.",
                        load=name)
            per_round.append([x.cards for x in results])
            total = sum(x.cards for x in results)
            if total != p.cards:
                msg = (f"round {r} dealt {total} cards but the pack has {p.cards}: "
                       f"{'cards are missing' if total < p.cards else 'extra cards came in'}; "
                       "look around the machine before the next hand")
                self.voice.problem(msg[0].upper() + msg[1:] + ".")
                self.note(msg)
            expected = self._trade(names, sizes, results)
        self.place = None
        final = " on top of ".join(f"load {n}" for n in names)
        self.do(S.FINISH, f"Put {final}: the pack is shuffled and ready to deal." if len(names) > 1
                else "The pack is shuffled and ready to deal.", parts=names)
        rounds_done = p.rounds - self.from_round + 1
        return Summary(rounds=p.rounds, passes=rounds_done * len(names), seconds=self.clock() - started,
                       distance=distance_after(p.cards, p.capacity, p.rounds), cards=p.cards,
                       notes=self.notes, loads=per_round)

    def _trade(self, names: list[str], sizes: list[int], results: list[PassResult]) -> list[int]:
        """Tell the pile trade (docs/mechanism.md); returns what each new load holds."""
        lefts = [f"{n}.left" for n in names]
        rights = [f"{n}.right" for n in names]
        counts_known = self.link is not None
        if len(names) == 1:
            n = names[0]
            self.do(S.STACK, f"Put the left pile on top of the right pile: that is load {n} again.",
                    parts=[lefts[0], rights[0]], **{"as": n})
            return [results[0].cards]
        left_total = sum(x.left for x in results)
        right_total = sum(x.right for x in results)
        if len(names) == 2:
            a, b = names
            self.do(S.STACK, f"Trade {a}'s right pile for {b}'s left pile: put {a}'s left pile on top of "
                    f"{b}'s left pile. That is the new load {a}" + (f" ({left_total} cards)." if counts_known else "."),
                    parts=lefts, **{"as": a})
            self.do(S.STACK, f"Put {a}'s right pile on top of {b}'s right pile. That is the new load {b}"
                    + (f" ({right_total} cards)." if counts_known else "."), parts=rights, **{"as": b})
            if counts_known:
                move = left_total - sizes[0]
                if move > 0:
                    self.do(S.MOVE, f"Move {move} card{'s' * (move != 1)} from the bottom of load {a} to the "
                            f"top of load {b}: {a} {sizes[0]}, {b} {sizes[1]}.", upper=a, lower=b, count=move)
                elif move < 0:
                    self.do(S.MOVE, f"Move {-move} card{'s' * (move != -1)} from the top of load {b} to the "
                            f"bottom of load {a}: {a} {sizes[0]}, {b} {sizes[1]}.", upper=a, lower=b, count=move)
                return list(sizes)
            self.do(S.MOVE, f"Even them out by eye to about {sizes[0]} and {sizes[1]}: move cards from the bottom "
                    f"of load {a} to the top of load {b}, or from the top of {b} to the bottom of {a}.",
                    upper=a, lower=b, count=0)
            return list(sizes)
        self.do(S.STACK, "Put " + " on top of ".join(f"{n}'s left pile" for n in names) + ": the left stack"
                + (f" ({left_total} cards)." if counts_known else "."), parts=lefts, **{"as": "left stack"})
        self.do(S.STACK, "Put " + " on top of ".join(f"{n}'s right pile" for n in names) + ": the right stack"
                + (f" ({right_total} cards)." if counts_known else "."), parts=rights, **{"as": "right stack"})
        self.do(S.STACK, "Put the left stack on top of the right stack: the whole pack.",
                parts=["left stack", "right stack"], **{"as": "pack"})
        cut = ", ".join(f"{n} {s}" for n, s in zip(names, sizes))
        self.do(S.CUT, f"Cut it into loads from the top, keeping the order: {cut}.",
                source="pack", names=names, sizes=sizes)
        return list(sizes)

    # -- one load ----------------------------------------------------------------
    def _deal(self, name: str, want: int, index: int, names: list[str]) -> PassResult:
        if self.link is None:
            self.do(S.LOAD, f"Put load {name} (about {want} cards) face down in the tray.", load=name)
            self.do(S.TOUCH, "Touch the sensor and wait until the shuffler stops.")
            half = want // 2
            return PassResult(want, half, want - half, 1)
        self.do(S.LOAD, f"Put load {name} ({want} cards) face down in the tray.", load=name)
        self._even_out_load(name, want, index, names, load_tolerance(want))
        self.do(S.TOUCH, "Touch the sensor to start the pass.")
        return self._follow_pass(name, want, index, names)

    def _tray_count(self) -> int | None:
        """The device's count of the tray, or None when it cannot say."""
        assert self.link is not None
        try:
            rep = self.link.request(P.CMD_COUNT)
        except (DeviceError, LinkTimeout):
            return None  # no calibration or a sensor fault: the pass itself will say
        n = rep.get("n")
        return n if isinstance(n, int) and not isinstance(n, bool) else None

    def _even_out_load(self, name: str, want: int, index: int, names: list[str], tolerance: int) -> None:
        """Before the touch: while the tray's count is off the plan by more
        than `tolerance`, say how many cards to move where, and count again.
        Cards move between load `name`'s bottom and the next load's top,
        which keeps the pack's order."""
        if index + 1 >= len(names):
            return  # nothing below it: a wrong last load means cards are missing or extra
        nxt = names[index + 1]
        about = "about " if tolerance else ""
        for _ in range(MAX_RECOUNTS):
            n = self._tray_count()
            if n is None or abs(n - want) <= tolerance:
                return
            move = abs(n - want)
            cards = f"{move} card{'s' * (move != 1)}"
            over = f", more than the {self.plan.capacity} the tray takes" if n > self.plan.capacity else ""
            if n > want:
                self.voice.problem(f"Load {name} should hold {about}{want} and holds {n}{over}: "
                                   f"move {cards} to load {nxt}.")
                self.do(S.UNLOAD, f"Take load {name} back out of the tray.", load=name)
                self.do(S.MOVE, f"Move {cards} from the bottom of load {name} to the top of load {nxt}.",
                        upper=name, lower=nxt, count=move)
            else:
                self.voice.problem(f"Load {name} should hold {about}{want} and holds {n}: "
                                   f"move {cards} from load {nxt} to load {name}.")
                self.do(S.UNLOAD, f"Take load {name} back out of the tray.", load=name)
                self.do(S.MOVE, f"Move {cards} from the top of load {nxt} to the bottom of load {name}.",
                        upper=name, lower=nxt, count=-move)
            self.do(S.LOAD, f"Put load {name} ({want} cards) back in the tray.", load=name)

    def _follow_pass(self, name: str, want: int, index: int, names: list[str]) -> PassResult:
        """Follow the device's events until load `name` is dealt."""
        assert self.link is not None
        dealt = left = right = 0  # over the finished parts of this pass
        parts = 0
        part_n: int | None = None  # cards in the part being dealt now
        last: dict[str, int] = {"k": 0, "left": 0, "right": 0}
        deadline = self.clock() + self.person_wait_s
        quiet_since = self.clock()
        bar = False
        uncounted = False  # a double feed: the device's count is short of what went through
        aside_now = False  # dealing cards that were lifted off an over-full load
        self._pending_aside = 0

        def end_part(k: int, k_left: int, k_right: int) -> None:
            """A part of the pass is over: add what it dealt."""
            nonlocal dealt, left, right, parts, part_n, last
            dealt, left, right, parts = dealt + k, left + k_left, right + k_right, parts + 1
            part_n = None
            last = {"k": 0, "left": 0, "right": 0}

        def end_bar() -> None:
            nonlocal bar
            if bar:
                self.voice.bar_end()
                bar = False

        while True:
            try:
                ev = self.link.next_event(POLL_S)
            except LinkClosed as exc:
                end_bar()
                state = self._reconnect(str(exc), name, dealt + last["k"], want)
                ev = self._resync(state, part_n, last)
                quiet_since = self.clock()
                if ev is None:
                    # The device restarted: count what was dealt, deal the rest.
                    if part_n is not None:
                        end_part(last["k"], last["left"], last["right"])
                    self._ask_for_rest(name, want - dealt)
                    deadline = self.clock() + self.person_wait_s
                    continue
            now = self.clock()
            if ev is None:
                if part_n is None and now > deadline:
                    raise GuideStopped(f"no pass started within {self.person_wait_s:g} s", self.place)
                if part_n is not None and now - quiet_since > self.stall_s:
                    quiet_since = now
                    ev = self._check_stalled(part_n, last)
                    if ev is None:
                        continue
                else:
                    continue
            quiet_since = now
            if isinstance(ev, Garbage):
                self.garbage_seen += 1
                if self.garbage_seen <= 3:
                    shown = ev.line.decode("ascii", "replace")[:60]
                    self.voice.problem(f"Ignored a line from the shuffler that is not part of its protocol "
                                       f"({shown!r}); carrying on.")
                continue
            kind = ev.get(P.F_EV)
            if kind == P.EV_LOADED:
                part_n = int(ev.get("n", 0))
                last = {"k": 0, "left": 0, "right": 0}
                if uncounted:
                    # After a double feed the tray's count is the truth about what is left.
                    gone = max(0, want - part_n - dealt)
                    dealt, left, uncounted = dealt + gone, left + gone, False
                if not self._pending_aside and not aside_now:
                    self._check_count(name, want - dealt, part_n, index, names, dealt > 0)
                self.voice.bar_start(f"load {name}", want if want >= dealt + part_n else dealt + part_n)
                bar = True
            elif kind == P.EV_PROGRESS:
                last = {"k": int(ev.get("k", 0)), "left": int(ev.get("left", 0)), "right": int(ev.get("right", 0))}
                self.voice.bar_update(dealt + last["k"], max(want, dealt + (part_n or 0)),
                                      left + last["left"], right + last["right"])
            elif kind == P.EV_DONE:
                end_bar()
                end_part(int(ev.get("k", 0)), int(ev.get("left", 0)), int(ev.get("right", 0)))
                if self._pending_aside:
                    # The cards lifted off the top are dealt last, onto the same piles.
                    count, self._pending_aside, aside_now = self._pending_aside, 0, True
                    self.do(S.LOAD, f"Put the {count} cards you kept aside in the tray.", load=name, aside=True)
                    self.do(S.TOUCH, "Touch the sensor to deal them onto the same piles.")
                    deadline = self.clock() + self.person_wait_s
                    continue
                return PassResult(dealt, left, right, parts)
            elif kind == P.EV_FAULT:
                end_bar()
                if ev.get("code") == P.FAULT_EMPTY and (dealt > 0 or uncounted):
                    # Nothing left to deal: every card of the load went through.
                    gone = max(0, want - dealt) if uncounted else 0
                    self.voice.say(f"The tray is empty: all of load {name} went through.")
                    return PassResult(dealt + gone, left + gone, right, parts + 1)
                outcome = self._fault(ev, name, want, dealt, index, names)
                if outcome == "part-ended":
                    uncounted = uncounted or ev.get("code") == P.FAULT_DOUBLE_FEED
                    end_part(int(ev.get("k", 0)), int(ev.get("left", 0)), int(ev.get("right", 0)))
                    if dealt >= want:
                        return PassResult(dealt, left, right, parts)
                    self._ask_for_rest(name, want - dealt)
                elif outcome == "refused":
                    part_n = None
                deadline = self.clock() + self.person_wait_s
            elif kind == P.EV_HELLO:
                # A hello nobody asked for: the device started again.
                end_bar()
                done_now = dealt + (last["k"] if part_n is not None else 0)
                self.voice.problem(f"The shuffler restarted during {self.place}, after {done_now} of "
                                   f"{want} cards. Nothing is lost: the guide keeps its place.")
                self.note(f"the shuffler restarted during {self.place}")
                self._restarted()
                if part_n is not None:
                    end_part(last["k"], last["left"], last["right"])
                self._ask_for_rest(name, want - dealt)
                deadline = self.clock() + self.person_wait_s
            elif kind == P.EV_WARN:
                self.voice.problem(f"The shuffler warns: {ev.get(P.F_MSG, ev.get(P.F_NAME, ''))}")
            else:
                self._other_event(ev)
            # touch, aborted, cleared, stopped: nothing to do

    def _other_event(self, ev: dict[str, Any]) -> None:
        """An event the pass itself does not need (exact mode's, for one)."""

    def _restarted(self) -> None:
        """The device started again during a pass."""

    def _ask_for_rest(self, name: str, rest: int) -> None:
        if rest <= 0:
            return
        self.do(S.TOUCH, f"Leave the piles where they are and touch the sensor to deal the rest of load "
                f"{name} ({rest} card{'s' * (rest != 1)}) onto them.", load=name)

    def _check_count(self, name: str, want: int, n: int, index: int, names: list[str], rest: bool) -> None:
        if n == want:
            return
        what = f"the rest of load {name} should hold {want}" if rest else f"load {name} should hold about {want}"
        if index + 1 < len(names):
            nxt = names[index + 1]
            diff = n - want
            self.voice.problem(
                f"{what[0].upper() + what[1:]} and holds {n}. It is dealing anyway: the shuffle does not depend on "
                f"where the loads are cut, only on keeping the order, so load {nxt} will hold "
                f"{abs(diff)} {'fewer' if diff > 0 else 'more'}.")
        else:
            self.voice.problem(f"{what[0].upper() + what[1:]} and holds {n}: "
                               f"{'cards are missing' if n < want else 'extra cards came in'}; the guide carries on "
                               "and counts them at the end of the round.")

    def _fault(self, ev: dict[str, Any], name: str, want: int, dealt: int, index: int, names: list[str]) -> str:
        """Explain a fault and have it put right. Returns "resumed" (the pass goes
        on), "part-ended" (the pass stopped; deal the rest) or "refused"."""
        assert self.link is not None
        code = ev.get("code")
        k = int(ev.get("k", 0))
        n = int(ev.get("n", 0))
        where = f"{self.place}"
        if ev.get("latched") is False or code in P.REFUSALS and "k" not in ev:
            return self._refusal(ev, name, want - dealt, index, names)
        if code == P.FAULT_JAM:
            self.voice.problem(f"A card is stuck in the feed ({where}, after {dealt + k} of {want} cards). "
                               "The motor has stopped.")
            self.note(f"jam during {where}")
            self.do(S.FREE_JAM, "Free the stuck card and push it back under the load; do not touch the piles.")
            self.do(S.TOUCH, "Touch the sensor to go on with the pass.")
            return "resumed"
        if code == P.FAULT_DOUBLE_FEED:
            self.voice.problem(f"Two cards went through together ({where}, after {dealt + k} of {want} cards); "
                               f"the pass stopped. {self.DOUBLE_FEED_WORDS}")
            self.note(f"double feed during {where}")
            self._clear()
            self.do(S.CLEAR_EXIT, "Take any card caught in the exit and put it back under the cards in the "
                    "tray, in the same order; do not touch the piles.")
            return "part-ended"
        if code == P.FAULT_TRAY_EMPTIED:
            missing = n - k
            self.voice.problem(f"The tray ran out early ({where}): {dealt + k} of {want} cards were dealt and "
                               f"{missing} are not in the tray any more.")
            self.note(f"cards left the tray during {where}")
            self._clear()
            self.do(S.PUT_BACK, f"Find the {missing} card{'s' * (missing != 1)} that came out of the tray and put "
                    "them back in the tray in the same order.", load=name)
            return "part-ended"
        if code == P.FAULT_BATTERY_LOW:
            self.voice.problem(f"The battery ran down during the pass ({where}, after {dealt + k} of {want} cards).")
            self._clear()
            self.do(S.BATTERY, "Replace the battery; leave the piles and the cards in the tray as they are.")
            return "part-ended"
        if code == P.FAULT_SENSOR:
            self.voice.problem(f"A sensor does not answer ({ev.get('detail', 'sensor')}).")
            self.do(S.CHECK, "Check the sensor's wiring and plug; leave the cards as they are.")
        else:
            self.voice.problem(f"The shuffler reports a fault: {ev.get(P.F_MSG, code)}")
        self._clear()
        if "k" in ev:
            return "part-ended"
        self.do(S.TOUCH, "Touch the sensor to start the pass.")
        return "refused"

    def _refusal(self, ev: dict[str, Any], name: str, want: int, index: int, names: list[str]) -> str:
        code = ev.get("code")
        if code == P.FAULT_OVER_CAPACITY:
            n = int(ev.get("n", 0))
            cap = int(ev.get("capacity", self.plan.capacity))
            extra = n - want if n > want else n - cap
            if index + 1 < len(names):
                nxt = names[index + 1]
                self.voice.problem(f"Load {name} should hold about {want} and holds {n}, more than the "
                                   f"{cap} the tray takes: move {extra} cards to load {nxt}.")
                self.do(S.UNLOAD, f"Take load {name} back out of the tray.", load=name)
                self.do(S.MOVE, f"Move {extra} cards from the bottom of load {name} to the top of load {nxt}.",
                        upper=name, lower=nxt, count=extra)
                self.do(S.LOAD, f"Put load {name} ({n - extra} cards) back in the tray.", load=name)
                self.do(S.TOUCH, "Touch the sensor to start the pass.")
            else:
                over = n - cap
                self.voice.problem(f"Load {name} holds {n} cards, more than the {cap} the tray takes: "
                                   "it is dealt in two parts onto the same piles.")
                self.do(S.SET_ASIDE, f"Lift the top {over} cards off the load in the tray and keep them aside, "
                        "in order.", load=name, count=over)
                self.do(S.TOUCH, "Touch the sensor to deal the rest.")
                self._pending_aside = over
            return "refused"
        if code == P.FAULT_EMPTY:
            self.voice.problem("The shuffler reads an empty tray.")
            self.do(S.TOUCH, f"Check that load {name} sits flat in the tray, then touch the sensor again.")
            return "refused"
        if code == P.FAULT_BATTERY_LOW:
            self.voice.problem("The battery is too low for a pass.")
            self.do(S.BATTERY, "Replace the battery; leave the load in the tray.")
            self.do(S.TOUCH, "Touch the sensor to start the pass.")
            return "refused"
        if code == P.FAULT_NOT_CALIBRATED:
            raise GuideStopped("the count sensor is not calibrated: calibrate the shuffler first", self.place)
        self.voice.problem(f"The shuffler refused the pass: {ev.get(P.F_MSG, code)}")
        self.do(S.TOUCH, "Touch the sensor to try again.")
        return "refused"

    _pending_aside = 0
    DOUBLE_FEED_WORDS = "They landed on the same pile, which is harmless."

    def _clear(self) -> None:
        assert self.link is not None
        try:
            self.link.request(P.CMD_CLEAR)
        except DeviceError:
            pass  # nothing latched any more
        except LinkTimeout:
            self.voice.problem("The shuffler did not answer the request to clear the fault; carrying on.")

    # -- connection trouble -------------------------------------------------------
    def _prepare_device(self) -> None:
        assert self.link is not None
        self.link.drain()  # the boot hello and anything else from before the routine
        st = self.link.status()
        if st.get("state") in (P.ST_ALARM, P.ST_PAUSED):
            self.voice.problem(f"The shuffler had a fault left over ({st.get('fault_name') or st.get('state')}); "
                               "clearing it.")
            self._clear()

    def _reconnect(self, why: str, name: str, done: int, want: int) -> dict[str, Any]:
        """The port went away: say so, wait for it to come back, return its status."""
        self.voice.problem(f"Lost the connection to the shuffler during {self.place}, after {done} of {want} "
                           f"cards. Check the USB cable and leave the cards as they are; "
                           f"waiting up to {self.reconnect_s:g} s for it to come back.")
        self.note(f"connection lost during {self.place}")
        if self.link is not None:
            self.link.close()
        deadline = self.clock() + self.reconnect_s
        last_error = why
        while self.clock() < deadline and self.reopen is not None:
            try:
                link = self.reopen()
            except LinkError as exc:
                last_error = str(exc)
                time.sleep(0.5)
                continue
            try:
                link.handshake(timeout=max(0.5, min(5.0, deadline - self.clock())))
                status = link.status()
            except LinkError as exc:
                link.close()
                last_error = str(exc)
                time.sleep(0.5)
                continue
            self.link = link
            self.voice.say("The shuffler is back.")
            return status
        raise GuideStopped(f"the shuffler did not come back within {self.reconnect_s:g} s ({last_error})",
                           self.place)

    def _resync(self, status: dict[str, Any], part_n: int | None, last: dict[str, int]) -> dict[str, Any] | None:
        """After a reconnection: an event that stands for what happened, or None
        when the device restarted and the rest must be dealt."""
        state = status.get("state")
        if part_n is None:
            return {P.F_EV: "reconnected"}
        if state == P.ST_DEALING:
            return {P.F_EV: "reconnected"}
        if state == P.ST_PAUSED:
            return {P.F_EV: P.EV_FAULT, "code": P.FAULT_JAM, "k": status.get("k", 0), "n": status.get("n", 0)}
        if status.get("n") == part_n and status.get("k") == part_n:
            # The pass finished while the port was away.
            return {P.F_EV: P.EV_DONE, "k": part_n, "left": status.get("left", 0), "right": status.get("right", 0)}
        if state == P.ST_IDLE and status.get("n") == part_n and isinstance(status.get("k"), int):
            last.update(k=int(status["k"]), left=int(status.get("left", 0)), right=int(status.get("right", 0)))
        return None

    def _check_stalled(self, part_n: int, last: dict[str, int]) -> dict[str, Any] | None:
        """No event for a while during a pass: ask the device."""
        assert self.link is not None
        wait = min(2.0, self.stall_s)
        try:
            st = self.link.status(timeout=wait)
        except LinkTimeout:
            self.voice.problem("The shuffler has not answered for a while; checking the connection.")
            self.link.close()
            self.link.events.put(LinkClosed(f"no answer within {wait:g} s"))
            return None
        except LinkClosed:
            return None
        state = st.get("state")
        if state == P.ST_DEALING:
            return None
        if state == P.ST_IDLE and st.get("n") == part_n and st.get("k") == part_n:
            return {P.F_EV: P.EV_DONE, "k": part_n, "left": st.get("left", 0), "right": st.get("right", 0)}
        if state == P.ST_PAUSED:
            return {P.F_EV: P.EV_FAULT, "code": st.get("fault") or P.FAULT_JAM, "k": st.get("k", 0),
                    "n": st.get("n", 0)}
        return None


def even_split(cards: int, loads: int) -> list[int]:
    """cards into `loads` near-equal loads, larger ones on top."""
    if loads <= 0:
        return []
    q, r = divmod(max(cards, 0), loads)
    return [q + 1] * r + [q] * (loads - r)
