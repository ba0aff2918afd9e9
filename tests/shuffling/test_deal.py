"""The deal question: who gets cards from one gathered meld."""
import itertools

import numpy as np
import pytest

from shuffling.packs import get_pack
from shuffling.quality.deal import check_deal, most_from_one_meld, random_deal_probability
from shuffling.start_orders import after_samba_hand


def test_round_robin_deal_counts_by_player():
    n = 60
    meld = np.full(n, -1)
    meld[[0, 4, 8, 12]] = 0  # every fourth card from the top: all to player 0
    meld[[1, 2, 3]] = 1  # three cards in a row: one each to players 1, 2, 3
    deck = np.arange(n)[None, :]
    assert most_from_one_meld(deck, meld)[0] == 4
    meld[[0, 4, 8, 12]] = -1
    assert most_from_one_meld(deck, meld)[0] == 1


def test_undealt_cards_do_not_count():
    n = 70
    meld = np.full(n, -1)
    meld[60:70] = 0  # the bottom ten cards stay in the stock
    assert most_from_one_meld(np.arange(n)[None, :], meld)[0] == 0


def test_unshuffled_samba_start_deals_a_quarter_of_the_largest_meld():
    # Cards of one meld lie together; dealt round four players, a meld of
    # k cards gives some player ceil(k / 4) of them.
    start = after_samba_hand(get_pack("samba"), 0)
    assert np.flatnonzero(start.meld_of_label >= 0).max() < 60  # all melds are dealt
    largest = max(len(m.cards) for m in start.melds)
    got = most_from_one_meld(np.arange(162)[None, :], start.meld_of_label)[0]
    assert got == -(-largest // 4)


def test_deal_needs_enough_cards():
    with pytest.raises(ValueError, match="60 cards"):
        check_deal(52)
    with pytest.raises(ValueError):
        most_from_one_meld(np.arange(52)[None, :], np.full(52, -1))


def _brute_force(sizes, n, m, players, hand):
    meld = np.full(n, -1)
    at = 0
    for i, size in enumerate(sizes):
        meld[at:at + size] = i
        at += size
    perms = np.array(list(itertools.permutations(range(n))))
    return float(np.mean(most_from_one_meld(perms, meld, players, hand) >= m))


@pytest.mark.parametrize(
    "sizes, n, m, players, hand",
    [([3], 6, 2, 2, 2), ([2, 2], 6, 2, 2, 2), ([3, 2], 7, 2, 3, 2), ([4], 7, 3, 2, 3), ([3, 3], 8, 2, 2, 3)],
)
def test_exact_random_deal_matches_enumeration(sizes, n, m, players, hand):
    assert random_deal_probability(sizes, n, m, players, hand) == pytest.approx(
        _brute_force(sizes, n, m, players, hand), abs=1e-12
    )


def test_exact_random_deal_matches_simulation_for_samba():
    start = after_samba_hand(get_pack("samba"), 0)
    sizes = [len(meld.cards) for meld in start.melds]
    rng = np.random.default_rng(3)
    s = 40000
    most = most_from_one_meld(np.argsort(rng.random((s, 162)), axis=1), start.meld_of_label)
    for m in (3, 4):
        p = float(np.mean(most >= m))
        err = np.sqrt(p * (1 - p) / s)
        assert abs(p - random_deal_probability(sizes, 162, m)) < 4 * err


def test_edge_cases_of_the_exact_figure():
    assert random_deal_probability([7], 162, 0) == 1.0
    assert random_deal_probability([], 162, 1) == pytest.approx(0.0, abs=1e-12)
    assert random_deal_probability([7], 162, 8) == pytest.approx(0.0, abs=1e-12)
    with pytest.raises(ValueError):
        random_deal_probability([100, 100], 162, 3)


def test_exact_random_deal_for_a_big_pack_matches_simulation():
    # Eight decks: big factorials, kept from overflowing by scaling.
    n, sizes = 432, [7] * 30
    meld = np.full(n, -1)
    meld[: sum(sizes)] = np.repeat(np.arange(len(sizes)), sizes)
    rng = np.random.default_rng(8)
    s = 20000
    most = most_from_one_meld(np.argsort(rng.random((s, n)), axis=1), meld)
    p = float(np.mean(most >= 3))
    err = np.sqrt(p * (1 - p) / s)
    assert abs(p - random_deal_probability(sizes, n, 3)) < 4 * err
