"""The compiled and vectorised passes against plain per-card models and exact laws."""
from __future__ import annotations

import itertools
import math
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shuffling.quality.kernels import (
    draw_sides,
    fair_partition,
    identity_decks,
    inverse_riffle,
    inverse_riffle_argsort,
    inverse_riffle_reference,
    partition_by_key_bit,
    partition_span_by_key,
    riffle,
    riffle_reference,
    segmented_partition,
    segmented_partition_sort,
)


def _partition_by_hand(deck: list[int], left: list[bool], bounds: list[int]) -> list[int]:
    out: list[int] = []
    for lo, hi in zip(bounds[:-1], bounds[1:]):
        out += [c for c, s in zip(deck[lo:hi], left[lo:hi]) if s]
        out += [c for c, s in zip(deck[lo:hi], left[lo:hi]) if not s]
    return out


@st.composite
def _partition_case(draw):  # type: ignore[no-untyped-def]
    n = draw(st.integers(1, 40))
    rows = draw(st.integers(1, 5))
    cuts = sorted(draw(st.lists(st.integers(0, n), max_size=4)))
    bounds = [0, *cuts, n]
    sides = draw(st.lists(st.lists(st.booleans(), min_size=n, max_size=n), min_size=rows, max_size=rows))
    seed = draw(st.integers(0, 2**32))
    return n, bounds, sides, seed


@settings(max_examples=60, deadline=None)
@given(_partition_case())
def test_segmented_partition_is_a_stable_partition_per_block(case) -> None:  # type: ignore[no-untyped-def]
    n, bounds, sides, seed = case
    decks = np.argsort(np.random.default_rng(seed).random((len(sides), n)), axis=1).astype(np.int16)
    left = np.array(sides, dtype=bool)
    before = decks.copy()
    out = segmented_partition(decks, left, bounds)
    assert np.array_equal(decks, before)  # input untouched
    for s in range(len(sides)):
        assert out[s].tolist() == _partition_by_hand(decks[s].tolist(), sides[s], bounds)
    assert np.array_equal(segmented_partition_sort(decks, left, bounds), out)


@settings(max_examples=60, deadline=None)
@given(_partition_case())
def test_fair_partition_is_segmented_partition_with_the_same_bits(case) -> None:  # type: ignore[no-untyped-def]
    # Same generator state: the packed sides are draw_sides' sides, bit for bit,
    # for packs of any length (partly filled last bytes) and any blocks.
    n, bounds, sides, seed = case
    decks = np.argsort(np.random.default_rng(seed).random((len(sides), n)), axis=1).astype(np.int16)
    before = decks.copy()
    got = fair_partition(decks, np.random.default_rng(seed), bounds)
    assert np.array_equal(decks, before)
    left = draw_sides(decks.shape, np.random.default_rng(seed))
    assert np.array_equal(got, segmented_partition(decks, left, bounds))
    assert np.array_equal(inverse_riffle(decks, np.random.default_rng(seed)), segmented_partition(decks, left))


def _frequencies_match(counts: Counter, probs: dict, samples: int, z: float = 4.5) -> None:
    keys = set(counts) | set(probs)
    for key in keys:
        p = probs.get(key, 0.0)
        se = math.sqrt(max(p * (1 - p), 1e-12) / samples)
        assert abs(counts.get(key, 0) / samples - p) <= z * se + 1e-12, key


def _exact_inverse_riffle_law(n: int) -> dict:
    law: Counter = Counter()
    for bits in itertools.product((True, False), repeat=n):
        law[tuple([c for c, b in zip(range(n), bits) if b] + [c for c, b in zip(range(n), bits) if not b])] += 1
    return {k: v / 2**n for k, v in law.items()}


def test_inverse_riffle_has_the_exact_law() -> None:
    n, samples = 4, 60000
    rng = np.random.default_rng(11)
    out = inverse_riffle(identity_decks(samples, n), rng)
    _frequencies_match(Counter(map(tuple, out.tolist())), _exact_inverse_riffle_law(n), samples)


