"""The guide's handlers while it waits for the person: a table step's
answer (handling), a load in the tray (loading), the touch that begins the
pass (touch). Each takes the machine and a fact and returns the next phase.

A load is judged once the tray's count has held still for settle_s (or the
person says the cards are in); one off its size is put right before its
touch, with how many cards are missing or extra and where. Cards move
between this load's bottom and the next load's top, which keeps the pack's
order. A load put in the tray, or a pass begun, while table steps are still
on screen completes them.
"""
from __future__ import annotations

from firmware import protocol
from host.device_link import LinkError
from host.device_messages import Event
from host.guide import belief
from host.guide import faults
from host.guide import ledger as proof
from host.guide import notices
from host.guide import pack
from host.guide import routines
from host.guide.core import STALE, Core, Item, Pass
from host.guide.dealing import hold_for_unknown
from host.guide.handlers import (ONWARD, Answer, AwaitingTouch, Dealing, Do, Handling, Loading, Paused, Phase, Stopped,
                                 Tick, Tray, on, refusal)
from host.guide.stop_reasons import (ANSWER, CARDS, LEAVE_ROUTINE, PASS_START, TAKEN_UP, InputEnded, NotCalibrated,
                                     WaitedOut)
from shuffling import steps

KEEP_AWAKE_S = 20.0  # a line to the device at least this often while the person works
LONG_WAIT_S = 300.0  # then the person hears that the guide still waits, and that this is fine
MAX_RECOUNTS = 3  # then deal what is there and adjust the loads after it


# -- a table step ------------------------------------------------------------------------------
@on("answer", Handling, goes=ONWARD)
def answer_in_handling(m: Core, fact: Answer) -> Phase:
    if m.answered(fact.number, fact.via):
        return m.advance()
    return m.phase


@on("tray", Handling, goes=ONWARD)
def tray_in_handling(m: Core, fact: Tray) -> Phase:
    """A load put in the tray after the tray was empty: the steps before
    its load are done, whatever was answered."""
    if fact.n == 0:
        m.tray.saw_empty = True
    if not m.tray.settled(fact.n, m.clock(), m.options.settle_s) or fact.n == 0 or not m.tray.saw_empty:
        return m.phase
    ahead = m.load_ahead()
    if ahead is None:
        return m.phase
    skipped = m.skip_to(ahead)
    put = m.todo.popleft()
    assert isinstance(put, steps.PutInTray)
    m.tell(notices.StepsTakenAsDone("load", put.load, skipped, fact.n))
    m.start_or_continue_pass(put)  # its step is done too: not shown, judged
    return judge(m, Loading(), fact.n, put)


# -- a load ---------------------------------------------------------------------------------------
@on("tray", Loading, goes=ONWARD)
def tray_in_loading(m: Core, fact: Tray) -> Phase:
    if fact.n == 0:
        m.tell(notices.WaitingForLoad(m.pass_.load if m.pass_ else "?", m.voice.keyboard))
    if m.tray.settled(fact.n, m.clock(), m.options.settle_s) and fact.n > 0:
        return judge(m, m.phase, fact.n)
    return m.phase


@on("answer", Loading, goes=ONWARD)
def answer_in_loading(m: Core, fact: Answer) -> Phase:
    """The person says the cards are in: the count now is the load."""
    if not m.answered(fact.number, fact.via):
        return m.phase
    before = m.phase
    n = m.count()
    if m.phase is not before or n == STALE:
        return m.phase  # the pass has begun, or events come first (the tray's count settles the load anyway)
    if n == 0:
        m.tell(notices.TrayStillEmpty(m.pass_.load if m.pass_ else "?"))
        return m.phase
    return judge(m, m.phase, n)


def judge(m: Core, phase: Phase, n: int | None, step: steps.Step | None = None) -> Phase:
    """The load in the tray holds n (None: the device cannot count; the
    pass itself will say): go on to the touch, or put it right first.
    step: the load's step (the one on screen unless it was done unseen)."""
    p = m.pass_
    assert p is not None and m.shown is not None and m.routine is not None
    step = step or m.shown.step
    p.counted = n
    if isinstance(step, steps.PutInTray) and (step.rest or step.load == steps.ASIDE):
        return judge_rest(m, phase, n)
    tolerance = m.routine.tolerance(p.load)
    if n is not None:
        pack.found(m, p, n)
    if n is None or abs(n - p.want) <= tolerance:
        nxt = m.routine.next_load(p.load)
        if n is not None and n != p.want and nxt is not None and not p.off_said:
            p.off_said = True
            m.tell(notices.LoadKept(p.load, p.want, n, nxt))
        return m.advance(phase)
    the_pack = pack.last_load_off(m, p, n)
    if the_pack is not None:
        m.todo.extendleft(reversed(the_pack))
        return m.advance(phase)
    p.recounts += 1
    if p.recounts > MAX_RECOUNTS:
        m.tell(notices.LoadDealtAsItIs(p.load, p.want, n))
        m.note(notices.LoadDealtOff(p.load, m.place.round if m.place else None, p.want, n))
        return m.advance(phase)
    m.todo.extendleft(reversed(put_right(m, p, n)))
    return m.advance(phase)


