"""The guide's handlers while a pass runs (dealing), while a jam holds it
(paused), and for what may come in any phase: a restart, the port going
away, noise. Each takes the machine and a fact and returns the next phase.

A pass may be dealt in parts: dealing the rest of a load onto the same
piles gives exactly the piles of one whole pass, because the bottom card is
fed first and every card lands on top of its pile (docs/mechanism.md).
After any stop part way the tray's count is the truth of what is left; the
pile counts are then no longer known, and nothing shows them.
"""
from __future__ import annotations

from firmware import protocol
from host import device_messages
from host import fault_catalogue
from host.device_link import REQUEST_TIMEOUT_S, LinkClosed, LinkTimeout
from host.device_messages import Event, Reply
from host.guide import belief
from host.guide import faults
from host.guide import notices
from host.guide import routines
from host.guide.core import MAX_RECONNECTS_PER_PASS, MAX_RESTARTS_PER_PASS, STALE, Core
from host.guide.device import Stop
from host.guide.handlers import (ONWARD, PASS_OVER, Answer, Closed, Dealing, Do, Handling, Loading, Noise, Paused, Phase,
                                 Stopped, Tick, on, refusal)
from host.guide.results import GuideStopped
from host.guide.stop_reasons import HeldOnUnknownFault, HelloFlood, LeftForPrompt, ReconnectsSpent, Stalled
from shuffling import steps

PASS = (Dealing, Paused)


# -- a part of the pass goes on, ends ---------------------------------------------------------------
@on("loaded", Dealing, goes=(Stopped,))
def loaded_in_pass(m: Core, ev: Event) -> Phase:
    raise m.protocol_fault(f"it began a pass of {ev.n} cards in the middle of another")


@on("progress", *PASS, goes=(Dealing, Stopped))
def progress(m: Core, ev: Event) -> Phase:
    p = m.pass_
    if p is None or p.part_n is None:
        return m.phase  # the rest of a part that was already ended
    if ev.n != p.part_n:
        raise m.protocol_fault(f"progress for a pass of {ev.n} cards while it deals {p.part_n}")
    dealing = resumed(m) if isinstance(m.phase, Paused) else m.phase
    assert isinstance(dealing, Dealing)
    if belief.count_grows(m, ev.k or 0):
        # A card went through: a sign of life. The same count again is not
        # one (a device repeating itself is asked, and found out, as a silent
        # one); a smaller one is a fault of the device.
        dealing.quiet_since = dealing.moved_at = m.clock()
    p.k, p.k_left, p.k_right = ev.k or 0, ev.left, ev.right
    left, right = p.piles()
    m.voice.bar_update(p.through, p.total, left, right)
    return dealing


@on("done", *PASS, goes=PASS_OVER + (Stopped,))
def done(m: Core, ev: Event) -> Phase:
    p = m.pass_
    if p is None:
        return m.phase
    if p.part_n is not None and ev.n != p.part_n:
        raise m.protocol_fault(f"done for a pass of {ev.n} cards while it dealt {p.part_n}")
    if p.part_n is not None:
        belief.count_grows(m, ev.k or 0)
    m.end_part(ev.k or 0, ev.left, ev.right)
    if p.aside:
        # The cards lifted off the top are dealt last, onto the same piles.
        count, p.aside = p.aside, 0
        p.aside_coming = True
        m.todo.extendleft([steps.Touch("aside"), steps.PutInTray(steps.ASIDE, count)])
        return m.advance(Handling())
    if p.dealt < p.total:
        m.todo.appendleft(Do(lambda: count_rest(m), "count_rest"))
        return m.advance(Handling())
    return m.advance(m.pass_finished())


def same_part(m: Core, ev: Event, what: str) -> None:
    """An event about the part being dealt names that part's size."""
    p = m.pass_
    if p is not None and p.part_n is not None and ev.n is not None and ev.n != p.part_n:
        raise m.protocol_fault(f"{what} for a pass of {ev.n} cards while it deals {p.part_n}")


@on("aborted", *PASS, goes=PASS_OVER + (Stopped,))
def aborted(m: Core, ev: Event) -> Phase:
    p = m.pass_
    if p is None:
        return m.phase
    same_part(m, ev, "aborted")
    m.end_part(ev.k if ev.k is not None else p.k, ev.left, ev.right)
    m.todo.appendleft(Do(lambda: count_rest(m), "count_rest"))
    return m.advance(Handling())


