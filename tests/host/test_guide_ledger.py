"""Exact mode's ledger keeps records, not sentences: what happened, where,
kept, repaired or lost, and what followed, each a kind and its fields
(host/guide/ledger.py); its words are made in one place
(host/guide/ledger_words.py), from the records, for the console and the
page. The guide's state machine is walked in memory, fact by fact."""
from __future__ import annotations

import pytest

from firmware import protocol
from host import device_messages
from host import plan as planlib
from host.guide import ledger as proof
from host.guide import notices
from host.guide.ledger_words import as_data
from host.guide.machine import Machine
from host.guide.results import GuideStopped
from host.guide.handlers import Answer, Tick, Tray
from guide_in_memory import IN_MEMORY, MemoryDevice, Quiet, Record
from shuffling import steps
from suite import Clock

# Load A's first pass of an 8-round Samba routine, as the ledger places it.
FIRST_PASS = notices.Where(round=1, of_rounds=8, load="A", pass_number=1, of_passes=16)


def exact_machine() -> tuple[Machine, Record]:
    """An exact routine on the in-memory device, load A cut and dealing."""
    plan = planlib.make_plan(planlib.choose_pack("samba", None), 104, "good", rounds=2)
    voice = Record()
    m = Machine(plan, Quiet(), voice, MemoryDevice(), IN_MEMORY.vary(mode="exact"), clock=Clock())
    m.begin()
    assert m.shown is not None
    m.handle(Answer(m.shown.number))  # the cut
    m.handle(device_messages.make_event(protocol.EV_LOADED, n=81))
    return m, voice


def test_a_loss_is_kept_as_the_devices_reason_and_the_fresh_routine_that_followed() -> None:
    m, voice = exact_machine()
    m.handle(device_messages.make_event(protocol.EV_EXACT_LOST, code=protocol.LOST_DOUBLE_FEED, load="A", n=80,
                                        expected=81))
    lost = proof.Entry(FIRST_PASS, notices.ExactLost(FIRST_PASS, "double_feed", "A", 80, 81), proof.LOST)
    assert m.ledger.entries == [lost]
    m.handle(device_messages.make_event(protocol.EV_DONE, k=81, n=81, left=40, right=41))
    assert m.shown is not None and m.shown.step == steps.Collect(162)
    m.handle(Answer(m.shown.number))  # every card gathered: the fresh routine begins
    assert m.ledger.entries == [proof.Entry(lost.where, lost.what, proof.LOST, proof.FreshRoutine(rounds=8))]
    [data] = as_data(m.ledger)
    assert (data["outcome"], data["what"]["kind"], data["what"]["reason"], data["then"]) == \
        ("lost", "ExactLost", "double_feed", {"kind": "FreshRoutine", "rounds": 8, "cards": None})
    assert data["where"] == {"kind": "Where", "round": 1, "of_rounds": 8, "load": "A", "pass_number": 1,
                             "of_passes": 16, "after": False}


def test_a_fact_the_device_cannot_have_is_lost_under_its_name_and_the_guide_stops() -> None:
    m, _ = exact_machine()
    with pytest.raises(GuideStopped):
        m.handle(device_messages.make_event(protocol.EV_EXACT_DONE, rounds=5))
    assert m.ledger.entries == [proof.Entry(FIRST_PASS, proof.DeviceContradiction("done_rounds", (("now", 5), ("was", 8))),
                                            proof.LOST, proof.StoppedThere())]


def test_a_load_off_before_any_card_is_dealt_is_kept_with_how_it_was_put_right() -> None:
    plan = planlib.make_plan(planlib.choose_pack("samba", None), 104, "good", rounds=2)
    device, clock = MemoryDevice(), Clock()
    m = Machine(plan, Quiet(), Record(), device, IN_MEMORY.vary(mode="exact"), clock=clock)
    m.begin()
    assert m.shown is not None
    m.handle(Answer(m.shown.number))  # the cut
    device.tray = 78  # three short, before the touch
    m.handle(Tray(78))
    clock.now += 1  # the tray's count settles
    m.handle(Tick())
    assert m.ledger.entries == [proof.Entry(FIRST_PASS, proof.LoadOff("A", 81, 78), proof.KEPT,
                                            proof.PutRightUndealt())]
    assert not m.ledger.lost
