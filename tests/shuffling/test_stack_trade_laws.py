"""Stack-trade's exact one-card and pair chains: enumeration, Monte Carlo, exact arithmetic."""
from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shuffling.quality import stack_trade_laws as se
from shuffling.quality.enumerate import all_arrangements, exact_laws
from shuffling.quality.routines import Machine, fixed_trade, load_bounds, simulate

CASES = [(8, 4, 4, Machine()), (7, 3, 3, Machine()), (6, 2, 3, Machine(p=0.6)), (8, 5, 3, Machine())]


def _positions(perms: np.ndarray) -> np.ndarray:
    return np.argsort(perms, axis=1)


@pytest.mark.slow
@pytest.mark.parametrize("n,capacity,rounds,machine", CASES)
def test_chains_match_full_enumeration(n: int, capacity: int, rounds: int, machine: Machine) -> None:
    """Every entry of the one-card matrix and of the pair laws, both ways, against all n! orders."""
    laws = exact_laws("stack-trade", n, capacity, rounds, machine=machine)
    perms = all_arrangements(n)
    pos = _positions(perms)
    pairs = [(0, 1), (n - 1, 2), (3, 4), (n - 2, n - 1)]
    singles = se.position_laws(n, capacity, rounds, machine)
    cards = se.pair_laws(n, capacity, rounds, pairs, machine, of="cards")
    places = se.pair_laws(n, capacity, rounds, pairs, machine, of="positions")
    for r in range(rounds):
        prob = laws[r].probabilities()
        one = np.zeros((n, n))
        for i in range(n):
            np.add.at(one[i], pos[:, i], prob)
        assert np.abs(one - singles[r]).max() < 1e-12
        for s, (a, b) in enumerate(pairs):
            by_card = np.zeros((n, n))
            np.add.at(by_card, (pos[:, a], pos[:, b]), prob)
            assert np.abs(by_card - cards[r][s]).max() < 1e-12
            by_place = np.zeros((n, n))
            np.add.at(by_place, (perms[:, a], perms[:, b]), prob)
            assert np.abs(by_place - places[r][s]).max() < 1e-12


@pytest.mark.parametrize("n,capacity,rounds,machine", CASES[:3])
def test_bounds_stay_below_the_exact_distance(n: int, capacity: int, rounds: int, machine: Machine) -> None:
    laws = exact_laws("stack-trade", n, capacity, rounds, machine=machine)
    pairs = [(a, b) for a in range(n) for b in range(n) if a != b]
    bounds = se.exact_bounds(n, capacity, rounds, machine, pairs=pairs, pair_floor=0.0)
    assert bounds is not None
    for law, bound in zip(laws, bounds):
        assert 0 < bound.value <= float(law.tv())
        assert bound.pair is not None and bound.pair >= bound.one_card - 1e-12


def _chi_square(expected_probs: np.ndarray, counts: np.ndarray) -> tuple[float, int]:
    """Chi-square over cells expected at least 5 times, the rest pooled into one cell."""
    samples = counts.sum()
    expected = expected_probs.ravel() * samples
    obs = counts.ravel()
    assert obs[expected_probs.ravel() == 0].sum() == 0  # nothing impossible happens
    big = expected >= 5
    o = np.append(obs[big], obs[~big].sum())
    e = np.append(expected[big], expected[~big].sum())
    keep = e > 0
    return float(((o[keep] - e[keep]) ** 2 / e[keep]).sum()), int(keep.sum() - 1)


@pytest.mark.slow
@pytest.mark.parametrize("machine", [Machine(), Machine(p=0.55, trade_sd=3.0)], ids=["fair", "biased-spread"])
def test_chains_match_monte_carlo_at_162_cards(machine: Machine) -> None:
    """Simulated routine against the chains, one chi-square per law and round.

    20,000 shuffles: a chi-square with df degrees of freedom has sd sqrt(2 df);
    the test allows df + 5 sd, so a correct chain fails with negligible
    probability while a wrong law over tens of cells shows as hundreds of sd.
    """
    n, capacity, rounds, samples = 162, 104, 3, 20000
    bounds = load_bounds(n, capacity)
    card, place = 0, bounds[1] - 1  # the top card; the bottom position of load A
    pair_cards, pair_places = (bounds[1] - 1, bounds[1]), (bounds[1] - 2, bounds[1] - 1)
    singles = se.position_laws(n, capacity, rounds, machine)
    by_card = se.pair_laws(n, capacity, rounds, [pair_cards], machine, of="cards")
    by_place = se.pair_laws(n, capacity, rounds, [pair_places], machine, of="positions")
    counts = {
        name: [np.zeros(shape, dtype=np.int64) for _ in range(rounds)]
        for name, shape in (("card", n), ("place", n), ("cards", (n, n)), ("places", (n, n)))
    }
    for r, decks in simulate("stack-trade", n, capacity, rounds, samples, machine=machine, seed=162):
        pos = np.argsort(decks, axis=1)
        counts["card"][r - 1] += np.bincount(pos[:, card], minlength=n)
        counts["place"][r - 1] += np.bincount(decks[:, place], minlength=n)
        np.add.at(counts["cards"][r - 1], (pos[:, pair_cards[0]], pos[:, pair_cards[1]]), 1)
        np.add.at(counts["places"][r - 1], (decks[:, pair_places[0]], decks[:, pair_places[1]]), 1)
    for r in range(rounds):
        for name, law in (("card", singles[r][card]), ("place", singles[r][:, place]),
                          ("cards", by_card[r][0]), ("places", by_place[r][0])):
            chi2, df = _chi_square(law, counts[name][r])
            assert df >= 3, (name, r)
            assert chi2 <= df + 5 * math.sqrt(2 * df), (name, r + 1, chi2, df)


