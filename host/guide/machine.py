"""The guided shuffle as one state machine driven by facts.

What the guide believes (where the routine stands, what each load and pile
holds) changes only from facts: the device's events and replies, the tray's
count, the person's answers, the clock. One loop (`Machine.run`) gathers
them and hands each to the handler the table names for the machine's phase
and the fact's kind (host/guide/table.py); the routine
(host/guide/routines.py) is the policy it consults for what comes next.
Every fact is taken in every phase: a load put in the tray, or a pass begun,
while a table step is on screen completes that step; a touch out of turn is
a transition, never an error.

The handlers are grouped by what they follow: the person's work
(host/guide/waiting.py), the pass (dealing.py), exact mode's routine
(exact_events.py). Here: the loop, the steps, the pass's bookkeeping.
"""
from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass
from typing import Callable, Union

from firmware import protocol
from host import device_words
from host import person as persons
from host.guide import notices
from host.guide import routines
from host.guide.dealing import DealingHandlers
from host.guide.device import Device, Stop
from host.guide.ending import Ending
from host.guide.exact_events import ExactHandlers
from host.guide.results import GuideStopped, Summary
from host.guide.table import ONWARD, Answer, Closed, Do, Fact, Noise, Phase, Settled, Tick, on, transition
from host.guide.voice import DONE, READY, Shown, Voice
from host.guide.waiting import WaitingHandlers
from host.device_link import LinkClosed, ProtocolFault
from host.plan import Plan
from shuffling import steps

# Seconds. The machine's waits are short; the person's have no limit unless one is given.
STALL_S = 8.0  # no event while dealing: ask the device how it is doing
RECONNECT_S = 60.0  # how long an unplugged device may take to come back
SETTLE_S = 1.0  # a tray count unchanged this long is the load as it is
READ_S = 1.0  # a step must be on screen this long before an answer counts for it
POLL_S = 0.25


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
    fruitless: int = 0  # parts in a row that ended before their first card
    restarts: int = 0
    reconnects: int = 0
    recounts: int = 0
    off_said: bool = False  # a count off the plan was said once

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


Item = Union[steps.Step, notices.Notice, routines.RoundMark, Do]
Routine = Union[routines.RandomRoutine, routines.ExactRoutine]


