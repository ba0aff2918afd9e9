"""The guide in exact mode on the virtual shuffler with a scripted person:
whole routines for one, two and three loads (every card dealt once a round,
piles in load order, pile trade, a permutation at the end), a double feed
that loses exactness and a random finish, and the words a person reads."""
from __future__ import annotations

import dataclasses
import time

import pytest

from host import guide as G
from host import person as persons
from simulator.shuffling import steps as S
from host import plan as planlib
from hosttest_support import TextVoice, check_record, restart, run_guided
from simulator.shuffling.exact_mode.codes import n_bits
from simulator.shuffling.exact_mode.physical import exact_steps
from simulator.virtual import VirtualShuffler

pytestmark = pytest.mark.micropython


def run_exact(dev: VirtualShuffler, cards: int, person_cls: type[persons.ScriptedPerson] = persons.ScriptedPerson,
              quality: str = "good", on_loss: str = "exact") -> tuple[G.Summary, TextVoice, persons.ScriptedPerson]:
    plan = planlib.make_plan(planlib.choose_pack(None, cards), 104, quality)
    return run_guided(dev, plan, person_cls, mode="exact", on_loss=on_loss)


def table_steps(cards: int) -> list[S.Step]:
    """exact_steps' table work: every step but the loads and touches the guide's deal gives."""
    return [es.step for es in exact_steps(cards, 104, uneven=True)
            if not isinstance(es.step, (S.PutInTray, S.Touch))]


@pytest.mark.parametrize("cards, loads", [(162, 2), (52, 1), (300, 3)])
def test_a_whole_exact_routine_keeps_every_card(device: VirtualShuffler, cards: int, loads: int) -> None:
    summary, voice, person = run_exact(device, cards)
    rounds = n_bits(cards)
    assert (summary.mode, summary.rounds, summary.passes, summary.distance) == ("exact", rounds, rounds * loads, 0.0)
    assert summary.notes == []
    check_record(person.log, cards, rounds, loads)
    final = [e for e in person.log if e["op"] == "final"][0]["pack"]
    assert final != list(range(cards))
    # Every table instruction of the routine is printed, in the one wording of its step data.
    said = [S.words(step) for step in table_steps(cards)]
    assert said and all(line in voice.text for line in said)
    assert "left 0" not in voice.text  # no pile counts: the device does not send them
    assert device.query()["counts"]["tray"] == 0


class DoubleFeedInRoundThree(persons.ScriptedPerson):
    """Round 3, load A: two cards feed together at card 11. Caught in the
    exit (the beam reads them too long), or, overlapping, through as one."""

    mode = ""

    def do(self, step: S.Step, number: int, round: int | None = None) -> None:
        if isinstance(step, S.Touch) and round == 3 and self.in_tray == "A" and not getattr(self, "done_it", False):
            self.done_it = True
            self.world.inject("double_feed", 10, self.mode, "")
        super().do(step, number, round)


class TwoAsOneInRoundThree(DoubleFeedInRoundThree):
    mode = "overlap"


def test_a_double_feed_caught_in_the_exit_and_put_back_keeps_exactness(device: VirtualShuffler) -> None:
    summary, voice, person = run_exact(device, 162, DoubleFeedInRoundThree)
    assert "The exit stayed blocked too long (round 3 of 8, load A (pass 5 of 16), after 10 of" in voice.text
    assert S.words(S.Fix("exit")) in voice.text
    assert "the pass goes on from card 11" in voice.text
    assert "Exactness is lost" not in voice.text
    assert (summary.mode, summary.distance) == ("exact", 0.0)
    check_record(person.log, 162, 8, 2)


def test_exactness_lost_is_finished_by_a_fresh_exact_routine(device: VirtualShuffler) -> None:
    summary, voice, person = run_exact(device, 162, TwoAsOneInRoundThree)
    assert "Exactness is lost during round 3 of 8" in voice.text
    assert "the exit counted one card fewer than the tray held" in voice.text
    assert "The pack goes through a fresh exact routine: 8 rounds (16 passes)" in voice.text
    assert S.words(S.Collect(162)) in voice.text
    assert (summary.mode, summary.distance, summary.distance_kind) == ("exact, started again", 0.0, "exact")
    assert (summary.rounds, summary.passes) == (2 + 8, 5 + 16)
    final = [e for e in person.log if e["op"] == "final"]
    assert len(final) == 1 and sorted(final[0]["pack"]) == list(range(162))


def test_exactness_lost_is_finished_by_random_rounds_on_request(device: VirtualShuffler) -> None:
    summary, voice, person = run_exact(device, 162, TwoAsOneInRoundThree, on_loss="random")
    random_rounds = planlib.rounds_for(162, 104, 0.25)
    assert "Exactness is lost during round 3 of 8" in voice.text
    assert f"Finishing at random: {random_rounds} rounds" in voice.text
    assert summary.mode == "exact, then random" and summary.distance_kind == "at most"
    assert summary.distance == planlib.distance_after(162, 104, random_rounds) <= 0.25
    assert summary.rounds == 2 + random_rounds
    assert summary.passes == 5 + 2 * random_rounds
    assert any("exactness lost" in n for n in summary.notes)
    final = [e for e in person.log if e["op"] == "final"]
    assert len(final) == 1 and sorted(final[0]["pack"]) == list(range(162))


