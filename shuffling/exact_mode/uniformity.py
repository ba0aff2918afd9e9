"""Exhaustive proofs, for small packs, that exact mode is exactly uniform.

Three checks, each by enumerating every case:
- the process: over all N! arrangements of the code set, the final orders
  are all N! orders, each once (a bijection), for several N and capacities,
  for whole-pack radix and for the split (`route_law`);
- the draw: bounded_int gives every value in [0, m) from the same number of
  byte strings, Fisher-Yates turns the N! sequences of bounded values into
  the N! arrangements one to one, and, for N = 3, the whole sampler's law
  over every byte string up to a length is exactly balanced;
- the round count: with k < ceil(log2 N) stable two-way partitions, whatever
  the sides, the reverse of the starting order is never reached.
"""
from __future__ import annotations

import itertools
import math
from collections import Counter
from fractions import Fraction
from typing import Iterator

from shuffling.exact_mode.codes import bounded_int, code_set, uniform_assignment
from firmware import exact_routes as routes
from shuffling.exact_mode.physical import Fault, deal, run_route, run_with_fault


def exact_law(n: int, capacity: int, fault: Fault | None = None, n_rounds: int | None = None) -> Counter[tuple[int, ...]]:
    """How many of the N! code arrangements lead to each order (start 0..N-1).

    Every arrangement of the code set has probability 1/N!, so this Counter,
    divided by N!, is the exact law of the pack after the run.
    """
    codes = code_set(n, capacity)
    law: Counter[tuple[int, ...]] = Counter()
    start = list(range(n))
    for arrangement in itertools.permutations(codes):
        orders = run_with_fault(start, arrangement, capacity, fault, n_rounds).orders
        law[tuple(orders[-1]) if orders else tuple(start)] += 1
    return law


def route_law(route: routes.Route) -> Counter[tuple[int, ...]]:
    """How many of the N! arrangements of the codes 0..N-1 lead to each order,
    each run card by card through the routine's passes (start 0..N-1)."""
    law: Counter[tuple[int, ...]] = Counter()
    start = list(range(route.n))
    for arrangement in itertools.permutations(range(route.n)):
        law[tuple(run_route(start, arrangement, route))] += 1
    return law


def tv_from_uniform(law: Counter[tuple[int, ...]], n: int) -> Fraction:
    """Exact total variation distance between law / sum(law) and the uniform law on N! orders."""
    total = sum(law.values())
    nf = math.factorial(n)
    # sum over reached orders of |c/total - 1/nf|, plus 1/nf for each order never reached
    diff = sum(abs(Fraction(c, total) - Fraction(1, nf)) for c in law.values())
    diff += Fraction(nf - len(law), nf)
    return diff / 2


def is_bijection(n: int, capacity: int) -> bool:
    """True when every one of the N! orders comes from exactly one code arrangement."""
    law = exact_law(n, capacity)
    return len(law) == math.factorial(n) and set(law.values()) == {1}


# --- The draw ---------------------------------------------------------------


def bounded_int_preimages(m: int) -> tuple[list[int], int]:
    """For every k-byte string, what bounded_int(m) returns from it as its first try.

    Returns (count of strings giving each value 0..m-1, count rejected).
    The draw is exact when all counts are equal: a rejected string is
    replaced by a fresh one, so each value has probability count / accepted.
    """
    k = 1
    while (1 << (8 * k)) < m:
        k += 1
    counts = [0] * m
    rejected = 0
    for v in range(1 << (8 * k)):
        script = [v.to_bytes(k, "big")]
        tried = 0

        def one_try(size: int) -> bytes:
            nonlocal tried
            if tried:
                raise _Rejected
            tried += 1
            return script[0]

        try:
            value, _ = bounded_int(m, one_try)
        except _Rejected:
            rejected += 1
            continue
        counts[value] += 1
    return counts, rejected


class _Rejected(Exception):
    pass


class _NeedMore(Exception):
    pass


