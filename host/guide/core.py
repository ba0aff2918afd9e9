"""What the guide's state machine keeps and the services its handlers share.

What the guide believes (where the routine stands, what each load and pile
holds) changes only from facts: the device's events and replies, the
tray's count, the person's answers, the clock. The machine's phase (a
record of host/guide/table.py) is what it is doing now; the handlers
(host/guide/waiting.py, dealing.py, exact_events.py) each take a fact and
return the next phase, and the walk through the queue of steps
(`advance`) returns the phase the step it shows waits in. Here: the queue
and its walk, telling, the pass's bookkeeping, the tray's count, and exact
mode's routine as the machine runs it (its beginning, its loss, a fresh
one after it). The loop itself is host/guide/machine.py.
"""
from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass
from typing import Any, Callable, Union

from firmware import protocol
from host import device_messages
from host import device_words
from host import person as persons
from host.device_link import LinkClosed, LinkError, ProtocolFault
from host.device_messages import Event, Reply
from host.guide import ending
from host.guide import faults
from host.guide import ledger as proof
from host.guide import notices
from host.guide import routines
from host.guide.device import Stop
from host.guide.device_side import ShufflerSide
from host.guide.results import GuideStopped, Summary
from host.guide.table import (HOLD, WALKING, AfterPass, AwaitingTouch, Closed, Dealing, Do, Fact, Finished, Handling,
                              Loading, Noise, Paused, Phase, Settled, Stopped, Tick, transition)
from host.guide.voice import DONE, READY, Shown, Voice
from host.plan import Plan, make_plan
from shuffling import steps

# Seconds. The machine's waits are short; the person's have no limit unless one is given.
STALL_S = 8.0  # no event while dealing: ask the device how it is doing
RECONNECT_S = 60.0  # how long an unplugged device may take to come back
SETTLE_S = 1.0  # a tray count unchanged this long is the load as it is
READ_S = 1.0  # a step must be on screen this long before an answer counts for it
POLL_S = 0.25  # the clock's fact comes this often
AFTER_PASS_S = 3.0  # the device's exact events follow its done event at once
STALE = -1  # a count read while events older than it still wait: they come first
MAX_RESTARTS_PER_PASS = 3  # more hellos than this in one pass is a device at fault
MAX_RECONNECTS_PER_PASS = 5
MAX_FRUITLESS_PARTS = 3  # parts of one pass in a row that stop before their first card


@dataclass
class Pass:
    """What the machine keeps of the pass in hand."""

    load: str
    want: int  # the load's planned size
    size: int | None = None  # cards the pass deals in all (the device's count at its start, plus any kept aside)
    dealt: int = 0  # over the finished parts
    left: int | None = 0
    right: int | None = 0
    parts: int = 0
    part_n: int | None = None  # cards in the part being dealt now
    k: int = 0  # cards of that part through so far
    k_left: int | None = 0
    k_right: int | None = 0
    aside: int = 0  # cards lifted off an over-full load, dealt last
    aside_coming: bool = False  # the part begun next is those cards (they come in, nothing came back)
    fruitless: int = 0  # parts in a row that ended before their first card
    restarts: int = 0
    reconnects: int = 0
    recounts: int = 0
    off_said: bool = False  # a count off the plan was said once
    counted: int | None = None  # the tray's count the load was last judged by

    @property
    def through(self) -> int:
        return self.dealt + (self.k if self.part_n is not None else 0)

    @property
    def total(self) -> int:
        return self.size if self.size is not None else self.want

    def piles(self) -> tuple[int | None, int | None]:
        def add(a: int | None, b: int | None) -> int | None:
            return None if a is None or b is None else a + b
        if self.part_n is None:
            return self.left, self.right
        return add(self.left, self.k_left), add(self.right, self.k_right)


