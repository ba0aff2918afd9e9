"""Vectorised passes of the machine over a batch of decks.

A batch is an integer array `decks` of shape (S, N): row s lists, top to
bottom, the labels of the cards (a label is the card's position in the
starting order). Every function here returns a NEW array and leaves its
input untouched.

The pass follows docs/mechanism.md: the feed takes the bottom card first,
each card lands on top of its pile, and the piles keep the load's relative
order, so a pass with the left pile gathered on top of the right pile is a
stable partition "left cards, then right cards". With independent fair sides
that is one inverse Gilbert-Shannon-Reeds (GSR) riffle.

The partition itself is a compiled loop (numba): one read and two writes
per card, with no branch on the side, so a random side costs no mispredicted
jump. It runs several times as fast as sorting the cards by side
(benchmarks/simulator_speed.py measures both side by side). Compiled code is
cached beside this file, so only the first run on a machine compiles.
"""
from __future__ import annotations

from typing import cast

import numba
import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = [
    "draw_sides",
    "segmented_partition",
    "fair_partition",
    "partition_by_key_bit",
    "partition_span_by_key",
    "inverse_riffle",
    "riffle",
    "inverse_riffle_reference",
    "inverse_riffle_argsort",
    "segmented_partition_sort",
    "riffle_reference",
    "identity_decks",
]

IntArray = NDArray[np.integer]
BoolArray = NDArray[np.bool_]


def identity_decks(samples: int, n_cards: int) -> IntArray:
    """`samples` copies of the starting order 0..N-1 in the smallest fitting dtype."""
    dtype = np.int16 if n_cards <= np.iinfo(np.int16).max else np.int32
    return cast(IntArray, np.broadcast_to(np.arange(n_cards, dtype=dtype), (samples, n_cards)).copy())


def _check_prob(name: str, value: float) -> None:
    if not 0.0 <= value <= 1.0:
        raise ValueError(f"{name} must lie in [0, 1], not {value!r}")


def _bounds_array(bounds: ArrayLike | None, n: int) -> NDArray[np.intp]:
    b = np.array([0, n] if bounds is None else bounds, dtype=np.intp)
    if b.ndim != 1 or b.size < 2 or b[0] != 0 or b[-1] != n or np.any(np.diff(b) < 0):
        raise ValueError(f"load bounds must rise from 0 to {n}, not {b.tolist()}")
    return b


def draw_sides(
    shape: tuple[int, int],
    rng: np.random.Generator,
    p: float = 0.5,
    clump: float = 0.0,
    double_feed: float = 0.0,
    bounds: ArrayLike | None = None,
) -> BoolArray:
    """Sides for a pass: True = left, indexed by the card's position in the pack.

    `bounds` (0 = b0 <= b1 <= ... = N) splits each row into loads, each fed
    in its own pass. Within a pass, cards are fed bottom first; the first card
    fed goes left with probability p. Each later card fed

    * copies the side of the card fed just before it ("follows") with
      probability q = 1 - (1 - clump) (1 - double_feed), and otherwise
    * goes left with probability p, independently of everything else.

    So P(same side as the previous card) = clump + (1 - clump) P(side) when
    double_feed = 0, as a clumping motor would give. A double feed drags the
    next card along with the one being fed: the pair gets one side and, since
    a pass is a stable partition, stays adjacent - which is the same event,
    in law, as that card following. With clump = double_feed = 0 the sides
    are independent Bernoulli(p).
    """
    _check_prob("p", p)
    _check_prob("clump", clump)
    _check_prob("double_feed", double_feed)
    s, n = shape
    fresh_sides = _independent_sides(s, n, p, rng)
    q = 1.0 - (1.0 - clump) * (1.0 - double_feed)
    if q == 0.0 or n == 0:
        return fresh_sides
    return _with_followers(fresh_sides, q, _bounds_array(bounds, n), rng)


def _independent_sides(s: int, n: int, p: float, rng: np.random.Generator) -> BoolArray:
    """Each card's own side, left with probability p (fair: from random bytes, the fastest source)."""
    if p == 0.5:
        return np.unpackbits(_fair_bytes(s, n, rng), axis=1, count=n).astype(bool)
    return rng.random((s, n)) < p


def _with_followers(fresh_sides: BoolArray, q: float, b: NDArray[np.intp], rng: np.random.Generator) -> BoolArray:
    """The sides once each card fed, but the first of its load, follows the
    card fed before it with probability q (its own side otherwise)."""
    s, n = fresh_sides.shape
    # Work in feed order: reverse the columns, so each load's bottom card
    # (its first card fed) comes first within its block.
    fresh = rng.random((s, n)) >= q  # in feed order: column j is the j-th card fed
    # A load's bottom card, at pack position b_{i+1} - 1, is fed first in its pass.
    fresh[:, n - b[1:][np.diff(b) > 0]] = True
    fed = fresh_sides[:, ::-1]
    idx = np.where(fresh, np.arange(n), 0)
    np.maximum.accumulate(idx, axis=1, out=idx)
    fed = np.take_along_axis(fed, idx, axis=1)
    return fed[:, ::-1].copy()


