"""Exact riffle distances against brute-force enumeration and published values."""
from __future__ import annotations

import itertools
import math
from collections import Counter
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shuffling.quality.riffle_distance import (
    counting_bound,
    eulerian_row,
    riffle_probability,
    succession_counts,
    tv_riffle,
    tv_riffle_exact,
)


def _tv(counts: Counter, total: int, n: int) -> Fraction:
    nf = math.factorial(n)
    seen = sum(abs(Fraction(c, total) - Fraction(1, nf)) for c in counts.values())
    unseen = (nf - len(counts)) * Fraction(1, nf)
    return (seen + unseen) / 2


def _inverse_riffles(n: int, k: int) -> Counter:
    """Law of k inverse riffles: every one of the 2**(k n) side choices, one at a time."""
    law: Counter = Counter()
    for bits in itertools.product((0, 1), repeat=k * n):
        deck = tuple(range(n))
        for r in range(k):
            side = bits[r * n : (r + 1) * n]
            deck = tuple(c for c, b in zip(deck, side) if b == 0) + tuple(c for c, b in zip(deck, side) if b == 1)
        law[deck] += 1
    return law


def _a_shuffles(n: int, a: int) -> Counter:
    """Law of a forward a-shuffle: each of the a**n packet sequences over final positions."""
    law: Counter = Counter()
    for packet_of_pos in itertools.product(range(a), repeat=n):
        sizes = [packet_of_pos.count(j) for j in range(a)]
        starts = [sum(sizes[:j]) for j in range(a)]
        out = []
        for j in packet_of_pos:
            out.append(starts[j])
            starts[j] += 1
        law[tuple(out)] += 1
    return law


def _inverse(perm: tuple[int, ...]) -> tuple[int, ...]:
    inv = [0] * len(perm)
    for pos, card in enumerate(perm):
        inv[card] = pos
    return tuple(inv)


@pytest.mark.parametrize("n,k", [(1, 1), (2, 1), (3, 2), (4, 2), (5, 2), (6, 1), (6, 2), (7, 1), (4, 3), (5, 3)])
def test_formula_matches_all_inverse_riffle_outcomes(n: int, k: int) -> None:
    law = _inverse_riffles(n, k)
    assert _tv(law, 2 ** (k * n), n) == tv_riffle_exact(n, k)


@pytest.mark.parametrize("n,k", [(3, 1), (5, 1), (5, 2), (6, 2), (7, 1), (7, 2)])
def test_forward_and_inverse_have_the_same_distance(n: int, k: int) -> None:
    a = 2**k
    forward = _a_shuffles(n, a)
    total = a**n
    assert _tv(forward, total, n) == tv_riffle_exact(n, k)
    # The law of the inverses of a forward a-shuffle is the law of k inverse riffles.
    inverted = Counter({_inverse(p): c for p, c in forward.items()})
    if k * n <= 14:
        assert inverted == _inverse_riffles(n, k)
    assert _tv(inverted, total, n) == _tv(forward, total, n)


@pytest.mark.parametrize("n,a", [(4, 2), (5, 4), (6, 2), (6, 3)])
def test_probability_depends_on_rising_sequences_only(n: int, a: int) -> None:
    law = _a_shuffles(n, a)
    for perm in itertools.permutations(range(n)):
        pos = _inverse(perm)
        r = 1 + sum(pos[i + 1] < pos[i] for i in range(n - 1))
        assert Fraction(law.get(perm, 0), a**n) == riffle_probability(n, a, r)


def test_published_values_for_52_cards() -> None:
    # Bayer & Diaconis (1992), Table 1: riffles 5..10 of a 52-card deck.
    published = {5: 0.924, 6: 0.614, 7: 0.334, 8: 0.167, 9: 0.085, 10: 0.043}
    for k, v in published.items():
        assert tv_riffle(52, k) == pytest.approx(v, abs=0.0005)
    assert tv_riffle(52, 4) == pytest.approx(1.0, abs=1e-3)