def put_right(m: Core, p: Pass, n: int) -> list[Item]:
    """What to say and do about a load of n cards that should hold p.want."""
    assert m.routine is not None
    capacity = m.device.capacity if m.device and m.device.capacity else m.plan.capacity
    again = steps.PutInTray(p.load, p.want, again=True)
    nxt = m.routine.next_load(p.load)
    if isinstance(m.routine, routines.GuidedExactRoutine):
        r = m.routine
        other = r.swapped_with(p.load, n)
        if other is not None:
            m.ledger.add(m.place, proof.LoadsTakenForOneAnother(p.load, other, n), proof.KEPT, proof.SwappedBack())
            return [r.swap_notice(p.load, p.want, n, other), steps.Unload(p.load), steps.Swap(p.load, other), again]
        # A load cut by eye from a stack an earlier split round made: put
        # right by moving cards to or from the next load, as in the
        # routine's first round (none of the two is dealt; where the cut
        # falls does not matter while the loads stay in order).
        cut_again = r.round > 1 and r.by_eye() and nxt is not None
        if r.round > 1 and not cut_again:
            return off_in_a_later_round(m, p, n, r)
        # The routine's first round, or a load cut by eye: none of these
        # cards is dealt yet, so where they go back does not matter (the
        # codes are a uniformly random arrangement of the positions not yet
        # dealt, and a cut only says which of them go in first).
        m.ledger.add(m.place, proof.LoadOff(p.load, p.want, n), proof.KEPT, proof.PutRightUndealt())
        if not r.by_eye():
            nxt = None  # the stacks of a two-load round: nothing to trade with
    if nxt is not None:
        move = steps.Move(abs(n - p.want), p.load, nxt, down=n > p.want)
        about = m.routine.tolerance(p.load) > 0
        return [notices.LoadToMove(p.load, p.want, n, about, capacity, move), steps.Unload(p.load), move, again]
    if n < p.want:
        return [notices.LoadShort(p.load, p.want, n), steps.Unload(p.load), steps.Fix("missing", p.want - n, p.load),
                again]
    return [notices.LoadLong(p.load, p.want, n, capacity), steps.Unload(p.load), steps.Fix("extra", n - p.want, p.load),
            again]


def off_in_a_later_round(m: Core, p: Pass, n: int, r: routines.GuidedExactRoutine) -> list[Item]:
    """A load of exact mode's later rounds, not cut by eye, holds n cards,
    not p.want: cards left a load the shuffler has sorted, or came into it,
    and where they belong is not known. Anything but what follows ends the
    routine's claim, and a fresh routine follows."""
    again = steps.PutInTray(p.load, p.want, again=True)
    first = r.part_first_round()
    parent = r.parent_round()
    if parent is not None and (n > p.want or p.recounts > 1 or first is None):
        # Cards too many at a part's first pass, or too few and not found
        # where a dropped card would be, or a split round's last load off:
        # a card went onto the wrong stack at the split round that cut the
        # stack in hand. The stack that round split still holds exactly its
        # own cards, and is dealt again from that round with fresh codes
        # (docs/exact-mode.md, *Mended in place* (d)).
        return [Do(lambda: m.request_parent_repair(p.want, n, parent), "request_parent_repair")]
    if first is not None and first == r.round and n < p.want:
        # A card dropped before a part's first pass and put back under it
        # costs nothing: the part's positions hold its codes in a uniformly
        # random arrangement none of its passes has read yet
        # (docs/exact-mode.md, *Mended in place* (a)). Not found, the
        # recounts run out and the load is dealt as it is: lost.
        if p.recounts == 1:
            m.ledger.add(m.place, proof.LoadOff(p.load, p.want, n, first_pass=True), proof.KEPT,
                         proof.PutBackAtBottom())
        return [notices.LoadShort(p.load, p.want, n), steps.Unload(p.load),
                steps.Fix("missing", p.want - n, p.load), again]
    if first is not None and first < r.round and n < p.want:
        # Cards gone from a part after its first pass, found and put back
        # anywhere: its set is its own, and it is dealt again from fresh codes.
        fix = [steps.Unload(p.load), steps.Fix("anywhere", p.want - n, p.load)]
        return [Do(lambda: m.request_repair(p.want, n, fix), "request_repair")]
    return [Do(lambda: lose_by_hand(m, p, n), "lose_by_hand")]