def test_a_wrong_law_fails_the_same_chi_square() -> None:
    """The Monte Carlo check has power: pile-trade's decks do not fit stack-trade's chain."""
    n, capacity, samples = 162, 104, 20000
    law = se.position_laws(n, capacity, 2)[1][:, 80]
    counts = np.zeros(n, dtype=np.int64)
    for r, decks in simulate("pile-trade", n, capacity, 2, samples, seed=5):
        if r == 2:
            counts += np.bincount(decks[:, 80], minlength=n)
    chi2, df = _chi_square(law, counts) if counts[law == 0].sum() == 0 else (math.inf, 1)
    assert chi2 > df + 5 * math.sqrt(2 * df)


def _exact_kernel(n_cards: int, capacity: int) -> list[list[Fraction]]:
    """The one-card kernel from the definition, in exact rationals, card by card."""
    bounds = load_bounds(n_cards, capacity)
    t = fixed_trade(min(b - a for a, b in zip(bounds[:-1], bounds[1:])))
    k = [[Fraction(0)] * n_cards for _ in range(n_cards)]
    for i, (lo, hi) in enumerate(zip(bounds[:-1], bounds[1:])):
        n = hi - lo
        nxt = bounds[(i + 1) % (len(bounds) - 1)]
        for o in range(n):
            for x in range(o + 1):  # left: x left cards above
                k[lo + o][_after_trade(lo, nxt, x, t)] += Fraction(math.comb(o, x), 2 ** (o + 1))
            for z in range(n - o):  # right: z left cards below
                k[lo + o][_after_trade(lo, nxt, o + z, t)] += Fraction(math.comb(n - 1 - o, z), 2 ** (n - o))
    return k


def _after_trade(lo: int, nxt: int, offset: int, t: int) -> int:
    return nxt + offset if offset < t else lo + offset


def test_float64_stays_within_the_stated_tolerance() -> None:
    n, capacity, rounds = 24, 10, 6
    k = _exact_kernel(n, capacity)
    m = [[Fraction(int(i == j)) for j in range(n)] for i in range(n)]
    floats = se.position_laws(n, capacity, rounds)
    for r in range(rounds):
        m = [[sum(m[i][a] * k[a][j] for a in range(n)) for j in range(n)] for i in range(n)]
        exact = np.array([[float(x) for x in row] for row in m])
        # float() of each exact entry is within 2**-53 relative of it: far below the tolerance.
        assert np.abs(exact - floats[r]).max() < se.TOLERANCE / 1000
        lines = [*m, *zip(*m)]  # each card's position law, and each position's card law
        exact_tv = max(sum(abs(x - Fraction(1, n)) for x in line) / 2 for line in lines)
        assert abs(float(exact_tv) - se.one_card_tv(floats[r])[0]) < se.TOLERANCE / 1000


@settings(max_examples=25, deadline=None)
@given(n=st.integers(2, 14), p=st.sampled_from([0.5, 0.3, 0.75]), seed=st.integers(0, 2**32 - 1))
def test_the_backward_step_is_the_adjoint_of_the_forward_step(n: int, p: float, seed: int) -> None:
    rng = np.random.default_rng(seed)
    u = np.triu(rng.random((2, n, n)), 1)
    v = rng.random((2, n, n))
    assert np.isclose((se._same_load(u, p) * v).sum(), (u * se._same_load_adjoint(v, p)).sum(), rtol=1e-12)


def test_laws_are_probability_laws_and_the_kernel_is_doubly_stochastic() -> None:
    for n, capacity, machine in ((162, 104, Machine()), (54, 20, Machine(p=0.4, trade_sd=2.0))):
        k = se.card_kernel(n, capacity, machine)
        assert np.allclose(k.sum(axis=1), 1) and np.allclose(k.sum(axis=0), 1) and (k >= 0).all()
    law = se.pair_laws(30, 11, 3, [(0, 29), (5, 6)], Machine(trade_sd=1.5), of="positions")
    for d in law:
        assert np.allclose(d.sum(axis=(1, 2)), 1) and np.all(np.diagonal(d, axis1=1, axis2=2) == 0)


