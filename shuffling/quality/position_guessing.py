"""The guessing game played with the exact position law: a strategy fitted to stack-trade.

The inverse-riffle strategy (guessing.py) follows runs: after card a it
names the smallest unseen card after a (the run's continuation), and when
there is none the smallest unseen card. That is the right structure for
inverse riffles (pile-trade, exact mode). Stack-trade also cuts every load
at a fixed count and moves blocks between loads, so some positions hold,
with high probability, cards a run would never suggest (the top of a load
after the trade, the bottom of the first load), and some continuations
cannot be where the run puts them. The exact law of one card's position
(stack_trade_laws.position_laws: M[c, t] = P(card c lies at position t)) knows
this.

The position-checked strategy with threshold theta, at position t:

1. c1 = the run's continuation (smallest unseen card after the last seen);
   c2 = the smallest unseen card; m = the unseen card likeliest at t by M.
2. Name c1 if it exists and M[c1, t] >= theta M[m, t]; else c2 if
   M[c2, t] >= theta M[m, t]; else m.

theta = 0 is the inverse-riffle strategy exactly; theta just above 0 only
refuses cards that cannot lie at t; larger thetas trust the position law
more. The thresholds tried stop at 0.6: the largest one decides how often
m must be looked for, which is most of the cost (theta = 1 would make the
strategy three times slower at 162 cards, and it wins only on packs of a
few cards). Which theta is best depends on the pack
and the round (the position law is sharp for small packs, runs dominate for
big ones early on), so `CrossFitGuessing` picks it per round from the
simulated packs honestly: on the first 10,000 packs, scoring only the pick
on the later ones (or, with no later ones, on one half and scored on the
other, both ways round, as the lower bounds do). Every guess names an unseen card,
so on a uniformly random pack every strategy scores H_N on average.
"""
from __future__ import annotations

import math

import numba
import numpy as np
from numba.cpython.unsafe.numbers import trailing_zeros
from numpy.typing import NDArray

from shuffling.limits import MAX_EXACT_LAW_CARDS

from .estimate import Estimate
from .guessing import guess_scores
from .routines import Machine, load_sizes
from .stack_trade_laws import covered, position_laws

__all__ = ["PICKED", "PILOT_PACKS", "THETAS", "position_checked_scores", "position_checked_reference", "CrossFitGuessing", "guessing_for"]

# The last word of a picked strategy's method, as the report's words look for it.
PICKED = "picked"
# The method of a plain guessing-game score, and the name of the strategy
# that checks positions against the round's exact law.
GUESSING_GAME, POSITION_CHECKED = "guessing game", "position-checked"

# Packs on which every threshold is scored before one is picked for the rest.
PILOT_PACKS = 10_000

# The thresholds tried; 0 is the inverse-riffle strategy, so the pick is never
# worse than it beyond the noise of the choice.
THETAS = (0.0, 1e-9, 0.3, 0.6)

_ALL = np.uint64(0xFFFF_FFFF_FFFF_FFFF)
_ONE = np.uint64(1)


@numba.njit(cache=True, nogil=True)
def _lowest_from(unseen, x, n):  # type: ignore[no-untyped-def]
    """Smallest unseen label >= x (a bit set, 64 to a word), or n when there is none."""
    words = unseen.shape[0]
    w = x >> 6
    if w >= words:
        return n
    bits = unseen[w] & (_ALL << np.uint64(x & 63))
    while True:
        if bits:
            return w * 64 + trailing_zeros(bits)
        w += 1
        if w == words:
            return n
        bits = unseen[w]


@numba.njit(cache=True, nogil=True)
def _scores(decks, law_t, order, thetas, out):  # type: ignore[no-untyped-def]
    # law_t[t, c] = P(card c at position t): one position's row is contiguous.
    # The likeliest unseen card m is looked for only when some threshold could
    # turn the guess away from c1: top <= the position's largest probability.
    # Plain loops, not .max(): numba compiles a reduction slowly (about a
    # second more on a first run).
    n = decks.shape[1]
    most = np.empty(n)
    for t in range(n):
        peak = law_t[t, 0]
        for c in range(1, n):
            peak = max(peak, law_t[t, c])
        most[t] = peak
    reach = thetas[0]
    for j in range(1, thetas.shape[0]):
        reach = max(reach, thetas[j])
    words = (n + 63) >> 6
    unseen = np.empty(words, dtype=np.uint64)
    seen = np.zeros(n, dtype=np.bool_)
    for r in range(decks.shape[0]):
        unseen[:] = _ALL
        if words * 64 > n:
            unseen[words - 1] = _ALL >> np.uint64(words * 64 - n)
        seen[:] = False
        _score_deck(decks[r], law_t, order, thetas, most, reach, unseen, seen, out[r])


