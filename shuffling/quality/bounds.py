"""Monte Carlo lower bounds on the distance from uniform.

For any statistic T of the arrangement, TV(shuffle, uniform) >= TV(law of T
under the shuffle, law of T under uniform) >= P(T in A) - Q(T in A) for every
set A of values, where Q is T's law under a uniform shuffle, known exactly
here. The plug-in TV of an empirical histogram is biased upwards (noise alone
makes it positive), so instead the samples are split in two halves by index:
one half chooses A (the values seen more often than Q predicts), the other
estimates P(A) without bias; then the halves swap roles and the two figures
are averaged (cross-fitting). Under a uniform shuffle P(A) = Q(A) for every A,
so the estimate is 0 up to its standard error; otherwise its expectation is
at most the statistic's TV, hence at most the shuffle's. Choosing among
several statistics is itself done honestly: each half is split again in two,
and the statistic that does best when chosen on one quarter and measured on
the other is the one used.

Statistics (their uniform laws are exact):
  descents          d = #{j : deck[j] > deck[j+1]}; Eulerian A(N, d) / N!.
  rising sequences  r = 1 + #{i : card i+1 lies above card i}; Eulerian too.
  successions       #{j : deck[j+1] = deck[j] + 1}; succession_counts / N!.
  top card position, bottom card position: uniform on 0..N-1.
  card positions (best card): the card whose position is most lopsided,
                    chosen on one half and measured on the other, so testing
                    all N cards costs nothing in honesty.
"""
from __future__ import annotations

import functools
import math
from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from numpy.typing import NDArray

from shuffling.limits import MAX_POSITION_TABLE_CARDS
from shuffling.limits import MIN_SAMPLES as MIN_SHUFFLES

from .deck_statistics import HISTOGRAMS, add_histograms
from .estimate import Estimate
from .riffle_distance import counting_bound, eulerian_row, succession_counts

__all__ = ["StatAccumulator", "RoundStats", "uniform_laws", "best_lower_bound", "lower_bounds", "inverse_positions",
           "MIN_SHUFFLES"]


_BEST = "best statistic"
COUNTING_BOUND = "counting bound"  # the method of the bound from the bits spent alone


@functools.cache
def _law(counts: tuple[int, ...], n: int) -> NDArray[np.float64]:
    # Kept: every round of every report asks again. Read-only, as it is shared.
    nf = math.factorial(n)
    law = np.array([float(Fraction(c, nf)) for c in counts])
    law.flags.writeable = False
    return law


def uniform_laws(n: int) -> dict[str, NDArray[np.float64]]:
    """Exact law under a uniform shuffle of each histogram statistic, indexed by bin."""
    euler = _law(eulerian_row(n), n)
    return {
        "descents": euler,
        "rising sequences": euler,  # bin r - 1
        "successions": _law(succession_counts(n), n),
        "top card position": np.full(n, 1.0 / n),
        "bottom card position": np.full(n, 1.0 / n),
    }


def inverse_positions(decks: NDArray[np.integer]) -> NDArray[np.integer]:
    """pos[s, i] = position (from the top) of card i in row s; labels must lie in 0..N-1."""
    s, n = decks.shape
    w = max(1, (n - 1).bit_length())
    kdt = np.int32 if 2 * w <= 31 else np.int64
    # Sort keys (label, position) per row: the positions come out in label order.
    key = decks.astype(kdt) << w
    key |= np.arange(n, dtype=kdt)
    key.sort(axis=1)
    key &= (1 << w) - 1
    return key


class StatAccumulator:
    """Histograms of the lower-bound statistics, fed chunk by chunk.

    update(decks) adds a chunk (rows = shuffles); finish() returns a dict
    name -> Estimate (kind "lower-bound"), including "best statistic", the
    statistic and value set chosen on one half and measured on the other.
    Memory does not grow with the number of samples.
    """

    def __init__(self, n_cards: int) -> None:
        if not isinstance(n_cards, int) or isinstance(n_cards, bool) or n_cards < 2:
            raise ValueError(f"lower-bound statistics need at least 2 cards, not {n_cards!r}")
        self.n = n_cards
        self.samples = 0
        # Four parts by running index mod 4; halves are parts {0, 1} and {2, 3}.
        # One array for every histogram (deck_statistics fills it); counts are views into it.
        self._histograms = np.zeros((len(HISTOGRAMS), _PARTS, n_cards), dtype=np.int64)
        self.counts: dict[str, NDArray[np.int64]] = {k: self._histograms[i] for i, k in enumerate(HISTOGRAMS)}
        self.table: NDArray[np.int64] | None = (
            np.zeros((_PARTS, n_cards * n_cards), dtype=np.int64) if n_cards <= MAX_POSITION_TABLE_CARDS else None
        )
        self.part_sizes = [0] * _PARTS

    def update(self, decks: NDArray[np.integer]) -> None:
        """Add a chunk of shuffles (rows); the chunk is not kept."""
        if decks.ndim != 2 or decks.shape[1] != self.n:
            raise ValueError(f"expected decks of shape (S, {self.n}), got {decks.shape}")
        # Running index mod 4 picks each shuffle's part.
        part_sizes = np.bincount((self.samples + np.arange(decks.shape[0])) % _PARTS, minlength=_PARTS)
        table = self.table if self.table is not None else np.zeros((_PARTS, 0), dtype=np.int64)
        add_histograms(decks, self.samples, self._histograms, table)
        for k in range(_PARTS):
            self.part_sizes[k] += int(part_sizes[k])
        self.samples += decks.shape[0]

    def _families(self) -> list[_Family]:
        laws = uniform_laws(self.n)
        fams = [_Family(name, c[:, None, :], laws[name][None, :]) for name, c in self.counts.items()]
        if self.table is not None:
            n = self.n
            fams.append(_Family("card positions (best card)", self.table.reshape(_PARTS, n, n), np.full((n, n), 1.0 / n)))
        return fams

    def finish(self) -> dict[str, Estimate]:
        """Lower bounds, one per statistic, plus "best statistic"."""
        if self.part_sizes[0] < 1 or self.part_sizes[2] < 1:
            raise ValueError(f"lower bounds need at least {MIN_SHUFFLES} shuffles")
        fams = self._families()
        out = {f.name: _crossfit([f]) for f in fams}
        out[_BEST] = _crossfit(fams)
        return out

    def histograms(self) -> dict[str, NDArray[np.int64]]:
        """All parts together: counts per bin of each histogram statistic."""
        return {name: c.sum(axis=0) for name, c in self.counts.items()}


