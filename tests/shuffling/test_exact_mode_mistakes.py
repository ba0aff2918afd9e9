"""What mistakes cost: exact for small packs, Monte Carlo lower bounds for 162 cards."""
from __future__ import annotations

import itertools
from fractions import Fraction

import pytest

from shuffling.exact_mode.codes import code_set, loads_for_round
from shuffling.exact_mode.mistakes import (
    exact_fault_cost,
    detection_rate,
    extra_random_rounds,
    fault_locations,
    half_way_aborts,
    monte_carlo_clean,
    monte_carlo_detection,
    monte_carlo_fault_cost,
)
from shuffling.exact_mode.physical import FAULT_KINDS, Fault
from shuffling.exact_mode.quality import rounds_to_reach
from shuffling.exact_mode.uniformity import exact_law, tv_from_uniform
from shuffling.quality.riffle_distance import tv_riffle


@pytest.mark.parametrize("fault", [Fault("double_feed", 1, 0, 1), Fault("abort", 0, 1, 2), Fault("swap_piles", 1, 1), Fault("repeat_load", 2, 0)])
def test_vectorised_cost_matches_card_by_card_enumeration(fault: Fault) -> None:
    n, cap = 6, 3
    # exact_fault_cost spreads over places; compare one place through a one-place kind list
    law = exact_law(n, cap, fault)
    card_by_card = tv_from_uniform(law, n)
    places = fault_locations(n, cap, fault.kind, fault.round)
    assert fault in places
    from shuffling.exact_mode.batch import run_batch
    from shuffling.exact_mode.mistakes import _tv_of_rows, all_arrangements

    assert _tv_of_rows(run_batch(all_arrangements(code_set(n, cap)), cap, fault), n) == card_by_card


@pytest.mark.parametrize("n, cap", [(6, 3), (7, 4), (7, 3)])
def test_swapping_piles_in_the_last_round_costs_nothing(n: int, cap: int) -> None:
    # In the last round no later pass reads the firmware's belief: the final order is
    # the cards sorted by a one-to-one relabelling of their codes, still uniform.
    last = 2
    assert exact_fault_cost(n, cap, "swap_round", last).worst == 0
    if cap * 2 >= n:  # two loads: a load is a value of the previous bit
        assert exact_fault_cost(n, cap, "swap_piles", last).worst == 0


def test_swapping_a_whole_first_round_costs_nothing_when_the_bit_splits_evenly() -> None:
    assert exact_fault_cost(6, 3, "swap_round", 0).worst == 0  # 3 : 3
    assert exact_fault_cost(7, 4, "swap_round", 0).worst > 0  # 4 : 3


@pytest.mark.parametrize("kind", ["double_feed", "abort", "repeat_load", "swap_piles"])
def test_early_faults_break_exactness(kind: str) -> None:
    cost = exact_fault_cost(7, 4, kind, 0)
    assert cost.worst > 0 and cost.spread > 0
    assert cost.spread <= cost.worst  # a mixture is never farther than its worst part
    assert cost.places == len(fault_locations(7, 4, kind, 0))


def test_fault_places_are_counted_by_hand() -> None:
    # 7 cards on a 4-card machine: loads 4 and 3
    assert loads_for_round(7, 4, code_set(7, 4), 0) == [4, 3]
    assert len(fault_locations(7, 4, "double_feed", 0)) == 3 + 2
    assert len(fault_locations(7, 4, "abort", 0)) == 3 + 2
    assert len(fault_locations(7, 4, "swap_piles", 0)) == 2
    with pytest.raises(ValueError):
        fault_locations(7, 4, "swap_piles", 3)


def test_count_sensor_catches_a_swap_exactly_when_the_two_piles_differ() -> None:
    n, cap = 6, 3
    fault = Fault("swap_piles", 1, 0)
    codes = code_set(n, cap)
    differ = 0
    total = 0
    for arr in itertools.permutations(codes):
        total += 1
        # round 1, load A = the cards whose code has bit 0 clear, in their order after round 0
        load_a = [c for c in arr if not c & 1]
        left = sum(1 for c in load_a if not (c >> 1) & 1)
        differ += left != len(load_a) - left
    assert detection_rate(n, cap, fault) == Fraction(differ, total)


def test_clean_runs_read_zero_within_error() -> None:
    est = monte_carlo_clean(162, 104, 6000, seed=4)
    assert est.kind == "lower-bound"
    assert abs(est.value) < 4 * est.stderr


def test_monte_carlo_bound_is_honest_where_the_exact_cost_is_known() -> None:
    exact = exact_fault_cost(7, 4, "double_feed", 0).spread
    est = monte_carlo_fault_cost(7, 4, "double_feed", 0, 20000, seed=2)
    assert est.value <= float(exact) + 4 * est.stderr
    assert est.value - 4 * est.stderr > 0


def test_a_first_round_pile_swap_at_162_cards_is_clearly_visible() -> None:
    est = monte_carlo_fault_cost(162, 104, "swap_piles", 0, 6000, seed=9)
    assert est.value - 4 * est.stderr > 0.1


def test_extra_rounds() -> None:
    for target in (0.25, 0.1, 0.01):
        t = extra_random_rounds(162, target)
        assert tv_riffle(162, t) <= target < tv_riffle(162, t - 1)
        assert t == rounds_to_reach(162, target)
    assert extra_random_rounds(162, 0.1, mistake_tv=0.05) == 0
    # a pack within 0.3 of uniform needs fewer rounds than one known only to be within 1
    assert extra_random_rounds(162, 0.01, mistake_tv=0.3) <= extra_random_rounds(162, 0.01)
    with pytest.raises(ValueError):
        extra_random_rounds(162, 0)


def test_every_kind_has_places_in_every_round() -> None:
    for kind in FAULT_KINDS:
        for r in range(8):
            assert fault_locations(162, 104, kind, r)


def test_count_sensor_at_162_cards_catches_every_single_pile_swap_but_no_whole_round_swap() -> None:
    # Every load holds 81 cards, an odd number, so its two piles never match in size:
    # swapping them always changes the next round's load counts. Swapping both loads
    # leaves the left stack at 81 cards.
    for r in (0, 3, 6):
        assert monte_carlo_detection(162, 104, "swap_piles", r, 15, seed=r).value == 1
        assert monte_carlo_detection(162, 104, "swap_round", r, 15, seed=r).value == 0


def test_uneven_code_set_lets_the_count_sensor_catch_every_swap() -> None:
    # 79 : 83 at every bit: the stacks differ, and every load (81, then 79 or 83) is odd
    for r in (0, 1, 3, 6):
        assert monte_carlo_detection(162, 104, "swap_round", r, 10, seed=r, uneven=True).value == 1
        assert monte_carlo_detection(162, 104, "swap_piles", r, 10, seed=r, uneven=True).value == 1


def test_half_way_abort_is_one_of_the_abort_places() -> None:
    places = half_way_aborts(7, 4, 1)
    assert places and set(places) <= set(fault_locations(7, 4, "abort", 1))
    assert [f.index for f in places] == [s // 2 for s in loads_for_round(7, 4, code_set(7, 4), 1)]
    half = exact_fault_cost(7, 4, "abort", 1, places=places)
    everywhere = exact_fault_cost(7, 4, "abort", 1)
    assert 0 < half.worst <= everywhere.worst
    with pytest.raises(ValueError):
        monte_carlo_fault_cost(7, 4, "abort", 1, 10, places=[Fault("abort", 1), Fault("abort", 2)])