def test_the_cli_refuses_exact_mode_without_a_device() -> None:
    from click.testing import CliRunner

    from host.guide_cmd import guide

    out = CliRunner().invoke(guide, ["--manual", "--mode", "exact"])
    assert out.exit_code != 0 and "exact mode needs the shuffler" in out.output
    out = CliRunner().invoke(guide, ["--sim", "--rounds", "3"])
    assert out.exit_code != 0 and "--rounds and --from-round go with --mode random" in out.output
    assert "Traceback" not in out.output


class SwapsTheStacks(persons.ScriptedPerson):
    """After round 2 the right stack goes in as load A: a mistake the count catches."""

    def do(self, step: S.Step, number: int, round: int | None = None) -> None:
        super().do(step, number, round)
        if isinstance(step, S.Draw) and round == 2:
            self.table["A"], self.table["B"] = self.table["B"], self.table["A"]


def test_stacks_swapped_between_rounds_are_caught_before_the_touch(device: VirtualShuffler) -> None:
    summary, voice, person = run_exact(device, 162, SwapsTheStacks, quality="casual")
    assert ("Load A should be the left stack (79 cards); the tray holds 83, the right stack's count: "
            "the stacks look swapped.") in voice.text
    assert "Those cards are load B: put them where load B goes, and take load A instead." in voice.text
    # Put right before the touch: nothing was dealt from the wrong stack, so exactness held.
    assert "Exactness is lost" not in voice.text
    assert (summary.mode, summary.distance) == ("exact", 0.0)
    check_record(person.log, 162, 8, 2)


class ResetsBetweenPasses(persons.ScriptedPerson):
    """Round 2: the shuffler is reset after load A's piles are taken out
    (forgets: its flash had lost the routine first)."""

    device: VirtualShuffler
    forgets = False

    def do(self, step: S.Step, number: int, round: int | None = None) -> None:
        super().do(step, number, round)
        if isinstance(step, S.Lift) and round == 2 and step.load == "A" and not getattr(self, "done_it", False):
            self.done_it = True
            if self.forgets:
                (self.device.flash_dir / "exact.json").unlink()
            restart(self.device, self)


class ForgetsAtTheReset(ResetsBetweenPasses):
    forgets = True


def test_a_restart_between_passes_keeps_the_exact_routine(device: VirtualShuffler) -> None:
    summary, voice, person = run_exact(device, 162, ResetsBetweenPasses, quality="casual")
    assert "The shuffler restarted during round 2 of 8" in voice.text  # after A's pass or at B's load: when heard
    assert "Exactness is lost" not in voice.text
    assert (summary.mode, summary.distance) == ("exact", 0.0)
    check_record(person.log, 162, 8, 2)


def test_a_restart_that_loses_the_codes_is_finished_by_a_fresh_exact_routine(device: VirtualShuffler) -> None:
    summary, voice, person = run_exact(device, 162, ForgetsAtTheReset, quality="casual")
    assert "Exactness is lost during round 2 of 8" in voice.text
    assert "the shuffler restarted and its codes are gone" in voice.text
    assert summary.mode == "exact, started again" and summary.distance == 0.0
    final = [e for e in person.log if e["op"] == "final"]
    assert len(final) == 1 and sorted(final[0]["pack"]) == list(range(162))


class PowerCutMidPass(persons.ScriptedPerson):
    """Round 4, load B: card 31 sticks, and while the person looks at it the
    battery clip comes loose and back (the board restarts); the cards stay
    where they lie. The person then does what the guide asks next."""

    device: VirtualShuffler

    def do(self, step: S.Step, number: int, round: int | None = None) -> None:
        if isinstance(step, S.Touch) and round == 4 and self.in_tray == "B" and not getattr(self, "armed", False):
            self.armed = True
            self.world.inject("jam", 30, "", "")
        if isinstance(step, S.Fix) and step.what == "jam" and not getattr(self, "cut", False):
            self.cut = True
            self.world.fix()
            restart(self.device, self)
            return  # no answer: the guide hears the restart from the device
        super().do(step, number, round)


def test_a_power_cut_mid_pass_deals_the_rest_exactly(device: VirtualShuffler) -> None:
    summary, voice, person = run_exact(device, 162, PowerCutMidPass)
    assert "The shuffler restarted during round 4 of 8, load B (pass 8 of 16), after 30 of" in voice.text
    assert "deal the rest of load B" in voice.text
    assert "Exactness is lost" not in voice.text
    assert (summary.mode, summary.distance) == ("exact", 0.0)
    check_record(person.log, 162, 8, 2)


class MiscutsTheFirstSplit(persons.ScriptedPerson):
    """Cuts the first split 90 / 72 instead of what the device expects."""

    def do(self, step: S.Step, number: int, round: int | None = None) -> None:
        if isinstance(step, S.Cut) and step.first:
            step = dataclasses.replace(step, sizes=(90, 162 - 90))
        super().do(step, number, round)


def test_a_miscut_first_load_is_put_right_to_the_card_before_the_touch(device: VirtualShuffler) -> None:
    summary, voice, person = run_exact(device, 162, MiscutsTheFirstSplit)
    want = [e for e in person.log if e["op"] == "load"][1]  # the load after the correction
    moved = 90 - len(want["ids"])
    assert moved > 0
    assert (f"Load A should hold {len(want['ids'])} and holds 90: move {moved} cards "
            f"from the bottom of load A to the top of load B.") in voice.text
    # The count the firmware expects was met, so exactness held to the end.
    assert (summary.mode, summary.distance) == ("exact", 0.0)
    assert "Exactness is lost" not in voice.text
    final = [e for e in person.log if e["op"] == "final"]
    assert sorted(final[0]["pack"]) == list(range(162))
