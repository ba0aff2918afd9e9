"""The deal question: does the next deal hand a player a chunk of an old meld?

After a hand of Samba the pack is gathered meld by meld, so a poor shuffle
deals runs of cards that were together in a samba or canasta. Convention:
the dealer deals the top card of the shuffled pack to the player on the
left (player 0), the next to player 1, and so on round the table, one card
at a time, until each of the four players has 15. So the card at position i
(from the top, i < 60) goes to player i mod 4.

The statistic for one arrangement is the largest number of cards any one
player receives from any one gathered meld; the question asked is how often
it reaches m (3 or 4, say). The same statistic on uniformly random decks is
the truly random deal, and `random_deal_probability` gives that figure
exactly, from the meld sizes alone.
"""
from __future__ import annotations

import itertools
import math

import numpy as np

PLAYERS = 4
HAND = 15


def check_deal(n_cards: int, players: int = PLAYERS, hand: int = HAND) -> None:
    if players < 1 or hand < 1:
        raise ValueError("a deal needs at least one player and one card each")
    if players * hand > n_cards:
        raise ValueError(f"dealing {hand} cards to {players} players needs {players * hand} cards; the pack has {n_cards}")


def most_from_one_meld(
    decks: np.ndarray,
    meld_of_label: np.ndarray,
    players: int = PLAYERS,
    hand: int = HAND,
) -> np.ndarray:
    """Per arrangement: the most cards one player is dealt from one meld (int64, (S,))."""
    decks = np.asarray(decks)
    rows, n = decks.shape
    check_deal(n, players, hand)
    meld_of_label = np.asarray(meld_of_label)
    n_melds = int(meld_of_label.max(initial=-1)) + 1
    if n_melds == 0 or rows == 0:
        return np.zeros(rows, dtype=np.int64)
    dealt = decks[:, : players * hand]
    meld = meld_of_label[dealt]  # (S, players*hand)
    player = np.arange(players * hand) % players
    cells = players * n_melds
    key = player * n_melds + meld + np.arange(rows)[:, None] * cells
    key = key[meld >= 0]
    counts = np.bincount(key, minlength=rows * cells).reshape(rows, cells)
    return counts.max(axis=1).astype(np.int64)


def _multinomial_terms(size: int, cap: int, players: int, hand: int):
    """(a, 1/(a_1! ... a_P! (size - sum a)!)) for each a with a_i <= cap."""
    top = min(cap, size, hand)
    for a in itertools.product(range(top + 1), repeat=players):
        s = sum(a)
        if s <= size:
            yield a, math.exp(-sum(math.lgamma(x + 1) for x in a) - math.lgamma(size - s + 1))


def random_deal_probability(
    meld_sizes: list[int] | tuple[int, ...],
    n_cards: int,
    m: int,
    players: int = PLAYERS,
    hand: int = HAND,
) -> float:
    """Exact chance that a uniformly random deal gives some player >= m cards of one meld.

    Counts the deals in which every player gets at most m-1 cards of every
    meld with a generating function in one variable per player (degree up to
    `hand` in each), the melds' cards and the other cards being labelled and
    each card going to a player or staying undealt.
    """
    check_deal(n_cards, players, hand)
    sizes = [int(s) for s in meld_sizes if s > 0]
    rest = n_cards - sum(sizes)
    if rest < 0:
        raise ValueError("melds hold more cards than the pack")
    if m < 1:
        return 1.0
    shape = (hand + 1,) * players
    q = np.zeros(shape)
    q[(0,) * players] = 1.0
    for size in sizes:
        new = np.zeros(shape)
        for a, c in _multinomial_terms(size, m - 1, players, hand):
            dst = tuple(slice(x, None) for x in a)
            src = tuple(slice(0, hand + 1 - x) for x in a)
            new[dst] += c * q[src]
        q = new
    # The other cards go anywhere; read off the coefficient of x^(hand,...,hand).
    r = np.zeros(shape)
    for a, c in _multinomial_terms(rest, hand, players, hand):
        r[a] = c
    flipped = q[(slice(None, None, -1),) * players]
    coefficient = float((flipped * r).sum())
    log_scale = (
        sum(math.lgamma(s + 1) for s in sizes)
        + math.lgamma(rest + 1)
        - math.lgamma(n_cards + 1)
        + players * math.lgamma(hand + 1)
        + math.lgamma(n_cards - players * hand + 1)
    )
    none = coefficient * math.exp(log_scale)
    return 1.0 - none
