"""The guide in exact mode on the virtual shuffler with a scripted person:
whole routines, the split (Samba, 300 cards) and whole-pack radix for a pack
that fits the tray (every card of a round's stack dealt once in the round,
piles in load order, the round's piles gathered where its stack lay, a
permutation at the end, and for Samba the very order its codes give), a
double feed that loses exactness and a random finish, loads taken for one
another, restarts, and the words a person reads."""
from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from host import guide as guide_machine
from host.guide import notices
from host.guide import stop_reasons, stop_words
from host.guide.ledger import CONDITION
from host.guide.results import AT_MOST, EXACT_AGAIN, EXACT_DISTANCE, EXACT_THEN_RANDOM
from host import person as persons
from shuffling import steps
from shuffling import time_model
from host import plan as planlib
from firmware import exact_routes
from firmware import build
from hosttest_support import ON_VIRTUAL, TextVoice, restart, run_guided
from route_record import check_route_record
from shuffling.exact_mode.codes import uniform_assignment
from shuffling.exact_mode.physical import device_steps
from simulator.virtual import VirtualShuffler

pytestmark = [pytest.mark.micropython, pytest.mark.exact_mode]


def run_exact(dev: VirtualShuffler, cards: int, person_cls: type[persons.ScriptedPerson] = persons.ScriptedPerson,
              quality: str = "good", on_loss: str = "exact") -> tuple[guide_machine.Summary, TextVoice, persons.ScriptedPerson]:
    plan = planlib.make_plan(planlib.choose_pack(None, cards), 104, quality)
    return run_guided(dev, plan, person_cls, ON_VIRTUAL.vary(mode="exact", on_loss=on_loss))


SAMBA = exact_routes.route(162, 104)


def table_steps(cards: int) -> list[steps.Step]:
    """The routine's table work: every step but the loads and touches the guide's deal gives."""
    return [es.step for es in device_steps(exact_routes.route(cards, 104))
            if not isinstance(es.step, (steps.PutInTray, steps.Touch))]


@pytest.mark.parametrize("cards, kind", [(162, "split"), (52, "radix"), (300, "split")])
def test_a_whole_exact_routine_keeps_every_card(virtual_shuffler: VirtualShuffler, cards: int, kind: str) -> None:
    summary, voice, person = run_exact(virtual_shuffler, cards)
    route = exact_routes.route(cards, 104)
    assert route.kind == kind
    assert (summary.mode, summary.rounds, summary.passes, summary.distance) == \
        ("exact", route.rounds, route.passes(), 0.0)
    assert summary.notes == []
    final = check_route_record(person.log, route)
    assert final != list(range(cards))
    # Every table instruction of the routine is printed, in the one wording of its step data.
    said = table_steps(cards)
    assert said and all(step in voice.steps_shown for step in said)
    assert "left 0" not in voice.text  # no pile counts: the device does not send them
    assert virtual_shuffler.query()["counts"]["tray"] == 0
    # The time at a real table is the time model's for the routine's steps, every pass dealt once.
    assert summary.table_seconds == pytest.approx(time_model.timing(es.step for es in device_steps(route)).total_s)


def run_with_known_draws(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch, cards: int,
                         mul: int, add: int) -> tuple[Any, Any, Any, list[int]]:
    """An exact routine by the guide on a virtual board whose random bytes
    come from a file ((i * mul + add) mod 256): the summary, the voice, the
    person, and what the board drew for each card (its code, or its place in
    the final pack), read from the same bytes without the wire telling it."""
    random_file = tmp_path_factory.mktemp("random") / "random.bin"
    random_file.write_bytes(bytes((i * mul + add) % 256 for i in range(8192)))
    monkeypatch.setenv("SHUFFLER_SIM_RANDOM_FILE", str(random_file))
    dev = VirtualShuffler(time_scale=0.0, keep_cards=True)
    build.install_to_dir(build.build_image("sim", tmp_path_factory.mktemp("image")), dev.flash_dir)
    dev.start()
    try:
        summary, voice, person = run_exact(dev, cards)
    finally:
        dev.stop()
    data = random_file.read_bytes()
    at = [0]

    def take(k: int) -> bytes:
        at[0] += k
        return data[at[0] - k:at[0]]
    return summary, voice, person, uniform_assignment(cards, take)


