"""The ledger's one wording (host/guide/ledger_words.py): every kind of
entry has its words, made from its record, as the console and the page
show them."""
from __future__ import annotations

import typing

import pytest

from host.guide import ledger as proof
from host.guide import ledger_words
from host.guide import notices

FIRST_PASS = notices.Where(round=1, of_rounds=8, load="A", pass_number=1, of_passes=16)


def test_every_kind_of_entry_has_its_words_in_one_place() -> None:
    assert set(typing.get_args(proof.What)) == set(ledger_words.WHAT)
    assert set(typing.get_args(proof.Then)) == set(ledger_words.THEN)


def test_an_entry_is_worded_where_then_what_then_what_followed() -> None:
    entry = proof.Entry(FIRST_PASS, proof.LoadsTakenForOneAnother("A", "B", 81), proof.KEPT, proof.SwappedBack())
    assert ledger_words.words(entry) == ("round 1 of 8, load A (pass 1 of 16): load A held load B's count (81 cards): "
                                         "the two looked taken for one another; swapped back before either was dealt")
    assert ledger_words.words(proof.Entry(None, proof.PackOff(160, 162), proof.KEPT, proof.FreshRoutine(cards=160))) \
        == "before the first pass: the pack holds 160 cards, not 162; the whole pack of 160 cards went through a fresh " \
           "exact routine"


@pytest.mark.parametrize("entry, words", [
    (proof.Entry(FIRST_PASS, notices.ExactLost(FIRST_PASS, "exit_count"), proof.LOST, proof.FreshRoutine(14)),
     "round 1 of 8, load A (pass 1 of 16): the exit counted one card fewer than the tray held: two cards went "
     "through as one somewhere in the pass; the whole pack went through a fresh exact routine (14 rounds)"),
    (proof.Entry(FIRST_PASS, notices.ExactLost(FIRST_PASS, "exit_count"), proof.LOST, proof.RandomFinish(9)),
     "round 1 of 8, load A (pass 1 of 16): the exit counted one card fewer than the tray held: two cards went "
     "through as one somewhere in the pass; random rounds finished the pack (9 rounds)"),
    (proof.Entry(FIRST_PASS, proof.DeviceContradiction("done_early", (("of", 16), ("passes", 1))), proof.LOST,
                 proof.StoppedThere()),
     "round 1 of 8, load A (pass 1 of 16): the shuffler said its exact routine was done after 1 of its 16 passes; "
     "the guide stopped: nothing is claimed of the pack's order"),
    (proof.Entry(FIRST_PASS, proof.DeviceContradiction("done_rounds", (("now", 1), ("was", 8))), proof.LOST),
     "round 1 of 8, load A (pass 1 of 16): the shuffler said its exact routine of 8 rounds was done after 1 rounds"),
    (proof.Entry(FIRST_PASS, proof.DeviceContradiction("next_rounds", (("now", 12), ("was", 8))), proof.LOST),
     "round 1 of 8, load A (pass 1 of 16): the shuffler's exact routine of 8 rounds became one of 12 rounds"),
    (proof.Entry(FIRST_PASS, proof.LoadOff("B", 81, 82), proof.KEPT, proof.LookedForOtherPack(1)),
     "round 1 of 8, load A (pass 1 of 16): load B held 82 cards, not 81; every card was looked through for 1 card "
     "of another pack"),
])
def test_each_entry_is_worded_from_its_record(entry: proof.Entry, words: str) -> None:
    assert ledger_words.words(entry) == words


def test_an_exact_claim_s_condition_says_what_the_shuffler_cannot_see() -> None:
    assert proof.CONDITION.startswith("if every stack was put together as the steps said")
    assert "(the shuffler counts cards; it cannot see a stack's order)" in proof.CONDITION