@dataclass
class TrayWatch:
    """The tray as the machine last read it: the count, since when it has
    held, and whether it has read empty since cards were last to come out
    of it (cards still in it are not a new load until it has been empty)."""

    n: int | None = None
    since: float = 0.0
    saw_empty: bool = False

    def settled(self, n: int, now: float, settle_s: float) -> bool:
        """The count n has held still for settle_s."""
        if n != self.n:
            self.n, self.since = n, now
        return now - self.since >= settle_s


Item = Union[steps.Step, notices.Notice, routines.RoundMark, Do]
Routine = Union[routines.RandomRoutine, routines.ExactRoutine]


class Core:
    def __init__(self, plan: Plan, person: persons.Person, voice: Voice, device: ShufflerSide | None, mode: str = "random",
                 from_round: int = 1, resume: bool = False, on_loss: str = "exact",
                 person_wait_s: float | None = None, reconnect_s: float = RECONNECT_S, stall_s: float = STALL_S,
                 settle_s: float = SETTLE_S, read_s: float = READ_S, simulated: bool = False,
                 resume_hint: str | None = None, routine: str | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.plan, self.person, self.voice, self.device = plan, person, voice, device
        self.mode, self.from_round, self.resume, self.on_loss = mode, from_round, resume, on_loss
        self.person_wait_s, self.reconnect_s, self.stall_s, self.settle_s = person_wait_s, reconnect_s, stall_s, settle_s
        # An answer that comes before a step could be read is not the
        # person's answer to it: only for someone who reads the steps.
        self.read_s = read_s if getattr(person, "reads", False) else 0.0
        self.simulated = simulated  # the device is a simulated one, faster than real time
        self.resume_hint = resume_hint  # the command that goes on with a routine the device holds
        self.routine_kind = routine  # exact mode's routine asked for (None: the device's choice)
        self.clock = clock
        self.phase: Phase = Handling()
        self.todo: deque[Item] = deque()
        self.pending: deque[Fact] = deque()  # facts read, or learned another way, in the order they came
        self.shown: Shown | None = None
        self.step_number = 0
        self.step_round: int | None = None  # the round the steps shown now belong to
        self.routine: Routine | None = None
        self.earlier: list[Routine] = []  # routines given up (exactness lost) before this one
        self.pass_: Pass | None = None
        self.place: notices.Where | None = None
        self.notes: list[str] = []
        self.started = clock()
        self.last_tick = 0.0
        self.last_line = clock()  # the last line to the device (it is kept awake)
        self.tray = TrayWatch(since=clock())
        self.said: set[tuple[type, int]] = set()  # notices said once per step (their ONCE), and for which
        self.ledger = proof.Ledger()  # exact mode's proof: what became of it, where
        self.bar = False  # the live pass is shown
        self.own_start_refused = 0  # the guide's own starts refused (an empty tray): their fault events are not touches
        self.pack_asked = False  # the person was asked once about a pack off its count (host/guide/pack.py)
        self.foreign = 0  # cards of another pack looked for, until a count shows them gone

    @property
    def summary(self) -> Summary | None:
        return self.phase.summary if isinstance(self.phase, Finished) else None

    # -- telling ------------------------------------------------------------------------------
    def tell(self, notice: notices.Notice) -> None:
        """Say a notice; one its kind says only once a step (notices.ONCE)
        is said once for the step on screen."""
        if type(notice) in notices.ONCE:
            key = (type(notice), self.shown.number if self.shown is not None else 0)
            if key in self.said:
                return
            self.said.add(key)
        self.voice.notice(notice)
        if isinstance(notice, notices.RoundCountOff):
            self.note(notices.words(notice))  # the summary keeps it: the hand is short of cards (or over)

    def note(self, text: str) -> None:
        self.notes.append(text)

    def stop(self, message: str) -> GuideStopped:
        """The guide cannot go on: the exception that ends it (raise it)."""
        self.phase = Stopped(message)
        self.voice.bar_end()
        return GuideStopped(message, self.place)

    def protocol_fault(self, what: str) -> GuideStopped:
        name = self.device.name if self.device else "the shuffler"
        return self.stop(f"{name} broke the protocol: {what}")

    def guarded(self, fn: Callable[..., Any], *args: Any) -> Any:
        """A device that cannot be worked with, or a person who cannot go
        on, stops the guide in one line."""
        try:
            return fn(*args)
        except (Stop, ProtocolFault, persons.PersonGaveUp) as exc:
            raise self.stop(str(exc)) from None

    # -- facts ------------------------------------------------------------------------------
    def handle(self, fact: Fact) -> Phase:
        """Hand a fact to the handler the table names for the phase; the
        phase it returns is the machine's."""
        t = transition(self.phase, fact.kind)
        self.phase = self.guarded(t.handler, self, fact)
        return self.phase

    def learned(self, ev: Event) -> None:
        """A fact the machine learned another way (a status that shows a pass
        paused is a jam): handled next, before anything the device sends."""
        self.pending.appendleft(ev)

    def device_fact(self, timeout: float) -> Fact:
        assert self.device is not None
        try:
            got = self.device.next_event(timeout)
        except LinkClosed as exc:
            return Closed(str(exc))
        if got == "garbage":
            return Noise()
        return Tick() if got is None else got

    def after_events(self, then: Callable[[], Any]) -> Any:
        """Look at the device's events that came before a count, then do
        `then` (unless one of them moved the machine on): HOLD, for the walk."""
        older = self.device.waiting() if self.device is not None else 0
        self.pending.extend(self.device_fact(0.0) for _ in range(older))
        self.pending.append(Settled(then))
        return HOLD

    # -- walking the steps ----------------------------------------------------------------------
    def advance(self, phase: Phase | None = None) -> Phase:
        """Show the next steps until one waits for something: the phase it
        waits in (or the one an action leads to). `phase`: the phase the walk
        begins in (the machine's, unless a handler has just left it)."""
        self.phase = phase if phase is not None else self.phase
        while isinstance(self.phase, WALKING):
            if not self.todo:
                self.phase = self.finish()
                break
            item = self.todo.popleft()
            if isinstance(item, Do):
                got = item.action()
                if got is HOLD:
                    break
                if got is not None:
                    self.phase = got
            elif isinstance(item, steps.STEP_TYPES):
                waits = self.show(item)
                if waits is not None:
                    self.phase = waits
                    break
            elif isinstance(item, routines.RoundMark):
                self.step_round = item.round
            else:
                self.tell(item)
        return self.phase

    def show(self, step: steps.Step) -> Phase | None:
        """Show a step (and have a scripted person do it); the phase it waits
        in, or None for a step that waits for nothing."""
        phase, answer = self.phase_for(step)
        if isinstance(step, steps.PutInTray):
            self.start_or_continue_pass(step)
        self.step_number += 1
        self.shown = Shown(step, self.step_number, self.step_round, answer, self.clock())
        if phase is not None:
            self.tray.n, self.tray.since = None, self.clock()
            if isinstance(step, (steps.Unload, steps.SetAside)):
                self.tray.saw_empty = False  # the cards now in the tray are not a new load until it has been empty
        if self.device is None and isinstance(step, steps.Touch):
            self.todo.appendleft(Do(self.pass_finished, "pass_finished"))  # nothing follows the pass: its answer ends it
        # The person first (a console person throws away keys typed before
        # the step appears, and answers from now on name this step), then
        # the words.
        self.person.do(step, self.step_number, self.step_round)
        self.voice.step(self.shown)
        return phase

    def phase_for(self, step: steps.Step) -> tuple[Phase | None, str | None]:
        if not steps.asks_action(step):
            return None, None
        if self.device is None:
            return Handling(), DONE
        paused = self.pass_ is not None and self.pass_.part_n is not None
        if isinstance(step, steps.PutInTray):
            return Loading(), READY
        if isinstance(step, steps.Touch):
            return (Paused() if paused else AwaitingTouch()), None
        return (Paused() if paused else Handling()), DONE

    def answered(self, number: int, via: str) -> bool:
        """Whether an answer counts for the step on screen: it names that
        step, and the step has been on screen long enough to read."""
        shown = self.shown
        if shown is None or number != shown.number or shown.answer is None:
            return False
        if self.clock() - shown.at < self.read_s:
            self.tell(notices.TooSoon(shown.number, via))
            return False
        return True

    def load_ahead(self) -> int | None:
        """Where the next load's step stands in the queue, when only table
        steps and notices come before it."""
        for i, item in enumerate(self.todo):
            if isinstance(item, steps.PutInTray):
                return None if item.rest or item.load == steps.ASIDE else i
            if isinstance(item, steps.Touch) or not isinstance(item, (steps.STEP_TYPES, notices.NOTICE_TYPES,
                                                                        routines.RoundMark)):
                return None
        return None

    def skip_to(self, index: int) -> int:
        """Drop the table steps before todo[index] (telling its notices);
        how many steps were taken as done, the one on screen included."""
        skipped = 1 if self.shown is not None and self.shown.answer is not None else 0
        for _ in range(index):
            item = self.todo.popleft()
            if isinstance(item, notices.NOTICE_TYPES):
                self.tell(item)
            elif isinstance(item, routines.RoundMark):
                self.step_round = item.round
            elif steps.asks_action(item):
                skipped += 1
        return skipped

    def drop_to_touch(self) -> None:
        """The pass has begun: the steps up to its touch are done."""
        while self.todo:
            item = self.todo.popleft()
            if isinstance(item, steps.Touch):
                return
            if isinstance(item, notices.NOTICE_TYPES):
                self.tell(item)
            elif isinstance(item, routines.RoundMark):
                self.step_round = item.round

    # -- the device -------------------------------------------------------------------------------
    def count(self) -> int | None:
        """The tray's count (None: the device cannot count now; STALE: events
        that came before it are still to be looked at). The port going away
        is handled here (the machine's phase then says where it went)."""
        assert self.device is not None
        if self.device.events_waiting():
            return STALE
        try:
            n = self.device.count()
        except LinkClosed as exc:
            self.handle(Closed(str(exc)))
            return None
        self.last_line = self.clock()
        if self.device.events_waiting():
            return STALE
        if n is not None and n > self.plan.cards:
            raise self.stop(f"{self.device.name} counts {n} cards in the tray, more than the whole pack "
                            f"({self.plan.cards}): its count sensor needs calibrating")
        return n

    def clear(self) -> None:
        if self.device is not None and not self.device.clear():
            self.tell(notices.ClearUnanswered())

    def keep_awake(self) -> None:
        """A line to the device now and then keeps it out of light sleep."""
        assert self.device is not None
        self.last_line = self.clock()
        try:
            self.device.keep_awake()
        except LinkClosed as exc:
            self.handle(Closed(str(exc)))

    # -- the pass's bookkeeping ------------------------------------------------------------------
    def start_or_continue_pass(self, step: steps.PutInTray) -> None:
        if step.load == steps.ASIDE or step.rest or step.again:
            if self.pass_ is not None and step.again and step.cards is not None:
                self.pass_.want = step.cards
            return
        assert self.routine is not None
        self.pass_ = Pass(step.load, int(step.cards or 0))
        r, load, number = self.routine.place()
        self.place = notices.Where(r, self.routine.rounds, load, number, self.routine.of_passes)

    def begin_part(self, ev: Event) -> Dealing:
        """A part of the pass begins (its loaded event): the phase that deals it."""
        p = self.pass_
        assert p is not None
        n = ev.n or 0
        if p.size is None:
            p.size = n + p.dealt
            if p.dealt == 0:
                self.check_loaded(n)
        elif n > p.total - p.aside - p.dealt:
            if n <= p.total - p.aside and not p.aside_coming:
                # Cards counted out came back (a card caught in the exit, put
                # back under the tray's cards): fewer went through than counted.
                p.dealt = p.total - p.aside - n
                p.left = p.right = None
            else:
                p.size = p.dealt + n + p.aside  # cards came in (those set aside): the device's count is the fact
        elif n < p.total - p.aside - p.dealt:
            p.dealt = p.total - p.aside - n  # more went through than counted: the tray's count is the fact
            p.left = p.right = None
        p.part_n, p.k, p.k_left, p.k_right = n, 0, 0, 0
        p.aside_coming = False
        r = self.routine
        if p.parts and isinstance(r, routines.ExactRoutine) and r.lost is None and not r.rewound:
            # The device took the rest up by its codes (it says so by losing nothing).
            self.ledger.add(self.place, f"the pass stopped after {p.dealt} of {p.total} cards", proof.KEPT,
                            "the rest was dealt on from the tray's count, which shows the shuffler where each card "
                            "of it belongs")
        now = self.clock()
        self.voice.bar_start(f"load {p.load}", p.total, p.dealt, p.left, p.right)
        self.bar = True
        return Dealing(quiet_since=now, moved_at=now)

    def check_loaded(self, n: int) -> None:
        """The count the pass began with, when it differs from the plan's (a
        touch before the guide judged the load)."""
        p = self.pass_
        assert p is not None and self.routine is not None
        if n == p.want or p.off_said or self.routine.exact:
            return  # exact mode: the device judges the count itself (exact_lost when it is wrong)
        p.off_said = True
        nxt = self.routine.next_load(p.load)
        if nxt is not None:
            self.tell(notices.LoadKept(p.load, p.want, n, nxt, began=True))
        else:
            self.tell(notices.PassBeganOffSize(p.load, p.want, n))

    def end_part(self, k: int, k_left: int | None, k_right: int | None) -> None:
        """A part of the pass is over: add what it dealt. Parts that end
        before their first card, again and again, are a machine at fault."""
        p = self.pass_
        assert p is not None
        self.end_bar()
        p.fruitless = 0 if k > 0 else p.fruitless + 1
        if p.fruitless >= MAX_FRUITLESS_PARTS:
            raise self.stop(f"the pass stopped {p.fruitless} times in a row before its first card went through: "
                            "the shuffler needs looking at (its last fault is above)")
        p.dealt += k
        p.left = None if p.left is None or k_left is None else p.left + k_left
        p.right = None if p.right is None or k_right is None else p.right + k_right
        p.parts += 1
        p.part_n, p.k = None, 0

    def end_bar(self) -> None:
        if self.bar:
            self.voice.bar_end()
            self.bar = False

    def pass_finished(self) -> Phase:
        """The pass is over: the routine says what comes next (in exact mode
        once the device has said where its routine stands)."""
        assert self.routine is not None and self.pass_ is not None
        p = self.pass_
        result = (routines.PassResult(p.load, p.want, None, None, 1) if self.device is None
                  else routines.PassResult(p.load, p.dealt, p.left, p.right, p.parts))
        self.voice.bar_end()
        self.pass_ = None
        self.routine.record(result)
        if self.place is not None:
            self.place = notices.Where(self.place.round, self.place.of_rounds, self.place.load, self.place.pass_number,
                                       self.place.of_passes, after=True)
        if isinstance(self.routine, routines.ExactRoutine) and self.device is not None and self.routine.lost is None:
            return self.wait_for_the_device(result.load)
        self.go_on_after()
        return Handling()

    def go_on_after(self) -> None:
        assert self.routine is not None
        if isinstance(self.routine, routines.ExactRoutine) and self.routine.lost is not None:
            self.after_loss()
        else:
            self.todo.extend(self.routine.after_pass())

    # -- beginning and ending --------------------------------------------------------------------
    def begin(self) -> Phase:
        """The device prepared, the routine chosen, the first steps shown."""
        if self.device is not None:
            self.prepare_device()
        if self.routine is None:
            self.routine = routines.RandomRoutine(self.plan, counted=self.device is not None, from_round=self.from_round,
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
        takes_it_up = self.resume and st.mode == protocol.MODE_EXACT and st.state == protocol.ST_PAUSED
        if st.state in (protocol.ST_ALARM, protocol.ST_PAUSED) and not takes_it_up:
            self.tell(notices.FaultLeftOver(device_words.fault_name(st.fault) if st.fault else st.state))
            if not dev.clear():
                self.tell(notices.ClearUnanswered())
        if self.mode == "random" and st.mode == protocol.MODE_EXACT:
            # An exact routine left over (a run stopped part way): its codes would deal these passes.
            try:
                dev.exact_cancel()
            except Exception as exc:  # a refusal or no answer: the stop says which
                raise self.stop(f"the shuffler could not leave the exact routine it was in: {exc}") from None
        if self.mode == "exact" and not self.resume and st.mode == protocol.MODE_EXACT:
            self.drop_held(st)
        if self.mode == "exact":
            self.routine = self.resumed_routine(st) if self.resume else self.exact_routine()

    def drop_held(self, st: Reply) -> None:
        """The shuffler holds an exact routine from an earlier run: this run
        begins a fresh one, and says so first (with how to go on with the
        held one instead); its cards on the table go back into the pack."""
        assert self.device is not None
        held = self.device.exact_held()
        nxt = st.next
        self.tell(notices.HeldRoutineDropped(nxt.round if nxt else None, held.rounds if held else None,
                                             nxt.load if nxt else None, self.resume_hint))
        self.todo.append(steps.Collect(self.plan.cards))

    def finish(self) -> Finished:
        """The last step is done: the summary."""
        routine = self.routine
        assert routine is not None
        if isinstance(routine, routines.ExactRoutine) and self.device is not None and not routine.finished:
            self.tell(notices.ExactNotConfirmed())
            self.note("the shuffler did not confirm the end of exact mode")
        summary = ending.summary(routine, self.earlier, self.plan, self.clock() - self.started, self.notes,
                                 self.ledger if self.mode == "exact" else None)
        summary.simulated = self.simulated
        summary.resumed = self.resume
        return Finished(summary)

    @property
    def resumable(self) -> bool:
        """Whether the device still holds the exact routine in hand, so that
        `--resume` goes on with it where the cards lie."""
        r = self.routine
        return (isinstance(r, routines.ExactRoutine) and self.device is not None and r.lost is None
                and not r.finished)

    # -- exact mode's routine --------------------------------------------------------------------
    def exact_routine(self) -> routines.ExactRoutine:
        dev = self.device
        assert dev is not None
        try:
            begun = dev.exact_begin(self.plan.cards, self.routine_kind)
        except ProtocolFault:
            raise
        except LinkError as exc:
            raise self.stop(f"the shuffler cannot run exact mode for {self.plan.cards} cards: {exc}") from None
        if self.routine_kind is not None and begun.kind != self.routine_kind:
            raise self.protocol_fault(f"asked for the {self.routine_kind} routine, it began {begun.kind}")
        try:
            return routines.ExactRoutine(self.plan.cards, dev.capacity or self.plan.capacity, begun)
        except ValueError as exc:  # a routine this guide would word otherwise (another firmware's plan)
            raise self.stop(f"the shuffler's exact routine does not fit this pack: {exc}") from None

    def resumed_routine(self, st: Reply) -> routines.ExactRoutine:
        """The routine the device holds, from the load it expects next."""
        dev = self.device
        assert dev is not None
        held = dev.exact_held() if st.mode == protocol.MODE_EXACT else None
        if held is None or st.next is None:
            raise self.stop("the shuffler holds no exact routine to go on with (it restarted without it, or "
                            "exactness was lost)")
        if held.n != self.plan.cards:
            raise self.stop(f"the shuffler's exact routine is for {held.n} cards, not the {self.plan.cards} given")
        if self.routine_kind is not None and held.kind != self.routine_kind:
            raise self.stop(f"the shuffler holds the {held.kind} routine, not the {self.routine_kind} asked for: "
                            "leave out --routine to go on with it")
        try:
            routine = routines.ExactRoutine(self.plan.cards, dev.capacity or self.plan.capacity, held,
                                            resume_at=st.next)
        except ValueError as exc:
            raise self.stop(f"the shuffler's exact routine does not fit this pack: {exc}") from None
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
        if not isinstance(r, routines.ExactRoutine) or r.lost is not None:
            return self.phase
        r.lost = reason
        notice = notices.ExactLost(self.place, reason, load, n, expected)
        self.tell(notice)
        self.ledger.add(self.place, notices.words(notice).split(": ", 1)[-1].rstrip("."), proof.LOST)
        if self.pass_ is None and (isinstance(self.phase, Handling) or not walk):
            short = expected - n if reason == "count" and n is not None and expected is not None else 0
            self.after_loss(max(0, short), load)
            return self.advance() if walk else self.phase
        return self.phase

    def after_device_restart(self) -> Phase:
        """The device started again: in exact mode, whether it kept its routine."""
        r = self.routine
        if not isinstance(r, routines.ExactRoutine) or r.lost is not None or r.finished:
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
        assert isinstance(r, routines.ExactRoutine)
        passes = r.part_passes(first)
        notice = notices.PartDealtAgain(self.place, part, reason, passes, r.part_seconds(first), after, want, n)
        self.tell(notice)
        why = notices.words(notice).split(": ", 1)[1].split(". Its cards", 1)[0]
        self.ledger.add(self.place, why, proof.REPAIRED,
                        f"load {part} was dealt again from fresh codes ({passes} passes)")
        r.repair(first, regather=regather)

    def request_repair(self, want: int, n: int, fix: list[steps.Step]) -> Phase | None:
        """Cards left the load in hand, a part of the split, and are put back
        by hand where nobody knows: the device deals the part again from
        fresh codes (an action of the walk); `fix`, the steps that put the
        cards back, come before the part's first load again."""
        assert self.device is not None and isinstance(self.routine, routines.ExactRoutine)
        load = self.pass_.load if self.pass_ is not None else self.routine.load
        try:
            held = self.device.exact_repair()
        except LinkError as exc:
            raise self.stop(f"the shuffler could not deal load {load} again: {exc}") from None
        self.routine.awaiting_repair += 1  # its exact_repair event is this one, said here
        self.routine.device_next = held.next
        self.repaired(load, held.next.round, notices.HAND, False, want, n, regather=False)
        self.pass_ = None  # its pass was never dealt
        self.todo.clear()
        self.todo.extend(fix)
        self.todo.extend(self.routine.after_pass())
        return None

    def device_forgot(self, st: Reply) -> bool:
        r = self.routine
        return (isinstance(r, routines.ExactRoutine) and r.lost is None and not r.finished
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
        assert isinstance(r, routines.ExactRoutine)
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
        if self.on_loss == "exact":
            self.routine = self.exact_routine()
            self.ledger.then(f"the whole pack went through a fresh exact routine ({self.routine.rounds} rounds)")
            self.tell(notices.FreshExactRun(self.routine.rounds, self.routine.of_passes))
            self.todo.extend(item for item in self.routine.begin() if not isinstance(item, notices.ExactIntro))
            return
        rest = make_plan(self.plan.pack, self.plan.capacity, self.plan.quality)
        self.routine = routines.RandomRoutine(rest, counted=True, seconds_per_round=self.seconds_per_round())
        self.ledger.then(f"random rounds finished the pack ({rest.rounds} rounds)")
        self.tell(notices.FinishAtRandom(rest.rounds, rest.distance, rest.quality.name, rest.quality.threshold))
        self.todo.extend(self.routine.begin())