def count_rest(m: Core) -> Phase | None:
    """The pass stopped part way: the tray's count (the truth, whatever
    the device saw go by) is what is left, dealt onto the same piles. An
    action of the walk: the phase it leads to, None, or HOLD."""
    p = m.pass_
    assert p is not None
    rest = p.total - p.dealt
    n = m.count() if rest > 0 else 0
    if n == STALE:
        # Events came first (a fault cleared, exactness judged, the rest's own pass begun).
        return m.after_events(lambda: count_rest(m))
    if n is not None and n != rest:
        p.dealt = max(0, p.total - n)
        p.left = p.right = None
        rest = n
    if rest <= 0:
        r = m.routine
        if (isinstance(r, routines.GuidedExactRoutine) and r.lost is None and not r.rewound and m.device is not None
                and p.parts):
            # The device still waits for the rest of its stopped pass: an
            # empty tray's start tells it the pass is whole. Its refusal (the
            # pass was whole already) is the guide's own start, not a touch.
            if not m.device.start():
                m.own_start_refused += 1
        return m.pass_finished()
    if p.dealt:
        m.tell(notices.PassGoesOn(p.load, p.dealt, rest))
    m.todo.appendleft(steps.Touch("rest", p.load, rest) if p.dealt else steps.Touch("start"))
    return None


# -- a fault stops the pass ---------------------------------------------------------------------
@on("fault", Dealing, goes=(Paused, Handling, Stopped))
def fault_in_pass(m: Core, ev: Event) -> Phase:
    p = m.pass_
    assert p is not None and m.place is not None
    if refusal(ev):
        return m.phase  # a second touch while dealing, refused: nothing changed
    same_part(m, ev, "a fault")
    k = ev.k or 0
    m.end_bar()
    if not faults.is_known(ev):
        raise hold_for_unknown(m, ev)
    if fault_catalogue.pauses(ev.code):
        p.k = k
        paused = notices.PassPaused(m.place, p.dealt + k, p.total, ev.code)
        m.tell(paused)
        m.note(paused)
        m.todo.extendleft([steps.Touch("go_on"), *filter(None, [fault_catalogue.fix_in_pass(ev)])])
        return m.advance(Paused())
    if ev.k is None:
        k = p.k  # a fault that does not say: the last card the device reported
    notice = faults.stopped_pass(m.place, p.dealt + k, p.total, ev)
    m.note(notice)
    m.tell(notice)
    if p.part_n is not None:
        m.end_part(k, ev.left if ev.k is not None else None, ev.right if ev.k is not None else None)
    if ev.code == protocol.FAULT_DOUBLE_FEED:
        p.left = p.right = None  # what went where is the tray's count to tell
    # Cleared once put right (a sensor still lost would latch again at once), then the tray counted.
    fix = fault_catalogue.fix_in_pass(ev)
    m.todo.extendleft([Do(lambda: count_rest(m), "count_rest"), Do(m.clear, "clear"), *([fix] if fix else [])])
    return m.advance(Handling())


# -- a jam -----------------------------------------------------------------------------------
@on("touch", Paused, goes=(Dealing,))
def touch_in_paused(m: Core, ev: Event) -> Phase:
    if ev.state == protocol.ST_PAUSED:
        return resumed(m)
    return m.phase


def resumed(m: Core) -> Dealing:
    """The jammed pass goes on: the steps shown for it are done."""
    p = m.pass_
    assert p is not None
    while m.todo and isinstance(m.todo[0], steps.Touch):
        m.todo.popleft()
    now = m.clock()
    left, right = p.piles()
    m.voice.bar_start(f"load {p.load}", p.total, p.through, left, right)
    m.bar = True
    return Dealing(quiet_since=now, moved_at=now)


@on("answer", Paused, goes=(Paused,))
def answer_in_paused(m: Core, fact: Answer) -> Phase:
    if m.answered(fact.number, fact.via):
        return m.advance()
    return m.phase


@on("fault", Paused, goes=(Paused, Stopped))
def fault_in_paused(m: Core, ev: Event) -> Phase:
    """The touch that should take the pass up again was refused (a card
    left in the exit would be counted as the next)."""
    if not faults.is_known(ev):
        raise hold_for_unknown(m, ev)
    exit_blocked = ev.part == protocol.PART_EXIT
    m.tell(notices.ExitBlockedAtStart() if exit_blocked else notices.StartRefused(ev))
    if m.shown is not None and isinstance(m.shown.step, steps.Touch):
        m.todo.appendleft(m.shown.step)
        # The catalogue's fix for what refused it: a fault still there (a
        # jam not freed) has its fix in a pass; none, and the touch comes again.
        fix = steps.Fix("exit_sensor") if exit_blocked else \
            (fault_catalogue.fix_at_start(ev) or fault_catalogue.fix_in_pass(ev))
        if fix is not None:
            m.todo.appendleft(fix)
        return m.advance()
    return m.phase


