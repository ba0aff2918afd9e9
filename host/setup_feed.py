"""The bring-up's feed step: a few cards fed to the left, the exit beam
counts them, the person says where they landed. Cards that landed on the
right are fed again the other way (the motor wired the other way round),
and the direction is stored only once an answer says they landed on the
left and no answer before contradicts it: the motor turned both ways (the
beam counted every feed), so cards cannot land on one pile both ways, and
answers that say so are a slip, said as such and asked again, never the
wiring."""
from __future__ import annotations

from typing import Any

from firmware import protocol as wire
from host import check
from host import device_words
from host import readings
from host import setup_findings as finds
from host import setup_steps
from host.device_link import DeviceError
from host.parts import Finding
from host.setup_records import MotorOtherWay, SidesAgree, SidesContradict
from host.setup_session import Session

FEED_LEAST = 10
FEED_CARDS = 2
MAX_FEEDS = 4  # feeds of FEED_CARDS to find which way is left (FEED_LEAST + 2 cards hold them)
LEFT, RIGHT = "l", "r"


def feed(s: Session) -> list[Finding]:
    """The step's findings: the exit beam's and the motor's."""
    r, unfed = loaded_to_feed(s)
    if unfed:
        return unfed
    stored = int(r.flip or 0)  # the board's direction now: nothing is stored until the answers agree
    said: list[int] = []  # the direction each answer gives for the person's left (a flip)
    side = wire.LEFT
    beam = None
    for _ in range(MAX_FEEDS):
        end = fed(s, side)
        s.last_feed = end  # what the board ends with says it, done or not
        if end is None:
            return [finds.feed_unended()]
        if not check.ended(end, wire.EV_DONE):
            return feed_fault(s, end)
        if beam is None:
            beam = s.cal(wire.CAL_BEAM).beam_ms
        says, agreed = landed(s, stored ^ (side == wire.RIGHT), said)
        if agreed:
            s.cal(wire.CAL_MOTOR, flip=says)
            return [finds.beam_counted(FEED_CARDS, beam), check.motor(s.snapshot(end))]
        said.append(says)
        side = wire.LEFT if says == stored else wire.RIGHT
    return [finds.sides_never_agree(len(said), FEED_CARDS)]


def landed(s: Session, turned: int, said: list[int]) -> tuple[int, bool]:
    """Where the cards fed by flip `turned` landed, as the person says: the
    flip the answer gives for the person's left, and whether it is the one
    to store (they landed on the left, and no answer before contradicts it)."""
    answer = s.ask_side(setup_steps.WhereLanded(FEED_CARDS))
    says = turned if answer == LEFT else 1 - turned
    if said and says != said[-1]:
        s.tell(SidesContradict(FEED_CARDS))
        return says, False
    if answer != LEFT:
        s.tell(MotorOtherWay(FEED_CARDS))
        return says, False
    if said:
        s.tell(SidesAgree())
    return says, True


def loaded_to_feed(s: Session) -> tuple[Any, list[Finding]]:
    """The tray loaded for the feed: (its reading, []), or why it cannot
    feed. Too few cards is the person's to put right, asked once."""
    s.person.ask(setup_steps.FeedCards(FEED_LEAST, FEED_CARDS))
    r = s.steady()
    if r is not None and r.n is not None and 0 <= r.n < FEED_LEAST:
        s.person.ask(setup_steps.TooFewCards(r.n, FEED_LEAST))
        r = s.steady()
    if r is None:
        return r, [finds.unsettled(r)]
    if r.n is None:
        return r, [finds.motor_uncounted()]
    if r.n < 0:
        return r, [check.stack(s.snapshot())]  # a load cell that reads fewer than no cards
    if r.n < FEED_CARDS:
        return r, [finds.too_few_to_feed(setup_steps.cards(r.n), FEED_LEAST)]
    return r, []


def fed(s: Session, side: str = wire.LEFT) -> Any:
    """The feed's end: its Done or Fault event record, check.Refused, or None."""
    try:
        return readings.feed(s.ln(), FEED_CARDS, side)
    except DeviceError as exc:
        return check.Refused.of(exc.reply)


def feed_fault(s: Session, end: Any) -> list[Finding]:
    """A feed that ended other than done: the beam's or the motor's finding
    as `shuffler check` makes it, or the board's words for why."""
    snap = s.snapshot(end)
    s.settle()
    if isinstance(end, check.Refused):
        what = end.words
    elif end.part == wire.PART_EXIT:
        return [check.beam(snap), finds.motor_after_beam()]
    elif end.code == wire.FAULT_JAM:
        return [check.motor(snap)]
    else:
        what = device_words.why_words(end) or device_words.fault_words(end.code)
    return [finds.feed_ended(what)]