def lose_by_hand(m: Core, p: Pass, n: int) -> None:
    """A load of a sorted round held the wrong count: the order the proof
    needs is gone, and the routine with it (the device is told); the pack is
    gathered for a fresh one."""
    assert m.device is not None
    try:
        m.device.exact_cancel()
    except LinkError as exc:
        raise m.not_done(LEAVE_ROUTINE, exc) from None
    m.cancels_unheard += 1
    m.pass_ = None  # its pass was never dealt
    m.todo.clear()
    m.lose("count", load=p.load, n=n, expected=p.want, walk=False)  # (an action of the walk: it walks on)


def judge_rest(m: Core, phase: Phase, n: int | None) -> Phase:
    """What is left of a load (or the cards kept aside) is in the tray."""
    p = m.pass_
    assert p is not None and m.shown is not None
    step = m.shown.step
    if isinstance(step, steps.PutInTray) and step.rest and n is not None:
        p.dealt = max(0, p.total - n)  # the tray's count is the fact
        if n == 0:
            return m.advance(m.pass_finished())
        m.todo.appendleft(steps.Touch("rest", p.load, n))
    return m.advance(phase)


# -- the touch --------------------------------------------------------------------------------------
@on("loaded", AwaitingTouch, Loading, goes=(Dealing, Stopped))
def loaded_waiting(m: Core, ev: Event) -> Phase:
    """The pass began (in loading: before the guide had judged the count)."""
    if isinstance(m.phase, Loading):
        assert m.pass_ is not None
        m.tell(notices.StepsTakenAsDone("pass", m.pass_.load, 0))
        m.drop_to_touch()
    return begins(m, ev)


def begins(m: Core, ev: Event) -> Phase:
    """A part of the pass begins: its count checked against the cards first."""
    belief.pass_begins(m, ev.n or 0)
    return m.begin_part(ev)


@on("loaded", Handling, goes=(Dealing, Stopped))
def loaded_out_of_turn(m: Core, ev: Event) -> Phase:
    """A pass began while table steps were on screen: if the routine has
    a pass ahead, those steps are done and this is its pass."""
    ahead = m.load_ahead()
    if ahead is None and m.pass_ is not None and m.pass_.part_n is None:
        m.drop_to_touch()  # the rest of a pass, touched before the guide asked
        return begins(m, ev)
    if ahead is None:
        # A pass where the routine has none: said once; the step on screen
        # stays (its cards are the person's to put back).
        m.tell(notices.PassNotInRoutine(ev.n or 0))
        m.note(notices.StrayPass(ev.n, m.place))
        return m.phase
    skipped = m.skip_to(ahead)
    put = m.todo.popleft()
    assert isinstance(put, steps.PutInTray)
    m.tell(notices.StepsTakenAsDone("pass", put.load, skipped))
    m.start_or_continue_pass(put)
    m.drop_to_touch()
    return begins(m, ev)


@on("fault", AwaitingTouch, goes=(Handling, AwaitingTouch, Loading, Stopped))
def fault_waiting(m: Core, ev: Event) -> Phase:
    """A pass refused (nothing moved): say why and what to do, then the touch again."""
    p = m.pass_
    assert p is not None and m.shown is not None
    m.voice.bar_end()
    touch = m.shown.step if isinstance(m.shown.step, steps.Touch) else steps.Touch("start")
    m.todo.extendleft(reversed(refusal_steps(m, p, ev, touch)))
    return m.advance()


def refusal_steps(m: Core, p: Pass, ev: Event, touch: steps.Touch) -> list[Item]:
    code = ev.code
    if code == protocol.FAULT_OVER_CAPACITY:
        return too_full(m, p, ev)
    if code == protocol.FAULT_EMPTY:
        return [notices.TrayReadsEmpty(p.load), steps.Touch("again", p.load)]
    if code == protocol.FAULT_BATTERY_LOW:
        return [notices.BatteryTooLowToStart(), steps.Fix("battery_idle"), touch]
    if code == protocol.FAULT_NOT_CALIBRATED:
        port = m.device.name if m.device is not None else "PORT"
        raise m.stop(NotCalibrated(port))
    if code == protocol.FAULT_SENSOR:
        return sensor_at_start(m, ev, touch)
    if not faults.is_known(ev):
        raise hold_for_unknown(m, ev)
    return [notices.StartRefused(ev), steps.Touch("retry")]