# -- the device starts again ---------------------------------------------------------------
@on("hello", goes=ONWARD)
def hello(m: Core, ev: Event) -> Phase:
    """A hello nobody asked for: the same shuffler, restarted; more than a
    few in one pass is a device at fault."""
    assert m.device is not None
    belief.same_device(m, ev)
    m.end_bar()
    p = m.pass_
    if p is not None:
        p.restarts += 1
        if p.restarts > MAX_RESTARTS_PER_PASS:
            raise m.stop(HelloFlood(m.device.name, p.restarts))
    mid_pass = p is not None and (p.part_n is not None or p.dealt > 0)
    restarted = notices.Restarted(m.place, p.through if p and mid_pass else None, p.total if p and mid_pass else None)
    m.tell(restarted)
    m.note(restarted)
    phase = m.after_device_restart()
    if mid_pass:
        return after_restart(m)
    return phase


def after_restart(m: Core) -> Phase:
    """The device has forgotten the pass: what is on the piles stays, the
    rest is counted in the tray and dealt onto them."""
    p = m.pass_
    assert p is not None
    if p.part_n is not None:
        m.end_part(p.k, p.k_left, p.k_right)
    p.left = p.right = None  # events may have gone with the restart
    m.todo.clear()
    if p.total - p.dealt <= 0:
        return m.advance(m.pass_finished())
    m.todo.append(steps.PutInTray(p.load, None, rest=True))
    return m.advance(Handling())


# -- the port goes away ---------------------------------------------------------------------
@on("closed", goes=ONWARD)
def closed(m: Core, fact: Closed) -> Phase:
    """Say so, wait for the same shuffler to come back, and make what the
    guide believes agree with its status."""
    assert m.device is not None
    p = m.pass_
    m.end_bar()
    if p is not None:
        p.reconnects += 1
        if p.reconnects > MAX_RECONNECTS_PER_PASS:
            raise m.stop(ReconnectsSpent(p.reconnects))
    dealing = p is not None and p.part_n is not None
    lost = notices.ConnectionLost(m.place, p.through if p and dealing else None, p.total if p and dealing else None,
                                  m.options.reconnect_s)
    m.tell(lost)
    m.note(lost)
    try:
        st = m.device.reconnect(m.options.reconnect_s, fact.why)
    except Stop as exc:
        raise m.stop_on(exc) from None
    m.tell(notices.DeviceBack())
    m.last_line = now = m.clock()
    if isinstance(m.phase, Dealing):
        m.phase.quiet_since = m.phase.moved_at = now
    return resync(m, st)


def resync(m: Core, st: Reply) -> Phase:
    p = m.pass_
    if m.device_forgot(st):
        restarted = notices.Restarted(m.place, unplugged=True)
        m.tell(restarted)
        m.note(restarted)
        phase = m.after_device_restart()
        if p is not None and (p.part_n is not None or p.dealt):
            return after_restart(m)
        return phase
    if p is None or isinstance(m.phase, (Handling, Loading)):
        return m.phase
    if p.part_n is None:
        return resync_between_parts(m)
    return resync_mid_part(m, st)


def resync_mid_part(m: Core, st: Reply) -> Phase:
    p = m.pass_
    assert p is not None
    if st.state == protocol.ST_DEALING:
        m.voice.bar_start(f"load {p.load}", p.total, p.through, *p.piles())
        m.bar = True
        return m.phase
    if st.state == protocol.ST_PAUSED:
        # The jam's fault, as if it had come while dealing.
        return fault_in_pass(m, device_messages.make_event(protocol.EV_FAULT, code=faults.paused_by(st), latched=True,
                                                           k=st.k or 0, n=st.n))
    if st.n == p.part_n and st.k == p.part_n:
        return done(m, device_messages.make_event(protocol.EV_DONE, k=st.k, n=st.n, left=st.left, right=st.right))
    restarted = notices.Restarted(m.place, unplugged=True)
    m.tell(restarted)
    m.note(restarted)
    m.after_device_restart()
    return after_restart(m)


def resync_between_parts(m: Core) -> Phase:
    """No part of the pass was known to run when the cable went: the
    tray's count says whether one began. Either way the touch is asked
    for again: one made while the cable was out may never have arrived."""
    p = m.pass_
    assert p is not None
    rest = p.total - p.dealt
    n = m.count()
    if n is not None and n != STALE and n < rest:
        m.tell(notices.PassBeganUnplugged(rest, n))
        p.dealt = p.total - n
        p.left = p.right = None
        rest = n
    if rest <= 0:
        return m.advance(m.pass_finished())
    m.todo.appendleft(steps.Touch("rest", p.load, rest) if p.dealt else steps.Touch("start"))
    return m.advance(Handling())


