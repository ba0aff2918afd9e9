"""The pack is a fact (docs/guide.md, "What the guide believes"): a person
whose pack is two short (160 for Samba) is asked once for the missing cards
and the pack is then dealt as the pack it is, never in a loop; a card of
another pack in it is looked for as one (never "a card went missing"), and
the summary says what became of every card set apart. Judged by what the
person's table holds at the end, never by the guide's own account."""
from __future__ import annotations

from typing import Any

import pytest

from firmware import protocol
from host import guide as guide_machine
from host.guide import notices
from host import person as persons
from host import plan as planlib
from hosttest_support import ON_VIRTUAL, FakeShuffler, run_guided, run_on_fake
from shuffling import steps as step_kinds

FOREIGN = "another pack's card"


def samba(rounds: int | None = 2) -> planlib.Plan:
    return planlib.make_plan(planlib.choose_pack("samba", None), 104, "good", rounds=rounds)


class TwoShort(persons.ScriptedPerson):
    """Cuts the pack as told, and two cards of it were never there: load B
    is two short. Asked for them, looks and finds none. Would not gather
    the pack more than twice (a guide asking again and again loses them)."""

    def __init__(self, world: Any, cards: int, **kw: Any) -> None:
        super().__init__(world, cards, **kw)
        self.collects = 0

    def do(self, step: step_kinds.Step, number: int, round: int | None = None) -> None:
        if isinstance(step, step_kinds.Collect):
            self.collects += 1
            if self.collects > 2:
                raise persons.PersonGaveUp("asked to gather the pack a third time")
        super().do(step, number, round)
        if isinstance(step, step_kinds.Cut) and step.first and self.collects == 0 and not getattr(self, "cut", False):
            self.cut = True
            self.table["B"] = self.table["B"][:-2]  # the pack held 160


class ForeignOnA(persons.ScriptedPerson):
    """A card of another pack lies on top of load A after the cut."""

    def do(self, step: step_kinds.Step, number: int, round: int | None = None) -> None:
        super().do(step, number, round)
        if isinstance(step, step_kinds.Cut) and step.first and not getattr(self, "cut", False):
            self.cut = True
            self.table["A"] = [FOREIGN] + self.table["A"]


class ForeignOnB(ForeignOnA):
    def do(self, step: step_kinds.Step, number: int, round: int | None = None) -> None:
        persons.ScriptedPerson.do(self, step, number, round)
        if isinstance(step, step_kinds.Cut) and step.first and not getattr(self, "cut", False):
            self.cut = True
            self.table["B"] = self.table["B"] + [FOREIGN]


def final_pack(person: persons.ScriptedPerson) -> list[Any]:
    return [e for e in person.log if e["op"] == "final"][-1]["pack"]


def test_a_pack_two_short_is_asked_for_once_then_dealt_as_the_pack_it_is() -> None:
    fake = FakeShuffler()
    person = TwoShort(fake, 162)
    result, voice, _ = run_on_fake(fake, samba(), person=person)
    assert isinstance(result, guide_machine.Summary), voice.text
    assert [n.want - n.n for n in voice.told(notices.LoadShort)] == [2]
    assert len(voice.told(notices.PackHolds, held=160, game=162)) == 1
    assert result.loads == [[81, 79], [80, 80]] and result.cards == 160
    assert notices.PackHolds(160, 162, fresh=False) in result.notes
    pack = final_pack(person)
    assert len(pack) == len(set(pack)) == 160 and set(pack) < set(range(162))


def test_a_card_of_another_pack_is_looked_for_as_one_and_named_in_the_summary() -> None:
    fake = FakeShuffler()
    person = ForeignOnB(fake, 162)
    result, voice, _ = run_on_fake(fake, samba(), person=person)
    assert isinstance(result, guide_machine.Summary), voice.text
    assert voice.told(notices.OtherPackCard, load="B", want=81, n=82)
    assert voice.showed(step_kinds.Fix, what="foreign", cards=1, load="B")
    assert not voice.told(notices.LoadShort) and not voice.told(notices.LoadLong)  # not a card gone, nor too many
    assert not voice.showed(step_kinds.Fix, what="extra")  # never a genuine card set apart
    assert getattr(person, "kept_apart", []) == [FOREIGN]
    assert sorted(final_pack(person)) == list(range(162))
    assert notices.OtherPackKeptApart(1) in result.notes
    assert result.loads == [[81, 81], [81, 81]]


class LateWordOfTheCancel:
    """The device's link, but the loss a cancel brings (said after the
    cancel's answer) comes only once a fresh routine has begun: as from a
    device slow to write its flash on a busy machine."""

    def __init__(self, link: Any) -> None:
        self.link, self.held, self.fresh_begun = link, [], False

    def __getattr__(self, name: str) -> Any:
        return getattr(self.link, name)

    def request(self, cmd: str, timeout: float | None = None, **fields: Any) -> Any:
        reply = self.link.request(cmd, timeout=timeout, **fields)
        self.fresh_begun |= cmd == protocol.CMD_EXACT and "n" in fields and bool(self.held)
        return reply

    def next_event(self, timeout: float) -> Any:
        if self.fresh_begun and self.held:
            return self.held.pop(0)
        ev = self.link.next_event(timeout)
        if isinstance(ev, dict) and ev.get(protocol.F_EV) == protocol.EV_EXACT_LOST \
                and ev.get("code") == protocol.LOST_CANCELLED and not self.fresh_begun:
            self.held.append(ev)
            return None
        return ev


@pytest.mark.micropython
@pytest.mark.exact_mode
@pytest.mark.parametrize("word", ["in time", "late"])
def test_in_exact_mode_a_pack_two_short_gets_a_routine_for_the_pack_it_is(virtual_shuffler: Any, word: str) -> None:
    late = LateWordOfTheCancel if word == "late" else None
    summary, voice, person = run_guided(virtual_shuffler, samba(None), TwoShort, ON_VIRTUAL.vary(mode="exact"),
                                        link_as=late)
    assert [n.want - n.n for n in voice.told(notices.LoadShort)] == [2]
    assert len(voice.told(notices.PackHolds, held=160, game=162)) == 1
    assert not voice.told(notices.ExactLost)
    assert (summary.mode, summary.distance, summary.cards) == ("exact, started again", 0.0, 160)
    assert person.collects == 1
    assert len(final_pack(person)) == 160 and len(set(final_pack(person))) == 160


@pytest.mark.micropython
@pytest.mark.exact_mode
def test_in_exact_mode_a_card_of_another_pack_is_looked_for_in_the_whole_pack(virtual_shuffler: Any) -> None:
    summary, voice, person = run_guided(virtual_shuffler, samba(None), ForeignOnA, ON_VIRTUAL.vary(mode="exact"))
    assert [n.n - n.want for n in voice.told(notices.OtherPackCard)] == [1]
    assert not voice.told(notices.ExactLost) and not voice.told(notices.LoadShort)  # not a card gone
    assert not voice.showed(step_kinds.Fix, what="extra")  # never a genuine card set apart
    assert getattr(person, "kept_apart", []) == [FOREIGN]
    assert sorted(final_pack(person)) == list(range(162))
    assert notices.OtherPackKeptApart(1) in summary.notes
    assert (summary.distance, summary.cards) == (0.0, 162)
    assert any(e["outcome"] == "kept" and e["then"]["kind"] == "LookedForOtherPack" for e in summary.exactness)
