"""Exact mode's part of the guide (docs/exact-mode.md): the device's words
on its routine, and the wait for them after each pass. Each handler takes
the machine and a fact and returns the next phase.

The device draws the codes and keeps them; the guide asks it to begin an
exact routine for the pack and follows its events. Exactness is declared
lost only when the device says so, with its evidence (a load's count, two
cards of different piles dealt together, a restart that took the codes).
The finish after a loss is, by default, a fresh exact routine: the pack is
gathered in any order (the new codes do not depend on it) and ends exactly
uniform; random rounds only when asked for (`--on-loss random`). The
routine's beginning, its loss and the fresh one after it are the machine's
(host/guide/core.py): any phase may lead to them.
"""
from __future__ import annotations

from firmware import protocol
from host import device_messages
from host import device_words
from host.device_link import LinkError
from host.device_messages import Event
from host.guide import belief
from host.guide import notices
from host.guide import routines
from host.guide.core import Core
from host.guide.handlers import ONWARD, AfterPass, Handling, Phase, Tick, on
from host.guide.stop_reasons import ANSWER_AFTER_PASS
from shuffling.exact_mode.round_loads import round_loads


@on("exact_next", goes=ONWARD)
def exact_next(m: Core, ev: Event) -> Phase:
    belief.next_load(m, ev)
    if isinstance(m.routine, routines.GuidedExactRoutine) and ev.round is not None and ev.count is not None:
        m.routine.device_next = device_messages.object_record(
            "next", {"round": ev.round, "rounds": ev.rounds, "load": ev.load, "count": ev.count})
    return checked_after_pass(m)


@on("exact_repair", goes=ONWARD)
def exact_repair(m: Core, ev: Event) -> Phase:
    """The device deals a part again from fresh codes (its order lost, its
    cards still its own): said, kept in the ledger, and the steps walk on
    from the part's first round once the pass in hand, if any, is over."""
    r = m.routine
    if not isinstance(r, routines.GuidedExactRoutine):
        return m.phase
    if r.awaiting_repair:
        r.awaiting_repair -= 1  # one the guide asked for: said when it asked
        return m.phase
    m.repaired(ev.part, ev.round, device_words.event_name(ev), bool(ev.after))
    r.next_is_repair = True
    if m.pass_ is None and isinstance(m.phase, Handling):
        m.todo.clear()
        m.todo.extend(r.after_pass())
        return m.advance()
    return m.phase


@on("exact_round")
def exact_round(m: Core, ev: Event) -> Phase:
    if isinstance(m.routine, routines.GuidedExactRoutine) and m.routine.lost is None:
        try:
            dealt = round_loads(m.routine.route, ev.round or 0)
        except ValueError:  # a round the routine has not: said without its loads
            m.tell(notices.ExactRoundDealt(ev.round or 0, ev.rounds or 0))
            return m.phase
        m.tell(notices.ExactRoundDealt(ev.round or 0, ev.rounds or 0, dealt.dealt, dealt.source, dealt.part_pass,
                                       dealt.part_passes, dealt.aside, dealt.done))
    return m.phase


@on("exact_done", goes=ONWARD)
def exact_done(m: Core, ev: Event) -> Phase:
    belief.routine_done(m, ev)
    if isinstance(m.routine, routines.GuidedExactRoutine):
        m.routine.finished = True
    return checked_after_pass(m)


@on("exact_lost", goes=ONWARD)
def exact_lost(m: Core, ev: Event) -> Phase:
    if ev.code == protocol.LOST_CANCELLED and m.cancels_unheard:
        m.cancels_unheard -= 1  # the word of a cancel this guide asked for, maybe after a fresh routine began
        return checked_after_pass(m)
    m.lose(device_words.event_name(ev) or "unknown", load=ev.load or None, n=ev.n, expected=ev.expected)
    return checked_after_pass(m)


def checked_after_pass(m: Core) -> Phase:
    """Waiting after an exact pass: go on once the device has said where
    its routine stands."""
    if not isinstance(m.phase, AfterPass) or not isinstance(m.routine, routines.GuidedExactRoutine):
        return m.phase
    return m.advance(m.after_pass_check(m.phase))


@on("tick", AfterPass, goes=ONWARD)
def tick_after_pass(m: Core, fact: Tick) -> Phase:
    """No word from the device: ask it where its routine stands."""
    waiting = m.phase
    assert isinstance(waiting, AfterPass)
    if m.clock() < waiting.until:
        return waiting
    assert m.device is not None and isinstance(m.routine, routines.GuidedExactRoutine)
    try:
        st = m.device.status()
    except LinkError as exc:
        raise m.not_done(ANSWER_AFTER_PASS, exc) from None
    if m.device_forgot(st):
        m.lose("restart")
    elif st.next is not None:
        m.routine.device_next = st.next
    m.go_on_after()
    return m.advance(Handling())


@on("loaded", AfterPass, goes=ONWARD)
def loaded_after_pass(m: Core, ev: Event) -> Phase:
    """The next pass began before the device's word arrived."""
    m.go_on_after()
    m.advance(Handling())
    return m.handle(ev)
