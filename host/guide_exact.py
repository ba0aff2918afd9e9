"""The guided shuffle in exact mode (docs/exact-mode.md).

The device draws the codes and keeps them; the guide asks it to begin an
exact routine for the pack, then walks the person through the fixed
instructions of simulator/exact_mode/physical.py (which pile goes on top of
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
from host import person as S
from host.guide import Guide, GuideStopped, Place, Summary
from host.link import DeviceError, Garbage, LinkError
from host.plan import make_plan
from simulator.exact_mode.physical import exact_steps

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

    def _check_count(self, name: str, want: int, n: int, index: int, names: list[str], rest: bool) -> None:
        if n == want or self.lost is not None:
            return  # a loss has been explained already
        self.voice.problem(f"Load {name} should hold {want} cards and holds {n}. That is harmless here: the "
                           "shuffler counts every load and keeps track of every card.")

    def _after_pass(self) -> None:
        """Read the device's exact events that follow a pass."""
        assert self.link is not None
        deadline = self.clock() + AFTER_PASS_S
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
            if ev.get(P.F_EV) == P.EV_HELLO:
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
        steps = exact_steps(p.cards, capacity, bool(rep.get("uneven")))
        rounds = int(rep["rounds"])
        loads = int(rep["loads"])
        self.device_next = (int(rep["round"]), str(rep["load"]), int(rep["count"]))
        self.voice.say(f"Exact mode: {rounds} rounds ({rounds * loads} passes). The shuffler chose a secret code "
                       "for every card and deals each card by its code; after the last round every order of the "
                       "pack is equally likely. Follow the steps exactly: which pile goes on top matters.")
        names: list[str] = [chr(65 + j) for j in range(loads)]
        per_round: list[list[int]] = []
        passes = 0
        current_round = 0
        taken: list[str] = []  # loads of this round whose piles are on the table
        for step in steps:
            if step.round != current_round:
                current_round = step.round
                per_round.append([])
                taken = []
                self.voice.say(f"[bold]Round {step.round} of {rounds}[/bold] (exact)")
            a = step.args
            if step.kind == "deal":
                name = a["load"]
                self.place = Place(step.round, name, passes + 1, rounds, rounds * loads)
                want = int(a["size"])
                if self.device_next is not None and self.device_next[:2] == (step.round, name):
                    want = self.device_next[2]
                self._dealt = (step.round, name, want)
                self.do(S.LOAD, f"Put load {name} ({want} cards) face down in the tray.", load=name)
                if step.round == 1:
                    # The first cut is by eye and any cut keeps the order: make
                    # it the one the device expects, exactly. Later loads are
                    # stacks whose counts the codes fix; a wrong one means a
                    # swapped stack, which moving cards would only hide.
                    self._even_out_load(name, want, names.index(name), names, 0)
                self.do(S.TOUCH, "Touch the sensor to start the pass.")
                result = self._follow_pass(name, want, names.index(name), names)
                passes += 1
                per_round[-1].append(result.cards)
                self._after_pass()
                if self.lost is not None:
                    return self._finish_at_random(step.round, name, names, taken, passes, per_round, started)
                if loads == 1:
                    self.do(S.TAKE, "Lift off the left pile and the right pile, keeping them apart.", load=name)
                taken.append(name)
            elif step.kind == "take":
                self.do(S.TAKE, step.text, load=a["load"])
            elif step.kind == "split":
                self.do(S.SPLIT, step.text, names=a["names"], sizes=a["sizes"], round=step.round)
            elif step.kind == "stack":
                self.do(S.STACK, step.text, parts=a["parts"], **{"as": a["as"]})
            elif step.kind == "draw":
                self.do(S.DRAW, step.text, loads=a["loads"])
            elif step.kind == "finish":
                self.do(S.FINISH, step.text, parts=a["parts"])
        self.place = None
        if not self.finished:
            self.voice.problem("The shuffler did not confirm the end of exact mode.")
            self.note("the shuffler did not confirm the end of exact mode")
        return Summary(rounds=rounds, passes=passes, seconds=self.clock() - started, distance=0.0, cards=p.cards,
                       notes=self.notes, loads=per_round, mode="exact", distance_kind="exact", method=EXACT_METHOD)

    def _finish_at_random(self, round_number: int, name: str, names: list[str], taken: list[str], passes: int,
                          per_round: list[list[int]], started: float) -> Summary:
        """Gather every card into one pack, then random rounds for the quality."""
        p = self.plan
        self.do(S.TAKE, f"Lift off load {name}'s two piles and keep them apart.", load=name)
        taken = taken + [name]
        parts = [f"{x}.left" for x in taken] + [f"{x}.right" for x in taken]
        parts += [x for x in names if x not in taken]  # loads not dealt this round
        words = " on top of ".join(part.replace(".left", "'s left pile").replace(".right", "'s right pile")
                                   if "." in part else f"load {part}" for part in parts)
        self.do(S.STACK, f"Put {words}: that is the whole pack ({p.cards} cards).", parts=parts, **{"as": "pack"})
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
