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

from firmware import build
from firmware import exact_routes
from host import person as persons
from host import plan as planlib
from hosttest_support import run_guided
from shuffling import steps
from simulator.virtual import VirtualShuffler

pytestmark = [pytest.mark.micropython, pytest.mark.exact_mode]

CARDS, TRAY = 20, 8
ROUTE = exact_routes.route(CARDS, TRAY)
PARENT = steps.group("P", "Q")


@pytest.fixture
def small_shuffler(tmp_path_factory: pytest.TempPathFactory) -> Iterator[VirtualShuffler]:
    dev = VirtualShuffler(time_scale=0.0, keep_cards=True, env={"SHUFFLER_SIM_CAPACITY": str(TRAY)})
    build.install_to_dir(build.build_image("sim", tmp_path_factory.mktemp("image")), dev.flash_dir)
    dev.start()
    yield dev
    dev.stop()


class StacksACardWrong(persons.ScriptedPerson):
    """Does every step as told but one: when round 2's stacks are made, a
    card goes onto the wrong one (`to_p`: Q's top card onto P, else P's top
    card onto Q). Reads the board's codes as the truth."""

    to_p = True
    flash: Path

    def __init__(self, world: Any, cards: int, **kw: Any) -> None:
        super().__init__(world, cards, **kw)
        self.card_code: dict[Any, int] = {}
        self.slipped = False

    def codes(self) -> list[int]:
        return list(json.loads((self.flash / "exact.json").read_text())["codes"])

    def do(self, step: steps.Step, number: int, round: int | None = None) -> None:
        if isinstance(step, steps.Cut) and step.source == PARENT and self.slipped:
            # Dealt again from fresh codes: the card at each place of the stack as it lies takes that place's.
            self.card_code.update(zip(self.table[PARENT], self.codes()[0:12]))
        if isinstance(step, steps.PutInTray) and not isinstance(step, steps.Reload) and step.load == "R":
            self.card_code.update(zip(self.table["R"], self.codes()[12:20]))
        super().do(step, number, round)
        if isinstance(step, steps.Stack) and step.result == "Q" and round == 2 and not self.slipped:
            self.slipped = True
            p, q = self.table["P"], self.table["Q"]
            if self.to_p:
                self.table["P"], self.table["Q"] = q[:1] + p, q[1:]
            else:
                self.table["P"], self.table["Q"] = p[1:], p[:1] + q


class StacksACardWrongOntoQ(StacksACardWrong):
    to_p = False


@pytest.mark.parametrize("person_cls, ledger", [(StacksACardWrong, ["repaired"]),
                                                (StacksACardWrongOntoQ, ["kept", "repaired"])],
                         ids=["onto P", "onto Q"])
def test_a_card_stacked_into_the_wrong_part_has_the_stack_it_came_from_dealt_again(
        small_shuffler: VirtualShuffler, person_cls: type[StacksACardWrong], ledger: list[str]) -> None:
    """Onto P: P's count shows it at once. Onto Q: P is short, so the
    person is first asked for a dropped card (which would cost nothing);
    none is found, and the count shows it again."""
    person_cls.flash = Path(small_shuffler.flash_dir)
    plan = planlib.make_plan(planlib.choose_pack(None, CARDS), TRAY, "good")
    summary, voice, person = run_guided(small_shuffler, plan, person_cls, mode="exact")
    assert isinstance(person, StacksACardWrong) and person.slipped
    final = [e for e in person.log if e["op"] == "final"]
    assert len(final) == 1 and sorted(final[0]["pack"]) == list(range(CARDS))
    # The truth: the pack is in the order of the codes the board dealt it by.
    assert [person.card_code.get(c) for c in final[0]["pack"]] == list(range(CARDS))
    # The claim: exact, the routine never given up; round 2's two loads dealt twice.
    assert (summary.mode, summary.distance, summary.distance_kind) == ("exact", 0.0, "exact")
    assert summary.passes == ROUTE.passes() + 2 == 15
    assert [e["outcome"] for e in summary.exactness] == ledger
    assert "Exactness is lost" not in voice.text
    assert ("went onto the wrong stack when the stack for loads P to Q was split in round 2" in voice.text)
    assert "dealt again from round 2 with fresh codes: 7 passes" in voice.text
    assert steps.words(steps.Stack(("P", "Q"), PARENT, 12)) in voice.text
