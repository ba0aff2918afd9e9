"""Stack-trade's coupling upper bound: each pack's law, the bound against exact distances, its confidence."""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from shuffling.quality import coupling as cp
from shuffling.quality.enumerate import all_arrangements, exact_laws
from shuffling.quality.riffle_distance import tv_riffle
from shuffling.quality.routines import Machine


def _chi_square(expected_probs: np.ndarray, counts: np.ndarray) -> tuple[float, int]:
    """Chi-square over cells expected at least 5 times, the rest pooled into one cell."""
    expected = expected_probs * counts.sum()
    assert counts[expected_probs == 0].sum() == 0  # nothing impossible happens
    big = expected >= 5
    o = np.append(counts[big], counts[~big].sum())
    e = np.append(expected[big], expected[~big].sum())
    keep = e > 0
    return float(((o[keep] - e[keep]) ** 2 / e[keep]).sum()), int(keep.sum() - 1)


@pytest.mark.parametrize("n,capacity,machine", [(6, 2, Machine()), (7, 4, Machine(p=0.6)),
                                                (7, 3, Machine())],
                         ids=["three-loads", "biased", "unequal-loads"])
def test_each_pack_runs_stack_trade_and_the_random_one_stays_random(n: int, capacity: int, machine: Machine) -> None:
    """X's orders follow stack-trade's exact law, Y's the uniform law, round by round (chi-square, df + 5 sd)."""
    rounds, samples = 3, 20_000
    laws = exact_laws("stack-trade", n, capacity, rounds, machine=machine)
    perms = all_arrangements(n)
    index = {tuple(p): k for k, p in enumerate(perms.tolist())}
    for r, x, y, _ in cp.coupled_packs(n, capacity, rounds, samples, machine, np.random.default_rng(7)):
        for decks, law in ((x, laws[r - 1].probabilities()), (y, np.full(len(perms), 1 / len(perms)))):
            counts = np.bincount([index[tuple(d)] for d in decks.tolist()], minlength=len(perms))
            chi2, df = _chi_square(np.asarray(law, dtype=float), counts)
            assert chi2 <= df + 5 * math.sqrt(2 * df), (r, chi2, df)


@pytest.mark.parametrize("n,capacity,rounds", [(7, 4, 6), (6, 2, 6)], ids=["two-loads", "three-loads"])
def test_the_upper_bound_holds_where_the_distance_is_known(n: int, capacity: int, rounds: int) -> None:
    exact = [float(law.tv()) for law in exact_laws("stack-trade", n, capacity, rounds)]
    bounds = cp.coupling_upper_bounds("stack-trade", n, capacity, rounds, 20_000, Machine(),
                                      np.random.default_rng(3))
    assert bounds is not None
    for bound, tv in zip(bounds, exact):
        assert bound.value >= tv and bound.confidence == cp.CONFIDENCE and bound.samples == 20_000
        assert bound.value >= bound.apart / bound.samples
    # The packs do meet on a small pack, if slowly: the bound is far above the distance.
    assert bounds[-1].apart < 0.95 * bounds[-1].samples
    # Once together, a pair stays together.
    assert all(b.apart <= a.apart for a, b in zip(bounds, bounds[1:]))


def test_at_162_cards_the_upper_bound_stays_above_pile_trade_every_round() -> None:
    """So the simulated bound shows no round where stack-trade is closer to random than pile-trade."""
    bounds = cp.coupling_upper_bounds("stack-trade", 162, 104, 16, 2_000, Machine(), np.random.default_rng(0))
    assert bounds is not None
    for r, bound in enumerate(bounds, start=1):
        pile = tv_riffle(162, r)
        assert bound.value >= pile, r
        if pile < 0.9:  # from round 8: far above, not only within the simulation's error
            assert bound.apart / bound.samples > pile + 0.1, r


def test_no_bound_where_it_does_not_apply() -> None:
    rng = np.random.default_rng(0)
    assert cp.coupling_upper_bounds("pile-trade", 162, 104, 2, 10, Machine(), rng) is None
    assert cp.coupling_upper_bounds("stack-trade", 52, 104, 2, 10, Machine(), rng) is None  # one load
    assert cp.coupling_upper_bounds("stack-trade", 162, 104, 2, 10, Machine(clump=0.1), rng) is None
    with pytest.raises(ValueError):
        next(cp.coupled_packs(20, 8, 1, 10, Machine(double_feed=0.1), rng))


def _binomial_cdf(k: int, n: int, p: Fraction) -> Fraction:
    return sum((math.comb(n, j) * p**j * (1 - p) ** (n - j) for j in range(k + 1)), Fraction(0))


@pytest.mark.parametrize("k,n", [(0, 1), (0, 10), (3, 10), (9, 10), (10, 10), (17, 40), (0, 10_000),
                                 (9_990, 10_000), (9_999, 10_000)])
def test_the_clopper_pearson_limit(k: int, n: int) -> None:
    confidence = 0.975
    u = cp.binomial_upper_limit(k, n, confidence)
    if k == n:
        assert u == 1.0
        return
    if k == 0:
        assert u == pytest.approx(1 - (1 - confidence) ** (1 / n), rel=1e-9)  # P(no success) = 1 - confidence
    if k == n - 1:
        assert u == pytest.approx(confidence ** (1 / n), rel=1e-9)  # P(all successes) = confidence
    if n <= 40:
        # At the limit the chance of k or fewer is exactly 1 - confidence, in rational arithmetic.
        below, above = Fraction(u) * (1 - Fraction(1, 10**9)), Fraction(u) * (1 + Fraction(1, 10**9))
        assert _binomial_cdf(k, n, below) > 1 - Fraction(confidence) > _binomial_cdf(k, n, above)
    assert k / n < u < 1


@pytest.mark.parametrize("p", [0.02, 0.3, 0.5, 0.9, 0.995])
def test_the_limit_covers_the_true_chance_as_often_as_it_says(p: float) -> None:
    """Exactly: the chance of a count whose limit lies at or above the true chance is at least 97.5 %."""
    n = 60
    limits = [cp.binomial_upper_limit(k, n, 0.975) for k in range(n + 1)]
    assert all(a < b for a, b in zip(limits, limits[1:]))
    covered = sum(math.comb(n, k) * p**k * (1 - p) ** (n - k) for k in range(n + 1) if limits[k] >= p)
    assert covered >= 0.975 - 1e-12
