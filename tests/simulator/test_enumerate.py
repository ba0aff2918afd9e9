"""Exact laws of small packs: the pile-trade theorem and the Monte Carlo figures."""
from __future__ import annotations

import math

import numpy as np
import pytest

from simulator.quality.bounds import StatAccumulator, uniform_laws
from simulator.quality.enumerate import all_arrangements, exact_laws, round_law
from simulator.quality.exact import tv_riffle_exact
from simulator.quality.routines import exact_tv, load_sizes, simulate


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
        sigmas, counts = round_law(routine, 6, 2)
        assert counts.sum() == 2**6
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
