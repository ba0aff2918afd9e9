"""What the guide's state machine keeps and the services its handlers share.

What the guide believes (where the routine stands, what each load and pile
holds) changes only from facts: the device's events and replies, the
tray's count, the person's answers, the clock. The machine's phase (a
record of host/guide/handlers.py) is what it is doing now; the handlers
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
from typing import Any, Callable, Union

from host import person as persons
from host.device_link import DeviceError, LinkClosed, ProtocolFault
from host.device_messages import Event
from host.guide import ledger as proof
from host.guide import notices
from host.guide import routines
from host.guide import stop_words
from host.guide.device import Stop
from host.guide.device_side import ShufflerSide
from host.guide.stop_reasons import CannotDoStep, FruitlessParts, NotDone, Refused, TrayOverPack
from host.guide.options import GuideOptions
from host.guide.handlers import (HOLD, WALKING, AwaitingTouch, Closed, Dealing, Do, Fact, Finished, Handling,
                                 Loading, Noise, Paused, Phase, Settled, Stopped, Tick, transition)
from host.guide.pass_in_hand import Pass, TrayWatch
from host.guide.results import GuideStopped, Summary
from host.guide.run_keeping import RunKeeping
from host.guide.voice import DONE, READY, Shown, Voice
from host.plan import Plan
from shuffling import steps

# Seconds. The waits the options set are host/guide/options.py's.
POLL_S = 0.25  # the clock's fact comes this often
STALE = -1  # a count read while events older than it still wait: they come first
MAX_RESTARTS_PER_PASS = 3  # more hellos than this in one pass is a device at fault
MAX_RECONNECTS_PER_PASS = 5
MAX_FRUITLESS_PARTS = 3  # parts of one pass in a row that stop before their first card

Routine = Union[routines.RandomRoutine, routines.GuidedExactRoutine]
Item = Union[steps.Step, notices.Notice, routines.RoundMark, Do]


class Core(RunKeeping):
    def __init__(self, plan: Plan, person: persons.Person, voice: Voice, device: ShufflerSide | None,
                 options: GuideOptions = GuideOptions(), simulated: bool = False,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.plan, self.person, self.voice, self.device = plan, person, voice, device
        self.options = options  # what the guide was asked to do (host/guide/options.py)
        # An answer that comes before a step could be read is not the
        # person's answer to it: only for someone who reads the steps.
        self.read_s = options.read_s if getattr(person, "reads", False) else 0.0
        self.simulated = simulated  # the device is a simulated one, faster than real time
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
        self.notes: list[notices.Note] = []  # the summary's notes, as records
        self.started = clock()
        self.last_tick = 0.0
        self.last_line = clock()  # the last line to the device (it is kept awake)
        self.tray = TrayWatch(since=clock())
        self.said: set[tuple[type, int]] = set()  # notices said once per step (their ONCE), and for which
        self.ledger = proof.Ledger()  # exact mode's proof: what became of it, where
        self.bar = False  # the live pass is shown
        self.own_start_refused = 0  # the guide's own starts refused (an empty tray): their fault events are not touches
        # Routines this guide cancelled whose loss the device has not yet said:
        # the device answers a cancel, then says the loss, which may come after
        # a fresh routine has begun, and is no loss of that one.
        self.cancels_unheard = 0
        self.pack_asked = False  # the person was asked once about a pack off its count (host/guide/pack.py)
        self.foreign = 0  # cards of another pack looked for, until a count shows them gone

    @property
    def mode(self) -> str:
        """"exact" or "random": the routine's mode as asked."""
        return self.options.routine_mode

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
            self.note(notice)  # the summary keeps it: the hand is short of cards (or over)

    def note(self, record: notices.Note) -> None:
        """Keep a note for the summary: a record, worded when the summary is
        shown (notice_words.note_words); never a sentence made here."""
        if type(record) not in notices.NOTE_TYPES:
            raise TypeError(f"not a note: {record!r}")
        self.notes.append(record)

    def stop(self, why: Any, record: notices.Note | None = None) -> GuideStopped:
        """The guide cannot go on: the exception that ends it (raise it).
        `why`: its reason's record (host/guide/stop_reasons.py, or the port's),
        worded once (host/guide/stop_words.py), or its words alone; `record`:
        the fault of the device that stopped it, where there is one."""
        reason = None if isinstance(why, str) else why
        message = why if isinstance(why, str) else stop_words.words(why)
        self.phase = Stopped(message)
        self.voice.bar_end()
        return GuideStopped(message, self.place, record, reason)

    def stop_on(self, exc: Exception) -> GuideStopped:
        """The stop an exception that carries its reason (a Stop, a LinkError: `.record`) or its words calls for."""
        return self.stop(getattr(exc, "record", None) or str(exc))

    def not_done(self, what: str, exc: Exception, load: str | None = None) -> GuideStopped:
        """The stop of a request the shuffler did not do (stop_reasons.NotDone's
        `what`): why as the port's record, its refusal, or the fault's words."""
        cause = getattr(exc, "record", None)
        if cause is None:
            cause = Refused(exc.reply) if isinstance(exc, DeviceError) else str(exc)
        return self.stop(NotDone(what, cause, load))

    def protocol_fault(self, what: str) -> GuideStopped:
        name = self.device.name if self.device else "the shuffler"
        return self.stop(f"{name} broke the protocol: {what}")

    def guarded(self, fn: Callable[..., Any], *args: Any) -> Any:
        """A device that cannot be worked with, or a person who cannot go
        on, stops the guide in one line."""
        try:
            return fn(*args)
        except (Stop, ProtocolFault) as exc:
            raise self.stop_on(exc) from None
        except persons.PersonGaveUp as exc:
            raise self.stop(gave_up(exc)) from None

    # -- facts ------------------------------------------------------------------------------
    def handle(self, fact: Fact) -> Phase:
        """Hand a fact to the handler `HANDLERS` names for the phase; the
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
            raise self.stop(TrayOverPack(self.device.name, n, self.plan.cards))
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
        if p.parts and isinstance(r, routines.GuidedExactRoutine) and r.lost is None and not r.rewound:
            # The device took the rest up by its codes (it says so by losing nothing).
            self.ledger.add(self.place, proof.PassStopped(p.dealt, p.total), proof.KEPT, proof.DealtOnFromCount())
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
            raise self.stop(FruitlessParts(p.fruitless))
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
        if isinstance(self.routine, routines.GuidedExactRoutine) and self.device is not None and self.routine.lost is None:
            return self.wait_for_the_device(result.load)
        self.go_on_after()
        return Handling()

    def go_on_after(self) -> None:
        assert self.routine is not None
        if isinstance(self.routine, routines.GuidedExactRoutine) and self.routine.lost is not None:
            self.after_loss()
        else:
            self.todo.extend(self.routine.after_pass())


def gave_up(exc: persons.PersonGaveUp) -> Any:
    """Why the person cannot go on, as the stop's reason: a reason of its
    own (the page closed), a step the table does not allow, or its words."""
    r = exc.record
    if r is None:
        return str(exc)
    return r if type(r) in stop_words.KINDS else CannotDoStep(r)
