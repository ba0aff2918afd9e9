"""Routines against a card-by-card model of docs/mechanism.md, and the pile-trade theorem."""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shuffling import steps
from shuffling.quality.bounds import lower_bounds
from shuffling.quality.riffle_distance import tv_riffle, tv_riffle_exact
from shuffling.quality.routines import (
    ROUTINES,
    Machine,
    exact_tv,
    fixed_trade,
    load_bounds,
    load_sizes,
    pile_trade_round,
    simulate,
    stack_trade_round,
    trade_count,
)


# --- a physical model, one card at a time, as docs/mechanism.md describes ---

def _deal(load: list[int], side_of: dict[int, bool]) -> tuple[list[int], list[int]]:
    """Feed from the bottom; each card lands on top of its pile. Piles listed top to bottom."""
    left: list[int] = []
    right: list[int] = []
    for card in reversed(load):
        (left if side_of[card] else right).insert(0, card)
    return left, right


def _loads(pack: list[int], sizes: list[int]) -> list[list[int]]:
    out, i = [], 0
    for s in sizes:
        out.append(pack[i : i + s])
        i += s
    return out


def _pile_trade_by_hand(pack: list[int], sizes: list[int], side_of: dict[int, bool]) -> list[int]:
    piles = [_deal(load, side_of) for load in _loads(pack, sizes)]
    lefts = [c for left, _ in piles for c in left]  # A's left pile on top of B's left pile ...
    rights = [c for _, right in piles for c in right]
    return lefts + rights  # the first new load on top of the second, then cut again


def _stack_trade_by_hand(pack: list[int], sizes: list[int], side_of: dict[int, bool], t: int) -> list[int]:
    loads = []
    for load in _loads(pack, sizes):
        left, right = _deal(load, side_of)
        loads.append(left + right)  # left pile on top of right pile
    tops = [load[:t] for load in loads]
    new = [tops[i - 1] + loads[i][t:] for i in range(len(loads))]  # receive the previous load's top
    return [c for load in new for c in load]


@st.composite
def _round_case(draw):  # type: ignore[no-untyped-def]
    n = draw(st.integers(1, 30))
    capacity = draw(st.integers(2, max(2, n + 2)))
    perm = draw(st.permutations(range(n)))
    sides = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    return n, capacity, list(perm), sides