class Machine(WaitingHandlers, DealingHandlers, ExactHandlers, Ending):
    def __init__(self, plan: Plan, person: persons.Person, voice: Voice, device: Device | None, mode: str = "random",
                 from_round: int = 1, resume: bool = False, on_loss: str = "exact",
                 person_wait_s: float | None = None, reconnect_s: float = RECONNECT_S, stall_s: float = STALL_S,
                 settle_s: float = SETTLE_S, read_s: float = READ_S,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.plan, self.person, self.voice, self.device = plan, person, voice, device
        self.mode, self.from_round, self.resume, self.on_loss = mode, from_round, resume, on_loss
        self.person_wait_s, self.reconnect_s, self.stall_s, self.settle_s = person_wait_s, reconnect_s, stall_s, settle_s
        # An answer that comes before a step could be read is not the
        # person's answer to it: only for someone who reads the steps.
        self.read_s = read_s if getattr(person, "reads", False) else 0.0
        self.clock = clock
        self.phase = Phase.HANDLING
        self.todo: deque[Item] = deque()
        self.shown: Shown | None = None
        self.step_number = 0
        self.routine: Routine | None = None
        self.earlier: list[Routine] = []  # routines given up (exactness lost) before this one
        self.pass_: Pass | None = None
        self.place: notices.Where | None = None
        self.notes: list[str] = []
        self.started = clock()
        self.summary: Summary | None = None
        self.last_tick = 0.0
        self.pending: deque[Fact] = deque()  # facts read, in the order they came
        self.holding = False  # an action waits for the events before it: the steps wait too
        self.step_round: int | None = None  # the round the steps shown now belong to
        self.simulated = False  # the device is a simulated one, faster than real time
        self.init_waiting()
        self.init_dealing()
        self.init_exact()

    # -- the loop --------------------------------------------------------------------------
    def run(self) -> Summary:
        """Walk the routine to its end (its summary) or a stop (GuideStopped)."""
        try:
            self.guarded(self.begin)
            while self.phase not in (Phase.STOPPED, Phase.FINISHED):
                self.guarded(lambda: self.handle(self.next_fact()))
        finally:
            self.voice.bar_end()
        assert self.summary is not None
        return self.summary

    def next_fact(self) -> Fact:
        """The clock a few times a second whatever else comes; else the
        person's answers, after the device's events that came before them;
        else the device's next event."""
        if self.pending:
            return self.pending.popleft()
        now = self.clock()
        if now - self.last_tick >= POLL_S:
            self.last_tick = now
            return Tick()
        said = [Answer(a.number, a.via) for a in self.person.answers()]
        if said:
            older = self.device.waiting() if self.device is not None else 0
            self.pending.extend(self.device_fact(0.0) for _ in range(older))
            self.pending.extend(said)
            return self.pending.popleft()
        if self.device is None:
            time.sleep(POLL_S / 5)
            return Tick()
        return self.device_fact(POLL_S / 5)

    def after_events(self, then: str) -> None:
        """Look at the device's events that came before a count, then do
        `then` (unless one of them moved the machine on)."""
        older = self.device.waiting() if self.device is not None else 0
        self.pending.extend(self.device_fact(0.0) for _ in range(older))
        self.pending.append(Settled(then))
        self.holding = True

    @on("settled", Phase.HANDLING, goes=ONWARD)
    def settled_events(self, fact: Settled) -> None:
        getattr(self, fact.then)()
        self.advance()

    def device_fact(self, timeout: float) -> Fact:
        assert self.device is not None
        try:
            got = self.device.next_event(timeout)
        except LinkClosed as exc:
            return Closed(str(exc))
        if got == "garbage":
            return Noise()
        return Tick() if got is None else got

    @property
    def resumable(self) -> bool:
        """Whether the device still holds the exact routine in hand, so that
        `--resume` goes on with it where the cards lie."""
        return (self.routine is not None and self.routine.exact and self.device is not None and self.lost is None
                and not self.exact_finished)

    def handle(self, fact: Fact) -> None:
        self.guarded(getattr(self, transition(self.phase, fact.kind).handler), fact)

    def guarded(self, fn: Callable[..., None], *args: Fact) -> None:
        """A device that cannot be worked with, or a person who cannot go
        on, stops the guide in one line."""
        try:
            fn(*args)
        except (Stop, ProtocolFault, persons.PersonGaveUp) as exc:
            raise self.stop(str(exc)) from None

    def ignore(self, fact: Fact) -> None:
        """What a phase has no use for."""

    # -- telling ------------------------------------------------------------------------------
    def tell(self, notice: notices.Notice) -> None:
        self.voice.notice(notice)
        if isinstance(notice, notices.RoundCountOff):
            self.note(notices.words(notice))  # the summary keeps it: the hand is short of cards (or over)

    def note(self, text: str) -> None:
        self.notes.append(text)

    def stop(self, message: str) -> GuideStopped:
        self.phase = Phase.STOPPED
        self.voice.bar_end()
        return GuideStopped(message, self.place)

    def protocol_fault(self, what: str) -> GuideStopped:
        name = self.device.name if self.device else "the shuffler"
        return self.stop(f"{name} broke the protocol: {what}")

    # -- beginning ----------------------------------------------------------------------------
    def begin(self) -> None:
        if self.device is not None:
            self.prepare_device()
        if self.routine is None:
            self.routine = routines.RandomRoutine(self.plan, counted=self.device is not None, from_round=self.from_round,
                                           seconds_per_round=self.seconds_per_round())
        self.todo.extend(self.routine.begin())
        self.advance()

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
        if self.mode == "exact":
            self.routine = self.resumed_routine(st) if self.resume else self.exact_routine()

    # -- walking the steps ----------------------------------------------------------------------
    def advance(self) -> None:
        """Show the next steps until one waits for something."""
        while self.phase not in (Phase.STOPPED, Phase.FINISHED, Phase.DEALING, Phase.AFTER_PASS):
            if not self.todo:
                self.finish()
                return
            item = self.todo.popleft()
            if isinstance(item, Do):
                getattr(self, item.name)()
                if self.holding:
                    self.holding = False
                    return
            elif isinstance(item, steps.STEP_TYPES):
                if self.show(item):
                    return
            elif isinstance(item, routines.RoundMark):
                self.step_round = item.round
            else:
                self.tell(item)

    def show(self, step: steps.Step) -> bool:
        """Show a step (and have a scripted person do it); True when the
        machine now waits for something."""
        phase, answer = self.phase_for(step)
        if isinstance(step, steps.PutInTray):
            self.start_or_continue_pass(step)
        self.step_number += 1
        rnd = self.step_round
        self.shown = Shown(step, self.step_number, rnd, answer, self.clock())
        if phase is not None:
            self.phase = phase
            self.on_shown(step)
        if self.device is None and isinstance(step, steps.Touch):
            self.todo.appendleft(Do("pass_finished"))  # nothing follows the pass: its answer ends it
        # The person first (a console person throws away keys typed before
        # the step appears, and answers from now on name this step), then
        # the words.
        self.person.do(step, self.step_number, rnd)
        self.voice.step(self.shown)
        return phase is not None

    def phase_for(self, step: steps.Step) -> tuple[Phase | None, str | None]:
        if not steps.asks_action(step):
            return None, None
        if self.device is None:
            return Phase.HANDLING, DONE
        paused = self.pass_ is not None and self.pass_.part_n is not None
        if isinstance(step, steps.PutInTray):
            return Phase.LOADING, READY
        if isinstance(step, steps.Touch):
            return (Phase.PAUSED if paused else Phase.TOUCH), None
        return (Phase.PAUSED if paused else Phase.HANDLING), DONE

    def answered(self, fact: Answer) -> bool:
        """Whether an answer counts for the step on screen: it names that
        step, and the step has been on screen long enough to read."""
        shown = self.shown
        if shown is None or fact.number != shown.number or shown.answer is None:
            return False
        if self.clock() - shown.at < self.read_s:
            if self.too_soon_said != shown.number:
                self.too_soon_said = shown.number
                self.tell(notices.TooSoon(shown.number, fact.via))
            return False
        return True

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

    def pass_finished(self) -> None:
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
        self.phase = Phase.HANDLING
        if self.routine.exact and self.device is not None and self.lost is None:
            self.wait_for_the_device(result.load)
            return
        self.go_on_after()

    def go_on_after(self) -> None:
        assert self.routine is not None
        if self.lost is not None:
            self.after_loss()
        else:
            self.todo.extend(self.routine.after_pass())