@numba.njit(cache=True, nogil=True)
def _score_deck(deck, law_t, order, thetas, most, reach, unseen, seen, out):  # type: ignore[no-untyped-def]
    """One deck guessed card by card at every threshold, each right guess
    counted in out[j]; `unseen` and `seen` start with every card unseen."""
    n = deck.shape[0]
    k = thetas.shape[0]
    last = -1
    lowest = 0  # no unseen label lies below this one
    for t in range(n):
        while seen[lowest]:
            lowest += 1
        c2 = lowest
        c1 = n if last < 0 else _lowest_from(unseen, last + 1, n)
        row = law_t[t]
        p1 = row[c1] if c1 < n else -1.0
        p2 = row[c2]
        c = deck[t]
        if p1 >= reach * most[t]:
            # c1 clears every threshold: the guess is c1 whatever m is.
            if c1 == c:
                for j in range(k):
                    out[j] += 1
        else:
            i = 0
            while seen[order[t, i]]:
                i += 1
            m = order[t, i]
            top = row[m]
            for j in range(k):
                limit = thetas[j] * top
                if p1 >= limit:
                    guess = c1
                elif p2 >= limit:
                    guess = c2
                else:
                    guess = m
                if guess == c:
                    out[j] += 1
        unseen[c >> 6] &= ~(_ONE << np.uint64(c & 63))
        seen[c] = True
        last = c


def _checked(decks: NDArray[np.integer], law: NDArray[np.float64]) -> tuple[NDArray[np.integer], NDArray[np.float64]]:
    decks = np.ascontiguousarray(decks)
    if decks.ndim != 2:
        raise ValueError("decks must be a 2-D array (samples x cards)")
    n = decks.shape[1]
    law = np.ascontiguousarray(law, dtype=np.float64)
    if law.shape != (n, n):
        raise ValueError(f"the position law must be {n} x {n}, not {law.shape}")
    if decks.size and (decks.min() < 0 or decks.max() >= n):
        raise ValueError(f"labels must lie in 0..{n - 1}")
    return decks, law


def position_checked_scores(
    decks: NDArray[np.integer], law: NDArray[np.float64], thetas: tuple[float, ...] = THETAS
) -> NDArray[np.int64]:
    """Correct guesses per pack (rows) and per threshold (columns), int64 (S, len(thetas)).

    law[c, t] = P(card c lies at position t) for the pack's routine and round.
    """
    decks, law = _checked(decks, law)
    s, n = decks.shape
    out = np.zeros((s, len(thetas)), dtype=np.int64)
    if s and n:
        # Cards by falling probability at each position; ties by label, so the
        # strategy is a fixed function of the law.
        order = np.lexsort((np.broadcast_to(np.arange(n)[:, None], (n, n)), -law), axis=0).T.copy()
        _scores(decks, np.ascontiguousarray(law.T), order, np.asarray(thetas, dtype=np.float64), out)
    return out


def position_checked_reference(deck: list[int] | NDArray[np.integer], law: NDArray[np.float64], theta: float) -> int:
    """The same strategy played card by card (slow; for checking)."""
    cards = [int(x) for x in deck]
    n = len(cards)
    unseen = set(range(n))
    last: int | None = None
    right = 0
    for t, card in enumerate(cards):
        m = max(sorted(unseen), key=lambda c: law[c, t])  # first of the likeliest, by label
        after = [u for u in unseen if last is not None and u > last]
        c1 = min(after) if after else None
        c2 = min(unseen)
        limit = theta * law[m, t]
        if c1 is not None and law[c1, t] >= limit:
            guess = c1
        elif law[c2, t] >= limit:
            guess = c2
        else:
            guess = m
        right += guess == card
        unseen.remove(card)
        last = card
    return right


