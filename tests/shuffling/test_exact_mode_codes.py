"""The code set, load sizes and the unbiased code draw."""
from __future__ import annotations

import random
import statistics
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shuffling.exact_mode.codes import (
    bit_counts,
    bounded_int,
    code_set,
    cut_plan,
    expected_bytes,
    loads_for_round,
    n_bits,
    n_loads,
    uniform_assignment,
)
from shuffling.exact_mode.uniformity import bounded_int_preimages


@pytest.mark.parametrize("n, b", [(1, 0), (2, 1), (3, 2), (4, 2), (5, 3), (52, 6), (104, 7), (162, 8), (256, 8), (257, 9), (432, 9)])
def test_rounds_needed(n: int, b: int) -> None:
    assert n_bits(n) == b


def test_samba_code_set_is_81_81_at_every_bit() -> None:
    codes = code_set(162, 104)
    assert len(set(codes)) == 162
    assert all(0 <= c < 256 for c in codes)
    assert [bit_counts(codes, r) for r in range(8)] == [(81, 81)] * 8
    assert [loads_for_round(162, 104, codes, r) for r in range(8)] == [[81, 81]] * 8


packs = st.integers(min_value=1, max_value=500).flatmap(
    lambda n: st.tuples(st.just(n), st.integers(min_value=max(2, -(-n // 5)), max_value=n + 5))
)


@given(packs)
@settings(max_examples=150, deadline=None)
def test_code_set_distinct_balanced_and_loads_fit(pack: tuple[int, int]) -> None:
    n, cap = pack
    codes = code_set(n, cap)
    b = n_bits(n)
    assert len(codes) == n and len(set(codes)) == n
    assert all(0 <= c < (1 << b) for c in codes)
    for r in range(b):
        zeros, ones = bit_counts(codes, r)
        assert abs(zeros - ones) <= 1
    for r in range(b):
        sizes = loads_for_round(n, cap, codes, r)
        assert sum(sizes) == n
        assert len(sizes) == n_loads(n, cap)
        assert max(sizes) <= cap
        if r >= 1 and len(sizes) >= 3:
            plan = cut_plan(n, cap, codes, r)
            assert [a + b_ for a, b_ in plan] == sizes
            assert sum(a for a, _ in plan) == bit_counts(codes, r - 1)[0]
            # the left stack is used up before the right stack is touched
            straddles = [i for i, (a, b_) in enumerate(plan) if a and b_]
            assert len(straddles) <= 1


def test_bad_packs_are_refused() -> None:
    with pytest.raises(ValueError):
        n_bits(0)
    with pytest.raises(ValueError):
        n_loads(10, 0)
    with pytest.raises(ValueError):
        loads_for_round(4, 2, [0, 1, 2], 0)


@pytest.mark.parametrize("m", [1, 2, 3, 5, 7, 81, 100, 162, 255, 256, 257, 432])
def test_bounded_int_every_value_has_the_same_number_of_byte_strings(m: int) -> None:
    counts, rejected = bounded_int_preimages(m)
    span = 256 if m <= 256 else 65536
    assert len(set(counts)) == 1
    assert counts[0] * m + rejected == span
    assert rejected < m  # the rejection zone is smaller than one full block


def test_uniform_assignment_is_an_arrangement_of_the_codes() -> None:
    rng = random.Random(5)
    codes = code_set(162, 104)
    out = uniform_assignment(162, rng.randbytes, codes)
    assert sorted(out) == codes
    with pytest.raises(ValueError):
        uniform_assignment(3, rng.randbytes, [0, 1])


def test_expected_bytes_small_cases_by_hand() -> None:
    assert expected_bytes(1) == 0
    assert expected_bytes(2) == 1  # one draw in [0, 2): 256 is even, never rejected
    assert expected_bytes(3) == 1 + Fraction(256, 255)  # [0, 3) rejects byte 255


def test_expected_bytes_matches_the_count_within_error() -> None:
    rng = random.Random(11)
    used: list[int] = []
    for _ in range(400):
        total = 0

        def source(k: int) -> bytes:
            nonlocal total
            total += k
            return rng.randbytes(k)

        uniform_assignment(162, source)
        used.append(total)
    mean = statistics.fmean(used)
    se = statistics.stdev(used) / len(used) ** 0.5
    assert abs(mean - float(expected_bytes(162))) < 4 * se + 1e-9


def test_bounded_int_reports_bytes_used() -> None:
    script = iter([bytes([255]), bytes([255]), bytes([4])])
    value, used = bounded_int(3, lambda k: next(script))
    assert (value, used) == (1, 3)


@given(packs)
@settings(max_examples=150, deadline=None)
def test_uneven_code_sets_never_split_a_bit_evenly(pack: tuple[int, int]) -> None:
    n, cap = pack
    try:
        codes = code_set(n, cap, uneven=True)
    except ValueError:
        return  # too few cards or bits, or no room under the capacity: refused in words
    b = n_bits(n)
    assert len(set(codes)) == n and all(0 <= c < (1 << b) for c in codes)
    for r in range(b):
        zeros, ones = bit_counts(codes, r)
        assert ones - zeros in (1, 2, 4)
        if n % 2 == 0:
            assert zeros % 2 == 1 and ones % 2 == 1  # odd loads never split into equal piles
        if n_loads(n, cap) == 2:
            assert ones <= cap


def test_uneven_samba_set_and_refusals() -> None:
    codes = code_set(162, 104, uneven=True)
    assert [bit_counts(codes, r) for r in range(8)] == [(79, 83)] * 8
    with pytest.raises(ValueError):
        code_set(208, 104, uneven=True)  # 104 : 104 is the only split that fits
    with pytest.raises(ValueError):
        code_set(4, 4, uneven=True)
