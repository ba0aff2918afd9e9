"""Exact laws of small packs: the pile-trade theorem and the Monte Carlo figures."""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from shuffling.quality.bounds import StatAccumulator, uniform_laws
from shuffling.quality.enumerate import all_arrangements, exact_laws, given_distinct_histories, round_law, side_weights
from shuffling.quality.riffle_distance import tv_riffle_exact
from shuffling.quality.routines import Machine, exact_tv, load_sizes, simulate


@pytest.mark.parametrize("n,capacity,rounds", [(8, 4, 5), (6, 2, 6), (6, 3, 6), (7, 3, 4), (5, 5, 4)])
def test_pile_trade_law_is_k_inverse_riffles(n: int, capacity: int, rounds: int) -> None:
    laws = exact_laws("pile-trade", n, capacity, rounds)
    for k, law in enumerate(laws, start=1):
        assert law.tv() == tv_riffle_exact(n, k)
        assert exact_tv("pile-trade", n, capacity, k) == law.tv()


def test_single_load_routines_agree() -> None:
    a = exact_laws("stack-trade", 6, 6, 3)
    b = exact_laws("pile-trade", 6, 6, 3)
    assert a == b
    assert [x.tv() for x in a] == [exact_tv("stack-trade", 6, 6, k) for k in (1, 2, 3)]


@pytest.mark.parametrize("n,capacity", [(8, 4), (6, 2), (6, 3)])
def test_stack_trade_is_not_an_inverse_riffle(n: int, capacity: int) -> None:
    assert len(load_sizes(n, capacity)) >= 2
    laws = exact_laws("stack-trade", n, capacity, 4)
    for k, law in enumerate(laws, start=1):
        # Further from uniform than pile-trade's k inverse riffles, for these packs.
        assert law.tv() > tv_riffle_exact(n, k)
    assert exact_tv("stack-trade", n, capacity, 2) is None


def test_round_law_weights_add_up() -> None:
    for routine in ("stack-trade", "pile-trade"):
        sigmas, counts, den = round_law(routine, 6, 2)
        assert sum(counts) == den == 2**6
        assert np.array_equal(np.sort(sigmas, axis=1), np.broadcast_to(np.arange(6), sigmas.shape))
    law = exact_laws("stack-trade", 6, 2, 2)[1]
    assert sum(law.weights) == law.total == 2**12


def _descents(perms: np.ndarray) -> np.ndarray:
    return np.count_nonzero(perms[:, 1:] < perms[:, :-1], axis=1)


def _successions(perms: np.ndarray) -> np.ndarray:
    return np.count_nonzero(perms[:, 1:] == perms[:, :-1] + 1, axis=1)


@pytest.mark.parametrize("n,capacity,rounds", [(8, 4, 3), (6, 2, 4), (6, 3, 3)])
def test_monte_carlo_agrees_with_the_exact_law(n: int, capacity: int, rounds: int) -> None:
    samples = 40000
    exact = exact_laws("stack-trade", n, capacity, rounds)
    perms = all_arrangements(n)
    stats = {r: StatAccumulator(n) for r in range(1, rounds + 1)}
    for r, decks in simulate("stack-trade", n, capacity, rounds, samples, seed=n * 10 + capacity):
        stats[r].update(decks)
    laws_u = uniform_laws(n)
    for r in range(1, rounds + 1):
        hist = stats[r].histograms()
        est = stats[r].finish()
        for name, values in (("descents", _descents(perms)), ("successions", _successions(perms))):
            law = exact[r - 1].statistic_law(values)
            p = np.array([float(law.get(v, 0)) for v in range(n)])
            # Frequencies: a chi-square over the bins the law can reach.
            live = p > 0
            assert hist[name][~live].sum() == 0
            chi2 = (((hist[name][live] - samples * p[live]) ** 2) / (samples * p[live])).sum()
            df = live.sum() - 1
            assert chi2 <= df + 5 * math.sqrt(2 * df) + 1, (r, name, chi2)
            # The lower bound meets the exact TV of the statistic's law, within error;
            # cross-fitting may fall a little short on bins whose excess is tiny.
            stat_tv = 0.5 * np.abs(p - laws_u[name]).sum()
            assert stat_tv <= float(exact[r - 1].tv()) + 1e-12
            e = est[name]
            assert stat_tv - 0.01 - 4 * e.stderr <= e.value <= stat_tv + 4 * e.stderr, (r, name, e, stat_tv)
        assert est["best statistic"].value <= float(exact[r - 1].tv()) + 4 * est["best statistic"].stderr


def test_refuses_packs_too_big_to_enumerate() -> None:
    with pytest.raises(ValueError):
        round_law("pile-trade", 12, 6)
    with pytest.raises(ValueError):
        round_law("riffle", 6, 3)


