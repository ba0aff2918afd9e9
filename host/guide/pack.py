"""The pack is a fact: how many cards it holds is what the tray counted.

The last load of a round holds what the pack has left for it. The first
time it is off, the person is asked once: for the cards missing from it (on
the table, in the exit, under the machine), or, with too many, for cards of
another pack (never "a card went missing"); cards found and kept apart are
named in the summary. Asked once and still off, the pack is the pack it is:
the guide says how many cards it holds and shuffles that many (exact mode:
a fresh routine for them, the one begun for the game's count given up
before any order was claimed), never asking again in a loop
(docs/guide.md, "What the guide believes").
"""
from __future__ import annotations

from host.device_link import LinkError
from host.guide import ledger as proof
from host.guide import notices
from host.guide import routines
from host.guide.core import Core, Item, Pass
from host.guide.handlers import Do
from host.guide.stop_reasons import LEAVE_ROUTINE, PackOutOfRange
from host.plan import choose_pack, make_plan
from shuffling import steps
from shuffling.limits import MAX_PACK_CARDS, MIN_PACK_CARDS


def last_load_off(m: Core, p: Pass, n: int) -> list[Item] | None:
    """What to do about the last load of a round holding n cards, not
    p.want: None where the usual putting right applies (a load with one
    below it to trade with, a sorted round of exact mode, the first ask for
    missing cards)."""
    r = m.routine
    assert r is not None
    if r.next_load(p.load) is not None or (isinstance(r, routines.GuidedExactRoutine) and r.round > 1):
        return None
    if not m.pack_asked:
        m.pack_asked = True
        return None if n < p.want else other_pack(m, p, n)
    return as_it_is(m, p, n)


def other_pack(m: Core, p: Pass, n: int) -> list[Item]:
    """One too many: a card of another pack came in. Looked for in the
    load; in exact mode's first round in the whole pack (it may be among the
    cards dealt already), which then begins a fresh routine."""
    extra = n - p.want
    m.foreign = extra
    notice = notices.OtherPackCard(p.load, p.want, n)
    again = steps.PutInTray(p.load, p.want, again=True)
    if isinstance(m.routine, routines.RandomRoutine):
        return [notice, steps.Unload(p.load), steps.Fix("foreign", extra, p.load), again]
    game = m.plan.cards
    return [notice, Do(lambda: give_up(m, proof.LoadOff(p.load, p.want, n), proof.LookedForOtherPack(extra)),
                       "give_up"),
            steps.Collect(game + extra), steps.Fix("foreign", extra, steps.PACK), Do(lambda: fresh(m), "fresh")]


def found(m: Core, p: Pass, n: int) -> None:
    """The last load holds its count after the person looked for cards of
    another pack: they were found and kept apart, and the summary says so."""
    r = m.routine
    if m.foreign and n == p.want and r is not None and r.next_load(p.load) is None:
        m.note(notices.OtherPackKeptApart(m.foreign))
        m.foreign = 0


def as_it_is(m: Core, p: Pass, n: int) -> list[Item]:
    """Asked once and still off: the pack holds what the tray counted."""
    game = m.plan.cards
    held = game + n - p.want
    if not MIN_PACK_CARDS <= held <= MAX_PACK_CARDS:
        raise m.stop(PackOutOfRange(held, MIN_PACK_CARDS, MAX_PACK_CARDS))
    new_plan = make_plan(choose_pack(None, held), m.plan.capacity, m.plan.quality, rounds=m.plan.rounds)
    exact = isinstance(m.routine, routines.GuidedExactRoutine)
    told = notices.PackHolds(held, game, fresh=exact)
    m.tell(told)
    m.note(told)
    if m.foreign:
        m.note(notices.NoOtherPackFound())
        m.foreign = 0
    m.plan = new_plan
    r = m.routine
    if isinstance(r, routines.RandomRoutine):
        # The rounds after this one are cut for the pack as it is; this load is dealt as it is.
        r.plan, r.sizes = new_plan, list(new_plan.loads)
        return []
    return [Do(lambda: give_up(m, proof.PackOff(held, game), proof.FreshRoutine(cards=held)), "give_up"),
            steps.Collect(held), Do(lambda: fresh(m), "fresh")]


def give_up(m: Core, what: proof.What, then: proof.Then) -> None:
    """Exact mode: the routine begun for another count is given up before
    any order was claimed (an action of the walk); the steps after it
    gather the pack for a fresh one."""
    r = m.routine
    assert isinstance(r, routines.GuidedExactRoutine) and m.device is not None
    try:
        m.device.exact_cancel()
    except LinkError as exc:
        raise m.not_done(LEAVE_ROUTINE, exc) from None
    m.cancels_unheard += 1
    r.lost = "pack"  # its cancel's word is then no news
    m.ledger.add(m.place, what, proof.KEPT, then)
    m.pass_ = None  # its pass was never dealt
    # What follows up to the fresh routine stays; the old routine's steps go.
    while m.todo and not (isinstance(m.todo[-1], Do) and m.todo[-1].name == "fresh"):
        m.todo.pop()


def fresh(m: Core) -> None:
    assert m.routine is not None
    m.earlier.append(m.routine)
    m.routine = m.exact_routine()
    m.todo.extend(m.routine.begin())