@pytest.mark.parametrize("n", range(1, 8))
def test_eulerian_and_succession_counts_match_enumeration(n: int) -> None:
    descents: Counter = Counter()
    successions: Counter = Counter()
    for perm in itertools.permutations(range(n)):
        descents[sum(perm[j] > perm[j + 1] for j in range(n - 1))] += 1
        successions[sum(perm[j + 1] == perm[j] + 1 for j in range(n - 1))] += 1
    assert list(eulerian_row(n)) == [descents[d] for d in range(n)]
    assert list(succession_counts(n)) == [successions[s] for s in range(n)]


def _eulerian_explicit(n: int, d: int, powers: list[int], binom: list[int]) -> int:
    """A(n, d) by the alternating sum over j of (-1)^j C(n+1, j) (d+1-j)^n, not the recurrence."""
    return sum((-1) ** j * binom[j] * powers[d + 1 - j] for j in range(d + 2))


def _tv_log_space(n: int, ks: list[int]) -> dict[int, float]:
    """TV after k riffles in floating point: each rising-sequence class's probability
    under the shuffle and under the uniform law, from logarithms, then half the
    sum of their absolute differences (no early stop at the crossing)."""
    powers = [i**n for i in range(n + 2)]
    binom = [math.comb(n + 1, j) for j in range(n + 2)]
    half = [_eulerian_explicit(n, d, powers, binom) for d in range((n + 1) // 2)]
    counts = half + half[: n - len(half)][::-1]  # A(n, d) = A(n, n-1-d)
    log_a = [math.log(c) for c in counts]
    log_nf = math.lgamma(n + 1)
    out = {}
    for k in ks:
        a = 2**k
        total = 0.0
        for r in range(1, n + 1):
            uniform = math.exp(log_a[r - 1] - log_nf)
            # C(a + n - r, n) / a^n, which is 0 once r > a.
            shuffled = 0.0 if r > a else math.exp(
                log_a[r - 1] + math.lgamma(a + n - r + 1) - math.lgamma(a - r + 1) - log_nf - n * math.log(a))
            total += abs(shuffled - uniform)
        out[k] = total / 2
    return out


def test_large_pack_against_an_independent_calculation() -> None:
    row = eulerian_row(300)
    assert sum(row) == math.factorial(300)
    n = 1000
    independent = _tv_log_space(n, [9, 11, 12, 13, 16, 20])
    for k, v in independent.items():
        assert tv_riffle(n, k) == pytest.approx(v, rel=1e-6), k  # lgamma of 2**20 limits the float


def test_large_pack_against_the_asymptotic_law() -> None:
    # Bayer and Diaconis: after k = (3/2) log2 n + c riffles the distance tends to
    # 1 - 2 Phi(-2^-c / (4 sqrt 3)); at a thousand cards it is within 0.001 of it.
    n = 1000
    for k in range(10, 21):
        c = k - 1.5 * math.log2(n)
        x = 2.0**-c / (4 * math.sqrt(3))
        limit = 1 - math.erfc(x / math.sqrt(2))  # 1 - 2 Phi(-x)
        assert tv_riffle(n, k) == pytest.approx(limit, abs=0.002), k


@settings(max_examples=30, deadline=None)
@given(n=st.integers(1, 60), k=st.integers(0, 14))
def test_distance_falls_with_more_riffles(n: int, k: int) -> None:
    assert tv_riffle_exact(n, k + 1) <= tv_riffle_exact(n, k)
    assert tv_riffle_exact(n, 0) == 1 - Fraction(1, math.factorial(n))


@settings(max_examples=30, deadline=None)
@given(n=st.integers(2, 40), k=st.integers(0, 6))
def test_counting_bound_is_below_the_exact_distance(n: int, k: int) -> None:
    # k inverse riffles use k n fair bits.
    assert counting_bound(n, k * n) <= tv_riffle(n, k) + 1e-12


def test_counting_bound_values() -> None:
    assert counting_bound(4, 4) == pytest.approx(1 - 16 / 24)
    assert counting_bound(4, 5) == 0.0
    assert counting_bound(162, 5 * 162) == 1.0  # 2**810 is a vanishing share of 162!
    assert counting_bound(162, 6 * 162) == 0.0


@pytest.mark.parametrize("bad", [0, -3, 2.5, True])
def test_bad_input_raises_value_error(bad: object) -> None:
    with pytest.raises(ValueError):
        tv_riffle_exact(bad, 1)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        counting_bound(bad, 3)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        tv_riffle_exact(5, -1)