def test_trade_law_matches_the_routine() -> None:
    bounds = load_bounds(162, 104)
    assert se.trade_law(bounds, Machine()) == {40: 1.0}
    law = se.trade_law(bounds, Machine(trade_sd=4.0))
    assert math.isclose(sum(law.values()), 1.0) and min(law) >= 1 and max(law) <= 81
    from shuffling.quality.routines import trade_count
    drawn = trade_count(bounds, Machine(trade_sd=4.0), np.random.default_rng(3), 200_000)
    freq = np.bincount(drawn, minlength=82) / drawn.size
    for v, w in law.items():
        assert abs(freq[v] - w) <= 5 * math.sqrt(w * (1 - w) / drawn.size) + 1e-9


def test_bounds_at_162_cards_never_rise_and_start_near_one() -> None:
    bounds = se.exact_bounds(162, 104, 10)
    assert bounds is not None
    values = [b.value for b in bounds]
    assert values[0] > 0.99
    assert all(b <= a for a, b in zip(values, values[1:]))
    # Pairs of positions beat one position while they are followed.
    followed = [b for b in bounds if b.pair is not None]
    assert len(followed) >= 5 and all(b.pair >= b.one_card for b in followed)


@pytest.mark.parametrize("n,capacity,rounds,machine", [
    (30, 20, 5, Machine()), (40, 10, 5, Machine()), (47, 12, 5, Machine()), (36, 12, 4, Machine(p=0.6)),
    (30, 20, 4, Machine(trade_sd=2.0)),
], ids=["two-loads", "four-loads", "unequal-loads", "biased", "spread-trade"])
def test_the_candidate_pairs_hold_the_strongest_pair_of_positions(n: int, capacity: int, rounds: int,
                                                                   machine: Machine) -> None:
    """Every pair of positions run through the backward chain: none beats the candidates, in any round."""
    every = list(itertools.combinations(range(n), 2))
    laws = se.pair_laws(n, capacity, rounds, every, machine, of="positions", chunk=64)
    candidates = se.candidate_position_pairs(n, capacity)
    found = se.exact_bounds(n, capacity, rounds, machine, pair_floor=0.0)
    assert found is not None
    sizes = {b - a for a, b in itertools.pairwise(load_bounds(n, capacity))}
    for r in range(rounds):
        tv = dict(zip(every, se.pair_tv(laws[r])))
        best = max(tv.values())
        assert max(tv[pair] for pair in candidates) >= best - 1e-12, r + 1
        bound = found[r]
        assert bound.pair == pytest.approx(max(0.0, best - se.TOLERANCE), abs=1e-12)
        assert tv[bound.pair_positions] == pytest.approx(best, abs=1e-12)  # the pair named gives it
        if len(sizes) == 1:
            # A pair moved by a whole load gives the same law, up to the cards' names.
            (size,) = sizes
            for (a, b), v in tv.items():
                moved = tuple(sorted(((a + size) % n, (b + size) % n)))
                assert tv[moved] == pytest.approx(v, abs=1e-12)


def test_at_162_cards_the_strongest_pair_is_not_always_the_bottom_two_of_the_first_load() -> None:
    """The pairs named are checked by running each alone; (79, 80) was the only pair followed once."""
    found = se.exact_bounds(162, 104, 8)
    assert found is not None and all(b.pair is not None for b in found)
    named = sorted({b.pair_positions for b in found} | {(79, 80)})
    laws = se.pair_laws(162, 104, 8, named, of="positions")
    for r, bound in enumerate(found):
        tv = dict(zip(named, se.pair_tv(laws[r])))
        assert bound.pair == pytest.approx(tv[bound.pair_positions] - se.TOLERANCE, abs=1e-12)
        assert bound.pair >= tv[(79, 80)] - se.TOLERANCE
        assert bound.value == max(bound.pair, bound.one_card)
    # The bottom positions of the two loads: clearly stronger after rounds 4, 5 and 8.
    for r in (4, 5, 8):
        assert found[r - 1].pair_positions == (80, 161)
        tv = dict(zip(named, se.pair_tv(laws[r - 1])))
        assert found[r - 1].pair > tv[(79, 80)] + 0.003


def test_no_bounds_where_they_do_not_apply() -> None:
    assert se.exact_bounds(52, 104, 3) is None  # one load: an inverse riffle, known exactly
    assert se.exact_bounds(162, 104, 3, Machine(clump=0.2)) is None
    # Past MAX_PAIR_LAW_CARDS only the one-card chain runs (the pair chain's cost grows as N**2 n**2).
    big = se.exact_bounds(270, 104, 2)
    assert big is not None and all(b.pair is None and b.value == b.one_card > 0.5 for b in big)
    with pytest.raises(ValueError):
        se.position_laws(20, 8, 2, Machine(double_feed=0.1))
    with pytest.raises(ValueError):
        se.pair_laws(20, 8, 2, [(3, 3)])