def _exact_block_law(n: int, bounds: list[int]) -> dict:
    """Each block [b_i, b_{i+1}) of 0..n-1 inverse-riffled on its own, by enumerating every side."""
    law: Counter = Counter()
    for bits in itertools.product((True, False), repeat=n):
        law[tuple(_partition_by_hand(list(range(n)), list(bits), bounds))] += 1
    return {k: v / 2**n for k, v in law.items()}


def test_fair_partition_by_blocks_has_the_exact_law() -> None:
    # Blocks that straddle a byte of packed sides: 7 cards, then 3.
    n, bounds, samples = 10, [0, 7, 10], 60000
    out = fair_partition(identity_decks(samples, n), np.random.default_rng(14), bounds)
    _frequencies_match(Counter(map(tuple, out.tolist())), _exact_block_law(n, bounds), samples)


def _chi_square_limit(df: int, z: float) -> float:
    """Upper z-sigma point of chi-square with df degrees of freedom (Wilson-Hilferty)."""
    a = 2 / (9 * df)
    return float(df * (1 - a + z * math.sqrt(a)) ** 3)


def _binomial_half(m: int) -> np.ndarray:
    return np.array([math.comb(m, k) / 2**m for k in range(m + 1)])


def test_each_card_of_a_full_pack_lands_by_the_exact_law() -> None:
    # Card i goes left with chance 1/2 and lands below the left cards above it
    # (Binomial(i, 1/2) of them), or right, below every left card and the i
    # cards above it: i + Binomial(N - 1 - i, 1/2).
    n, samples = 162, 20000
    pos = np.argsort(inverse_riffle(identity_decks(samples, n), np.random.default_rng(15)), axis=1)
    for i in range(n):
        law = np.zeros(n)
        law[: i + 1] += 0.5 * _binomial_half(i)
        law[i:] += 0.5 * _binomial_half(n - 1 - i)
        counts = np.bincount(pos[:, i], minlength=n)
        # Pool the unlikely positions so every cell expects at least 5.
        keep = law * samples >= 5
        observed = np.append(counts[keep], counts[~keep].sum())
        expected = np.append(law[keep], law[~keep].sum()) * samples
        if expected[-1] == 0:
            observed, expected = observed[:-1], expected[:-1]
        chi2 = float(((observed - expected) ** 2 / expected).sum())
        # 162 tests at 5 sigma each: a false alarm about once in 20,000 runs.
        assert chi2 <= _chi_square_limit(len(expected) - 1, 5.0), i


@pytest.mark.parametrize("kernel", [inverse_riffle_reference, inverse_riffle_argsort])
def test_reference_inverse_riffles_have_the_exact_law(kernel) -> None:  # type: ignore[no-untyped-def]
    n, samples = 4, 20000
    rng = np.random.default_rng(12)
    out = kernel(identity_decks(samples, n), rng)
    _frequencies_match(Counter(map(tuple, out.tolist())), _exact_inverse_riffle_law(n), samples)


def _exact_riffle_law(n: int) -> dict:
    """GSR riffle: the inverses of the inverse riffle's outcomes, same weights."""
    out = {}
    for perm, p in _exact_inverse_riffle_law(n).items():
        inv = [0] * n
        for pos, card in enumerate(perm):
            inv[card] = pos
        out[tuple(inv)] = out.get(tuple(inv), 0.0) + p
    return out


