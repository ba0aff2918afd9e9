"""A card stacked into the wrong part at a split round, on the virtual
shuffler: the guide has the stack that round split put together again and
the device deals it again from that round with fresh codes, instead of a
fresh routine (docs/exact-mode.md, *Mended in place* (d)).

20 cards on an 8-card tray: round 1 splits the pack into the stack for
loads P to Q (12 cards) and load R (8); round 2 splits that stack into P (8)
and Q (4); then P 3 passes, Q 2, R 3: 13 passes. The claim is held to the
truth the guide never sees: the codes the board keeps in its flash, read
when the stack for P to Q is cut again (its fresh codes, by place) and when
R's first pass goes in, and the pack the person ends with."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterator

import pytest

from firmware import exact_routes
from host import person as persons
from host import plan as planlib
from host.guide import notices
from hosttest_support import ON_VIRTUAL, run_guided, small_tray_shuffler
from shuffling import steps
from simulator.virtual import VirtualShuffler

pytestmark = [pytest.mark.micropython, pytest.mark.exact_mode]

CARDS, TRAY = 20, 8
ROUTE = exact_routes.route(CARDS, TRAY)
PARENT = steps.group("P", "Q")


@pytest.fixture
def small_shuffler(tmp_path_factory: pytest.TempPathFactory) -> Iterator[VirtualShuffler]:
    yield from small_tray_shuffler(tmp_path_factory, TRAY)


class StacksACardWrong(persons.ScriptedPerson):
    """Does every step as told but one: when round `at`'s second stack is
    made, the top card of `source` goes on top of `dest` (the other stack of
    that round). A stack then cut into more cards than the step says keeps
    the rest in its last load. Reads the board's codes as the truth: the
    whole pack's when the routine begins, the stack's dealt again (`parent`,
    from its place `lo` on) when it is cut again."""

    at, source, dest, parent, lo = 2, "Q", "P", PARENT, 0
    flash: Path

    def __init__(self, world: Any, cards: int, **kw: Any) -> None:
        super().__init__(world, cards, **kw)
        self.card_code: dict[Any, int] = {}
        self.slipped = False

    def codes(self) -> list[int]:
        return list(json.loads((self.flash / "exact.json").read_text())["codes"])

    def do(self, step: steps.Step, number: int, round: int | None = None) -> None:
        if isinstance(step, steps.Cut) and step.first:
            self.card_code.update(zip(self.table[steps.PACK], self.codes()))
        if isinstance(step, steps.Cut) and step.source == self.parent and self.slipped:
            # Dealt again from fresh codes: the card at each place of the stack as it lies takes that place's.
            stack = self.table[self.parent]
            self.card_code.update(zip(stack, self.codes()[self.lo:self.lo + len(stack)]))
        if isinstance(step, steps.Cut) and step.source in self.table and len(self.table[step.source]) != sum(step.sizes):
            rest = len(self.table[step.source]) - sum(step.sizes[:-1])
            step = steps.Cut(step.source, step.names, (*step.sizes[:-1], rest), step.by_eye, step.counted)
        super().do(step, number, round)
        if isinstance(step, steps.Stack) and round == self.at and not self.slipped and \
                {self.source, self.dest} <= set(self.table):
            self.slipped = True
            self.table[self.dest] = self.table[self.source][:1] + self.table[self.dest]
            self.table[self.source] = self.table[self.source][1:]


class StacksACardWrongOntoQ(StacksACardWrong):
    source, dest = "P", "Q"


# 13 cards on a 3-card tray: round 1 splits the pack into the stacks for P
# to R (7 cards) and S to T (6); round 2 splits the first into those for P
# to Q (4) and R (3); round 3 splits that into P (3) and Q (1): 20 passes.
SMALL_TRAY = 3


class StacksACardWrongAtASplitOfASplit(StacksACardWrong):
    """R's top card onto the stack for P to Q: round 3's last load shows it."""

    at, source, dest, parent, lo = 2, "R", steps.group("P", "Q"), steps.group("P", "R"), 0


@pytest.mark.parametrize("person_cls, ledger", [(StacksACardWrong, ["repaired"]),
                                                (StacksACardWrongOntoQ, ["kept", "repaired"])],
                         ids=["onto P", "onto Q"])
def test_a_card_stacked_into_the_wrong_part_has_the_stack_it_came_from_dealt_again(
        small_shuffler: VirtualShuffler, person_cls: type[StacksACardWrong], ledger: list[str]) -> None:
    """Onto P: P's count shows it at once. Onto Q: P is short, so the
    person is first asked for a dropped card (which would cost nothing);
    none is found, and the count shows it again. The old guide began a
    fresh routine."""
    person_cls.flash = Path(small_shuffler.flash_dir)
    plan = planlib.make_plan(planlib.choose_pack(None, CARDS), TRAY, "good")
    summary, voice, person = run_guided(small_shuffler, plan, person_cls, ON_VIRTUAL.vary(mode="exact"))
    assert isinstance(person, StacksACardWrong) and person.slipped
    final = [e for e in person.log if e["op"] == "final"]
    assert len(final) == 1 and sorted(final[0]["pack"]) == list(range(CARDS))
    # The truth: the pack is in the order of the codes the board dealt it by.
    assert [person.card_code.get(c) for c in final[0]["pack"]] == list(range(CARDS))
    # The claim: exact, the routine never given up; round 2's two loads dealt twice.
    assert (summary.mode, summary.distance, summary.distance_kind) == ("exact", 0.0, "exact")
    assert summary.passes == ROUTE.passes() + 2 == 15
    assert [e["outcome"] for e in summary.exactness] == ledger
    assert not voice.told(notices.ExactLost)
    # A card went onto the wrong stack when the stack for P to Q was split in round 2: dealt again from there.
    assert voice.told(notices.StackDealtAgain, stack=PARENT, round=2, passes=7), voice.notices
    assert steps.Stack(("P", "Q"), PARENT, 12) in voice.steps_shown


@pytest.fixture
def smaller_tray_shuffler(tmp_path_factory: pytest.TempPathFactory) -> Iterator[VirtualShuffler]:
    yield from small_tray_shuffler(tmp_path_factory, SMALL_TRAY)


def test_a_wrong_set_a_split_rounds_last_load_shows_has_its_stack_dealt_again(
        smaller_tray_shuffler: VirtualShuffler) -> None:
    """Round 3's loads are cut from the stack for P to Q, one card too many:
    load A as told, load B one over (the last load holds what is left). The
    stack for P to R is put together from A's piles, load B and load R, and
    dealt again from round 2: its 3 loads and load A dealt twice."""
    cards, route = 13, exact_routes.route(13, SMALL_TRAY)
    assert [(route.lo[t], route.size[t]) for t in range(3)] == [(0, 13), (0, 7), (0, 4)]
    person_cls = StacksACardWrongAtASplitOfASplit
    person_cls.flash = Path(smaller_tray_shuffler.flash_dir)
    plan = planlib.make_plan(planlib.choose_pack(None, cards), SMALL_TRAY, "good")
    summary, voice, person = run_guided(smaller_tray_shuffler, plan, person_cls, ON_VIRTUAL.vary(mode="exact"))
    assert isinstance(person, StacksACardWrong) and person.slipped
    final = [e for e in person.log if e["op"] == "final"]
    assert len(final) == 1 and sorted(final[0]["pack"]) == list(range(cards))
    assert [person.card_code.get(c) for c in final[0]["pack"]] == list(range(cards))
    assert (summary.mode, summary.distance, summary.distance_kind) == ("exact", 0.0, "exact")
    assert summary.passes == route.passes() + 3 + 1 == 24
    assert [e["outcome"] for e in summary.exactness] == ["repaired"]
    assert voice.told(notices.StackDealtAgain, stack=steps.group("P", "R"), round=2), voice.notices
    put_together = steps.Stack((steps.left_of("A"), steps.right_of("A"), "B", "R"), steps.group("P", "R"), 7,
                               (steps.left_of("A"), steps.right_of("A")))
    assert put_together in voice.steps_shown


class CutsByEyeOneShort(StacksACardWrong):
    """Cuts round 2's stack (the stack for P to Q, 12 cards) into loads of 5
    and 7 where the step says 6 and 6, as an eye may; makes no other slip."""

    def do(self, step: steps.Step, number: int, round: int | None = None) -> None:
        if isinstance(step, steps.Cut) and step.source == PARENT and not self.slipped:
            self.slipped = True
            step = steps.Cut(step.source, step.names, (step.sizes[0] - 1, step.sizes[1] + 1), step.by_eye,
                             step.counted)
        super().do(step, number, round)


def test_a_load_cut_by_eye_from_a_split_stack_is_put_right_by_moving_a_card(small_shuffler: VirtualShuffler) -> None:
    """Where a split round's loads are cut does not matter while they stay
    in order (the device takes any cut), so one card short is moved over from
    the next load, as in the first round: no fresh routine (the old guide
    began one)."""
    person_cls = CutsByEyeOneShort
    person_cls.flash = Path(small_shuffler.flash_dir)
    plan = planlib.make_plan(planlib.choose_pack(None, CARDS), TRAY, "good")
    summary, voice, person = run_guided(small_shuffler, plan, person_cls, ON_VIRTUAL.vary(mode="exact"))
    assert isinstance(person, StacksACardWrong) and person.slipped
    final = [e for e in person.log if e["op"] == "final"]
    assert [person.card_code.get(c) for c in final[0]["pack"]] == list(range(CARDS))
    assert (summary.mode, summary.distance, summary.passes) == ("exact", 0.0, ROUTE.passes())
    assert [e["outcome"] for e in summary.exactness] == ["kept"]
    assert steps.words(steps.Move(1, "A", "B", down=False)) in voice.text
