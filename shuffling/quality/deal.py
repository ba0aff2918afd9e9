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

import math

import numpy as np

from . import deck_statistics

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
    if decks.ndim != 2:
        raise ValueError("decks must be a 2-D array (samples x cards)")
    check_deal(decks.shape[1], players, hand)
    return deck_statistics.most_from_one_meld(decks, np.asarray(meld_of_label), players, hand)


def _multinomial_terms(size: int, cap: int, players: int, hand: int) -> tuple[np.ndarray, np.ndarray]:
    """Rows a with a_i <= cap, and log of size! / (a_1! ... a_P! (size - sum a)!) for each.

    The multinomial counts the ways to hand a_i of `size` labelled cards to
    player i and leave the rest undealt. Rows come in lexicographic order.
    """
    top = min(cap, size, hand)
    grid = np.meshgrid(*([np.arange(top + 1)] * players), indexing="ij")
    a = np.stack([g.ravel() for g in grid], axis=1)
    dealt = a.sum(axis=1)
    a, dealt = a[dealt <= size], dealt[dealt <= size]
    log_factorial = np.array([math.lgamma(k + 1) for k in range(size + 1)])
    return a, log_factorial[size] - log_factorial[a].sum(axis=1) - log_factorial[size - dealt]


def _add_meld(q: np.ndarray, size: int, cap: int, players: int, hand: int) -> tuple[np.ndarray, float] | None:
    """The scaled counts q times one meld's generating function (each player
    at most `cap` of its `size` cards): the new counts scaled to a peak of 1,
    and the log of the scale taken out; None when no deal keeps to the cap."""
    rows, logs = _multinomial_terms(size, cap, players, hand)
    top = float(logs.max())
    new = np.zeros(q.shape)
    for a, lc in zip(rows.tolist(), logs.tolist()):
        dst = tuple(slice(x, None) for x in a)
        src = tuple(slice(0, hand + 1 - x) for x in a)
        new[dst] += math.exp(lc - top) * q[src]
    peak = float(new.max())
    if peak == 0.0:
        return None
    return new / peak, top + math.log(peak)


def _full_hands(q: np.ndarray, rest: int, players: int, hand: int) -> tuple[float, float]:
    """The other `rest` cards go anywhere: the coefficient of x^(hand,...,hand)
    in q times their generating function, as (scaled coefficient, log scale)."""
    rows, logs = _multinomial_terms(rest, hand, players, hand)
    top = float(logs.max())
    r = np.zeros(q.shape)
    r[tuple(rows.T)] = np.exp(logs - top)
    flipped = q[(slice(None, None, -1),) * players]
    return float((flipped * r).sum()), top


def _log_all_deals(n_cards: int, players: int, hand: int) -> float:
    """log of the number of deals of `hand` labelled cards to each player."""
    return (
        math.lgamma(n_cards + 1)
        - players * math.lgamma(hand + 1)
        - math.lgamma(n_cards - players * hand + 1)
    )


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
    each card going to a player or staying undealt. Counts are kept scaled,
    with their logarithms tracked, so big packs do not overflow.
    """
    check_deal(n_cards, players, hand)
    sizes = [int(s) for s in meld_sizes if s > 0]
    rest = n_cards - sum(sizes)
    if rest < 0:
        raise ValueError("melds hold more cards than the pack")
    if m < 1:
        return 1.0
    q = np.zeros((hand + 1,) * players)
    q[(0,) * players] = 1.0
    log_q = 0.0  # the true counts are q * exp(log_q)
    for size in sizes:
        added = _add_meld(q, size, m - 1, players, hand)
        if added is None:
            return 1.0  # no deal keeps every meld below m
        q, log_scale = added
        log_q += log_scale
    coefficient, top = _full_hands(q, rest, players, hand)
    if coefficient == 0.0:
        return 1.0
    none = math.exp(math.log(coefficient) + log_q + top - _log_all_deals(n_cards, players, hand))
    return 1.0 - none