def test_a_samba_split_by_the_guide_ends_in_the_order_its_codes_give(
        tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """The board's random bytes from a file: the pack the person ends with is
    the cards in the order of their codes, and the guide said 15 passes."""
    summary, voice, person, codes = run_with_known_draws(tmp_path_factory, monkeypatch, 162, 167, 29)
    final = check_route_record(person.log, SAMBA)
    assert final == sorted(range(162), key=lambda card: codes[card])
    assert voice.told(notices.ExactIntro, rounds=14, passes=15)
    assert (summary.mode, summary.passes, summary.distance) == ("exact", 15, 0.0)


def test_canasta_by_the_guide_takes_the_pipelined_routine_and_ends_in_the_order_drawn(
        tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """108 cards on a 104-card tray: 10 passes, every load's count fixed
    (104 eight times, then 4 twice); the board's random bytes from a file,
    so the test knows each card's place in the final pack without the wire
    telling it, and the pack the person ends with is the cards in that
    order."""
    summary, voice, person, places = run_with_known_draws(tmp_path_factory, monkeypatch, 108, 131, 7)
    route = exact_routes.route(108, 104)
    assert route.kind == exact_routes.PIPELINED
    final = check_route_record(person.log, route)
    assert final == sorted(range(108), key=lambda card: places[card])
    takes = [e for e in person.log if e["op"] == "take"]
    assert [len(e["left"]) + len(e["right"]) for e in takes] == [104] * 8 + [4, 4]
    assert (summary.mode, summary.passes, summary.distance) == ("exact", 10, 0.0)
    assert summary.notes == []
    said = table_steps(108)
    assert said and all(step in voice.steps_shown for step in said)


class DoubleFeedInRoundThree(persons.ScriptedPerson):
    """Round 3 (load P's second pass): two cards feed together at card 11.
    Caught in the exit (the beam reads them too long), or, overlapping,
    through as one."""

    mode = ""

    def do(self, step: steps.Step, number: int, round: int | None = None) -> None:
        if isinstance(step, steps.Touch) and round == 3 and self.in_tray == "P" and not getattr(self, "done_it", False):
            self.done_it = True
            self.world.inject("double_feed", 10, self.mode, "")
        super().do(step, number, round)


class TwoAsOneInRoundThree(DoubleFeedInRoundThree):
    mode = "overlap"


class TwoAsOneInRoundOne(persons.ScriptedPerson):
    """Round 1 (the split round, load A): two cards go through the exit as one."""

    def do(self, step: steps.Step, number: int, round: int | None = None) -> None:
        if isinstance(step, steps.Touch) and round == 1 and self.in_tray == "A" and not getattr(self, "done_it", False):
            self.done_it = True
            self.world.inject("double_feed", 10, "overlap", "")
        super().do(step, number, round)


@pytest.mark.double_feed
@pytest.mark.exit_sensor
def test_a_double_feed_caught_in_the_exit_and_put_back_keeps_exactness(virtual_shuffler: VirtualShuffler) -> None:
    summary, voice, person = run_exact(virtual_shuffler, 162, DoubleFeedInRoundThree)
    assert voice.told(notices.ExitBlocked, where=notices.Where(3, 14, "P", 4, 15), dealt=10)
    assert voice.showed(steps.Fix, what="exit")
    assert voice.told(notices.PassGoesOn, load="P", dealt=10)
    assert not voice.told(notices.ExactLost)
    assert (summary.mode, summary.distance) == ("exact", 0.0)
    check_route_record(person.log, SAMBA)


def test_a_part_whose_pass_went_wrong_is_dealt_again_and_the_routine_goes_on(virtual_shuffler: VirtualShuffler) -> None:
    """Two cards through the exit as one in load P's second pass: the device
    cannot tell their sides, but they are P's own cards. P alone is dealt
    again from fresh codes (7 passes), the routine goes on, and the summary
    claims exactly 0 on its condition, with what happened."""
    summary, voice, person = run_exact(virtual_shuffler, 162, TwoAsOneInRoundThree)
    [again] = voice.told(notices.PartDealtAgain, part="P", reason="exit_count", passes=7)
    assert again.where is not None and (again.where.round, again.where.of_rounds) == (3, 14)
    assert voice.showed(steps.Fix, what="regather", load="P")
    assert not voice.told(notices.ExactLost)
    assert (summary.mode, summary.distance, summary.distance_kind) == ("exact", 0.0, "exact")
    assert summary.passes == 15 + 2  # P's two passes dealt so far, dealt again
    # The time at a real table counts them too: more than the routine's, less than P's seven passes more.
    plain = time_model.timing(es.step for es in device_steps(SAMBA)).total_s
    p_alone = time_model.timing(es.step for es in device_steps(SAMBA) if 2 <= es.round <= 8).total_s
    assert summary.table_seconds is not None and plain < summary.table_seconds < plain + p_alone
    assert summary.condition == CONDITION  # what the claim rests on that the shuffler cannot see
    assert [e["outcome"] for e in summary.exactness] == ["repaired"]
    final = [e for e in person.log if e["op"] == "final"]
    assert len(final) == 1 and sorted(final[0]["pack"]) == list(range(162))


def test_exactness_lost_is_finished_by_a_fresh_exact_routine(virtual_shuffler: VirtualShuffler) -> None:
    """The same slip in the split round: no part to deal again. The pack is
    gathered and goes through a fresh exact routine."""
    summary, voice, person = run_exact(virtual_shuffler, 162, TwoAsOneInRoundOne)
    [lost] = voice.told(notices.ExactLost, reason="exit_count")
    assert lost.where is not None and (lost.where.round, lost.where.of_rounds) == (1, 14)
    assert voice.told(notices.FreshExactRun, rounds=14, passes=15)
    assert steps.Collect(162) in voice.steps_shown
    assert (summary.mode, summary.distance, summary.distance_kind) == (EXACT_AGAIN, 0.0, EXACT_DISTANCE)
    assert (summary.rounds, summary.passes) == (0 + 14, 1 + 15)
    # The time at a real table counts the pass of the routine given up as well as the fresh routine's.
    plain = time_model.timing(es.step for es in device_steps(SAMBA)).total_s
    assert summary.table_seconds is not None and summary.table_seconds > plain + time_model.pass_s(81)
    assert [(e["outcome"], e["then"]) for e in summary.exactness] == \
        [("lost", {"kind": "FreshRoutine", "rounds": 14, "cards": None})]
    final = [e for e in person.log if e["op"] == "final"]
    assert len(final) == 1 and sorted(final[0]["pack"]) == list(range(162))


def test_exactness_lost_is_finished_by_random_rounds_on_request(virtual_shuffler: VirtualShuffler) -> None:
    summary, voice, person = run_exact(virtual_shuffler, 162, TwoAsOneInRoundOne, on_loss="random")
    random_rounds = planlib.rounds_for(162, 104, 0.25)
    [lost] = voice.told(notices.ExactLost)
    assert lost.where is not None and lost.where.round == 1
    assert voice.told(notices.FinishAtRandom, rounds=random_rounds)
    assert summary.mode == EXACT_THEN_RANDOM and summary.distance_kind == AT_MOST
    assert summary.distance == planlib.distance_after(162, 104, random_rounds) <= 0.25
    assert summary.rounds == 0 + random_rounds
    assert summary.passes == 1 + 2 * random_rounds
    assert [(e["outcome"], e["then"]) for e in summary.exactness] == \
        [("lost", {"kind": "RandomFinish", "rounds": random_rounds})]
    final = [e for e in person.log if e["op"] == "final"]
    assert len(final) == 1 and sorted(final[0]["pack"]) == list(range(162))


def test_the_cli_refuses_exact_mode_without_a_device() -> None:
    from click.testing import CliRunner

    from host.commands.guide import guide

    out = CliRunner().invoke(guide, ["--manual", "--mode", "exact"])
    said = stop_words.words(stop_reasons.OptionsRefused(stop_reasons.EXACT_NEEDS_SHUFFLER))
    assert out.exit_code == 2 and said in out.output, out.output
    out = CliRunner().invoke(guide, ["--sim", "--rounds", "3"])
    said = stop_words.words(stop_reasons.OptionsRefused(stop_reasons.ROUNDS_GO_WITH_RANDOM))
    assert out.exit_code == 2 and said in out.output, out.output
    assert "Traceback" not in out.output


class GathersAsPilesTheWrongWay(persons.ScriptedPerson):
    """After the split round the person makes load P with A's right pile
    instead of its left (and Q with the left): P holds another part's cards,
    and its count (A's piles differ in size: 81 is odd) shows it at P's
    first pass."""

    def do(self, step: steps.Step, number: int, round: int | None = None) -> None:
        if (isinstance(step, steps.Stack) and step.parts[0] == steps.left_of("A")
                and not getattr(self, "done_it", False)):
            self.done_it = True
            a_left, a_right = steps.left_of("A"), steps.right_of("A")
            self.table[a_left], self.table[a_right] = self.table[a_right], self.table[a_left]
        super().do(step, number, round)


def test_a_part_made_of_the_wrong_piles_is_not_dealt_again_but_the_routine_starts_afresh(
        virtual_shuffler: VirtualShuffler) -> None:
    """Dealing P again from fresh codes would order the wrong set of cards:
    no repair can mend a part's set, so exactness is lost, said once, and a
    fresh routine follows (once, not the same fix over and over)."""
    summary, voice, person = run_exact(virtual_shuffler, 162, GathersAsPilesTheWrongWay)
    [lost] = voice.told(notices.ExactLost)  # said once
    assert lost.where is not None and lost.where.round == 2
    assert not voice.told(notices.PartDealtAgain)
    assert (summary.mode, summary.distance, summary.distance_kind) == (EXACT_AGAIN, 0.0, EXACT_DISTANCE)
    # Asked first to find P's missing cards (a card dropped would cost nothing); none is found.
    assert [e["outcome"] for e in summary.exactness] == ["kept", "lost"]
    final = [e for e in person.log if e["op"] == "final"]
    assert len(final) == 1 and sorted(final[0]["pack"]) == list(range(162))


class TakesQForP(persons.ScriptedPerson):
    """After the split the person picks up load Q (64 cards) for load P (98):
    a mistake the count catches before the touch."""

    def do(self, step: steps.Step, number: int, round: int | None = None) -> None:
        if isinstance(step, steps.PutInTray) and step.load == "P" and round == 2 and not getattr(self, "done_it", False):
            self.done_it = True
            self.table["P"], self.table["Q"] = self.table["Q"], self.table["P"]
        super().do(step, number, round)


@pytest.mark.touch
def test_loads_of_the_split_taken_for_one_another_are_caught_before_the_touch(virtual_shuffler: VirtualShuffler) -> None:
    summary, voice, person = run_exact(virtual_shuffler, 162, TakesQForP, quality="casual")
    assert voice.told(notices.LoadsSwapped, load="P", want=98, n=64, other="Q")
    assert steps.Swap("P", "Q") in voice.steps_shown
    # Put right before the touch: nothing was dealt from the wrong load, so exactness held.
    assert not voice.told(notices.ExactLost)
    assert (summary.mode, summary.distance) == ("exact", 0.0)
    check_route_record(person.log, SAMBA)


class ResetsBetweenPasses(persons.ScriptedPerson):
    """Round 1 (the split): the shuffler is reset after load A's piles are
    taken out (forgets: its flash had lost the routine first)."""

    device: VirtualShuffler
    forgets = False

    def do(self, step: steps.Step, number: int, round: int | None = None) -> None:
        super().do(step, number, round)
        if isinstance(step, steps.Lift) and round == 1 and step.load == "A" and not getattr(self, "done_it", False):
            self.done_it = True
            if self.forgets:
                (self.device.flash_dir / "exact.json").unlink()
            restart(self.device, self)


class ForgetsAtTheReset(ResetsBetweenPasses):
    forgets = True


class ResetsBeforeAReload(persons.ScriptedPerson):
    """Load P's third pass is over, its piles still on the machine: the
    shuffler is reset before the person puts them back in the tray."""

    device: VirtualShuffler

    def do(self, step: steps.Step, number: int, round: int | None = None) -> None:
        if isinstance(step, steps.Reload) and round == 5 and not getattr(self, "done_it", False):
            self.done_it = True
            restart(self.device, self)
        super().do(step, number, round)


@pytest.mark.parametrize("person_cls, rounds", [
    (ResetsBetweenPasses, {1}),  # after A's pass or at B's load: when heard
    (ResetsBeforeAReload, set(range(1, 15))),  # load P's piles still on the machine
])
@pytest.mark.restart
def test_a_restart_between_passes_keeps_the_exact_routine(virtual_shuffler: VirtualShuffler,
                                                          person_cls: type[persons.ScriptedPerson],
                                                          rounds: set[int]) -> None:
    summary, voice, person = run_exact(virtual_shuffler, 162, person_cls, quality="casual")
    assert [n.where.round for n in voice.told(notices.Restarted) if n.where is not None and n.where.of_rounds == 14
            and n.where.round in rounds]
    assert not voice.told(notices.ExactLost)
    assert (summary.mode, summary.distance) == ("exact", 0.0)
    check_route_record(person.log, SAMBA)


@pytest.mark.restart
def test_a_restart_that_loses_the_codes_is_finished_by_a_fresh_exact_routine(virtual_shuffler: VirtualShuffler) -> None:
    summary, voice, person = run_exact(virtual_shuffler, 162, ForgetsAtTheReset, quality="casual")
    [lost] = voice.told(notices.ExactLost, reason=notices.RESTART)
    assert lost.where is not None and (lost.where.round, lost.where.of_rounds) == (1, 14)
    assert summary.mode == EXACT_AGAIN and summary.distance == 0.0
    final = [e for e in person.log if e["op"] == "final"]
    assert len(final) == 1 and sorted(final[0]["pack"]) == list(range(162))


class PowerCutMidPass(persons.ScriptedPerson):
    """Round 4, load P's third pass: card 31 sticks, and while the person
    looks at it the battery clip comes loose and back (the board restarts);
    the cards stay where they lie. The person then does what the guide asks
    next."""

    device: VirtualShuffler

    def do(self, step: steps.Step, number: int, round: int | None = None) -> None:
        if isinstance(step, steps.Touch) and round == 4 and self.in_tray == "P" and not getattr(self, "armed", False):
            self.armed = True
            self.world.inject("jam", 30, "", "")
        if isinstance(step, steps.Fix) and step.what == "jam" and not getattr(self, "cut", False):
            self.cut = True
            self.world.fix()
            restart(self.device, self)
            return  # no answer: the guide hears the restart from the device
        super().do(step, number, round)


@pytest.mark.restart
def test_a_power_cut_mid_pass_deals_the_rest_exactly(virtual_shuffler: VirtualShuffler) -> None:
    summary, voice, person = run_exact(virtual_shuffler, 162, PowerCutMidPass)
    assert voice.told(notices.Restarted, where=notices.Where(4, 14, "P", 5, 15), dealt=30)
    assert voice.showed(steps.Touch, why="rest", load="P")
    assert not voice.told(notices.ExactLost)
    assert (summary.mode, summary.distance) == ("exact", 0.0)
    check_route_record(person.log, SAMBA)


class MiscutsTheFirstSplit(persons.ScriptedPerson):
    """Cuts the first split 90 / 72 instead of what the device expects."""

    def do(self, step: steps.Step, number: int, round: int | None = None) -> None:
        if isinstance(step, steps.Cut) and step.first:
            step = dataclasses.replace(step, sizes=(90, 162 - 90))
        super().do(step, number, round)


@pytest.mark.touch
def test_a_miscut_first_load_is_put_right_to_the_card_before_the_touch(virtual_shuffler: VirtualShuffler) -> None:
    summary, voice, person = run_exact(virtual_shuffler, 162, MiscutsTheFirstSplit)
    want = [e for e in person.log if e["op"] == "load"][1]  # the load after the correction
    moved = 90 - len(want["ids"])
    assert moved > 0
    [told] = voice.told(notices.LoadToMove, load="A", want=len(want["ids"]), n=90)
    assert told.move == steps.Move(moved, "A", "B", down=True)
    # The count the firmware expects was met, so exactness held to the end.
    assert (summary.mode, summary.distance) == ("exact", 0.0)
    assert not voice.told(notices.ExactLost)
    final = [e for e in person.log if e["op"] == "final"]
    assert sorted(final[0]["pack"]) == list(range(162))


def test_a_device_whose_routine_the_guide_cannot_word_stops_it_in_one_line() -> None:
    """A shuffler that says it runs the split in 9 rounds for Samba (this
    guide plans 14): the guide stops before the first step, in one line."""
    from hosttest_support import FakeShuffler, run_on_fake

    fake = FakeShuffler()

    def answers(dev, req):  # type: ignore[no-untyped-def]
        if req["cmd"] == "exact":
            dev.reply(req, mode="exact", routine={"n": 162, "loads": 2, "uneven": False, "kind": "split", "rounds": 9,
                                                  "next": {"round": 1, "load": "A", "count": 81}})
        else:
            fake._handle(dev, req)
    fake.dev.handler = answers
    plan = planlib.make_plan(planlib.choose_pack("samba", None), 104, "good")
    result, voice, _ = run_on_fake(fake, plan, mode="exact")
    assert isinstance(result, guide_machine.GuideStopped)
    assert "\n" not in str(result)
    reason = result.reason
    assert isinstance(reason, stop_reasons.RoutineUnfit) and reason.cards == plan.cards, result
    assert "9" in reason.detail  # the rounds the shuffler said, which this guide does not plan
    assert not voice.steps_shown  # no step was shown


class DropsACardOffP(persons.ScriptedPerson):
    """Before part P's first pass a card of P falls to the floor; told that P
    is a card short, the person finds it and puts it at P's bottom."""

    def do(self, step: steps.Step, number: int, round: int | None = None) -> None:
        if isinstance(step, steps.PutInTray) and step.load == "P" and not getattr(self, "dropped", None):
            self.dropped = [self.table["P"].pop(40)]
        if isinstance(step, steps.Fix) and step.what == "missing" and getattr(self, "dropped", None):
            self.table["P"] = self.table["P"] + self.dropped
            self.dropped = [None]
        super().do(step, number, round)


def test_a_card_dropped_before_a_parts_first_pass_is_put_back_and_costs_nothing(
        tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Samba: P (98 cards) goes in the tray with 97; the guide has the card
    found and put at P's bottom, and the routine goes on: 15 passes, not a
    fresh routine's 17, exact, and the pack ends as the board's codes (read
    from its random bytes) deal it, each card of P by the code of the place
    it lies in."""
    random_file = tmp_path_factory.mktemp("random") / "random.bin"
    random_file.write_bytes(bytes((i * 167 + 29) % 256 for i in range(8192)))
    monkeypatch.setenv("SHUFFLER_SIM_RANDOM_FILE", str(random_file))
    dev = VirtualShuffler(time_scale=0.0, keep_cards=True)
    build.install_to_dir(build.build_image("sim", tmp_path_factory.mktemp("image")), dev.flash_dir)
    dev.start()
    try:
        summary, voice, person = run_exact(dev, 162, DropsACardOffP)
    finally:
        dev.stop()
    assert voice.told(notices.LoadShort, load="P", want=98, n=97)
    assert not voice.told(notices.ExactLost)
    assert (summary.mode, summary.passes, summary.distance) == ("exact", 15, 0.0)
    assert [e["outcome"] for e in summary.exactness] == ["kept"]
    # What the device dealt, card by card, is the split on the pack as the person laid it.
    final = [e for e in person.log if e["op"] == "final"]
    assert len(final) == 1 and sorted(final[0]["pack"]) == list(range(162))
    loads = [e for e in person.log if e["op"] == "load" and e["load"] == "P"]
    assert len(loads[0]["ids"]) == 97 and len(loads[1]["ids"]) == 98 and loads[1]["ids"][-1] not in loads[0]["ids"]
    data = random_file.read_bytes()
    at = [0]

    def take(k: int) -> bytes:
        at[0] += k
        return data[at[0] - k:at[0]]
    codes = uniform_assignment(162, take)
    # The device's belief: P's stack as the split round left it (the card back at place 41); each card
    # of the load as put back is dealt by the code of the place it lies in.
    dropped = loads[1]["ids"][-1]
    stack = loads[0]["ids"][:40] + [dropped] + loads[0]["ids"][40:]
    dealt_by = {card: codes[stack[i]] for i, card in enumerate(loads[1]["ids"])}
    q = [c for c in range(162) if codes[c] >= 98]
    assert final[0]["pack"] == sorted(dealt_by, key=dealt_by.__getitem__) + sorted(q, key=codes.__getitem__)
