"""The bring-up's load cell step: the tare, a known count judged against
what a card can weigh, then a second count of another number of cards,
which must read as typed by the first count's weight. Only then is the
per-card figure stored (from the second count, the larger); two counts
that disagree are counted again, since the board cannot see which of them
is wrong. A tray that reads empty where cards should be is the person's
slip, said as such and asked again."""
from __future__ import annotations

from typing import Any

from firmware import protocol as wire
from hardware import cards
from host import check
from host import device_messages
from host import setup_findings as finds
from host import setup_steps
from host.parts import Finding
from host.setup_records import CountImpossible, CountsDisagree, FirstCount, SecondEmpty, Tared
from host.setup_session import Session
from host.setup_words import count_read

KNOWN = 52  # one deck: the known count
# The second count: at least 80 cards, so that a 2 % error in the per-card
# figure (one card in the deck of 52) reads 1.6 cards off or more, and still
# more than half a card when the first deck is in the second count (28 or
# more cards counted afresh with it). Judged to half a card.
SECOND_LEAST = 80
HALF_CARD = 0.5
COUNT_TRIES = 3  # counts that disagree, asked again before the step gives up


def counts(s: Session) -> list[Finding]:
    """The step's findings: the tare, then up to COUNT_TRIES pairs of counts."""
    capacity = int(device_messages.hello_view(s.hello).capacity or 104)
    known = min(KNOWN, capacity)
    tare = take_tare(s)
    if isinstance(tare, Finding):
        return [tare]
    lo, hi = cards.per_card_range()
    value = "no count"
    empty_said = False  # a tray that reads empty is said once as the person's, then as the load cell's
    for attempt in range(COUNT_TRIES):
        s.person.ask(setup_steps.LoadCards(known, again=attempt > 0))
        r = s.steady()
        if r is not None and r.raw is not None and abs(r.raw - tare) < 2 * lo and not empty_said:
            empty_said = True
            s.person.ask(setup_steps.TrayEmpty(known, r.raw, tare))
            r = s.steady()
        fault = load_cell_fault(s, r, tare, known)
        if fault is not None:
            return [fault]
        first = (r.raw - tare) / known
        if not lo <= first <= hi:
            value = f"{known} cards at {first:.0f} a card"
            s.tell(CountImpossible(known, first, lo, hi))
            continue
        s.tell(FirstCount(known, first))
        found, value = second_count(s, tare, first, known, capacity)
        if found is not None:
            return [found]
    return [finds.counts_disagreed(value, lo, hi, COUNT_TRIES)]


def take_tare(s: Session) -> int | Finding:
    """The empty tray's steady reading, held as the tare; the finding
    instead when it does not settle or the load cell does not answer."""
    s.person.ask(setup_steps.EmptyTray())
    r = s.steady()
    if r is None:
        return finds.tare_unsettled()
    if r.raw is None:
        return check.stack(s.snapshot())  # no answer: the same finding as `shuffler check`'s
    tare = s.cal(wire.CAL_STACK, n=0).tare
    s.tell(Tared(tare))
    return tare


def second_count(s: Session, tare: int, first: float, known: int, capacity: int) -> tuple[Finding | None, str]:
    """Another number of cards, read by the first count's weight (`first`
    a card): the finding when it reads as typed (the per-card figure
    held) or gives no steady reading; else None, the counts said to
    disagree. With it, what the count read."""
    least = min(SECOND_LEAST, capacity)
    m = s.ask_number(setup_steps.SecondCount(least, capacity))
    r = s.steady(int(first))
    if r is not None and r.raw is not None and (r.raw - tare) / first < HALF_CARD:
        s.tell(SecondEmpty(m))  # cards counted, never put in
        m = s.ask_number(setup_steps.SecondCount(least, capacity))
        r = s.steady(int(first))
    if r is None or r.raw is None:
        return finds.unsettled(r), ""
    read = (r.raw - tare) / first
    value = count_read(m, read, known)
    if abs(read - m) < HALF_CARD:
        per_card = s.cal(wire.CAL_STACK, n=m).per_card
        return finds.counted(value, tare, per_card), value
    s.tell(CountsDisagree(m, read, known))
    return None, value


def load_cell_fault(s: Session, r: Any, tare: int, known: int) -> Finding | None:
    """The load cell's fault, if a reading with `known` cards on the tray
    shows one: no steady reading, or one that falls (its signal wires
    swapped) or barely grows (no load on it, a wire open) with a deck on."""
    if r is None or r.raw is None:
        return finds.unsettled(r)
    grew, least = r.raw - tare, check.profile(s.board)["stack_per_card_min"] * known
    if grew >= least:
        return None
    if grew < -least:  # falls as a deck goes on: not a tray left empty
        return finds.cell_falls(r.raw, tare, known)
    return finds.cell_unloaded(r.raw, tare, known)
