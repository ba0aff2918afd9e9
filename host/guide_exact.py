"""The guided shuffle in exact mode (docs/exact-mode.md).

The device draws the codes and keeps them; the guide asks it to begin an
exact routine for the pack, then walks the person through the fixed
instructions of simulator/shuffling/exact_mode/physical.py (which pile goes on top of
which, where every load comes from), checks every load against the load the
device expects, and follows its exact-mode events. When the device says
exactness is lost, the guide says so in plain words, has the whole pack
gathered, and finishes with as many random pile-trade rounds as the chosen
quality needs from any starting state: t random rounds bring any pack
within d(t) of random, d(t) the exact Bayer-Diaconis figure.
"""
from __future__ import annotations

from typing import Any

from firmware import protocol as P
from host.guide import Guide, GuideStopped, PassFollower, Place, Summary
from host.link import BadMessage, DeviceError, Garbage, LinkError
from host.plan import make_plan
from host.plan_cmd import count
from simulator.shuffling import steps as S
from simulator.shuffling.exact_mode.physical import exact_steps

EXACT_METHOD = "exact mode: every order equally likely, by the radix-sort proof in docs/exact-mode.md"
RANDOM_AFTER_LOSS_METHOD = ("at most the exact Bayer-Diaconis figure of the random rounds, "
                            "which holds from any starting state")
AFTER_PASS_S = 3.0  # the device's exact events follow its done event at once

# Plain words for the device's reasons (protocol.LOST), and for a restart.
REASONS = {
    "double_feed": "two cards went through the feed together, so one of them went to the wrong pile",
    "count": "the load in the tray is not the one the shuffler expected: a stack or a pile was swapped, "
             "a load came in out of turn, or a card went missing",
    "aborted": "a pass stopped before its last card",
    "cancelled": "exact mode was cancelled",
    "restart": "the shuffler restarted, and the codes it kept are gone",
}


