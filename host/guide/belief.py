"""What the guide believes of the shuffler: only what adds up.

Every fact the device gives is checked against what physics and the
session allow before the guide acts on it (docs/guide.md, "What the guide
believes"):
- cards are conserved: no pass takes more cards than its tray holds, no
  round more than the pack, and no more come out of a load than were in it;
- within one pass the count only grows (the same count again is not
  progress, a smaller one cannot be);
- an exact routine keeps the rounds and loads it began with: it is done
  only after its last pass, with its own rounds, and the load it expects
  next is one of its own;
- the device is the session's: the same uid and the same firmware (its
  version, protocol and message table).
A fact that contradicts them is a fault of the device, named plainly in
one line (host/device_words.py CONTRADICTIONS): the pass is held (the
guide stops dealing), and nothing is claimed beyond what was verified: in
exact mode the ledger says exactness was lost and why, and the stop says so.
"""
from __future__ import annotations

from host.device_messages import Event
from host.guide import ledger as proof
from host.guide import notices
from host.guide import routines
from host.guide.core import Core
from host.guide.device import Stop
from host.guide.results import GuideStopped
from host.guide.stop_reasons import DeviceHeld
from shuffling import steps


def device_fault(m: Core, name: str, **values: object) -> GuideStopped:
    """A fact of the device that cannot be true: the stop that holds the
    pass, with its words (raise it)."""
    kept = tuple(sorted(values.items()))
    return held(m, proof.DeviceContradiction(name, kept), notices.DeviceContradicted(name, kept))


def held(m: Core, what: proof.What, note: notices.Note) -> GuideStopped:
    """The guide stops on a fault of the device (`note`, said in the note's
    one wording): exactness, if it was still claimed, is lost, and the line
    says so."""
    r = m.routine
    exact = isinstance(r, routines.GuidedExactRoutine) and r.lost is None
    if exact:
        assert isinstance(r, routines.GuidedExactRoutine)
        r.lost = "device_fault"
        m.ledger.add(m.place, what, proof.LOST, proof.StoppedThere())
    m.note(note)
    return m.stop(DeviceHeld(note, exact), note)


# -- the device is the session's -------------------------------------------------------------
def same_device(m: Core, ev: Event) -> None:
    """An unsolicited hello: the same shuffler with the same firmware, or
    the guide stops (the uid's and the firmware's own lines)."""
    assert m.device is not None
    try:
        m.device.check_uid(ev.uid)
        if m.device.firmware is not None:
            m.device.check_firmware(ev.fw, ev.proto, ev.digest)
    except Stop as exc:
        raise held_quietly(m, exc) from None


def held_quietly(m: Core, exc: Stop) -> GuideStopped:
    """A stop whose line says it all (another shuffler, another firmware):
    the routine's claim goes with it."""
    r = m.routine
    if isinstance(r, routines.GuidedExactRoutine) and r.lost is None:
        r.lost = "device_fault"
        m.ledger.add(m.place, proof.DeviceChanged(str(exc)), proof.LOST, proof.StoppedThere())
    return m.stop_on(exc)


# -- cards are conserved ---------------------------------------------------------------------------
# Cards of another pack a person may have slipped into a load after it
# was counted: more than this beyond the cards left on the table is the device's count.
STRAY_CARDS = 2


def pass_begins(m: Core, n: int) -> None:
    """A part of the pass in hand begins with n cards in the tray: no more
    than the tray holds, and, for a load the guide counted before its touch,
    no more than that count and the cards left on the table (the pack less
    this round's passes and the load) could make."""
    p = m.pass_
    assert p is not None and m.routine is not None
    capacity = m.device.capacity if m.device is not None and m.device.capacity else m.plan.capacity
    counted = p.counted if p.dealt == 0 else None
    table = pack_cards(m) - round_out(m) - (counted or 0)
    if counted is not None and n > counted + max(0, table) + STRAY_CARDS:
        raise device_fault(m, "more_out", out=n, load=counted)  # the load as the tray counted it
    if n > capacity:
        raise device_fault(m, "tray_over", out=n, capacity=capacity)


def round_out(m: Core) -> int:
    """Cards the passes of this round dealt before the pass in hand."""
    r = m.routine
    if isinstance(r, routines.RandomRoutine):
        return sum(res.cards for res in r.results)  # this round's passes so far
    if isinstance(r, routines.GuidedExactRoutine) and r.per_round and r.route.kind == "radix":
        return sum(r.per_round[-1])  # whole-pack rounds: every load is a share of the pack
    return 0  # a split round's part is a share of the pack on its own


def pack_cards(m: Core) -> int:
    """The cards the pack holds, as counted (the game's, until a count says otherwise: host/guide/pack.py)."""
    return m.plan.cards


def count_grows(m: Core, k: int) -> bool:
    """A count of the part in hand: True when it is progress (more cards
    through), False when it is the same count again; a smaller one is a
    fault of the device."""
    p = m.pass_
    assert p is not None
    if k < p.k:
        raise device_fault(m, "count_back", was=p.k, now=k)
    return k > p.k


# -- the routine keeps its rounds and loads -------------------------------------------------
def next_load(m: Core, ev: Event) -> None:
    """exact_next: the load expected next is one of the routine's own."""
    r = m.routine
    if not isinstance(r, routines.GuidedExactRoutine) or r.lost is not None:
        return
    if ev.rounds is not None and ev.rounds != r.rounds:
        raise device_fault(m, "next_rounds", was=r.rounds, now=ev.rounds)
    if ev.round is not None and ev.load is not None and ev.load not in r.round_sizes.get(ev.round, {}):
        raise device_fault(m, "next_load", load=ev.load, round=ev.round, rounds=r.rounds)


def routine_done(m: Core, ev: Event) -> None:
    """exact_done: only after the routine's last pass, with its own rounds."""
    r = m.routine
    if not isinstance(r, routines.GuidedExactRoutine) or r.lost is not None:
        return
    if ev.rounds is not None and ev.rounds != r.rounds:
        raise device_fault(m, "done_rounds", was=r.rounds, now=ev.rounds)
    ahead = any(isinstance(es.step, steps.PutInTray) for es in r.steps[r.i:])
    if ahead or (m.pass_ is not None and m.pass_.part_n is not None):  # a load to come, or one mid-pass
        raise device_fault(m, "done_early", passes=r.passes, of=r.of_passes)
