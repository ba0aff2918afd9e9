"""Exhaustive proofs for small packs: exact mode and its code draw are exactly uniform."""
from __future__ import annotations

import math
from fractions import Fraction

import pytest

from shuffling.exact_mode.codes import code_set, n_bits, n_loads
from shuffling.exact_mode.quality import exact_mode_tv
from shuffling.exact_mode.uniformity import (
    exact_law,
    fisher_yates_outcomes,
    is_bijection,
    pile_trade_orders,
    sampler_law,
    tv_from_uniform,
)
from shuffling.quality.riffle_distance import counting_bound, eulerian_row


@pytest.mark.parametrize(
    "n, cap",
    [(3, 3), (4, 2), (4, 4), (5, 3), (5, 5), (6, 2), (6, 3), (6, 6), (7, 3), (7, 4), (7, 7), (8, 3), (8, 4)],
)
def test_every_order_comes_from_exactly_one_code_arrangement(n: int, cap: int) -> None:
    law = exact_law(n, cap)
    assert len(law) == math.factorial(n)
    assert set(law.values()) == {1}
    assert tv_from_uniform(law, n) == 0


def test_three_and_four_loads_are_covered() -> None:
    assert n_loads(7, 3) == 3 and n_loads(8, 3) == 3 and n_loads(6, 2) == 3
    assert is_bijection(8, 2) and n_loads(8, 2) == 4


@pytest.mark.parametrize("n, cap", [(5, 3), (6, 3), (7, 3), (7, 4)])
def test_one_round_short_is_not_uniform_and_matches_the_class_formula(n: int, cap: int) -> None:
    k = n_bits(n) - 1
    law = exact_law(n, cap, n_rounds=k)
    tv = tv_from_uniform(law, n)
    assert tv > 0
    assert tv == exact_mode_tv(code_set(n, cap), k)
    # uniform over N!/prod(m_j!) orders
    assert len(set(law.values())) == 1


def test_tv_from_uniform_of_a_point_mass() -> None:
    from collections import Counter

    assert tv_from_uniform(Counter({(0, 1, 2): 5}), 3) == Fraction(5, 6)


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_fisher_yates_maps_bounded_draws_one_to_one(n: int) -> None:
    law = fisher_yates_outcomes(n)
    assert len(law) == math.factorial(n)
    assert set(law.values()) == {1}


def test_the_whole_sampler_is_exactly_balanced_for_three_cards() -> None:
    law, unfinished = sampler_law(3, 3)
    assert len(law) == 6
    assert len(set(law.values())) == 1
    # only two rejections in a row (byte 255 twice, p = 256**-2) leave it unfinished after 3 bytes
    assert unfinished == Fraction(1, 256**2)
    assert sum(law.values()) + unfinished == 1


@pytest.mark.parametrize("n", [3, 4, 5, 6, 7, 8])
def test_fewer_rounds_than_log2_n_never_reach_the_reversed_order(n: int) -> None:
    k = n_bits(n) - 1
    reached = set(pile_trade_orders(n, k))
    assert tuple(range(n - 1, -1, -1)) not in reached
    # support = arrangements with at most 2^k ascending runs (<= 2^k - 1 descents)
    assert len(reached) == sum(eulerian_row(n)[: 2**k])


def test_log2_n_random_rounds_can_reach_every_order() -> None:
    assert len(set(pile_trade_orders(5, 3))) == math.factorial(5)


def test_side_choices_alone_need_six_rounds_for_162_cards() -> None:
    # 2^(162 k) side choices against 162! orders: log2(162!) / 162 = 5.93
    assert 5.9 < math.lgamma(163) / math.log(2) / 162 < 6
    assert counting_bound(162, 162 * 5) > 0.99
    assert counting_bound(162, 162 * 6) == 0


@pytest.mark.parametrize("n", range(3, 12))
def test_no_fixed_number_of_coin_flips_gives_one_over_n_factorial(n: int) -> None:
    # probability j / 2^t equals 1 / n! only if n! divides 2^t: impossible, 3 divides n!
    assert math.factorial(n) % 3 == 0
    assert all((2**t) % math.factorial(n) != 0 for t in range(200))
