"""Exact distances from uniform for riffle shuffles (Bayer & Diaconis 1992).

After an a-shuffle (k GSR riffles give a = 2**k) of n cards, an arrangement
with r rising sequences has probability C(a + n - r, n) / a**n, and exactly
A(n, r - 1) arrangements have r rising sequences (Eulerian numbers). The
total variation distance from uniform is therefore a sum over r alone.

The machine's pass is an inverse riffle. Inversion is a bijection of the
symmetric group that fixes the uniform distribution, so the law of the
inverse has the same distance: TV(k inverse riffles) = TV(k riffles).
"""
from __future__ import annotations

import math
from fractions import Fraction
from functools import lru_cache

__all__ = [
    "eulerian_row",
    "succession_counts",
    "riffle_probability",
    "tv_riffle_exact",
    "tv_riffle",
    "counting_bound",
]

# The last Eulerian row built, so rising n reuses the work done for smaller n.
_last_row: tuple[int, tuple[int, ...]] = (1, (1,))


def _check_n(n: int) -> None:
    if not isinstance(n, int) or isinstance(n, bool) or n < 1:
        raise ValueError(f"number of cards must be a positive integer, not {n!r}")


@lru_cache(maxsize=16, typed=True)
def eulerian_row(n: int) -> tuple[int, ...]:
    """A(n, d) for d = 0..n-1: permutations of n with d descents (= d + 1 rising sequences)."""
    global _last_row
    _check_n(n)
    start, row = _last_row if _last_row[0] <= n else (1, (1,))
    cur = list(row)
    for m in range(start + 1, n + 1):
        # A(m, d) = (d + 1) A(m-1, d) + (m - d) A(m-1, d-1), A(m, 0) = 1, and
        # the row is symmetric, A(m, d) = A(m, m-1-d): build the first half, mirror it.
        first = [1] + [(d + 1) * cur[d] + (m - d) * cur[d - 1] for d in range(1, (m + 1) // 2)]
        cur = first + first[: m - len(first)][::-1]
    result = tuple(cur)
    if n >= _last_row[0]:
        _last_row = (n, result)
    return result


@lru_cache(maxsize=16, typed=True)
def succession_counts(n: int) -> tuple[int, ...]:
    """Permutations of n (as decks) with exactly s successions, s = 0..n-1.

    A succession is a card immediately followed by the next card of the
    starting order (label i directly above label i + 1). The count is
    C(n-1, s) * D(n-1-s), where D(m) = m D(m-1) + (m-1) D(m-2), D(0) = D(1) = 1,
    counts permutations of m + 1 with no succession.
    """
    _check_n(n)
    d = [1, 1]
    for m in range(2, n):
        d.append(m * d[m - 1] + (m - 1) * d[m - 2])
    return tuple(math.comb(n - 1, s) * d[n - 1 - s] for s in range(n))


def _check_k(k: int) -> None:
    if not isinstance(k, int) or isinstance(k, bool) or k < 0:
        raise ValueError(f"number of riffles must be a non-negative integer, not {k!r}")


def riffle_probability(n: int, a: int, r: int) -> Fraction:
    """Probability of one given arrangement with r rising sequences after an a-shuffle."""
    return Fraction(math.comb(a + n - r, n), a**n)


@lru_cache(maxsize=4096, typed=True)
def tv_riffle_exact(n: int, k: int) -> Fraction:
    """Exact TV distance from uniform after k GSR riffles (or k inverse riffles) of n cards."""
    _check_n(n)
    _check_k(k)
    a = 2**k
    row = eulerian_row(n)
    nfact = math.factorial(n)
    an = a**n
    # sum over r of A(n, r-1) * |C(a+n-r, n) n! - a^n|, over 2 a^n n!
    total = 0
    c = math.comb(a + n - 1, n)  # C(a+n-r, n) at r = 1, then stepped down in r
    for r in range(1, n + 1):
        diff = c * nfact - an
        if diff <= 0:
            # C(a+n-r, n) falls as r grows: every later term is negative as well,
            # and positive and negative parts have equal mass (both are TV).
            break
        total += row[r - 1] * diff
        c = c * (a - r) // (a + n - r)  # exact: C(a+n-r-1, n)
    return Fraction(total, an * nfact)


def tv_riffle(n: int, k: int) -> float:
    """tv_riffle_exact as a float."""
    return float(tv_riffle_exact(n, k))


def counting_bound(n: int, choices_bits: int) -> float:
    """Lower bound on TV for a procedure that uses at most `choices_bits` fair bits.

    Such a procedure reaches at most 2**B arrangements, so the mass outside
    them under the uniform law, 1 - 2**B / n!, is a lower bound on the TV.
    Only the number of outcomes matters: biased bits give the same bound.
    """
    _check_n(n)
    if not isinstance(choices_bits, int) or isinstance(choices_bits, bool) or choices_bits < 0:
        raise ValueError(f"number of bits must be a non-negative integer, not {choices_bits!r}")
    log2_fact = math.lgamma(n + 1) / math.log(2)
    if choices_bits > log2_fact + 1:
        return 0.0
    return float(max(Fraction(0), 1 - Fraction(2**choices_bits, math.factorial(n))))
