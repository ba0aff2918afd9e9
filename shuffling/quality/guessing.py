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

For inverse riffles this strategy scores the enumerated optimum (tested);
stack-trade's fixed cut calls for more, which position_guessing.py adds.
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np

from . import deck_statistics

# Elements of the per-chunk range-maximum table (levels x rows x cards).
_TABLE_ELEMENTS = 1 << 18


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


def _chunk_scores(decks: np.ndarray) -> np.ndarray:
    rows, n = decks.shape
    dtype = np.int16 if n < 2**15 else np.int32
    d = decks.astype(np.intp, copy=False)
    flat_rows = np.arange(rows, dtype=np.intp)[:, None] * n
    pos = np.empty(rows * n, dtype=dtype)  # pos[s, label] = time the card is turned up
    pos[(d + flat_rows).reshape(-1)] = np.tile(np.arange(n, dtype=dtype), rows)
    score = (d[:, 0] == 0).astype(np.int64)
    if n == 1:
        return score
    table = _range_max_table(pos.reshape(rows, n))
    a = d[:, :-1]  # card just seen, at time t - 1
    b = d[:, 1:]  # card turned up next, at time t
    up = a < b
    # The guess is right when nothing unseen lies strictly between a and b
    # (up), or above a (down: then the guess is the smallest unseen card).
    # "Unseen at time t" for a label in that range means turned up after a,
    # so: the range's latest time must be before t - 1.
    hi = np.where(up, b, n)
    length = hi - a - 1
    level = np.zeros(n + 1, dtype=np.intp)
    level[1:] = [k.bit_length() - 1 for k in range(1, n + 1)]
    base = (level * (rows * n))[length] + flat_rows
    span = np.left_shift(1, level)[length]
    flat = table.reshape(-1)
    latest = np.maximum(flat[base + np.minimum(a + 1, n - 1)], flat[base + np.maximum(hi - span, 0)])
    before = np.arange(0, n - 1, dtype=dtype)  # t - 1 for t = 1 .. n-1
    clear = (latest < before) | (length == 0)
    suffix_min = np.minimum.accumulate(d[:, ::-1], axis=1)[:, ::-1]
    right = clear & (up | (b == suffix_min[:, 1:]))
    return score + right.sum(axis=1)


def guess_scores(decks: np.ndarray) -> np.ndarray:
    """Correct guesses for each arrangement (row of `decks`), as int64 (S,)."""
    decks = np.asarray(decks)
    if decks.ndim != 2:
        raise ValueError("decks must be a 2-D array (samples x cards)")
    return deck_statistics.guess_scores(decks)


def guess_scores_vectorised(decks: np.ndarray) -> np.ndarray:
    """guess_scores with whole-array numpy (range-maximum tables); for checking."""
    decks = np.asarray(decks)
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