# -- the clock while dealing -----------------------------------------------------------------
@on("tick", Dealing, goes=ONWARD)
def tick_dealing(m: Core, fact: Tick) -> Phase:
    """No sign of life for a while: ask the device how it is doing. A
    device that says it deals while no card comes out, or does not
    answer, ends the pass in one line."""
    assert m.device is not None
    dealing = m.phase
    assert isinstance(dealing, Dealing)
    now = m.clock()
    if now - dealing.quiet_since <= m.device.wait_s(m.options.stall_s):
        return dealing
    dealing.quiet_since = now
    wait = m.device.wait_s(min(REQUEST_TIMEOUT_S, m.options.stall_s))
    try:
        st = m.device.status(timeout=wait)
    except LinkTimeout:
        m.tell(notices.NotAnswering())
        m.device.close()
        return m.handle(Closed(f"no answer within {wait:g} s"))
    except LinkClosed as exc:
        return m.handle(Closed(str(exc)))
    m.last_line = now
    return status_in_pass(m, dealing, st, now)


def status_in_pass(m: Core, dealing: Dealing, st: Reply, now: float) -> Phase:
    p = m.pass_
    assert p is not None and m.device is not None
    if st.state == protocol.ST_DEALING:
        if st.k is not None and p.part_n is not None and belief.count_grows(m, st.k):
            dealing.moved_at = now
            return progress(m, device_messages.make_event(protocol.EV_PROGRESS, k=st.k, n=p.part_n, left=st.left,
                                                          right=st.right))
        if now - dealing.moved_at > m.device.wait_s(2 * m.options.stall_s):
            raise m.stop(Stalled(m.device.name, round(now - dealing.moved_at), m.device.garbage))
        return dealing
    if st.state == protocol.ST_PAUSED:
        return fault_in_pass(m, device_messages.make_event(protocol.EV_FAULT, code=faults.paused_by(st),
                                                           latched=True, k=st.k or 0, n=st.n))
    if st.state == protocol.ST_ALARM:
        return fault_in_pass(m, device_messages.make_event(protocol.EV_FAULT, code=st.fault or protocol.FAULT_INTERNAL,
                                                           latched=True, k=st.k or 0, n=st.n, left=st.left,
                                                           right=st.right))
    if st.n == p.part_n and st.k == p.part_n:
        return done(m, device_messages.make_event(protocol.EV_DONE, k=st.k, n=st.n, left=st.left, right=st.right))
    return dealing


# -- lines that are not the pass's -----------------------------------------------------------
@on("garbage")
def garbage(m: Core, fact: Noise) -> Phase:
    """Not protocol: counted (device.garbage), never shown, and no sign of life."""
    return m.phase


@on("warn")
def warn(m: Core, ev: Event) -> Phase:
    kind = fault_catalogue.warning_kind(ev.code, ev.why)
    if kind == fault_catalogue.LOAD_CELL_CORRECTED:
        return miscounted(m, ev)
    if kind == fault_catalogue.BATTERY_RUNNING_LOW:
        m.tell(notices.BatteryWarning(ev.mv))
    else:
        m.tell(faults.unknown(ev))  # said as it came; nothing stopped, nothing guessed
    return m.phase


def miscounted(m: Core, ev: Event) -> Phase:
    """The load cell's count of the pass in hand was wrong (the device's
    warn comes before its done): the load held what the exit counted and
    what is left in the tray, and the pass deals that."""
    held = (ev.k or 0) + (ev.held or 0)
    corrected = notices.LoadCellCorrected(ev.n or 0, held, ev.was, ev.per_card)
    m.tell(corrected)
    m.note(corrected)
    p = m.pass_
    if p is not None and p.part_n is not None:
        p.size = p.dealt + held + p.aside
        left, right = p.piles()
        m.voice.bar_update(p.through, p.total, left, right)
    return m.phase


@on("stopped", goes=(Stopped,))
def stopped_event(m: Core, ev: Event) -> Phase:
    raise m.stop(LeftForPrompt())


def hold_for_unknown(m: Core, ev: Event) -> GuideStopped:
    """A fault the catalogue does not know: said with its code, part and
    reason, and the guide holds where it is (the shuffler's routine stays
    held for `--resume`); it is never taken for another fault."""
    m.end_bar()
    m.tell(faults.unknown(ev))
    m.note(notices.UnknownFaultHeld(ev.code, m.place))
    port = m.device.name if m.device is not None else "PORT"
    hint = m.options.resume_hint
    return m.stop(HeldOnUnknownFault(ev.code, port, hint))
