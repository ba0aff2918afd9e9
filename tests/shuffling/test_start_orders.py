"""Starting orders: faces, new-deck order and the pack after a hand of Samba."""
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from shuffling.packs import PACKS, get_pack
from shuffling.start_orders import (
    GROUP,
    JOKER,
    MIXED_CANASTA,
    SAMBA,
    SEQUENCE,
    SAMBA_STARTS,
    after_samba_hand,
    new_deck_order,
    pack_faces,
    random_order,
    start_order,
)

MULTI_DECK = sorted(name for name, p in PACKS.items() if p.decks >= 2)


def test_one_deck_faces_are_the_52_distinct_cards():
    faces = pack_faces(get_pack("bridge"))
    cards = set(zip(faces.rank.tolist(), faces.suit.tolist()))
    assert len(cards) == 52
    assert cards == {(r, s) for r in range(2, 15) for s in range(4)}


def test_samba_pack_has_three_of_each_card_and_six_jokers():
    faces = pack_faces(get_pack("samba"))
    counts = Counter(zip(faces.rank.tolist(), faces.suit.tolist()))
    assert counts[(JOKER, -1)] == 6
    assert all(v == 3 for k, v in counts.items() if k != (JOKER, -1))
    assert len(counts) == 53


def test_new_deck_order_top_of_each_deck():
    start = new_deck_order(get_pack("samba"))
    names = [start.faces.name(int(c)) for c in start.face_of_label]
    assert names[:3] == ["AS", "2S", "3S"]
    assert names[13] == "AD" and names[26] == "KC" and names[39] == "KH"
    assert names[51] == "AH" and names[52:54] == ["Jk", "Jk"]
    assert names[54] == "AS"  # the second deck follows the first deck's jokers
    assert np.array_equal(start.face_of_label, np.arange(162))


def test_random_order_is_a_seeded_permutation():
    pack = get_pack("canasta")
    a, b, c = random_order(pack, 1), random_order(pack, 1), random_order(pack, 2)
    assert sorted(a.face_of_label.tolist()) == list(range(108))
    assert np.array_equal(a.face_of_label, b.face_of_label)
    assert not np.array_equal(a.face_of_label, c.face_of_label)


@settings(max_examples=25, deadline=None)
@given(st.sampled_from(MULTI_DECK), st.integers(0, 2**32 - 1))
def test_after_samba_every_card_appears_exactly_once(name, seed):
    pack = get_pack(name)
    start = after_samba_hand(pack, seed)
    assert start.cards == pack.cards
    assert sorted(start.face_of_label.tolist()) == list(range(pack.cards))
    # Sections tile the pack and the melds' cards are where the labels say.
    edges = [(a, b) for _, a, b in start.sections]
    assert edges[0][0] == 0 and edges[-1][1] == pack.cards
    assert all(x[1] == y[0] for x, y in zip(edges, edges[1:]))
    for i, meld in enumerate(start.melds):
        labels = np.flatnonzero(start.meld_of_label == i)
        assert sorted(start.face_of_label[labels].tolist()) == sorted(meld.cards)
        # Gathered meld by meld: one meld's cards lie together.
        assert labels.max() - labels.min() + 1 == len(meld.cards)


@settings(max_examples=25, deadline=None)
@given(st.sampled_from(MULTI_DECK), st.integers(0, 2**32 - 1))
def test_after_samba_melds_follow_the_rules(name, seed):
    start = after_samba_hand(get_pack(name), seed)
    f = start.faces
    kinds = Counter(m.kind for m in start.melds)
    assert kinds[SAMBA] >= 1  # the team that went out holds at least one
    for meld in start.melds:
        ranks = [int(f.rank[c]) for c in meld.cards]
        suits = [int(f.suit[c]) for c in meld.cards]
        wild = [r in (2, JOKER) for r in ranks]
        if meld.kind in (SAMBA, SEQUENCE):
            assert not any(wild) and len(set(suits)) == 1
            assert ranks == list(range(ranks[0], ranks[0] + len(ranks)))
            assert min(ranks) >= 4
            if meld.kind == SAMBA:
                assert len(ranks) == 7 and ranks[0] in SAMBA_STARTS
            else:
                assert 3 <= len(ranks) <= 6
        else:
            naturals = [r for r, w in zip(ranks, wild) if not w]
            n_wild = sum(wild)
            assert len(set(naturals)) == 1 and naturals[0] >= 4
            assert n_wild <= 2 and len(naturals) >= 2 * n_wild
            if meld.kind == GROUP:
                assert 3 <= len(ranks) <= 6
            else:
                assert len(ranks) >= 7
                assert (meld.kind == MIXED_CANASTA) == (n_wild > 0)


def test_after_samba_gathers_melds_then_discards_stock_hands():
    start = after_samba_hand(get_pack("samba"), 7)
    names = [s for s, _, _ in start.sections]
    assert names[0].startswith("team 0")
    order = [n.split()[0] for n in names]
    first = {w: order.index(w) for w in ("discard", "stock", "hand")}
    assert max(i for i, n in enumerate(order) if n == "team") < first["discard"] < first["stock"] < first["hand"]
    assert np.all(start.meld_of_label[: start.sections[0][2]] >= 0)


def test_after_samba_is_reproducible_and_varies_with_seed():
    pack = get_pack("samba")
    a, b = after_samba_hand(pack, 3), after_samba_hand(pack, 3)
    assert np.array_equal(a.face_of_label, b.face_of_label)
    assert not np.array_equal(a.face_of_label, after_samba_hand(pack, 4).face_of_label)


def test_after_samba_needs_two_decks():
    with pytest.raises(ValueError, match="two decks"):
        after_samba_hand(get_pack("bridge"))


def test_start_order_names():
    pack = get_pack("samba")
    assert start_order("new", pack).name == "new"
    assert start_order("samba", pack).melds
    with pytest.raises(ValueError, match="new, samba, random"):
        start_order("sorted", pack)