class ExactGuide(Guide):
    """Guide with the device planning every card's side."""

    mode = "exact"

    DOUBLE_FEED_WORDS = "They landed on the same pile, and in exact mode that matters (see below)."
    lost: dict[str, Any] | None = None
    device_next: tuple[int, str, int] | None = None
    finished = False

    # -- the device's exact events ----------------------------------------------
    def _other_event(self, ev: dict[str, Any]) -> None:
        kind = ev.get(P.F_EV)
        if kind == P.EV_EXACT_NEXT:
            self.device_next = (int(ev.get("round", 0)), str(ev.get("load", "")), int(ev.get("count", 0)))
        elif kind == P.EV_EXACT_ROUND:
            self.voice.say(f"   every load of round {ev.get('round')} of {ev.get('rounds')} dealt")
        elif kind == P.EV_EXACT_DONE:
            self.finished = True
        elif kind == P.EV_EXACT_LOST:
            self._lose(str(ev.get(P.F_NAME, "unknown")), ev)

    def _restarted(self) -> None:
        self._lose("restart", {})

    def _lose(self, reason: str, ev: dict[str, Any]) -> None:
        if self.lost is not None:
            return
        self.lost = {"reason": reason, **ev}
        words = REASONS.get(reason, f"the shuffler reports {reason}")
        if reason == "count" and "n" in ev:
            words = (f"load {ev.get('load', '?')} holds {ev['n']} cards, not the {ev.get('expected', '?')} the "
                     f"shuffler expected: a stack or a pile was swapped, a load came in out of turn, "
                     f"or a card went missing")
        self.voice.problem(f"Exactness is lost during {self.place}: {words}. The shuffler deals at random from "
                           "now on; the guide finishes with enough random rounds to reach "
                           f"'{self.plan.quality.name}' anyway.")
        self.note(f"exactness lost during {self.place}: {reason}")

    def _check_loaded(self, name: str, want: int, n: int, index: int, names: list[str]) -> None:
        """The device judges the count itself (and says exact_lost when it is wrong)."""

    def _tolerance(self, want: int, index: int, names: list[str]) -> int:
        return 0  # the device expects the count exactly

    def _device_forgot(self, st: dict[str, Any]) -> bool:
        return self.lost is None and not self.finished and st.get("mode") != P.MODE_EXACT

    def _put_right(self, name: str, want: int, n: int, index: int, names: list[str], left_in_pack: int,
                   tolerance: int) -> None:
        """Loads cut by eye (round 1, and every round with three or more
        loads) are put right by moving cards to or from the next load. The
        two stacks of a two-load routine have counts the codes fix: a count
        that is the other stack's means the stacks were swapped; any other
        means cards are missing or extra."""
        assert self.round is not None
        by_eye = self.round == 1 or len(names) >= 3
        if by_eye and index + 1 < len(names):
            super()._put_right(name, want, n, index, names, left_in_pack, tolerance)
            return
        sizes = self.round_sizes.get(self.round, {})
        others = [x for x in names if x != name and sizes.get(x) == n]
        if not by_eye and len(names) == 2 and others and n != want:
            other = others[0]
            stack = "left" if index == 0 else "right"
            other_stack = "right" if index == 0 else "left"
            self.voice.problem(f"Load {name} should be the {stack} stack ({want} cards); the tray holds {n}, the "
                               f"{other_stack} stack's count: the stacks look swapped.")
            self.step(S.Unload(name))
            self.step(S.Swap(name, other))
            self.step(S.PutInTray(name, want, again=True))
            return
        self._missing_or_extra(name, want, n)

    def _after_pass(self) -> None:
        """Read the device's exact events that follow a pass."""
        assert self.link is not None
        deadline = self.clock() + self.link.wait_s(AFTER_PASS_S)
        while self.lost is None and not self.finished and self.device_next_stale:
            left = deadline - self.clock()
            if left <= 0:
                break
            try:
                ev = self.link.next_event(min(left, 0.25))
            except LinkError:
                break
            if ev is None or isinstance(ev, Garbage):
                continue
            if isinstance(ev, BadMessage):
                raise ev.fault(self.device_name)
            if ev.get(P.F_EV) == P.EV_HELLO:
                self._check_uid(ev)
                self._restarted()
            else:
                self._other_event(ev)
        if self.lost is None and not self.finished and self.device_next_stale:
            # No word from the device: ask it where it stands.
            try:
                st = self.link.status()
            except LinkError as exc:
                raise GuideStopped(f"the shuffler did not answer after the pass ({exc})", self.place) from None
            if st.get("mode") != P.MODE_EXACT:
                self._restarted()
            else:
                nxt = st.get("next") or {}
                self.device_next = (int(nxt.get("round", 0)), str(nxt.get("load", "")), int(nxt.get("count", 0)))

    @property
    def device_next_stale(self) -> bool:
        return self.device_next is None or self.device_next == self._dealt

    _dealt: tuple[int, str, int] | None = None

    # -- the routine ---------------------------------------------------------------
    def run(self) -> Summary:
        if self.link is None:
            raise GuideStopped("exact mode needs the shuffler connected", None)
        p = self.plan
        started = self.clock()
        self._prepare_device()
        try:
            rep = self.link.request(P.CMD_EXACT, n=p.cards)
        except DeviceError as exc:
            raise GuideStopped(f"the shuffler cannot run exact mode for {p.cards} cards: {exc}", None) from None
        capacity = int((self.link.hello or {}).get("capacity", p.capacity))
        uneven = bool(rep.get("uneven"))
        plan_steps = exact_steps(p.cards, capacity, uneven)
        rounds = int(rep["rounds"])
        loads = int(rep["loads"])
        self.device_next = (int(rep["round"]), str(rep["load"]), int(rep["count"]))
        self.voice.say(f"Exact mode: {count(rounds, 'round')} ({count(rounds * loads, 'pass', 'passes')}). "
                       "The shuffler chose a secret code "
                       "for every card and deals each card by its code; after the last round every order of the "
                       "pack is equally likely. Follow the steps exactly: which pile goes on top matters.")
        names: list[str] = [chr(65 + j) for j in range(loads)]
        self.round_sizes = {}
        for es in plan_steps:
            if isinstance(es.step, S.PutInTray):
                self.round_sizes.setdefault(es.round, {})[es.step.load] = int(es.step.cards or 0)
        per_round: list[list[int]] = []
        passes = 0
        current_round = 0
        taken: list[str] = []  # loads of this round whose piles are on the table
        for es in plan_steps:
            if es.round != current_round:
                current_round = es.round
                self.round = es.round
                per_round.append([])
                taken = []
                self.voice.say(f"[bold]Round {es.round} of {rounds}[/bold] (exact)")
            step = es.step
            if isinstance(step, S.PutInTray):
                name = step.load
                self.place = Place(es.round, name, passes + 1, rounds, rounds * loads)
                want = int(step.cards or 0)
                if self.device_next is not None and self.device_next[:2] == (es.round, name):
                    want = self.device_next[2]
                self._dealt = (es.round, name, want)
                result = self._deal(name, want, names.index(name), names, p.cards)
                passes += 1
                per_round[-1].append(result.cards)
                self._after_pass()
                if self.lost is not None:
                    return self._finish_at_random(es.round, name, names, taken, passes, per_round, started)
                taken.append(name)
            elif not isinstance(step, S.Touch):  # the deal above gave the touch, and waited for its pass
                self.step(step)
        self.place = None
        if not self.finished:
            self.voice.problem("The shuffler did not confirm the end of exact mode.")
            self.note("the shuffler did not confirm the end of exact mode")
        return Summary(rounds=rounds, passes=passes, seconds=self.clock() - started, distance=0.0, cards=p.cards,
                       notes=self.notes, loads=per_round, mode="exact", distance_kind="exact", method=EXACT_METHOD)

    round_sizes: dict[int, dict[str, int]] = {}

    def _finish_at_random(self, round_number: int, name: str, names: list[str], taken: list[str], passes: int,
                          per_round: list[list[int]], started: float) -> Summary:
        """Gather every card into one pack, then random rounds for the quality."""
        p = self.plan
        self.step(S.Lift(name))
        taken = taken + [name]
        parts = [S.left_of(x) for x in taken] + [S.right_of(x) for x in taken]
        parts += [x for x in names if x not in taken]  # loads not dealt this round
        # No count: cards may be missing, and only the device's counts are told.
        self.step(S.Stack(tuple(parts), S.PACK))
        rest = make_plan(p.pack, p.capacity, p.quality)
        self.voice.say(f"Finishing at random: {rest.rounds} rounds bring any pack within {rest.distance:.4f} of "
                       f"random ('{p.quality.name}' asks for at most {p.quality.threshold:g}).")
        exact_plan = self.plan
        self.plan = rest
        self.from_round = 1
        try:
            tail = Guide.run(self)
        finally:
            self.plan = exact_plan
        return Summary(rounds=round_number - 1 + rest.rounds, passes=passes + tail.passes,
                       seconds=self.clock() - started, distance=tail.distance, cards=p.cards, notes=self.notes,
                       loads=per_round + tail.loads, mode="exact, then random", distance_kind="at most",
                       method=RANDOM_AFTER_LOSS_METHOD)
