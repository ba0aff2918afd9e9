"""Per-round distance from uniform: exact mode's formula, random mode's Bayer-Diaconis figure."""
from __future__ import annotations

import math
from collections import Counter
from fractions import Fraction

import pytest

from shuffling.exact_mode.codes import code_set, device_code_set, n_bits
from shuffling.exact_mode.quality import class_sizes, exact_mode_tv, quality_table
from shuffling.exact_mode.uniformity import exact_law, pile_trade_orders, tv_from_uniform
from shuffling.quality.riffle_distance import tv_riffle_exact


def test_samba_seven_rounds_leave_34_pairs() -> None:
    # 162 codes over the 128 values of their low 7 bits, at most 2 per value
    # (the top bit is the only difference), so 162 - 128 = 34 values hold two.
    codes = code_set(162, 104)
    assert Counter(class_sizes(codes, 7)) == {2: 34, 1: 94}
    assert exact_mode_tv(codes, 7) == 1 - Fraction(1, 2**34)
    assert exact_mode_tv(codes, 8) == 0


def test_the_device_code_set_for_samba_leaves_38_pairs_after_seven_rounds() -> None:
    # The device takes the uneven set for 162 cards; its unpaired codes leave
    # four of the 128 low-7-bit values empty, so 38 hold two codes.
    codes, uneven = device_code_set(162, 104)
    assert uneven
    assert Counter(class_sizes(codes, 7)) == {2: 38, 1: 86}
    assert exact_mode_tv(codes, 7) == 1 - Fraction(1, 2**38)
    assert exact_mode_tv(codes, 8) == 0


@pytest.mark.parametrize("n, cap", [(5, 5), (6, 3), (7, 3)])
def test_class_formula_matches_enumeration_every_round(n: int, cap: int) -> None:
    codes = code_set(n, cap)
    for k in range(0, n_bits(n) + 1):
        assert tv_from_uniform(exact_law(n, cap, n_rounds=k), n) == exact_mode_tv(codes, k)


@pytest.mark.parametrize("n, k", [(3, 1), (4, 1), (4, 2), (5, 2)])
def test_bayer_diaconis_matches_brute_force_on_the_physical_passes(n: int, k: int) -> None:
    # every side sequence has probability 2^-(n k)
    law = Counter(pile_trade_orders(n, k))
    assert tv_from_uniform(law, n) == tv_riffle_exact(n, k)


def test_quality_table_shape_and_kinds() -> None:
    rows = quality_table(162, 104, 9, 2000, seed=3)
    assert [r.rounds for r in rows] == list(range(1, 10))
    assert rows[7].exact_mode == 0 and rows[8].exact_mode == 0
    assert all(r.exact_mode > Fraction(99, 100) for r in rows[:7])
    assert all(r.stack_then_trade.kind == "lower-bound" for r in rows)
    # random pile trade is still far from uniform when exact mode is done
    assert rows[7].random_pile_trade > 0.5
    assert math.isclose(rows[6].exact_mode_log2_gap, -34.0)


@pytest.mark.parametrize("n, cap", [(5, 3), (6, 4), (7, 2), (7, 6)])
def test_the_route_formula_matches_enumeration_every_round_of_both_routines(n: int, cap: int) -> None:
    """route_tv against every arrangement of the routine's codes run card by card through its first k
    rounds (the split's stacks and parts put together in order): the law of the pack, exactly."""
    import itertools

    from firmware import exact_routes as routes
    from shuffling.exact_mode.codes import route_code_set
    from shuffling.exact_mode.physical import run_route
    from shuffling.exact_mode.quality import route_tv

    for kind in (routes.RADIX, routes.SPLIT):  # the pipelined routine: test_exact_mode_pipelined.py
        route = routes.route(n, cap, kind)
        codes = route_code_set(route)
        for k in range(route.rounds + 1):
            short = routes.Route(route.kind, n, cap)
            for r in range(k):
                short.add(route.kinds[r], route.lo[r], route.size[r], route.loads[r], route.param[r], route.first[r])
            law = Counter(tuple(run_route(list(range(n)), list(a), short)) for a in itertools.permutations(codes))
            assert tv_from_uniform(law, n) == route_tv(route, codes, k), (kind, k)
        assert route_tv(route, codes, route.rounds) == 0