def test_riffle_and_its_reference_have_the_gsr_law() -> None:
    n, samples = 4, 40000
    law = _exact_riffle_law(n)
    rng = np.random.default_rng(13)
    _frequencies_match(Counter(map(tuple, riffle(identity_decks(samples, n), rng).tolist())), law, samples)
    ref = Counter(tuple(riffle_reference(list(range(n)), rng)) for _ in range(samples // 4))
    _frequencies_match(ref, law, samples // 4)


def test_rows_stay_permutations_and_one_pass_leaves_two_runs() -> None:
    rng = np.random.default_rng(3)
    decks = identity_decks(500, 162)
    out = inverse_riffle(decks, rng, p=0.3, clump=0.2, double_feed=0.05)
    assert np.array_equal(np.sort(out, axis=1), decks)
    # Left cards then right cards, each in starting order: at most one descent.
    assert (np.count_nonzero(out[:, 1:] < out[:, :-1], axis=1) <= 1).all()
    fwd = riffle(decks, rng)
    assert np.array_equal(np.sort(fwd, axis=1), decks)
    pos = np.argsort(fwd, axis=1)
    assert (np.count_nonzero(pos[:, 1:] < pos[:, :-1], axis=1) <= 1).all()


def _same_as_previous_fed(left: np.ndarray, prev_side: bool) -> tuple[int, int]:
    """Among consecutive feeds (card j+1 fed before card j) whose first card had prev_side."""
    fed_first, fed_next = left[:, 1:], left[:, :-1]  # the lower card is fed first
    mask = fed_first == prev_side
    return int(np.count_nonzero(fed_next[mask] == prev_side)), int(np.count_nonzero(mask))


@pytest.mark.parametrize("p,clump,double_feed", [(0.5, 0.3, 0.0), (0.7, 0.2, 0.0), (0.4, 0.0, 0.25), (0.5, 0.0, 0.0)])
def test_clump_and_double_feed_follow_the_stated_law(p: float, clump: float, double_feed: float) -> None:
    rng = np.random.default_rng(21)
    left = draw_sides((4000, 50), rng, p, clump, double_feed)
    q = 1 - (1 - clump) * (1 - double_feed)
    for side, p_side in ((True, p), (False, 1 - p)):
        hits, total = _same_as_previous_fed(left, side)
        expected = q + (1 - q) * p_side
        assert abs(hits / total - expected) <= 4.5 * math.sqrt(expected * (1 - expected) / total)
    # The first card fed (the bottom one) has no previous card: left with probability p.
    first = left[:, -1].mean()
    assert abs(first - p) <= 4.5 * math.sqrt(p * (1 - p) / left.shape[0])


def test_each_load_starts_its_own_chain() -> None:
    rng = np.random.default_rng(5)
    left = draw_sides((20000, 10), rng, 0.5, clump=1.0, bounds=[0, 4, 10])
    # clump 1: every card copies the first card fed in its own pass.
    assert (left[:, :4] == left[:, 3:4]).all() and (left[:, 4:] == left[:, 9:10]).all()
    same = np.mean(left[:, 0] == left[:, 4])
    assert abs(same - 0.5) <= 4.5 * math.sqrt(0.25 / 20000)


@pytest.mark.parametrize("kw", [{"p": 1.5}, {"clump": -0.1}, {"double_feed": 2.0}])
def test_bad_probabilities_are_refused(kw: dict) -> None:
    with pytest.raises(ValueError):
        inverse_riffle(identity_decks(2, 5), np.random.default_rng(0), **kw)


def test_bad_bounds_are_refused() -> None:
    with pytest.raises(ValueError):
        segmented_partition(identity_decks(2, 5), np.ones((2, 5), bool), [0, 3, 4])


@pytest.mark.parametrize("n,bounds", [(3000, [0, 1000, 2000, 3000]), (40000, None), (1, None)])
def test_large_packs_use_wider_keys_correctly(n: int, bounds: list[int] | None) -> None:
    rng = np.random.default_rng(n)
    decks = np.argsort(rng.random((3, n)), axis=1).astype(np.int32)
    left = rng.random((3, n)) < 0.5
    b = [0, n] if bounds is None else bounds
    expected = np.concatenate(
        [np.take_along_axis(decks[:, lo:hi], np.argsort(~left[:, lo:hi], axis=1, kind="stable"), axis=1)
         for lo, hi in zip(b[:-1], b[1:])],
        axis=1,
    )
    assert np.array_equal(segmented_partition(decks, left, bounds), expected)
    assert np.array_equal(segmented_partition_sort(decks, left, bounds), expected)


def test_the_compiled_partition_moves_any_labels_and_the_sort_refuses_them() -> None:
    decks, left = np.array([[7, -5, 1]]), np.array([[False, True, False]])
    assert segmented_partition(decks, left).tolist() == [[-5, 7, 1]]
    # Sides given as numbers count as true or false, whatever the number.
    assert segmented_partition(decks, np.array([[0, 5, 0]])).tolist() == [[-5, 7, 1]]
    with pytest.raises(ValueError, match="labels"):
        segmented_partition_sort(decks, left)


@settings(max_examples=30, deadline=None)
@given(n=st.integers(1, 40), rows=st.integers(1, 4), bits=st.integers(1, 10), seed=st.integers(0, 2**16),
       wide=st.booleans())
def test_partitions_by_key_bits_sort_by_the_low_bits(n: int, rows: int, bits: int, seed: int, wide: bool) -> None:
    rng = np.random.default_rng(seed)
    decks = rng.permuted(identity_decks(rows, n), axis=1)
    keys = rng.integers(0, 2**bits, size=(rows, n)).astype(np.int64 if wide else np.uint16)
    sorted_so_far = identity_decks(rows, n)
    for k in range(bits):
        # One bit: the cards with it clear, in order, then the others, in order (by hand).
        one = partition_by_key_bit(decks, keys, k)
        for row in range(rows):
            order = decks[row].tolist()
            clear = [c for c in order if not keys[row, c] >> k & 1]
            assert one[row].tolist() == clear + [c for c in order if keys[row, c] >> k & 1]
        # Bit after bit: a stable sort by the low k + 1 bits.
        sorted_so_far = partition_by_key_bit(sorted_so_far, keys, k)
        low = keys & ((1 << (k + 1)) - 1)
        assert np.array_equal(sorted_so_far, np.argsort(low, axis=1, kind="stable"))
    assert one.dtype == decks.dtype


def test_partition_by_key_bit_refuses_bad_input() -> None:
    decks = identity_decks(2, 5)
    with pytest.raises(ValueError, match="shape"):
        partition_by_key_bit(decks, np.zeros((2, 4), dtype=np.uint16), 0)
    with pytest.raises(ValueError, match="bit"):
        partition_by_key_bit(decks, np.zeros((2, 5), dtype=np.uint16), 16)
    with pytest.raises(ValueError, match="labels"):
        partition_by_key_bit(decks + 1, np.zeros((2, 5), dtype=np.uint16), 0)
    with pytest.raises(ValueError, match="negative"):
        partition_by_key_bit(decks, np.full((2, 5), -1, dtype=np.int64), 0)


@settings(max_examples=30, deadline=None)
@given(n=st.integers(1, 60), rows=st.integers(1, 4), seed=st.integers(0, 2**16), data=st.data())
def test_partition_span_by_key_moves_only_the_span(n: int, rows: int, seed: int, data: st.DataObject) -> None:
    rng = np.random.default_rng(seed)
    lo = data.draw(st.integers(0, n))
    hi = data.draw(st.integers(lo, n))
    decks = rng.permuted(identity_decks(rows, n), axis=1)
    keys = rng.permuted(identity_decks(rows, n), axis=1).astype(np.int32)  # a code per card
    right = rng.integers(0, 2, size=n).astype(bool)
    out = partition_span_by_key(decks, keys, right, lo, hi)
    for row in range(rows):
        order = decks[row].tolist()
        span = order[lo:hi]
        # By hand: outside the span nothing moves; inside, its left cards then its right cards, each in order.
        left = [c for c in span if not right[keys[row, c]]]
        assert out[row].tolist() == order[:lo] + left + [c for c in span if right[keys[row, c]]] + order[hi:]
    assert out.dtype == decks.dtype


def test_partition_span_by_key_refuses_bad_input() -> None:
    decks = identity_decks(2, 5)
    keys = np.zeros((2, 5), dtype=np.int32)
    with pytest.raises(ValueError, match="shape"):
        partition_span_by_key(decks, keys[:, :4], [False] * 5, 0, 5)
    with pytest.raises(ValueError, match="span"):
        partition_span_by_key(decks, keys, [False] * 5, 3, 2)
    with pytest.raises(ValueError, match="keys"):
        partition_span_by_key(decks, keys + 5, [False] * 5, 0, 5)
