"""Exact mode round by round on batches: the quality report's simulation of it."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from firmware import exact_routes as routes
from shuffling.exact_mode.batch import (
    random_assignments,
    route_rounds,
    run_batch,
    run_batch_rounds,
    simulate_exact_mode,
    simulate_route,
    sorted_rounds,
)
from shuffling.exact_mode.codes import code_set, device_code_set, n_bits, route_code_set
from shuffling.exact_mode.physical import run_route, run_with_fault


@settings(max_examples=25, deadline=None)
@given(n=st.integers(2, 40), capacity=st.integers(2, 45), seed=st.integers(0, 2**16))
def test_every_round_matches_the_physical_passes_card_for_card(n: int, capacity: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    codes, _ = device_code_set(n, capacity)
    arrangements = random_assignments(codes, 3, rng)
    by_round = list(run_batch_rounds(arrangements, capacity))
    assert len(by_round) == n_bits(n)
    for row, arrangement in enumerate(arrangements):
        physical = run_with_fault(list(range(n)), arrangement.tolist(), capacity).orders
        assert [r[row].tolist() for r in by_round] == physical
    assert np.array_equal(by_round[-1], run_batch(arrangements, capacity))
    # The report's faster path gives the same packs.
    fast = list(sorted_rounds(arrangements, n_bits(n)))
    assert len(fast) == len(by_round)
    assert all(np.array_equal(a, b) for a, b in zip(fast, by_round))


def test_device_code_set_is_the_uneven_one_where_it_fits() -> None:
    assert device_code_set(162, 104) == (code_set(162, 104, uneven=True), True)
    # 208 cards on a 104-card machine leave room only for 104 : 104.
    assert device_code_set(208, 104) == (code_set(208, 104), False)
    assert device_code_set(3, 104) == (code_set(3, 104), False)


def _collect(n: int, capacity: int, rounds: int, samples: int, seed: int, chunk: int) -> dict[int, np.ndarray]:
    out: dict[int, list[np.ndarray]] = {}
    for r, decks in simulate_exact_mode(n, capacity, rounds, samples, np.random.default_rng(seed), chunk):
        out.setdefault(r, []).append(decks)
    return {r: np.concatenate(v) for r, v in out.items()}


def test_simulation_is_chunked_and_every_row_a_permutation() -> None:
    got = _collect(20, 12, 7, 25, seed=1, chunk=10)
    assert sorted(got) == list(range(1, 8))
    for decks in got.values():
        assert decks.shape == (25, 20)
        assert (np.sort(decks, axis=1) == np.arange(20)).all()


def test_after_b_rounds_every_order_is_equally_likely() -> None:
    # 4 cards, b = 2: all 24 orders, 24,000 shuffles; chi-square with 23
    # degrees of freedom stays below 60 except once in 10^5 runs.
    got = _collect(4, 3, 3, 24_000, seed=2, chunk=5000)
    for r in (2, 3):  # the last exact round, then a random round after it
        keys = got[r] @ (4 ** np.arange(4))
        counts = np.bincount(np.unique(keys, return_inverse=True)[1])
        assert counts.size == 24
        chi2 = float(((counts - 1000) ** 2 / 1000).sum())
        assert chi2 < 60, (r, chi2)
    # One round short of b the order is far from uniform: cards sharing a low bit keep their order.
    assert np.unique(got[1] @ (4 ** np.arange(4))).size < 24


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(ValueError):
        next(simulate_exact_mode(10, 5, 2, 0, np.random.default_rng(0)))


def test_sorting_matches_the_batch_passes_on_samba() -> None:
    codes, _ = device_code_set(162, 104)
    arrangements = random_assignments(codes, 200, np.random.default_rng(7))
    for a, b in zip(sorted_rounds(arrangements, 8), run_batch_rounds(arrangements, 104), strict=True):
        assert np.array_equal(a, b)


@settings(max_examples=25, deadline=None)
@given(n=st.integers(3, 120), capacity=st.integers(2, 60), seed=st.integers(0, 2**16))
def test_a_routines_rounds_match_the_physical_passes_card_for_card(n: int, capacity: int, seed: int) -> None:
    """route_rounds, the report's simulation of either routine, against physical.run_route round by round."""
    for kind in (routes.RADIX, routes.SPLIT):  # the pipelined routine: test_exact_mode_pipelined.py
        try:
            route = routes.route(n, capacity, kind)
        except ValueError:
            continue  # no split for a pack that fits the tray
        arrangements = random_assignments(route_code_set(route), 3, np.random.default_rng(seed))
        by_round = list(route_rounds(arrangements, route, route.rounds))
        assert len(by_round) == route.rounds
        for row, arrangement in enumerate(arrangements):
            for k in range(1, route.rounds + 1):
                prefix = _first_rounds(route, k)
                assert by_round[k - 1][row].tolist() == run_route(list(range(n)), arrangement.tolist(), prefix)
            # At the end, the cards in the order of their codes.
            assert by_round[-1][row].tolist() == sorted(range(n), key=lambda card: arrangement[card])


def _first_rounds(route: routes.Route, k: int) -> routes.Route:
    """The routine cut short after its first k rounds (run_route deals a route's every round)."""
    short = routes.Route(route.kind, route.n, route.capacity)
    for r in range(k):
        short.add(route.kinds[r], route.lo[r], route.size[r], route.loads[r], route.param[r], route.first[r])
    return short


def test_simulate_route_ends_exactly_uniform_for_the_split() -> None:
    # 5 cards on a 3-card tray: a split round of two loads, then parts of 3 and 2; all 120 orders,
    # 24,000 runs: chi-square with 119 degrees of freedom stays below 200 but about once in 200,000 runs.
    route = routes.route(5, 3)
    assert route.kind == routes.SPLIT
    got: dict[int, list[np.ndarray]] = {}
    for r, decks in simulate_route(route, route.rounds + 1, 24_000, np.random.default_rng(3), chunk=5000):
        got.setdefault(r, []).append(decks)
    for r in (route.rounds, route.rounds + 1):  # the last round, then a random round after it
        keys = np.concatenate(got[r]) @ (5 ** np.arange(5))
        counts = np.bincount(np.unique(keys, return_inverse=True)[1])
        assert counts.size == 120
        chi2 = float(((counts - 200) ** 2 / 200).sum())
        assert chi2 < 200, (r, chi2)
    # One round short, the part still unsorted keeps cards in their starting order.
    assert np.unique(np.concatenate(got[route.rounds - 1]) @ (5 ** np.arange(5))).size < 120