class CrossFitGuessing:
    """Guessing scores of one round's packs, with the strategy picked honestly.

    With a position law, every threshold of THETAS is scored on the first
    PILOT_PACKS packs, and the threshold with the best mean there is then the
    only one scored on every later pack (the inverse-riffle strategy's fast
    kernel when it is theta 0); the figure is the mean over those later
    packs, which did not choose it. With no later packs the pilot's packs
    fall in two halves by running index, the threshold best on one half is
    scored on the other, both ways round, and the two figures are averaged
    (their errors too, which bounds the error of the average). Without a
    position law, the inverse-riffle strategy alone.
    """

    def __init__(self, law: NDArray[np.float64] | None, thetas: tuple[float, ...] = THETAS) -> None:
        self.law = law
        self.thetas = thetas if law is not None else (0.0,)
        k = len(self.thetas)
        self.count = np.zeros(2, dtype=np.int64)  # the pilot's halves
        self.total = np.zeros((2, k))
        self.squares = np.zeros((2, k))
        self.chosen: int | None = None  # index into thetas, once the pilot is over
        self.later = np.zeros(3)  # count, total, sum of squares of the chosen one's later scores

    def _add_pilot(self, scores: NDArray[np.int64]) -> None:
        half = (int(self.count.sum()) + np.arange(scores.shape[0])) % 2
        for h in (0, 1):
            part = scores[half == h].astype(np.float64)
            self.count[h] += part.shape[0]
            self.total[h] += part.sum(axis=0)
            self.squares[h] += (part * part).sum(axis=0)

    def update(self, decks: NDArray[np.integer]) -> None:
        if self.law is None:
            self._add_pilot(guess_scores(decks)[:, None])
            return
        room = max(0, PILOT_PACKS - int(self.count.sum()))
        if room:
            self._add_pilot(position_checked_scores(decks[:room], self.law, self.thetas))
        rest = decks[room:]
        if rest.shape[0] == 0:
            return
        if self.chosen is None:
            self.chosen = int(np.argmax(self.total.sum(axis=0)))
        theta = self.thetas[self.chosen]
        scores = (guess_scores(rest) if theta == 0 else
                  position_checked_scores(rest, self.law, (theta,))[:, 0]).astype(np.float64)
        self.later += (scores.size, scores.sum(), (scores * scores).sum())

    def _mean_se(self, h: int, j: int) -> tuple[float, float]:
        m = int(self.count[h])
        mean = self.total[h, j] / m
        var = max(0.0, self.squares[h, j] / m - mean * mean) * m / max(1, m - 1)
        return mean, math.sqrt(var / m)

    def estimate(self) -> Estimate:
        """The mean score, as an Estimate named for the strategy used."""
        if self.law is None or min(self.count) == 0:
            m = int(self.count.sum())
            mean = float(self.total[:, 0].sum() / m)
            var = max(0.0, float(self.squares[:, 0].sum()) / m - mean * mean) * m / max(1, m - 1)
            return Estimate(mean, math.sqrt(var / m), "estimate", GUESSING_GAME)
        if self.later[0] > 0:
            m, total, squares = self.later
            mean = total / m
            var = max(0.0, squares / m - mean * mean) * m / max(1, m - 1)
            assert self.chosen is not None
            return Estimate(float(mean), math.sqrt(var / m), "estimate",
                            f"{GUESSING_GAME} ({_named(self.thetas[self.chosen])}, {PICKED})")
        values, errors, picks = [], [], []
        for h in (0, 1):
            j = int(np.argmax(self.total[h] / self.count[h]))
            v, se = self._mean_se(1 - h, j)
            values.append(v)
            errors.append(se)
            picks.append(self.thetas[j])
        named = " / ".join(dict.fromkeys(_named(t) for t in picks))
        return Estimate(sum(values) / 2, sum(errors) / 2, "estimate", f"{GUESSING_GAME} ({named}, {PICKED})")


def _named(theta: float) -> str:
    return "inverse-riffle" if theta == 0 else f"{POSITION_CHECKED} {theta:g}"


def guessing_for(routine_name: str, n_cards: int, capacity: int, rounds: int,
                 machine: Machine = Machine()) -> dict[int, CrossFitGuessing]:
    """The guessing accumulator for each round 1..rounds, with the better strategy for the routine.

    Stack-trade on two or more loads gets the position-checked strategies
    (with its exact position law for each round) where that law is known
    (independent sides, N <= MAX_EXACT_LAW_CARDS). Every other routine
    (pile-trade, one load) is a succession of inverse riffles, for which the
    inverse-riffle strategy is the better one: it equals the enumerated
    optimum on the small packs checked (test_position_guessing.py). Exact
    mode's rounds, whole-pack radix's or the split's, are stable two-way
    partitions too, and its player follows their runs the same way (not
    shown to be the best there).
    """
    if (routine_name == "stack-trade" and len(load_sizes(n_cards, capacity)) > 1 and covered(machine)
            and n_cards <= MAX_EXACT_LAW_CARDS):
        laws = position_laws(n_cards, capacity, rounds, machine)
        return {r: CrossFitGuessing(laws[r - 1]) for r in range(1, rounds + 1)}
    return {r: CrossFitGuessing(None) for r in range(1, rounds + 1)}