def too_full(m: Core, p: Pass, ev: Event) -> list[Item]:
    n = ev.n or 0
    capacity = ev.capacity or m.plan.capacity
    assert m.routine is not None
    nxt = m.routine.next_load(p.load)
    if nxt is not None and p.parts == 0 and not m.routine.exact:
        extra = n - p.want if n > p.want else n - capacity
        move = steps.Move(extra, p.load, nxt, down=True)
        return [notices.LoadToMove(p.load, p.want, n, True, capacity, move), steps.Unload(p.load), move,
                steps.PutInTray(p.load, n - extra, again=True), steps.Touch("start")]
    p.aside = n - capacity
    return [notices.TooFullForTray(p.load, n, capacity), steps.SetAside(p.load, p.aside), steps.Touch("rest_in_tray")]


def sensor_at_start(m: Core, ev: Event, again: steps.Step) -> list[Item]:
    """A sensor that does not answer: put right, then cleared (a sensor
    still lost would latch again at once), then the step again."""
    return [*faults.sensor_notice_and_fix(ev), Do(m.clear, "clear"), again]


@on("fault", Handling, Loading, goes=ONWARD)
def fault_between(m: Core, ev: Event) -> Phase:
    """A touch out of turn that the device refused (nothing moved), or a
    sensor it found lost while idle: that is put right first."""
    if ev.code == protocol.FAULT_EMPTY and m.own_start_refused:
        m.own_start_refused -= 1  # the guide's own start on an empty tray: nobody touched
    elif ev.code == protocol.FAULT_EMPTY:
        m.tell(notices.EmptyTouch())
    elif refusal(ev):
        m.tell(notices.StartRefused(ev))
    elif ev.code == protocol.FAULT_SENSOR and m.shown is not None:
        m.todo.extendleft(reversed(sensor_at_start(m, ev, m.shown.step)))  # shown again once the sensor is right
        return m.advance()
    elif not faults.is_known(ev):
        raise hold_for_unknown(m, ev)
    else:
        m.tell(notices.DeviceFault(ev.code, reason=ev))
        m.clear()
    return m.phase


# -- the clock while the person works -----------------------------------------------------------
@on("tick", Handling, AwaitingTouch, Paused, goes=ONWARD)
def tick_waiting(m: Core, fact: Tick) -> Phase:
    before = keep_time(m)
    if isinstance(before, Handling) and m.device is not None and m.load_ahead() is not None:
        n = m.count()
        if n is not None and n != STALE and m.phase is before:
            return m.handle(Tray(n))
    return m.phase


@on("tick", Loading, goes=ONWARD)
def tick_loading(m: Core, fact: Tick) -> Phase:
    before = keep_time(m)
    if m.device is None or m.phase is not before:
        return m.phase
    n = m.count()
    if m.phase is not before or n == STALE:
        return m.phase
    if n is None:
        return judge(m, m.phase, None)
    return m.handle(Tray(n))


def keep_time(m: Core) -> Phase:
    """No fixed limit on the person, unless one was given; the device is
    kept awake meanwhile, and a long wait is said once. The phase after it
    (the port may have gone away meanwhile)."""
    shown = m.shown
    now = m.clock()
    if shown is None:
        return m.phase
    waited = now - shown.at
    if m.options.wait_s is not None and waited > m.options.wait_s:
        raise m.stop(WaitedOut(WAITED_FOR[type(m.phase)], m.options.wait_s))
    if shown.answer is not None and getattr(m.person, "closed", False):
        raise m.stop(InputEnded())
    if waited > LONG_WAIT_S:
        m.tell(notices.StillWaiting(shown.number, int(waited // 60)))
    if m.device is not None and now - m.last_line > KEEP_AWAKE_S:
        m.keep_awake()
    return m.phase


# What the guide waited for in each phase a --wait can end (stop_reasons.WaitedOut.waited_for).
WAITED_FOR: dict[type[Phase], str] = {
    Handling: ANSWER,
    Loading: CARDS,
    AwaitingTouch: PASS_START,
    Paused: TAKEN_UP,
}
