"""The pipelined routine's numbers: where Q's run falls, and what its piles tell.

The routine (firmware/exact_routes.py, pipelined_route; docs/exact-mode.md,
*The pipelined routine*) deals a pack of n = C + h cards on a C-card tray:
load A (the top C cards) once, holding out h of them (part Q); A's other
cards on top of load B (the bottom h) are part P, sorted alone; then Q.
The device draws every card's place in the final pack, uniformly, and Q
takes the places k to k + h - 1, k the first place from lo
(exact_routes.held_window) where h places in a row hold none of B's cards.

Every load's count is fixed (C, then C for each of P's passes, then h for
each of Q's). The piles are not: P's codes are 0 to k - 1 and half, half +
1, ..., so each of P's passes sends left a number of cards fixed by k, and
nothing else varies. What counting every pile tells is therefore the
entropy of k's law (or of the counts k gives, where two k give the same),
and given the counts every order with that k is equally likely: the order
is the places drawn, uniform, and the counts a function of it.
"""
from __future__ import annotations

import itertools
import math

import numpy as np

from firmware import exact_codes
from firmware import exact_routes as routes


def run_law(n: int, capacity: int) -> dict[int, float]:
    """k -> its chance: load B's h cards take a uniformly random set of h
    places, and only those among places lo to hi + h - 1 matter."""
    window = routes.held_window(n, capacity)
    if window is None:
        raise ValueError(f"no pipelined routine for {n} cards on a {capacity}-card tray")
    lo, hi = window
    h = n - capacity
    places = range(lo, hi + h)
    outside = n - len(places)
    whole = math.comb(n, h)
    law: dict[int, float] = {}
    for m in range(min(h, len(places)) + 1):
        weight = math.comb(outside, h - m) / whole
        if weight == 0:
            continue
        for chosen in itertools.combinations(places, m):
            taken = set(chosen)
            k = next(j for j in range(lo, hi + 1) if not any(j + i in taken for i in range(h)))
            law[k] = law.get(k, 0.0) + weight
    return law


def part_codes(capacity: int, k: int) -> list[int]:
    """P's codes above its first position, with Q's run at place k: the k
    above it 0 to k - 1, the rest from half up (exact_routes.held_codes)."""
    half = 1 << (exact_codes.n_bits(capacity) - 1)
    return list(range(k)) + [half + i for i in range(capacity - k)]


def pile_counts(capacity: int, k: int) -> tuple[int, ...]:
    """The cards each of P's passes sends left, with Q's run at place k."""
    codes = part_codes(capacity, k)
    return tuple(sum(1 for c in codes if not (c >> bit) & 1) for bit in range(exact_codes.n_bits(capacity)))


def _entropy(law: dict[tuple[int, ...], float]) -> float:
    return -sum(p * math.log2(p) for p in law.values() if p > 0)


def onlooker_rounds(route: routes.Route) -> list[tuple[int, float]]:
    """(round, bits) for each of P's passes whose left count varies with k:
    what that round's count adds to the counts before it (the chain rule),
    so that the rounds' bits add up to what every count tells together.
    Rounds are 1-based as the steps number them; P's passes are rounds 2 on."""
    n, capacity = route.n, route.capacity
    law = run_law(n, capacity)
    counts = {k: pile_counts(capacity, k) for k in law}
    out = []
    before = 0.0
    for r in range(1, exact_codes.n_bits(capacity) + 1):
        joint: dict[tuple[int, ...], float] = {}
        for k, p in law.items():
            key = counts[k][:r]
            joint[key] = joint.get(key, 0.0) + p
        bits = _entropy(joint)
        if len({counts[k][r - 1] for k in law}) > 1:
            out.append((r + 1, bits - before))
        before = bits
    return out


# ----- many packs at once (the quality report's Monte Carlo) ---------------------------

def held_code_rows(places: np.ndarray, capacity: int) -> np.ndarray:
    """Each row's places (a uniform arrangement of 0..n-1 by starting
    position) turned into the routine's codes, as the device turns them
    (exact_routes.held_codes, the same function)."""
    out = np.array(places, dtype=np.int32, copy=True)
    n = out.shape[1]
    for row in out:
        codes = [int(x) for x in row]
        routes.held_codes(codes, n, capacity)
        row[:] = codes
    return out


def gathered(decks: np.ndarray, keys: np.ndarray, capacity: int) -> np.ndarray:
    """The pack as the person gathers it once P's last pass is dealt: P's
    left pile (its k cards whose code lies below half), Q, P's right pile;
    the model keeps Q (positions 0 to h - 1) above P."""
    s, n = decks.shape
    h = n - capacity
    half = 1 << (exact_codes.n_bits(capacity) - 1)
    k = ((keys >= h) & (keys < h + half)).sum(axis=1)[:, None]
    j = np.arange(n)[None, :]
    source = np.where(j < k, h + j, np.where(j < k + h, j - k, j))
    return np.take_along_axis(decks, source, axis=1)