@settings(max_examples=80, deadline=None)
@given(_round_case())
def test_rounds_match_the_card_by_card_model(case) -> None:  # type: ignore[no-untyped-def]
    n, capacity, pack, sides = case
    sizes = load_sizes(n, capacity)
    bounds = load_bounds(n, capacity)
    side_of = {card: sides[pos] for pos, card in enumerate(pack)}
    decks = np.array([pack], dtype=np.int16)
    left = np.array([sides], dtype=bool)
    assert pile_trade_round(decks, left)[0].tolist() == _pile_trade_by_hand(pack, sizes, side_of)
    t = max(1, min(sizes) // 2) if len(sizes) > 1 else 0
    got = stack_trade_round(decks, left, bounds, np.array([t]))[0].tolist()
    assert got == _stack_trade_by_hand(pack, sizes, side_of, t)
    # A different count in each row (the person's "about half").
    counts = np.arange(min(sizes) + 1)
    rows = stack_trade_round(np.repeat(decks, len(counts), axis=0), np.repeat(left, len(counts), axis=0), bounds, counts)
    for k, row in zip(counts.tolist(), rows.tolist()):
        assert row == _stack_trade_by_hand(pack, sizes, side_of, k)


@settings(max_examples=40, deadline=None)
@given(_round_case())
def test_pile_trade_is_one_inverse_riffle_of_the_whole_pack(case) -> None:  # type: ignore[no-untyped-def]
    # The theorem of docs/mathematics.md, checked on the card-by-card model:
    # whatever the loads, the result is "left cards, then right cards" in pack order.
    n, capacity, pack, sides = case
    side_of = {card: sides[pos] for pos, card in enumerate(pack)}
    by_hand = _pile_trade_by_hand(pack, load_sizes(n, capacity), side_of)
    one_load = _pile_trade_by_hand(pack, [n], side_of)
    assert by_hand == one_load == [c for c in pack if side_of[c]] + [c for c in pack if not side_of[c]]


def test_load_sizes_examples() -> None:
    assert load_sizes(162, 104) == [81, 81]
    assert load_sizes(104, 104) == [104]
    assert load_sizes(105, 104) == [53, 52]
    assert load_sizes(10, 4) == [4, 3, 3]
    assert load_bounds(10, 4) == [0, 4, 7, 10]


@settings(max_examples=100, deadline=None)
@given(n=st.integers(1, 5000), c=st.integers(2, 500))
def test_load_sizes_properties(n: int, c: int) -> None:
    sizes = load_sizes(n, c)
    assert sum(sizes) == n and len(sizes) == math.ceil(n / c)
    assert max(sizes) <= c and max(sizes) - min(sizes) <= 1


@pytest.mark.parametrize("n,c", [(0, 104), (-5, 104), (10, 1), (10, 0), (True, 5), (3.5, 4)])
def test_load_sizes_refuses_bad_input(n: object, c: object) -> None:
    with pytest.raises(ValueError, match="must be an integer"):
        load_sizes(n, c)  # type: ignore[arg-type]


def test_routine_table() -> None:
    assert {"stack-trade", "pile-trade"} <= set(ROUTINES)
    for name, r in ROUTINES.items():
        assert r.name == name
        for n, c in ((162, 104), (52, 104), (300, 104), (3, 2), (1000, 2)):
            text = r.description(n, c)
            assert text.endswith(".") and text.count(". ") == 0, text
        assert r.passes_per_round(162, 104) == 2
        assert r.passes_per_round(52, 104) == 1
        assert r.passes_per_round(300, 104) == 3


def test_simulate_yields_every_round_of_every_chunk() -> None:
    progress: list[tuple[int, int]] = []
    seen = []
    for r, decks in simulate("stack-trade", 20, 8, 3, 25, chunk=10, seed=1, on_chunk=lambda d, t: progress.append((d, t))):
        seen.append((r, decks.shape[0]))
        assert np.array_equal(np.sort(decks, axis=1), np.broadcast_to(np.arange(20), decks.shape))
    assert seen == [(1, 10), (2, 10), (3, 10), (1, 10), (2, 10), (3, 10), (1, 5), (2, 5), (3, 5)]
    assert progress == [(10, 25), (20, 25), (25, 25)]


def test_simulate_is_reproducible_and_honours_the_start() -> None:
    def run(**kw):  # type: ignore[no-untyped-def]
        return [d.copy() for _, d in simulate("pile-trade", 30, 16, 2, 7, seed=4, **kw)]

    a, b = run(), run()
    assert all(np.array_equal(x, y) for x, y in zip(a, b))
    start = np.arange(30)[::-1].copy()
    c = run(start=start)
    # Same seed, same positions moved: the reversed start is relabelled the same way.
    assert np.array_equal(c[0], start[a[0]])
    d = run(start=lambda m, rng: np.argsort(rng.random((m, 30)), axis=1))
    assert d[0].shape == (7, 30)
    with pytest.raises(ValueError):
        run(start=np.zeros(30, dtype=int))


@pytest.mark.parametrize(
    "kw",
    [{"routine": "overhand"}, {"rounds": -1}, {"samples": 0}, {"n_cards": 0}, {"capacity": 1}, {"chunk": 0}],
)
def test_simulate_refuses_bad_input(kw: dict) -> None:
    args = {"routine": "pile-trade", "n_cards": 10, "capacity": 4, "rounds": 2, "samples": 5} | kw
    with pytest.raises(ValueError):
        next(simulate(**args))


def test_exact_tv_where_theory_gives_it() -> None:
    assert exact_tv("pile-trade", 162, 104, 9) == tv_riffle_exact(162, 9)
    assert exact_tv("pile-trade", 300, 104, 4) == tv_riffle_exact(300, 4)
    assert exact_tv("stack-trade", 52, 104, 7) == tv_riffle_exact(52, 7)
    assert exact_tv("stack-trade", 162, 104, 7) is None
    assert exact_tv("pile-trade", 162, 104, 7, machine=Machine(p=0.6)) is None
    assert exact_tv("pile-trade", 162, 104, 7, machine=Machine(trade_sd=3)) == tv_riffle_exact(162, 7)
    with pytest.raises(ValueError):
        exact_tv("nope", 10, 4, 1)


def test_simulated_pile_trade_reaches_the_exact_distance() -> None:
    # For one inverse riffle per round the descents statistic carries the whole
    # distance, so its lower bound should meet the exact figure within error.
    n, rounds, samples = 162, 10, 16000
    res = lower_bounds(simulate("pile-trade", n, 104, rounds, samples, seed=8), n, rounds)
    for r in (8, 9, 10):
        est = res[r]["descents"]
        assert abs(est.value - tv_riffle(n, r)) <= 4 * est.stderr + 1e-9, (r, est)


def test_clumping_machine_is_measurably_worse() -> None:
    n, rounds, samples = 162, 10, 12000
    res = lower_bounds(simulate("pile-trade", n, 104, rounds, samples, machine=Machine(clump=0.3), seed=10), n, rounds)
    est = res[10]["best statistic"]
    assert est.value - 4 * est.stderr > tv_riffle(n, 10)


def test_trade_count_is_about_half_and_clipped() -> None:
    rng = np.random.default_rng(2)
    t = trade_count([0, 81, 162], Machine(trade_sd=5.0), rng, 20000)
    assert t.min() >= 1 and t.max() <= 81
    assert abs(t.mean() - 40) < 0.2 and abs(t.std() - 5.0) < 0.2
    wide = trade_count([0, 10, 20], Machine(trade_sd=50.0), rng, 2000)
    assert wide.min() == 1 and wide.max() == 10  # a trade moves at least one card
    assert (trade_count([0, 81, 162], Machine(), rng, 5) == 40).all()


@pytest.mark.parametrize("bounds", [[0, 2, 3], [0, 1, 2], [0, 1, 2, 3], [0, 3, 5, 6]])
def test_a_load_of_one_card_still_trades_one(bounds: list[int]) -> None:
    # Half of one card rounds down to none, which would never mix the loads.
    rng = np.random.default_rng(3)
    assert (trade_count(bounds, Machine(), rng, 10) == 1).all()
    assert trade_count(bounds, Machine(trade_sd=3.0), rng, 500).min() == 1


def test_stack_trade_mixes_a_load_of_one_card() -> None:
    # Three cards on a two-card machine: loads [0, 1] and [2]. A one-card trade
    # puts card 2 on top every round; without it, card 2 would stay at the bottom.
    # By hand: A gathers to [0, 1] or [1, 0]; the trade gives [2, A[1], A[0]].
    decks = np.array([[0, 1, 2]] * 400, dtype=np.int16)
    rng = np.random.default_rng(5)
    one = ROUTINES["stack-trade"].run_round(decks, 2, Machine(), rng)
    assert set(map(tuple, one.tolist())) == {(2, 1, 0), (2, 0, 1)}
    two = ROUTINES["stack-trade"].run_round(one, 2, Machine(), rng)
    assert set(map(tuple, two.tolist())) == {(0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0)}


@pytest.mark.parametrize("kw", [{"p": -0.1}, {"clump": 1.2}, {"double_feed": -1.0}, {"trade_sd": -1.0}, {"trade_sd": math.inf}])
def test_machine_refuses_bad_settings(kw: dict) -> None:
    with pytest.raises(ValueError):
        Machine(**kw)


@pytest.mark.parametrize("n, capacity, sizes, trade", [
    (52, 104, (52,), 0),  # one load: nothing to trade
    (162, 104, (81, 81), 40),
    (3, 2, (2, 1), 1),
    (300, 104, (100, 100, 100), 50),
    (1000, 2, (2,) * 500, 1),
])
def test_stack_trade_describes_its_loads(n: int, capacity: int, sizes: tuple[int, ...], trade: int) -> None:
    said = ROUTINES["stack-trade"].round_summary(n, capacity)
    assert said == steps.RoundSummary("stack-trade", sizes, trade=trade)
    assert trade == (fixed_trade(min(sizes)) if len(sizes) > 1 else 0)  # the trade the simulation makes
    assert ROUTINES["stack-trade"].description(n, capacity) == steps.words(said)


@pytest.mark.parametrize("n, capacity, sizes", [(52, 104, (52,)), (162, 104, (81, 81)), (271, 104, (91, 90, 90))])
def test_pile_trade_describes_its_loads(n: int, capacity: int, sizes: tuple[int, ...]) -> None:
    said = ROUTINES["pile-trade"].round_summary(n, capacity)
    assert said == steps.RoundSummary("pile-trade", sizes)
    assert ROUTINES["pile-trade"].description(n, capacity) == steps.words(said)