def _chi_square_against(law_probs: np.ndarray, counts: np.ndarray) -> tuple[float, int]:
    """Chi-square of observed counts per arrangement, pooling cells expected below 5."""
    samples = counts.sum()
    expected = law_probs * samples
    big = expected >= 5
    obs = np.append(counts[big], counts[~big].sum())
    exp = np.append(expected[big], expected[~big].sum())
    keep = exp > 0
    assert counts[law_probs == 0].sum() == 0  # nothing impossible ever happens
    return float(((obs[keep] - exp[keep]) ** 2 / exp[keep]).sum()), int(keep.sum() - 1)


@pytest.mark.parametrize("routine", ["pile-trade", "stack-trade"])
@pytest.mark.parametrize(
    "machine", [Machine(), Machine(p=0.6, clump=0.3, double_feed=0.1)], ids=["fair", "imperfect"]
)
def test_whole_arrangement_frequencies_match_the_exact_law(routine: str, machine: Machine) -> None:
    n, capacity, rounds, samples = 6, 2, 2, 60000
    laws = exact_laws(routine, n, capacity, rounds, machine=machine)
    perms = all_arrangements(n)
    codes = (perms.astype(np.int64) * n ** np.arange(n - 1, -1, -1)).sum(axis=1)
    counts = {r: np.zeros(len(perms), dtype=np.int64) for r in range(1, rounds + 1)}
    for r, decks in simulate(routine, n, capacity, rounds, samples, machine=machine, seed=77):
        c = (decks.astype(np.int64) * n ** np.arange(n - 1, -1, -1)).sum(axis=1)
        counts[r] += np.bincount(np.searchsorted(codes, c), minlength=len(perms))
    for r in range(1, rounds + 1):
        chi2, df = _chi_square_against(laws[r - 1].probabilities(), counts[r])
        assert chi2 <= df + 5 * math.sqrt(2 * df), (r, chi2, df)


def test_side_weights_are_a_probability_law() -> None:
    bits = ((np.arange(2**5)[:, None] >> np.arange(5)) & 1).astype(bool)
    w, den = side_weights(bits, [0, 3, 5], Machine(p=0.7, clump=0.2))
    assert sum(w) == den
    fair, den2 = side_weights(bits, [0, 5], Machine())
    assert len(set(fair)) == 1 and den2 == fair[0] * 2**5
    # clump 1: only vectors constant within each load are possible.
    w1, _ = side_weights(bits, [0, 3, 5], Machine(clump=1.0))
    possible = [row for row, x in zip(bits.tolist(), w1) if x]
    assert len(possible) == 4 and all(len(set(row[:3])) == 1 and len(set(row[3:])) == 1 for row in possible)


def test_an_imperfect_machine_is_further_from_uniform_in_exact_terms() -> None:
    fair = exact_laws("pile-trade", 6, 2, 4)
    bad = exact_laws("pile-trade", 6, 2, 4, machine=Machine(clump=0.3))
    assert all(b.tv() > f.tv() for f, b in zip(fair[1:], bad[1:]))


def test_stack_trade_with_a_one_card_load_reaches_uniform() -> None:
    # Three cards, two-card machine: loads [0, 1] and [2]. By hand, A gathers
    # to [0, 1] with chance 3/4 and [1, 0] with 1/4; trading one card gives
    # [2, A[1], A[0]]. Trading none would leave card 2 at the bottom for ever,
    # at distance 2/3 from uniform in every round.
    laws = exact_laws("stack-trade", 3, 2, 12)
    perms = [tuple(p) for p in all_arrangements(3).tolist()]
    first = {p: Fraction(w, laws[0].total) for p, w in zip(perms, laws[0].weights) if w}
    assert first == {(2, 1, 0): Fraction(3, 4), (2, 0, 1): Fraction(1, 4)}
    tvs = [law.tv() for law in laws]
    assert all(b < a for a, b in zip(tvs[1:], tvs[2:]))
    assert tvs[-1] < Fraction(1, 10)


@pytest.mark.parametrize("n,capacity,rounds", [
    (4, 2, 2), (4, 2, 3), (5, 3, 3),
    pytest.param(6, 2, 3, marks=pytest.mark.slow),  # three loads of two
])
def test_distinct_histories_are_a_strong_uniform_time_for_pile_trade_only(n: int, capacity: int, rounds: int) -> None:
    """Given that every card's side history differs, pile-trade's deck is exactly
    uniform (a strong uniform time); stack-trade's is not, so the argument that
    bounds pile-trade's distance from above does not carry over."""
    pile = given_distinct_histories("pile-trade", n, capacity, rounds)
    stack = given_distinct_histories("stack-trade", n, capacity, rounds)
    # The same side sequences qualify: at least one exists, and as many for both.
    assert pile.total == stack.total > 0
    assert len(set(pile.weights)) == 1 and pile.tv() == 0
    assert stack.tv() > Fraction(1, 10)
