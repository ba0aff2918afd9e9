"""The slip matrix on the virtual shuffler (tests/slip_matrix.py): a 12-card
pack on an 8-card tray (the split: load A and B cut by eye, then part P of 8
cards in 3 passes and Q of 4 in 2), one slip of the catalogue a run, the
guide's fix followed as told. The claim is held to the truth the guide never
sees (the board's codes, read from its flash, and the pack the person ends
with): "exactly 0" where the pack is in code order, a repair having given a
part fresh codes where one did; never a claim without the condition the
shuffler cannot see; a slip no count shows is claimed only on that
condition. benchmarks/exact_mode_slips.py runs Samba and canasta 108."""
from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator

import pytest

from firmware import exact_routes
from host import guide as guide_machine
from host import plan as planlib
from host.device_link import Link
from hosttest_support import ON_VIRTUAL, TextVoice, small_tray_shuffler
from simulator.virtual import VirtualShuffler
from slip_matrix import Outcome, Slip, SlippingPerson, catalogue, outcome, record_repairs

pytestmark = [pytest.mark.micropython, pytest.mark.exact_mode, pytest.mark.slow]

CARDS, TRAY = 12, 8
CATALOGUE = catalogue(exact_routes.route(CARDS, TRAY))

class Voice(TextVoice):
    def __init__(self, listener: Any) -> None:
        super().__init__()
        self.listener = listener

    def notice(self, notice: Any) -> None:
        self.listener(notice)
        super().notice(notice)


@pytest.fixture
def small_shuffler(tmp_path_factory: pytest.TempPathFactory) -> Iterator[VirtualShuffler]:
    yield from small_tray_shuffler(tmp_path_factory, TRAY)


def run(dev: VirtualShuffler, slip: Slip, cards: int = CARDS, tray: int = TRAY, routine: str | None = None) -> Outcome:
    plan = planlib.make_plan(planlib.choose_pack(None, cards), tray, "good")
    link = Link.open(dev.port)
    link.handshake(timeout=30)
    world = dev.world(timeout=30)
    world.clear_table()
    person = SlippingPerson(world, cards)
    person.slip, person.flash, person.route = slip, Path(dev.flash_dir), exact_routes.route(cards, tray, routine)
    voice = Voice(record_repairs(person))
    options = ON_VIRTUAL.vary(mode="exact", routine=routine, wait_s=60, stall_s=5)
    guide = guide_machine.Guide(plan, person, voice, options, link=link, reopen=lambda: Link.open(dev.port))
    try:
        try:
            result: Any = guide.run()
        except guide_machine.GuideStopped as exc:
            result = exc
    finally:
        (guide.link or link).close()
        world.close()
    assert person.slipped, f"the slip never came: {slip.name}\n{voice.text[-2000:]}"
    return outcome(slip, result, person)


@pytest.mark.parametrize("slip", CATALOGUE, ids=[s.kind + f"-r{s.round}" for s in CATALOGUE])
def test_the_claim_after_a_slip_is_as_strong_as_the_facts(small_shuffler: VirtualShuffler, slip: Slip) -> None:
    got = run(small_shuffler, slip)
    assert got.pack_whole, got
    assert got.conditional, f"a claim without its condition: {got}"
    if slip.seen:
        # A slip a count or the device shows: the claim is true.
        assert got.claim == "exactly 0" and got.truth, got
    else:
        # No count shows it: claimed only on the condition that names it
        # (the pack is then, most likely, not in code order).
        assert got.claim == "exactly 0", got

