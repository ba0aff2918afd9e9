"""The guide's run from its beginning to its summary, and exact mode's
routine as the machine runs it: preparing the device, a routine begun or
taken up again, its loss, a part dealt again, a fresh routine after a loss,
the summary. Core (host/guide/core.py) takes these as its own methods; they
read and change only what Core keeps."""
from __future__ import annotations

from firmware import protocol
from host import device_messages
from host import device_words
from host.device_link import LinkError, ProtocolFault
from host.device_messages import Reply
from host.guide import ending
from host.guide import faults
from host.guide import ledger as proof
from host.guide import notices
from host.guide import routines
from host.guide.handlers import AfterPass, Do, Finished, Handling, Phase
from host.guide.stop_reasons import DEAL_LOAD_AGAIN, DEAL_STACK_AGAIN, LEAVE_ROUTINE, RoutineUnfit
from host.plan import make_plan
from shuffling import steps

AFTER_PASS_S = 3.0  # seconds: the device's exact events follow its done event at once


class RunKeeping:
    """Core's beginning, ending and exact routine: methods of Core's own,
    kept here (what they read: Core's plan, device, routine, ledger, todo
    and its services tell, stop, advance)."""

    # -- beginning and ending --------------------------------------------------------------------
    def begin(self) -> Phase:
        """The device prepared, the routine chosen, the first steps shown."""
        if self.device is not None:
            self.prepare_device()
        if self.routine is None:
            self.routine = routines.RandomRoutine(self.plan, counted=self.device is not None, from_round=self.options.from_round,
                                                  seconds_per_round=self.seconds_per_round())
        self.todo.extend(self.routine.begin())
        return self.advance(Handling())

    def seconds_per_round(self) -> float:
        return self.plan.timing.total_s / max(1, self.plan.rounds)

    def prepare_device(self) -> None:
        dev = self.device
        assert dev is not None
        dev.drain()
        st = dev.status()
        self.last_line = self.clock()
        # Going on with an exact routine, a jammed pass is taken up, not cleared (that would abort it).
        takes_it_up = self.options.resume and st.mode == protocol.MODE_EXACT and st.state == protocol.ST_PAUSED
        if st.state in (protocol.ST_ALARM, protocol.ST_PAUSED) and not takes_it_up:
            self.tell(notices.FaultLeftOver(device_words.fault_name(st.fault) if st.fault else st.state))
            if not dev.clear():
                self.tell(notices.ClearUnanswered())
        if self.mode == "random" and st.mode == protocol.MODE_EXACT:
            # An exact routine left over (a run stopped part way): its codes would deal these passes.
            try:
                dev.exact_cancel()
            except Exception as exc:  # a refusal or no answer: the stop says which
                raise self.not_done(LEAVE_ROUTINE, exc) from None
            self.cancels_unheard += 1
        if self.mode == "exact" and not self.options.resume and st.mode == protocol.MODE_EXACT:
            self.drop_held(st)
        if self.mode == "exact":
            self.routine = self.resumed_routine(st) if self.options.resume else self.exact_routine()

    def drop_held(self, st: Reply) -> None:
        """The shuffler holds an exact routine from an earlier run: this run
        begins a fresh one, and says so first (with how to go on with the
        held one instead); its cards on the table go back into the pack."""
        assert self.device is not None
        held = self.device.exact_held()
        nxt = st.next
        self.tell(notices.HeldRoutineDropped(nxt.round if nxt else None, held.rounds if held else None,
                                             nxt.load if nxt else None, self.options.resume_hint))
        self.todo.append(steps.Collect(self.plan.cards))

    def finish(self) -> Finished:
        """The last step is done: the summary."""
        routine = self.routine
        assert routine is not None
        if isinstance(routine, routines.GuidedExactRoutine) and self.device is not None and not routine.finished:
            self.tell(notices.ExactNotConfirmed())
            self.note(notices.ExactNotConfirmed())
        summary = ending.summary(routine, self.earlier, self.plan, self.clock() - self.started, self.notes,
                                 self.ledger if self.mode == "exact" else None)
        summary.simulated = self.simulated
        summary.resumed = self.options.resume
        return Finished(summary)

    @property
    def resumable(self) -> bool:
        """Whether the device still holds the exact routine in hand, so that
        `--resume` goes on with it where the cards lie."""
        r = self.routine
        return (isinstance(r, routines.GuidedExactRoutine) and self.device is not None and r.lost is None
                and not r.finished)

    # -- exact mode's routine --------------------------------------------------------------------
    def exact_routine(self) -> routines.GuidedExactRoutine:
        dev = self.device
        assert dev is not None
        try:
            begun = dev.exact_begin(self.plan.cards, self.options.routine)
        except ProtocolFault:
            raise
        except LinkError as exc:
            raise self.stop(f"the shuffler cannot run exact mode for {self.plan.cards} cards: {exc}") from None
        if self.options.routine is not None and begun.kind != self.options.routine:
            raise self.protocol_fault(f"asked for the {self.options.routine} routine, it began {begun.kind}")
        try:
            return routines.GuidedExactRoutine(self.plan.cards, dev.capacity or self.plan.capacity, begun)
        except ValueError as exc:  # a routine this guide would word otherwise (another firmware's plan)
            raise self.stop(RoutineUnfit(self.plan.cards, str(exc))) from None

    def resumed_routine(self, st: Reply) -> routines.GuidedExactRoutine:
        """The routine the device holds, from the load it expects next."""
        dev = self.device
        assert dev is not None
        held = dev.exact_held() if st.mode == protocol.MODE_EXACT else None
        if held is None or st.next is None:
            raise self.stop("the shuffler holds no exact routine to go on with (it restarted without it, or "
                            "exactness was lost)")
        if held.n != self.plan.cards:
            raise self.stop(f"the shuffler's exact routine is for {held.n} cards, not the {self.plan.cards} given")
        if self.options.routine is not None and held.kind != self.options.routine:
            raise self.stop(f"the shuffler holds the {held.kind} routine, not the {self.options.routine} asked for: "
                            "leave out --routine to go on with it")
        try:
            routine = routines.GuidedExactRoutine(self.plan.cards, dev.capacity or self.plan.capacity, held,
                                            resume_at=st.next)
        except ValueError as exc:
            raise self.stop(RoutineUnfit(self.plan.cards, str(exc))) from None
        if st.state in (protocol.ST_DEALING, protocol.ST_PAUSED) or held.dealt is not None:
            self.todo.append(Do(lambda: self.take_up_running_pass(st, held.dealt), "take_up_running_pass"))
        return routine

    def take_up_running_pass(self, st: Reply, part_dealt: int | None) -> Phase | None:
        """Resumed while the device deals the expected load, holds it
        paused, or keeps it part dealt: follow that pass instead of asking
        for its load."""
        assert st.next is not None
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
        p.size, p.dealt = st.next.count, part_dealt or 0
        p.left = p.right = None  # the device keeps an exact pass's piles to itself
        if st.state in (protocol.ST_DEALING, protocol.ST_PAUSED):
            dealing = self.begin_part(device_messages.make_event(protocol.EV_LOADED, n=st.n))
            p.k = st.k or 0
            if st.state == protocol.ST_PAUSED:
                self.learned(device_messages.make_event(protocol.EV_FAULT, code=faults.paused_by(st), latched=True,
                                                        k=p.k, n=st.n))
            return dealing
        # Part dealt and stopped: what is left goes in the tray, the count says where it stopped.
        self.todo.appendleft(steps.PutInTray(p.load, None, rest=True))
        return None

    def lose(self, reason: str, load: str | None = None, n: int | None = None, expected: int | None = None,
             walk: bool = True) -> Phase:
        """Exactness is gone: say why, once. The pass in hand goes on (at
        random); after it, or now between passes, the pack is gathered (and,
        with `walk`, its steps shown: an action already walking says no)."""
        r = self.routine
        if not isinstance(r, routines.GuidedExactRoutine) or r.lost is not None:
            return self.phase
        r.lost = reason
        notice = notices.ExactLost(self.place, reason, load, n, expected)
        self.tell(notice)
        self.ledger.add(self.place, notice, proof.LOST)
        if self.pass_ is None and (isinstance(self.phase, Handling) or not walk):
            short = expected - n if reason == "count" and n is not None and expected is not None else 0
            self.after_loss(max(0, short), load)
            return self.advance() if walk else self.phase
        return self.phase

    def after_device_restart(self) -> Phase:
        """The device started again: in exact mode, whether it kept its routine."""
        r = self.routine
        if not isinstance(r, routines.GuidedExactRoutine) or r.lost is not None or r.finished:
            return self.phase
        assert self.device is not None
        try:
            st = self.device.status()
        except LinkError:
            st = None
        if st is None or self.device_forgot(st):
            return self.lose("restart")
        return self.phase

    def repaired(self, part: str, first: int, reason: str, after: bool, want: int | None = None,
                 n: int | None = None, regather: bool = True) -> None:
        """The part in hand is dealt again from its first round: said, kept in
        the ledger, and the routine's steps walk on from there (regather:
        after a step that puts its piles together, any order)."""
        r = self.routine
        assert isinstance(r, routines.GuidedExactRoutine)
        passes = r.part_passes(first)
        notice = notices.PartDealtAgain(self.place, part, reason, passes, r.part_seconds(first), after, want, n)
        self.tell(notice)
        self.ledger.add(self.place, notice, proof.REPAIRED, proof.PartAgain(part, passes))
        r.repair(first, regather=regather)

    def request_repair(self, want: int, n: int, fix: list[steps.Step]) -> Phase | None:
        """Cards left the load in hand, a part of the split, and are put back
        by hand where nobody knows: the device deals the part again from
        fresh codes (an action of the walk); `fix`, the steps that put the
        cards back, come before the part's first load again."""
        assert self.device is not None and isinstance(self.routine, routines.GuidedExactRoutine)
        load = self.pass_.load if self.pass_ is not None else self.routine.load
        try:
            held = self.device.exact_repair()
        except LinkError as exc:
            raise self.not_done(DEAL_LOAD_AGAIN, exc, load) from None
        self.routine.awaiting_repair += 1  # its exact_repair event is this one, said here
        self.routine.device_next = held.next
        self.repaired(load, held.next.round, notices.HAND, False, want, n, regather=False)
        self.pass_ = None  # its pass was never dealt
        self.todo.clear()
        self.todo.extend(fix)
        self.todo.extend(self.routine.after_pass())
        return None

    def request_parent_repair(self, want: int, n: int, parent: int) -> Phase | None:
        """The stack in hand holds a wrong set of cards (a part at its first
        pass, a split round's last load): the stack split round `parent` cut
        it from is put together again and the device deals it again from
        that round with fresh codes (an action of the walk;
        docs/exact-mode.md, *Mended in place* (d))."""
        r = self.routine
        assert self.device is not None and isinstance(r, routines.GuidedExactRoutine)
        load = self.pass_.load if self.pass_ is not None else r.load
        try:
            held = self.device.exact_repair(parent=True)
        except LinkError as exc:
            raise self.not_done(DEAL_STACK_AGAIN, exc, load) from None
        r.awaiting_repair += 1  # its exact_repair event is this one, said here
        r.device_next = held.next
        stack, lying, cards, piles = r.parent_stack(parent, load)
        notice = notices.StackDealtAgain(self.place, load, want, n, stack, lying, parent, r.parent_passes(parent),
                                         r.parent_seconds(parent), r.route.passes())
        self.tell(notice)
        self.ledger.add(self.place, notice, proof.REPAIRED, proof.StackAgain(stack, parent, notice.passes))
        r.repair_parent(parent)
        self.pass_ = None  # its pass was never dealt
        self.todo.clear()
        self.todo.extend([steps.Unload(load), steps.Stack(lying, stack, cards, piles)])
        self.todo.extend(r.after_pass())
        return None

    def device_forgot(self, st: Reply) -> bool:
        r = self.routine
        return (isinstance(r, routines.GuidedExactRoutine) and r.lost is None and not r.finished
                and st.mode != protocol.MODE_EXACT)

    def wait_for_the_device(self, load: str) -> Phase:
        """After an exact pass: the device's word on its routine, awaited
        (or already here)."""
        assert self.device is not None and self.place is not None
        waiting = AfterPass(dealt=(self.place.round, load), until=self.clock() + self.device.wait_s(AFTER_PASS_S))
        return self.after_pass_check(waiting)

    def after_pass_check(self, waiting: AfterPass) -> Phase:
        """Go on once the device has said which load it expects next (or
        that its routine is done, or lost)."""
        r = self.routine
        assert isinstance(r, routines.GuidedExactRoutine)
        nxt = r.device_next
        fresh = nxt is not None and ((nxt.round, nxt.load) != waiting.dealt or r.next_is_repair)
        if fresh or r.finished or r.lost is not None:
            r.next_is_repair = False
            self.go_on_after()
            return Handling()
        return waiting

    def after_loss(self, missing: int = 0, load: str | None = None) -> None:
        """Every card into one pack, in any order (with any a load was found
        short of), then a fresh routine."""
        self.todo.clear()
        self.todo.extend([steps.Collect(self.plan.cards, missing, load if missing else None),
                          Do(self.start_fresh, "start_fresh")])

    def start_fresh(self) -> None:
        assert self.routine is not None
        self.earlier.append(self.routine)
        if self.options.on_loss == "exact":
            self.routine = self.exact_routine()
            self.ledger.then(proof.FreshRoutine(self.routine.rounds))
            self.tell(notices.FreshExactRun(self.routine.rounds, self.routine.of_passes))
            self.todo.extend(item for item in self.routine.begin() if not isinstance(item, notices.ExactIntro))
            return
        rest = make_plan(self.plan.pack, self.plan.capacity, self.plan.quality)
        self.routine = routines.RandomRoutine(rest, counted=True, seconds_per_round=self.seconds_per_round())
        self.ledger.then(proof.RandomFinish(rest.rounds))
        self.tell(notices.FinishAtRandom(rest.rounds, rest.distance, rest.quality.name, rest.quality.threshold))
        self.todo.extend(self.routine.begin())
