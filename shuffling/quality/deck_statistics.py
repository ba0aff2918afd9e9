"""Compiled per-pack statistics of a batch of packs (numba), one pass per pack.

The report reads three kinds of figures off every simulated pack: the
lower-bound histograms (bounds.StatAccumulator), the guessing-game score
(guessing.guess_scores) and the deal question (deal.most_from_one_meld).
Computed with whole-array numpy they took most of the report's time, in
temporary arrays many times the size of the batch; here each statistic
reads each pack once, in a loop compiled on first use and cached beside
this file.

A batch is an integer array of shape (S, N), row = labels top to bottom; a
label is the card's position in the starting order. Functions raise
ValueError on a label outside 0..N-1 before it could index anything.
"""
from __future__ import annotations

import numba
import numpy as np
from numba.cpython.unsafe.numbers import trailing_zeros
from numpy.typing import NDArray

__all__ = ["HISTOGRAMS", "add_histograms", "guess_scores", "most_from_one_meld"]

# The histogram statistics, in the order of add_histograms' `counts` rows.
HISTOGRAMS = ("descents", "rising sequences", "successions", "top card position", "bottom card position")


def _check(decks: NDArray[np.integer]) -> NDArray[np.integer]:
    decks = np.ascontiguousarray(decks)
    if decks.ndim != 2:
        raise ValueError("decks must be a 2-D array (samples x cards)")
    if decks.size and (decks.min() < 0 or decks.max() >= decks.shape[1]):
        raise ValueError(f"labels must lie in 0..{decks.shape[1] - 1}")
    return decks


@numba.njit(cache=True, nogil=True)
def _add_histograms(decks, first, counts, table, parts):  # type: ignore[no-untyped-def]
    n = decks.shape[1]
    pos = np.empty(n, dtype=np.intp)
    for r in range(decks.shape[0]):
        part = (first + r) % parts
        descents = 0
        successions = 0
        prev = decks[r, 0]
        pos[prev] = 0
        for j in range(1, n):
            c = decks[r, j]
            pos[c] = j
            descents += c < prev
            successions += c == prev + 1
            prev = c
        rising = 1
        for c in range(n - 1):
            rising += pos[c + 1] < pos[c]
        counts[0, part, descents] += 1
        counts[1, part, rising - 1] += 1
        counts[2, part, successions] += 1
        counts[3, part, pos[0]] += 1
        counts[4, part, pos[n - 1]] += 1
        if table.shape[1]:
            for c in range(n):
                table[part, c * n + pos[c]] += 1


def add_histograms(
    decks: NDArray[np.integer], first: int, counts: NDArray[np.int64], table: NDArray[np.int64]
) -> None:
    """Add each pack's statistics to the histograms, in place.

    Pack r goes to part (first + r) mod P, P = counts.shape[1]. counts has
    shape (len(HISTOGRAMS), P, N): row k counts HISTOGRAMS[k] (rising
    sequences by r - 1, card positions from the top). table, shape (P, N*N)
    or (P, 0) for none, counts card c at position p in cell c*N + p.
    """
    decks = _check(decks)
    s, n = decks.shape
    parts = counts.shape[1]
    if counts.shape != (len(HISTOGRAMS), parts, n) or table.shape[0] != parts or table.shape[1] not in (0, n * n):
        raise ValueError("histogram shapes do not match the packs")
    if s and n:
        _add_histograms(decks, first, counts, table, parts)


_ALL = np.uint64(0xFFFF_FFFF_FFFF_FFFF)
_ONE = np.uint64(1)


@numba.njit(cache=True, nogil=True)
def _guess_scores(decks, out):  # type: ignore[no-untyped-def]
    # The unseen labels as a bit set, 64 to a word: the smallest unseen label
    # at or after x is the lowest set bit from x on, found a word at a time.
    n = decks.shape[1]
    words = (n + 63) >> 6
    unseen = np.empty(words, dtype=np.uint64)
    for r in range(decks.shape[0]):
        unseen[:] = _ALL
        if words * 64 > n:
            unseen[words - 1] = _ALL >> np.uint64(words * 64 - n)
        lowest = 0  # no unseen label lies in a word below this one
        right = 0
        after = 0  # the guess: the smallest unseen label from here on ...
        for t in range(n):
            guess = n
            w = after >> 6
            if w < words:
                bits = unseen[w] & (_ALL << np.uint64(after & 63))
                while True:
                    if bits:
                        guess = w * 64 + trailing_zeros(bits)
                        break
                    w += 1
                    if w == words:
                        break
                    bits = unseen[w]
            if guess == n:  # ... or, when there is none, the smallest unseen label
                while unseen[lowest] == 0:
                    lowest += 1
                guess = lowest * 64 + trailing_zeros(unseen[lowest])
            c = decks[r, t]
            right += guess == c
            unseen[c >> 6] &= ~(_ONE << np.uint64(c & 63))
            after = c + 1
        out[r] = right


def guess_scores(decks: NDArray[np.integer]) -> NDArray[np.int64]:
    """Correct guesses per pack of the inverse-riffle strategy (guessing.py), int64 (S,)."""
    decks = _check(decks)
    out = np.zeros(decks.shape[0], dtype=np.int64)
    if decks.shape[1]:
        _guess_scores(decks, out)
    return out


@numba.njit(cache=True, nogil=True)
def _most_from_one_meld(decks, meld_of_label, n_melds, players, dealt, out):  # type: ignore[no-untyped-def]
    counts = np.zeros(players * n_melds, dtype=np.int64)
    for r in range(decks.shape[0]):
        counts[:] = 0
        most = 0
        for i in range(dealt):
            m = meld_of_label[decks[r, i]]
            if m >= 0:
                k = (i % players) * n_melds + m
                counts[k] += 1
                most = max(most, counts[k])
        out[r] = most


def most_from_one_meld(
    decks: NDArray[np.integer], meld_of_label: NDArray[np.integer], players: int, hand: int
) -> NDArray[np.int64]:
    """Per pack: the most cards one player is dealt from one meld (deal.py), int64 (S,).

    meld_of_label[label] is the label's meld, -1 for none; the card at
    position i < players * hand goes to player i mod players.
    """
    decks = _check(decks)
    melds = np.ascontiguousarray(meld_of_label, dtype=np.intp)
    if melds.ndim != 1 or melds.size < decks.shape[1]:
        raise ValueError(f"meld_of_label needs an entry for each of the {decks.shape[1]} labels")
    n_melds = int(melds.max(initial=-1)) + 1
    out = np.zeros(decks.shape[0], dtype=np.int64)
    if n_melds and decks.shape[0]:
        _most_from_one_meld(decks, melds, n_melds, players, min(players * hand, decks.shape[1]), out)
    return out