_PARTS = 4


@dataclass(frozen=True)
class _Family:
    """A statistic, or a family of them (one per card): counts (parts, G, K), uniform law (G, K)."""

    name: str
    counts: NDArray[np.int64]
    law: NDArray[np.float64]

    def half(self, h: int) -> NDArray[np.int64]:
        return self.counts[2 * h] + self.counts[2 * h + 1]


def _choose(c: NDArray[np.int64], q: NDArray[np.float64]) -> tuple[int, NDArray[np.bool_]]:
    """Member g and value set A = {p_hat > q} with the largest excess over what noise gives."""
    m = max(int(c[0].sum()), 1)
    p_hat = c / m
    sets = p_hat > q
    gain = np.where(sets, p_hat - q, 0.0).sum(axis=1)
    # Noise alone gives about sum_x E[(p_hat - q)+] = sum_x sqrt(q (1 - q) / (2 pi m)).
    noise = np.sqrt(q * (1 - q) / (2 * math.pi * m)).sum(axis=1)
    g = int(np.argmax(gain - noise))
    return g, sets[g]


def _measure(c: NDArray[np.int64], q: NDArray[np.float64], chosen: NDArray[np.bool_]) -> tuple[float, float]:
    """P_hat(A) - Q(A) on counts c that did not choose A, with its standard error."""
    m = int(c.sum())
    if m == 0:
        return 0.0, math.inf
    hits = int(c[chosen].sum())
    p_var = (hits + 0.5) / (m + 1)  # keeps the error above 0 when every shuffle hits
    return hits / m - float(q[chosen].sum()), math.sqrt(p_var * (1 - p_var) / m)


def _honest_score(f: _Family, h: int) -> float:
    """Cross-fit within half h (its two parts): a fair score for comparing statistics."""
    total = 0.0
    for a, b in ((2 * h, 2 * h + 1), (2 * h + 1, 2 * h)):
        g, chosen = _choose(f.counts[a], f.law)
        total += _measure(f.counts[b][g], f.law[g], chosen)[0]
    return total


def _crossfit(fams: list[_Family]) -> Estimate:
    """Choose on one half, measure on the other, both ways round, and average."""
    values, errors, names = [], [], []
    for h in (0, 1):
        f = fams[0] if len(fams) == 1 else max(fams, key=lambda fam: _honest_score(fam, h))
        g, chosen = _choose(f.half(h), f.law)
        v, se = _measure(f.half(1 - h)[g], f.law[g], chosen)
        values.append(v)
        errors.append(se)
        names.append(f.name)
    # The two figures are dependent; sd(X + Y) <= sd(X) + sd(Y) bounds the error.
    method = names[0] if names[0] == names[1] else f"{names[0]} / {names[1]}"
    return Estimate(sum(values) / 2, sum(errors) / 2, "lower-bound", method)


def best_lower_bound(
    estimates: dict[str, Estimate], *, n_cards: int | None = None, bits: int | None = None
) -> Estimate:
    """The best honest lower bound: the cross-fitted best statistic, or the counting bound.

    The counting bound 1 - 2**bits / N! (exact) replaces the statistic's figure
    when it is larger by more than three of that figure's standard errors, a
    rule that cannot overstate the distance by picking noise.
    """
    est = estimates[_BEST] if _BEST in estimates else max(estimates.values(), key=lambda e: e.value)
    if n_cards is not None and bits is not None:
        c = counting_bound(n_cards, bits)
        if c > est.value + 3 * est.stderr:
            return Estimate(c, 0.0, "lower-bound", COUNTING_BOUND)
    return est


class RoundStats:
    """One StatAccumulator per round, fed from `routines.simulate`'s (round, decks) stream."""

    def __init__(self, n_cards: int, rounds: int) -> None:
        self.acc = {r: StatAccumulator(n_cards) for r in range(1, rounds + 1)}

    def update(self, r: int, decks: NDArray[np.integer]) -> None:
        self.acc[r].update(decks)

    def finish(self) -> dict[int, dict[str, Estimate]]:
        return {r: a.finish() for r, a in self.acc.items()}


def lower_bounds(stream: Iterable[tuple[int, NDArray[np.integer]]], n_cards: int, rounds: int) -> dict[int, dict[str, Estimate]]:
    """Consume a simulate() stream; lower bounds per round."""
    stats = RoundStats(n_cards, rounds)
    for r, decks in stream:
        stats.update(r, decks)
    return stats.finish()
