"""Lower bounds read zero on uniform shuffles and never exceed known distances."""
from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from shuffling.quality.bounds import (
    COUNTING_BOUND,
    MIN_SHUFFLES,
    RoundStats,
    StatAccumulator,
    best_lower_bound,
    inverse_positions,
    lower_bounds,
    uniform_laws,
)
from shuffling.quality.estimate import Estimate
from shuffling.quality.riffle_distance import tv_riffle
from shuffling.quality.kernels import identity_decks
from shuffling.quality.routines import simulate


def _uniform(rng: np.random.Generator, s: int, n: int) -> np.ndarray:
    return np.argsort(rng.random((s, n)), axis=1).astype(np.int16)


@pytest.mark.parametrize("n,samples", [(52, 40000), (162, 30000), (8, 20000)])
def test_uniform_shuffles_read_zero_within_error(n: int, samples: int) -> None:
    rng = np.random.default_rng(100 + n)
    acc = StatAccumulator(n)
    for _ in range(4):
        acc.update(_uniform(rng, samples // 4, n))
    for name, est in acc.finish().items():
        assert est.kind == "lower-bound"
        assert abs(est.value) <= 3 * est.stderr, (name, est)


def test_estimator_is_unbiased_at_zero_over_many_runs() -> None:
    # Averaged over repeated small runs, a uniform input still reads zero:
    # the plug-in TV would sit far above zero here.
    rng = np.random.default_rng(7)
    vals = []
    for _ in range(60):
        acc = StatAccumulator(30)
        acc.update(_uniform(rng, 400, 30))
        vals.append(acc.finish()["best statistic"].value)
    mean, se = np.mean(vals), np.std(vals, ddof=1) / math.sqrt(len(vals))
    assert abs(mean) <= 3.5 * se


@pytest.mark.parametrize("n", [3, 5, 7])
def test_uniform_laws_match_enumeration(n: int) -> None:
    perms = np.array(list(itertools.permutations(range(n))))
    laws = uniform_laws(n)
    acc = StatAccumulator(n)
    acc.update(perms)
    hist = acc.histograms()
    nf = math.factorial(n)
    for name, law in laws.items():
        assert law.sum() == pytest.approx(1.0)
        assert np.allclose(hist[name] / nf, law), name


def test_the_unshuffled_pack_is_far_from_uniform() -> None:
    acc = StatAccumulator(52)
    acc.update(identity_decks(2000, 52))
    res = acc.finish()
    for name in ("descents", "rising sequences", "successions", "best statistic"):
        assert res[name].value == pytest.approx(1.0, abs=1e-9), name
    # Top card always on top: P(pos = 0) - 1/52.
    assert res["top card position"].value == pytest.approx(1 - 1 / 52)


def test_chunking_does_not_change_the_result() -> None:
    rng = np.random.default_rng(3)
    decks = _uniform(rng, 1001, 20)
    one, many = StatAccumulator(20), StatAccumulator(20)
    one.update(decks)
    for lo in range(0, 1001, 97):
        many.update(decks[lo : lo + 97])
    assert one.finish() == many.finish()


def test_bounds_stay_below_the_exact_distance() -> None:
    n, rounds, samples = 52, 8, 20000
    res = lower_bounds(simulate("pile-trade", n, 104, rounds, samples, seed=12, chunk=7000), n, rounds)
    for r in range(1, rounds + 1):
        exact = tv_riffle(n, r)
        for name, est in res[r].items():
            assert est.value <= exact + 4 * est.stderr + 1e-9, (r, name, est, exact)
        # descents carry the whole distance of inverse riffles: tight.
        assert abs(res[r]["descents"].value - exact) <= 4 * res[r]["descents"].stderr + 1e-9


def test_round_stats_keeps_rounds_apart() -> None:
    stats = RoundStats(20, 2)
    stats.update(1, identity_decks(10, 20))
    stats.update(2, _uniform(np.random.default_rng(0), 4000, 20))
    out = stats.finish()
    assert out[1]["descents"].value == pytest.approx(1.0)
    assert abs(out[2]["descents"].value) <= 3 * out[2]["descents"].stderr


def test_best_lower_bound_prefers_a_clearly_larger_counting_bound() -> None:
    weak = {"best statistic": Estimate(0.2, 0.01, "lower-bound", "descents")}
    # 52 cards, 2 riffles' worth of bits: 2**104 of 52! arrangements.
    got = best_lower_bound(weak, n_cards=52, bits=104)
    assert got.method == COUNTING_BOUND and got.value == pytest.approx(1.0)
    strong = {"best statistic": Estimate(0.9, 0.01, "lower-bound", "descents")}
    assert best_lower_bound(strong, n_cards=52, bits=230) is strong["best statistic"]
    assert best_lower_bound(weak) is weak["best statistic"]


def test_inverse_positions() -> None:
    decks = np.array([[2, 0, 1], [0, 1, 2]])
    assert inverse_positions(decks).tolist() == [[1, 2, 0], [0, 1, 2]]


def test_bad_input_is_refused() -> None:
    with pytest.raises(ValueError):
        StatAccumulator(1)
    acc = StatAccumulator(5)
    with pytest.raises(ValueError):
        acc.update(identity_decks(3, 6))
    acc.update(identity_decks(2, 5))
    with pytest.raises(ValueError, match="at least 3"):
        acc.finish()


def test_an_estimate_refuses_an_unknown_kind_or_a_bad_error() -> None:
    # (its printed form: tests/shuffling/test_estimate_words.py)
    with pytest.raises(ValueError):
        Estimate(0.1, 0.0, "guess", "x")
    with pytest.raises(ValueError):
        Estimate(0.1, -1.0, "estimate", "x")
    with pytest.raises(ValueError):
        Estimate(0.1, float("nan"), "estimate", "x")


@pytest.mark.parametrize("chunks", [[MIN_SHUFFLES], [1] * MIN_SHUFFLES, [2, 1]])
def test_the_fewest_shuffles_give_a_bound(chunks: list[int]) -> None:
    acc = StatAccumulator(10)
    for m in chunks:
        acc.update(identity_decks(m, 10))
    est = acc.finish()["best statistic"]
    assert math.isfinite(est.value) and est.kind == "lower-bound"


def test_one_shuffle_fewer_is_refused() -> None:
    acc = StatAccumulator(10)
    acc.update(identity_decks(MIN_SHUFFLES - 1, 10))
    with pytest.raises(ValueError, match=f"at least {MIN_SHUFFLES} shuffles"):
        acc.finish()
