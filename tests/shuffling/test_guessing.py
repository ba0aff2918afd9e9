"""The guessing game: vectorised scores against the card-by-card strategy."""
import numpy as np
from hypothesis import given, settings, strategies as st

from shuffling.quality.guessing import guess_scores, guess_scores_reference, guess_scores_vectorised, harmonic


def test_harmonic_numbers():
    assert harmonic(1) == 1.0
    assert abs(harmonic(4) - 25 / 12) < 1e-15
    assert abs(harmonic(1000) - (np.log(1000) + 0.5772156649 + 1 / 2000)) < 1e-6


@st.composite
def decks(draw):
    """Permutations, often built as a few increasing runs like inverse riffles make."""
    n = draw(st.integers(1, 40))
    perm = draw(st.permutations(list(range(n))))
    cuts = sorted(draw(st.lists(st.integers(0, n), max_size=4)))
    if draw(st.booleans()):
        perm = [x for part in np.split(np.array(perm), cuts) for x in sorted(part.tolist())]
    return np.array(perm)


@settings(max_examples=300, deadline=None)
@given(decks())
def test_vectorised_scores_match_the_card_by_card_strategy(deck):
    assert guess_scores(deck[None, :])[0] == guess_scores_reference(deck)


def test_batches_and_chunks_agree_with_single_rows(monkeypatch):
    from shuffling.quality import guessing

    monkeypatch.setattr(guessing, "_TABLE_ELEMENTS", 7 * 60 * 6)  # chunks of 6 rows
    rng = np.random.default_rng(5)
    batch = np.array([np.concatenate([np.sort(p) for p in np.split(rng.permutation(60), [20, 45])])
                      for _ in range(50)])
    expected = [guess_scores_reference(row) for row in batch]
    assert guess_scores_vectorised(batch).tolist() == expected
    assert guess_scores(batch).tolist() == expected


def test_unshuffled_pack_scores_every_card():
    n = 162
    assert guess_scores(np.arange(n)[None, :])[0] == n


def test_reversed_pack_scores_only_the_last_card():
    # Each guess names the smallest unseen card; only the last card (label 0) is it.
    assert guess_scores(np.arange(52)[::-1][None, :])[0] == 1


def test_uniform_packs_score_harmonic_number():
    rng = np.random.default_rng(11)
    n, s = 52, 20000
    scores = guess_scores(np.argsort(rng.random((s, n)), axis=1))
    mean, err = scores.mean(), scores.std(ddof=1) / np.sqrt(s)
    assert abs(mean - harmonic(n)) < 4 * err


def test_one_inverse_riffle_scores_three_quarters_of_the_pack():
    # One inverse riffle: the cards with bit 0 in order (Z), then those with
    # bit 1 (O). The strategy is right on the first card when 0 is in Z, on
    # each Z card that directly follows its predecessor label (N-1 pairs, each
    # with chance 1/4), at the change from Z to O when N-1 is in Z (chance
    # 1/2), and on every O card after the first: 1/2 + (N-1)/4 + 1/2 + N/2 - 1
    # = 3N/4 - 1/4, up to terms of order N 2^-N.
    rng = np.random.default_rng(2)
    n, s = 52, 20000
    bits = rng.integers(0, 2, (s, n))
    batch = np.argsort(bits, axis=1, kind="stable")
    scores = guess_scores(batch)
    err = scores.std(ddof=1) / np.sqrt(s)
    assert abs(scores.mean() - (3 * n / 4 - 1 / 4)) < 4 * err