def fisher_yates_outcomes(n: int) -> Counter[tuple[int, ...]]:
    """Feed uniform_assignment every sequence of accepted values once.

    For n <= 256 every bound is at most 256, so one byte with a value below
    the bound is accepted as that value; enumerating those bytes enumerates
    every sequence of bounded draws, each exactly once.
    """
    if n > 256:
        raise ValueError("enumeration only for small packs")
    law: Counter[tuple[int, ...]] = Counter()
    ranges = [range(i + 1) for i in range(n - 1, 0, -1)]
    for draws in itertools.product(*ranges):
        feed = iter(draws)
        law[tuple(uniform_assignment(n, lambda size: bytes([next(feed)])))] += 1
    return law


def sampler_law(n: int, max_bytes: int) -> tuple[dict[tuple[int, ...], Fraction], Fraction]:
    """The sampler's exact law over every byte string of up to `max_bytes` bytes.

    Returns (probability of each arrangement finishing within max_bytes,
    probability of not having finished). Explores the tree of byte requests
    depth first; each byte value is one branch of probability 1/256.
    """
    law: dict[tuple[int, ...], Fraction] = {}
    unfinished = Fraction(0)

    def run(prefix: bytes) -> tuple[int, ...]:
        pos = 0

        def source(size: int) -> bytes:
            nonlocal pos
            if pos + size > len(prefix):
                raise _NeedMore
            out = prefix[pos:pos + size]
            pos += size
            return out

        return tuple(uniform_assignment(n, source))

    stack = [b""]
    while stack:
        prefix = stack.pop()
        try:
            outcome = run(prefix)
        except _NeedMore:
            if len(prefix) >= max_bytes:
                unfinished += Fraction(1, 256 ** len(prefix))
            else:
                stack.extend(prefix + bytes([v]) for v in range(256))
            continue
        law[outcome] = law.get(outcome, Fraction(0)) + Fraction(1, 256 ** len(prefix))
    return law, unfinished


# --- The lower bound on rounds -------------------------------------------------


def pile_trade_orders(n: int, k: int) -> Iterator[tuple[int, ...]]:
    """Every order k pile-trade rounds can produce from 0..N-1, over all 2^(N k) side choices.

    Pile trade is one stable two-way partition of the whole pack per round,
    whatever the loads, so one pass over the whole pack models it.
    """
    for sides in itertools.product((0, 1), repeat=n * k):
        pack = list(range(n))
        for r in range(k):
            left, right = deal(pack, sides[r * n:(r + 1) * n])
            pack = left + right
        yield tuple(pack)


def chi_square_sf(x: float, df: int) -> float:
    """P(X >= x) for a chi-square variable with df degrees of freedom.

    The regularized upper incomplete gamma Q(df/2, x/2): a series below
    a + 1, Lentz's continued fraction above (both converge fast there).
    """
    if df < 1:
        raise ValueError("df must be at least 1")
    if x <= 0:
        return 1.0
    a, z = df / 2.0, x / 2.0
    log_front = a * math.log(z) - z - math.lgamma(a)
    if z < a + 1:
        term = total = 1.0 / a
        k = a
        for _ in range(10000):
            k += 1
            term *= z / k
            total += term
            if abs(term) < abs(total) * 1e-15:
                break
        return max(0.0, 1.0 - total * math.exp(log_front))
    tiny = 1e-300
    b = z + 1 - a
    c = 1 / tiny
    d = 1 / b
    h = d
    for i in range(1, 10000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1 / d
        delta = d * c
        h *= delta
        if abs(delta - 1) < 1e-15:
            break
    return h * math.exp(log_front)


def chi_square_uniform(counts: list[int]) -> tuple[float, float]:
    """(statistic, p-value) of counts over equally likely cells (every cell listed, zeros too)."""
    total = sum(counts)
    cells = len(counts)
    if cells < 2 or total == 0:
        raise ValueError("need at least two cells and one observation")
    expect = total / cells
    stat = sum((c - expect) ** 2 for c in counts) / expect
    return stat, chi_square_sf(stat, cells - 1)
