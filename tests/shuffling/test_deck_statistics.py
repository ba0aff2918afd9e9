"""The compiled per-pack statistics against plain models of each statistic."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shuffling.quality import deck_statistics
from shuffling.quality.guessing import guess_scores_reference, guess_scores_vectorised
from shuffling.quality.kernels import identity_decks, inverse_riffle


def _packs(n: int, rows: int, seed: int) -> list[np.ndarray]:
    """Uniform packs, packs after 1 to 4 inverse riffles, and the two fixed orders."""
    rng = np.random.default_rng(seed)
    out = [rng.permuted(identity_decks(rows, n), axis=1), identity_decks(2, n), identity_decks(2, n)[:, ::-1]]
    decks = identity_decks(rows, n)
    for _ in range(4):
        decks = inverse_riffle(decks, rng)
        out.append(decks)
    return out


@pytest.mark.parametrize("n", [1, 2, 63, 64, 65, 128, 162, 200])
def test_guess_scores_match_the_whole_array_version(n: int) -> None:
    # Sizes around whole 64-bit words of the unseen-card set.
    for decks in _packs(n, 300, n):
        assert np.array_equal(deck_statistics.guess_scores(decks), guess_scores_vectorised(decks))


@settings(max_examples=40, deadline=None)
@given(st.integers(60, 200).flatmap(lambda n: st.permutations(list(range(n)))))
def test_guess_scores_match_the_card_by_card_strategy(deck: list[int]) -> None:
    assert deck_statistics.guess_scores(np.array([deck]))[0] == guess_scores_reference(deck)


def _histograms_by_hand(decks: np.ndarray, first: int, parts: int) -> tuple[np.ndarray, np.ndarray]:
    s, n = decks.shape
    counts = np.zeros((len(deck_statistics.HISTOGRAMS), parts, n), dtype=np.int64)
    table = np.zeros((parts, n * n), dtype=np.int64)
    for r, deck in enumerate(decks.tolist()):
        part = (first + r) % parts
        pos = [0] * n
        for j, c in enumerate(deck):
            pos[c] = j
        values = (
            sum(deck[j] > deck[j + 1] for j in range(n - 1)),
            sum(pos[c + 1] < pos[c] for c in range(n - 1)),  # rising sequences - 1
            sum(deck[j + 1] == deck[j] + 1 for j in range(n - 1)),
            pos[0],
            pos[n - 1],
        )
        for k, v in enumerate(values):
            counts[k, part, v] += 1
        for c in range(n):
            table[part, c * n + pos[c]] += 1
    return counts, table


@pytest.mark.parametrize("n,first", [(2, 0), (9, 3), (162, 6)])
def test_histograms_match_a_card_by_card_count(n: int, first: int) -> None:
    counts = np.zeros((len(deck_statistics.HISTOGRAMS), 4, n), dtype=np.int64)
    table = np.zeros((4, n * n), dtype=np.int64)
    no_table = np.zeros((4, 0), dtype=np.int64)
    want_counts = np.zeros_like(counts)
    want_table = np.zeros_like(table)
    for decks in _packs(n, 50, n):
        deck_statistics.add_histograms(decks, first, counts, table)
        c, t = _histograms_by_hand(decks, first, 4)
        want_counts += c
        want_table += t
    assert np.array_equal(counts, want_counts) and np.array_equal(table, want_table)
    alone = np.zeros_like(counts)
    for decks in _packs(n, 50, n):
        deck_statistics.add_histograms(decks, first, alone, no_table)
    assert np.array_equal(alone, counts)


def _most_by_hand(deck: list[int], meld_of_label: np.ndarray, players: int, hand: int) -> int:
    got: dict[tuple[int, int], int] = {}
    for i, label in enumerate(deck[: players * hand]):
        m = int(meld_of_label[label])
        if m >= 0:
            got[i % players, m] = got.get((i % players, m), 0) + 1
    return max(got.values(), default=0)


@pytest.mark.parametrize("players,hand", [(4, 15), (3, 7), (1, 162)])
def test_most_from_one_meld_matches_a_card_by_card_deal(players: int, hand: int) -> None:
    rng = np.random.default_rng(players)
    meld_of_label = rng.integers(-1, 12, 162)
    for decks in _packs(162, 100, hand):
        want = [_most_by_hand(row, meld_of_label, players, hand) for row in decks.tolist()]
        assert deck_statistics.most_from_one_meld(decks, meld_of_label, players, hand).tolist() == want


@pytest.mark.parametrize("bad", [-1, 5])
def test_labels_outside_the_pack_are_refused_before_anything_counts(bad: int) -> None:
    decks = np.array([[0, 1, 2, 3, 4], [0, 1, bad, 3, 4]])
    counts = np.zeros((len(deck_statistics.HISTOGRAMS), 4, 5), dtype=np.int64)
    with pytest.raises(ValueError, match="labels"):
        deck_statistics.add_histograms(decks, 0, counts, np.zeros((4, 25), dtype=np.int64))
    assert not counts.any()
    with pytest.raises(ValueError, match="labels"):
        deck_statistics.guess_scores(decks)
    with pytest.raises(ValueError, match="labels"):
        deck_statistics.most_from_one_meld(decks, np.zeros(5, dtype=np.intp), 1, 5)
