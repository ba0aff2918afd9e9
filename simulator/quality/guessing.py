"""The guessing game with feedback, scored over batches of arrangements.

A player who remembers the gathered (starting) order names each next card
before it is turned up, and sees it afterwards. With a truly random pack no
strategy beats H_N = 1 + 1/2 + ... + 1/N correct guesses on average: each
guess of an unseen card is right with probability 1/(cards left).

The machine's pass is an inverse riffle: after k of them the pack is 2^k
blocks laid one after another, each block an increasing run of the starting
order (see Diaconis, Fulman and Holmes, "Analysis of casino shelf shuffling
machines", 2013, for the guessing game on such shuffles). The strategy used
here follows that structure: having just seen card c, guess the smallest
card not yet seen that comes after c in the starting order (the card that
continues c's run); if every card after c has been seen, c ended the last
run so far, and the guess is the smallest unseen card (the likeliest start
of the next run). The first guess is the starting order's top card. Every
guess names an unseen card, so on a uniformly random pack the score is
exactly H_N in expectation, and on an unshuffled pack every guess is right.

Labels are positions in the starting order (0 = top), so "comes after c"
means "has a larger label".
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np

# Elements of the per-chunk range-maximum table (levels x rows x cards).
_TABLE_ELEMENTS = 1 << 21


def harmonic(n: int) -> float:
    """H_n = 1 + 1/2 + ... + 1/n: the random-pack score of the guessing game."""
    return float(sum(Fraction(1, i) for i in range(1, n + 1)))


def _range_max_table(values: np.ndarray) -> np.ndarray:
    """Sparse table: level j holds max(values[:, i : i + 2**j]) at column i."""
    rows, n = values.shape
    levels = max(1, int(n).bit_length())
    table = np.full((levels, rows, n), -1, dtype=values.dtype)
    table[0] = values
    for j in range(1, levels):
        half = 1 << (j - 1)
        width = n - (1 << j) + 1
        if width <= 0:
            break
        np.maximum(table[j - 1, :, :width], table[j - 1, :, half:half + width], out=table[j, :, :width])
    return table


def _range_max(table: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """max(values[s, lo:hi]) per entry, -1 where the range is empty."""
    levels, rows, n = table.shape
    length = hi - lo
    # floor(log2(length)) by lookup; length 0 reads level 0 and is masked below.
    log2 = np.zeros(n + 1, dtype=np.int32)
    log2[1:] = np.array([k.bit_length() - 1 for k in range(1, n + 1)], dtype=np.int32)
    j = log2[length]
    base = j * (rows * n) + (np.arange(rows, dtype=np.int32) * n)[:, None]
    flat = table.reshape(-1)
    left = flat[base + np.minimum(lo, n - 1)]
    right = flat[base + np.maximum(hi - (np.int32(1) << j), 0)]
    out = np.maximum(left, right)
    out[length <= 0] = -1
    return out


def _chunk_scores(decks: np.ndarray) -> np.ndarray:
    rows, n = decks.shape
    dtype = np.int16 if n < 2**15 else np.int32
    d = decks.astype(np.int32)
    pos = np.empty((rows, n), dtype=dtype)
    np.put_along_axis(pos, d, np.broadcast_to(np.arange(n, dtype=dtype), (rows, n)), axis=1)
    score = (d[:, 0] == 0).astype(np.int64)
    if n == 1:
        return score
    table = _range_max_table(pos)
    a = d[:, :-1]  # card just seen
    b = d[:, 1:]  # card turned up next
    t = np.arange(1, n, dtype=np.int32)  # time of b
    up = a < b
    hi = np.where(up, b, n)
    # Nothing unseen strictly between a and b (up), or above a (down):
    # every such label was turned up before a, i.e. at a time < t - 1.
    clear = _range_max(table, a + 1, hi) < (t - 1)
    # Down: the guess is the smallest unseen card, the minimum of what is left.
    suffix_min = np.minimum.accumulate(d[:, ::-1], axis=1)[:, ::-1]
    right = clear & (up | (b == suffix_min[:, 1:]))
    return score + right.sum(axis=1)


def guess_scores(decks: np.ndarray) -> np.ndarray:
    """Correct guesses for each arrangement (row of `decks`), as int64 (S,)."""
    decks = np.asarray(decks)
    if decks.ndim != 2:
        raise ValueError("decks must be a 2-D array (samples x cards)")
    rows, n = decks.shape
    if n == 0:
        return np.zeros(rows, dtype=np.int64)
    levels = max(1, int(n).bit_length())
    step = max(1, _TABLE_ELEMENTS // (levels * n))
    out = np.empty(rows, dtype=np.int64)
    for start in range(0, rows, step):
        out[start:start + step] = _chunk_scores(decks[start:start + step])
    return out


def guess_scores_reference(deck: list[int] | np.ndarray) -> int:
    """The same strategy played card by card (slow; for checking)."""
    deck = [int(x) for x in deck]
    unseen = set(deck)
    last: int | None = None
    right = 0
    for card in deck:
        after = [u for u in unseen if last is not None and u > last]
        guess = min(after) if after else min(unseen)
        right += guess == card
        unseen.remove(card)
        last = card
    return right
