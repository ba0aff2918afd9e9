"""Exact mode's part of the guide (docs/exact-mode.md): the device's words
on its routine, exactness lost, a fresh routine after it, and going on with
a routine the device still holds (`--resume`).

The device draws the codes and keeps them; the guide asks it to begin an
exact routine for the pack and follows its events. Exactness is declared
lost only when the device says so, with its evidence (a load's count, two
cards of different piles dealt together, a restart that took the codes).
The finish after a loss is, by default, a fresh exact routine: the pack is
gathered in any order (the new codes do not depend on it) and ends exactly
uniform; random rounds only when asked for (`--on-loss random`).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from firmware import protocol
from host.guide import notices
from host import device_messages, device_words
from host.device_messages import Event, Reply
from host.guide import routines
from host.guide.table import ONWARD, Do, Phase, Tick, on
from host.device_link import LinkError, ProtocolFault
from host.plan import make_plan
from shuffling import steps

if TYPE_CHECKING:
    from host.guide.machine import Machine

AFTER_PASS_S = 3.0  # the device's exact events follow its done event at once


class ExactHandlers:
    def init_exact(self: Machine) -> None:
        self.lost: str | None = None  # why exactness was lost in the routine in hand
        self.exact_finished = False
        self.dealt_key: tuple[int, str] | None = None  # (round, load) of the exact pass just dealt
        self.after_pass_until = 0.0
        self.running: Reply | None = None  # resumed with a pass under way
        self.part_dealt: int | None = None  # ... with this many of its cards out

    # -- beginning -----------------------------------------------------------------------------
    def exact_routine(self: Machine) -> routines.ExactRoutine:
        dev = self.device
        assert dev is not None
        try:
            begun = dev.exact_begin(self.plan.cards)
        except ProtocolFault:
            raise
        except LinkError as exc:
            raise self.stop(f"the shuffler cannot run exact mode for {self.plan.cards} cards: {exc}") from None
        try:
            return routines.ExactRoutine(self.plan.cards, dev.capacity or self.plan.capacity, begun)
        except ValueError as exc:  # a routine this guide would word otherwise (another firmware's plan)
            raise self.stop(f"the shuffler's exact routine does not fit this pack: {exc}") from None

    def resumed_routine(self: Machine, st: Reply) -> routines.ExactRoutine:
        """The routine the device holds, from the load it expects next."""
        dev = self.device
        assert dev is not None
        held = dev.exact_held() if st.mode == protocol.MODE_EXACT else None
        if held is None or st.next is None:
            raise self.stop("the shuffler holds no exact routine to go on with (it restarted without it, or "
                            "exactness was lost)")
        if held.n != self.plan.cards:
            raise self.stop(f"the shuffler's exact routine is for {held.n} cards, not the {self.plan.cards} given")
        try:
            routine = routines.ExactRoutine(self.plan.cards, dev.capacity or self.plan.capacity, held, resume_at=st.next)
        except ValueError as exc:
            raise self.stop(f"the shuffler's exact routine does not fit this pack: {exc}") from None
        if st.state in (protocol.ST_DEALING, protocol.ST_PAUSED) or held.dealt is not None:
            self.running, self.part_dealt = st, held.dealt
            self.todo.append(Do("take_up_running_pass"))
        return routine

    def take_up_running_pass(self: Machine) -> None:
        """Resumed while the device deals the expected load, holds it
        paused, or keeps it part dealt: follow that pass instead of asking
        for its load."""
        st, self.running = self.running, None
        assert st is not None and st.next is not None
        while self.todo and not isinstance(self.todo[0], steps.PutInTray):
            item = self.todo.popleft()
            if isinstance(item, notices.NOTICE_TYPES):
                self.tell(item)
            elif isinstance(item, routines.RoundMark):
                self.step_round = item.round
        put = self.todo.popleft()
        assert isinstance(put, steps.PutInTray)
        self.start_or_continue_pass(put)
        self.drop_to_touch()
        p = self.pass_
        assert p is not None
        p.size, p.dealt = st.next.count, self.part_dealt or 0
        p.left = p.right = None  # the device keeps an exact pass's piles to itself
        if st.state in (protocol.ST_DEALING, protocol.ST_PAUSED):
            self.begin_part(device_messages.make_event(protocol.EV_LOADED, n=st.n))
            p.k = st.k or 0
            if st.state == protocol.ST_PAUSED:
                self.fault_in_pass(device_messages.make_event(protocol.EV_FAULT, k=p.k, n=st.n, code=protocol.FAULT_JAM, latched=True))
            return
        # Part dealt and stopped: what is left goes in the tray, the count says where it stopped.
        self.todo.appendleft(steps.PutInTray(p.load, None, rest=True))

    # -- the device's words on its routine ----------------------------------------------------
    @on("exact_next", goes=ONWARD)
    def exact_next(self: Machine, ev: Event) -> None:
        if isinstance(self.routine, routines.ExactRoutine) and ev.round is not None and ev.count is not None:
            self.routine.device_next = device_messages.object_record(
                "next", {"round": ev.round, "rounds": ev.rounds, "load": ev.load, "count": ev.count})
        self.after_pass_check()

    @on("exact_round")
    def exact_round(self: Machine, ev: Event) -> None:
        if self.lost is None:
            self.tell(notices.ExactRoundDealt(ev.round or 0, ev.rounds or 0))

    @on("exact_done", goes=ONWARD)
    def exact_done(self: Machine, ev: Event) -> None:
        self.exact_finished = True
        self.after_pass_check()

    @on("exact_lost", goes=ONWARD)
    def exact_lost(self: Machine, ev: Event) -> None:
        self.lose(device_words.event_name(ev) or "unknown", load=ev.load or None, n=ev.n, expected=ev.expected)
        self.after_pass_check()

    def lose(self: Machine, reason: str, load: str | None = None, n: int | None = None,
             expected: int | None = None) -> None:
        """Exactness is gone: say why, once. The pass in hand goes on (at
        random); after it, or now between passes, the pack is gathered."""
        if self.lost is not None or self.routine is None or not self.routine.exact:
            return
        self.lost = reason
        self.tell(notices.ExactLost(self.place, reason, load, n, expected))
        self.note(f"exactness lost during {self.place}: {reason}")
        if self.pass_ is None and self.phase is Phase.HANDLING:
            self.after_loss()
            self.advance()

    def after_device_restart(self: Machine) -> None:
        """The device started again: in exact mode, whether it kept its routine."""
        if self.routine is None or not self.routine.exact or self.lost is not None or self.exact_finished:
            return
        assert self.device is not None
        try:
            st = self.device.status()
        except LinkError:
            st = None
        if st is None or self.device_forgot(st):
            self.lose("restart")

    def device_forgot(self: Machine, st: Reply) -> bool:
        return (self.routine is not None and self.routine.exact and self.lost is None and not self.exact_finished
                and st.mode != protocol.MODE_EXACT)

    # -- after an exact pass ----------------------------------------------------------------------
    def wait_for_the_device(self: Machine, load: str) -> None:
        assert self.device is not None and self.place is not None
        self.dealt_key = (self.place.round, load)
        self.phase = Phase.AFTER_PASS
        self.after_pass_until = self.clock() + self.device.wait_s(AFTER_PASS_S)
        self.after_pass_check()

    def after_pass_check(self: Machine) -> None:
        """Go on once the device has said which load it expects next (or
        that its routine is done, or lost)."""
        if self.phase is not Phase.AFTER_PASS or not isinstance(self.routine, routines.ExactRoutine):
            return
        nxt = self.routine.device_next
        fresh = nxt is not None and (nxt.round, nxt.load) != self.dealt_key
        if fresh or self.exact_finished or self.lost is not None:
            self.go_on_after_exact_pass()

    def go_on_after_exact_pass(self: Machine) -> None:
        self.phase = Phase.HANDLING
        self.go_on_after()
        self.advance()

    @on("tick", Phase.AFTER_PASS, goes=ONWARD)
    def tick_after_pass(self: Machine, fact: Tick) -> None:
        """No word from the device: ask it where its routine stands."""
        if self.clock() < self.after_pass_until:
            return
        assert self.device is not None and isinstance(self.routine, routines.ExactRoutine)
        try:
            st = self.device.status()
        except LinkError as exc:
            raise self.stop(f"the shuffler did not answer after the pass ({exc})") from None
        if self.device_forgot(st):
            self.lose("restart")
        elif st.next is not None:
            self.routine.device_next = st.next
        self.go_on_after_exact_pass()

    @on("loaded", Phase.AFTER_PASS, goes=ONWARD)
    def loaded_after_pass(self: Machine, ev: Event) -> None:
        """The next pass began before the device's word arrived."""
        self.go_on_after_exact_pass()
        self.handle(ev)

    # -- after a loss ---------------------------------------------------------------------------
    def after_loss(self: Machine) -> None:
        """Every card into one pack, in any order, then a fresh routine."""
        self.todo.clear()
        self.todo.extend([steps.Collect(self.plan.cards), Do("start_fresh")])

    def start_fresh(self: Machine) -> None:
        assert self.routine is not None
        self.earlier.append(self.routine)
        self.lost, self.exact_finished = None, False
        if self.on_loss == "exact":
            self.routine = self.exact_routine()
            self.tell(notices.FreshExactRun(self.routine.rounds, self.routine.of_passes))
            self.todo.extend(item for item in self.routine.begin() if not isinstance(item, notices.ExactIntro))
            return
        rest = make_plan(self.plan.pack, self.plan.capacity, self.plan.quality)
        self.routine = routines.RandomRoutine(rest, counted=True, seconds_per_round=self.seconds_per_round())
        self.tell(notices.FinishAtRandom(rest.rounds, rest.distance, rest.quality.name, rest.quality.threshold))
        self.todo.extend(self.routine.begin())
