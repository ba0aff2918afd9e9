"""The ledger's one wording (host/guide/ledger_words.py): every kind of
entry has its words, made from its record, as the console and the page
show them."""
from __future__ import annotations

import typing

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