def _fair_bytes(s: int, n: int, rng: np.random.Generator) -> NDArray[np.uint8]:
    """One random bit per card, 8 per byte, most significant bit first: the fastest fair source."""
    return rng.integers(0, 256, size=(s, (n + 7) // 8), dtype=np.uint8)


def _key_layout(n: int, groups: int) -> tuple[int, type[np.signedinteger]]:
    """Field width for a position or a label, and the key dtype that holds group|position|label."""
    w = max(1, (n - 1).bit_length())
    total = max(1, (groups - 1).bit_length()) + 2 * w
    if total > 63:
        raise ValueError(f"{n} cards is too many for one sort key")
    return w, (np.int32 if total <= 31 else np.int64)


@numba.njit(cache=True, nogil=True)
def _partition_blocks(decks, left, bounds, out):  # type: ignore[no-untyped-def]
    # Every card is written both to the left run in `out` and to the right
    # buffer; only the pointer of its own side moves on. Branch-free.
    n = decks.shape[1]
    buf = np.empty(n, dtype=decks.dtype)
    for r in range(decks.shape[0]):
        for b in range(bounds.size - 1):
            lo, hi = bounds[b], bounds[b + 1]
            nl, nr = lo, 0
            for j in range(lo, hi):
                c = decks[r, j]
                is_left = np.intp(left[r, j])
                out[r, nl] = c
                buf[nr] = c
                nl += is_left
                nr += 1 - is_left
            for k in range(nr):
                out[r, nl + k] = buf[k]


# Bits set in each byte value.
_POPCOUNT = np.array([bin(v).count("1") for v in range(256)], dtype=np.intp)


@numba.njit(cache=True, nogil=True)
def _lefts_in(row, lo, hi):  # type: ignore[no-untyped-def]
    # Set bits among positions lo..hi-1 of a row packed most significant bit first.
    if lo >= hi:
        return 0
    first, last = lo >> 3, (hi - 1) >> 3
    total = 0
    for i in range(first, last + 1):
        total += _POPCOUNT[row[i]]
    head = lo - 8 * first  # bits of the first byte that lie before lo
    if head:
        total -= _POPCOUNT[row[first] >> (8 - head)]
    tail = 8 * last + 8 - hi  # bits of the last byte that lie at or after hi
    total -= _POPCOUNT[row[last] & ((1 << tail) - 1)]
    return total


@numba.njit(cache=True, nogil=True)
def _partition_fair_bytes(decks, raw, bounds, out):  # type: ignore[no-untyped-def]
    # Card j's side is bit 7 - j % 8 of byte j // 8 (1 = left), the layout
    # np.unpackbits reads. Counting a block's left cards first gives each
    # card its place directly: one store per card, chosen without a branch.
    for r in range(decks.shape[0]):
        row = raw[r]
        for b in range(bounds.size - 1):
            lo, hi = bounds[b], bounds[b + 1]
            nl, nr = lo, lo + _lefts_in(row, lo, hi)
            for j in range(lo, hi):
                is_left = np.intp((row[j >> 3] >> (7 - (j & 7))) & 1)
                out[r, nr + (nl - nr) * is_left] = decks[r, j]
                nl += is_left
                nr += 1 - is_left


def fair_partition(decks: IntArray, rng: np.random.Generator, bounds: ArrayLike | None = None) -> IntArray:
    """segmented_partition with independent fair sides, kept packed 8 to a byte.

    The bits are those draw_sides(decks.shape, rng) would unpack from the same
    generator, so the result is the very pack segmented_partition gives with
    those sides (for any bounds).
    """
    s, n = decks.shape
    b = _bounds_array(bounds, n)
    raw = _fair_bytes(s, n, rng)
    out = np.empty_like(decks, order="C")
    if s and n:
        _partition_fair_bytes(np.ascontiguousarray(decks), raw, b, out)
    return out


@numba.njit(cache=True, nogil=True)
def _partition_by_key_bit(decks, keys, bit, out):  # type: ignore[no-untyped-def]
    # As _partition_blocks: every card is written both to the left run in
    # `out` and to the right buffer, and only its own side's pointer moves
    # on, so each key is read once and no branch depends on it.
    n = decks.shape[1]
    buf = np.empty(n, dtype=decks.dtype)
    for r in range(decks.shape[0]):
        nl, nr = 0, 0
        for j in range(n):
            c = decks[r, j]
            is_left = 1 - np.intp((keys[r, c] >> bit) & 1)
            out[r, nl] = c
            buf[nr] = c
            nl += is_left
            nr += 1 - is_left
        for k in range(nr):
            out[r, nl + k] = buf[k]


def partition_by_key_bit(decks: IntArray, keys: IntArray, bit: int) -> IntArray:
    """Each row's cards with bit `bit` of keys[row, card] clear, in order, then the rest, in order.

    keys (S, N) gives every label of each row a non-negative integer key;
    the labels must lie in 0..N-1. Partitioning by bit 0, then 1, ..., k-1
    sorts each row stably by the keys' low k bits (a least-significant-digit
    radix sort). Returns a new array of decks' dtype.
    """
    decks = np.ascontiguousarray(decks)
    keys = np.ascontiguousarray(keys)
    s, n = decks.shape
    if keys.shape != decks.shape:
        raise ValueError(f"keys shape {keys.shape} does not match decks shape {decks.shape}")
    if not 0 <= bit < 8 * keys.dtype.itemsize:
        raise ValueError(f"bit {bit} is outside keys of {8 * keys.dtype.itemsize} bits")
    if decks.size and (decks.min() < 0 or decks.max() >= n):
        raise ValueError(f"labels must lie in 0..{n - 1}")
    if keys.size and np.issubdtype(keys.dtype, np.signedinteger) and keys.min() < 0:
        raise ValueError("keys must not be negative")
    out = np.empty_like(decks)
    if s and n:
        _partition_by_key_bit(decks, keys, bit, out)
    return out


@numba.njit(cache=True, nogil=True)
def _partition_span_by_key(decks, keys, right, lo, hi, out):  # type: ignore[no-untyped-def]
    # As _partition_by_key_bit, within positions [lo, hi) only; the side is a
    # table lookup by key, so any rule of the key costs the same.
    n = decks.shape[1]
    buf = np.empty(n, dtype=decks.dtype)
    for r in range(decks.shape[0]):
        for j in range(lo):
            out[r, j] = decks[r, j]
        for j in range(hi, n):
            out[r, j] = decks[r, j]
        nl, nr = lo, 0
        for j in range(lo, hi):
            c = decks[r, j]
            is_left = 1 - np.intp(right[keys[r, c]])
            out[r, nl] = c
            buf[nr] = c
            nl += is_left
            nr += 1 - is_left
        for k in range(nr):
            out[r, nl + k] = buf[k]


def partition_span_by_key(decks: IntArray, keys: IntArray, right: ArrayLike, lo: int, hi: int) -> IntArray:
    """Each row's cards at positions [lo, hi): those whose key k has right[k] false, in
    order, then the rest, in order; every other position as it was.

    keys (S, N) gives every label of each row a key in 0..len(right) - 1, as for
    partition_by_key_bit; `right` is the side of each key (true: the right
    pile). One round of an exact routine that deals only part of the pack
    (firmware/exact_routes.py: a split round, or a part's pass). Returns a new
    array of decks' dtype.
    """
    decks = np.ascontiguousarray(decks)
    keys = np.ascontiguousarray(keys)
    table = np.ascontiguousarray(right, dtype=np.bool_)
    s, n = decks.shape
    if keys.shape != decks.shape:
        raise ValueError(f"keys shape {keys.shape} does not match decks shape {decks.shape}")
    if not 0 <= lo <= hi <= n:
        raise ValueError(f"the span [{lo}, {hi}) must lie within 0..{n}")
    if decks.size and (decks.min() < 0 or decks.max() >= n):
        raise ValueError(f"labels must lie in 0..{n - 1}")
    if keys.size and (keys.min() < 0 or keys.max() >= table.size):
        raise ValueError(f"keys must lie in 0..{table.size - 1}")
    out = np.empty_like(decks)
    if s and n:
        _partition_span_by_key(decks, keys, table, lo, hi, out)
    return out


def segmented_partition(decks: IntArray, left: BoolArray, bounds: ArrayLike | None = None) -> IntArray:
    """Within each block [b_i, b_{i+1}) of every row: left cards in order, then right cards.

    Returns a new array of the same dtype. With bounds None the whole row is
    one block. Labels are moved as they are, whatever their values.
    """
    s, n = decks.shape
    if left.shape != decks.shape:
        raise ValueError(f"sides shape {left.shape} does not match decks shape {decks.shape}")
    b = _bounds_array(bounds, n)
    out = np.empty_like(decks, order="C")
    if s and n:
        # As bool: the loop counts on every side being 0 or 1.
        _partition_blocks(np.ascontiguousarray(decks), np.ascontiguousarray(left, dtype=np.bool_), b, out)
    return out


def segmented_partition_sort(decks: IntArray, left: BoolArray, bounds: ArrayLike | None = None) -> IntArray:
    """segmented_partition by one sort of packed keys per row (numpy only; for checking).

    Labels must lie in 0..N-1. Each card gets a unique key (block, side,
    position, label), packed into one integer so that sorting the keys of a
    row puts the cards in their new order; the label rides along in the low
    bits.
    """
    s, n = decks.shape
    if left.shape != decks.shape:
        raise ValueError(f"sides shape {left.shape} does not match decks shape {decks.shape}")
    b = _bounds_array(bounds, n)
    if s == 0 or n == 0:
        return decks.copy()
    if decks.min() < 0 or decks.max() >= n:
        raise ValueError(f"labels must lie in 0..{n - 1}")
    n_blocks = len(b) - 1
    w, kdt = _key_layout(n, 2 * n_blocks)
    block = np.repeat(np.arange(n_blocks), np.diff(b)).astype(kdt)
    # group = 2 * block + (1 if right): even, so "| right" below adds the side.
    column_key = ((2 * block) << (2 * w)) | (np.arange(n, dtype=kdt) << w)
    key = np.logical_not(left).astype(kdt)
    key <<= 2 * w
    key |= column_key
    key |= decks
    key.sort(axis=1)
    key &= (1 << w) - 1
    return key.astype(decks.dtype, copy=False)


def inverse_riffle(
    decks: IntArray,
    rng: np.random.Generator,
    p: float = 0.5,
    clump: float = 0.0,
    double_feed: float = 0.0,
) -> IntArray:
    """One pass of the machine over each whole row, gathered left pile on top.

    Sides are drawn by `draw_sides` (bias p, clump, double_feed as defined
    there); the result, a new array, is the stable partition left-then-right.
    With the defaults this is exactly one inverse GSR riffle.
    """
    if p == 0.5 and clump == 0.0 and double_feed == 0.0:
        return fair_partition(decks, rng)
    left = draw_sides(decks.shape, rng, p, clump, double_feed)
    return segmented_partition(decks, left)


def riffle(decks: IntArray, rng: np.random.Generator) -> IntArray:
    """One forward GSR riffle of each row; returns a new array.

    GSR: cut after c ~ Binomial(N, 1/2) cards, then drop cards from the
    bottoms of the two packets with probability proportional to packet sizes.
    Equivalently every interleaving of the two packets is equally likely given
    the cut, which is what an independent fair bit per final position gives:
    the positions with bit 0 receive the top packet in order, those with
    bit 1 the bottom packet.
    """
    s, n = decks.shape
    from_bottom = draw_sides((s, n), rng)  # True: this position takes the next bottom-packet card
    cdt = np.int32
    from_bottom_int = from_bottom.astype(cdt)
    ones_before = cast(NDArray[np.int32], np.cumsum(from_bottom_int, axis=1)) - from_bottom_int
    col = np.arange(n, dtype=cdt)
    cut = n - from_bottom.sum(axis=1, dtype=cdt)[:, None]  # size of the top packet
    src = np.where(from_bottom, cut + ones_before, col - ones_before)
    return np.take_along_axis(decks, src.astype(np.intp, copy=False), axis=1)


def inverse_riffle_reference(decks: IntArray, rng: np.random.Generator, p: float = 0.5) -> IntArray:
    """Straightforward inverse riffle: per deck, a stable argsort of random side bits."""
    out = np.empty_like(decks)
    for s in range(decks.shape[0]):
        right = rng.random(decks.shape[1]) >= p
        out[s] = decks[s][np.argsort(right, kind="stable")]
    return out


def inverse_riffle_argsort(decks: IntArray, rng: np.random.Generator, p: float = 0.5) -> IntArray:
    """Inverse riffle as one stable argsort of random side bits over the whole batch."""
    right = rng.random(decks.shape) >= p
    return np.take_along_axis(decks, np.argsort(right, axis=1, kind="stable"), axis=1)


def riffle_reference(deck: list[int], rng: np.random.Generator) -> list[int]:
    """Straightforward GSR riffle of one deck: binomial cut, proportional drops."""
    n = len(deck)
    c = int(rng.binomial(n, 0.5))
    top, bottom = list(deck[:c]), list(deck[c:])
    out: list[int] = []
    # Build from the bottom up: the next card to fall comes from the bottom of a packet.
    while top or bottom:
        if rng.random() < len(top) / (len(top) + len(bottom)):
            out.append(top.pop())
        else:
            out.append(bottom.pop())
    return out[::-1]
