"""The physical passes, the radix-sort result, and the person's written steps."""
from __future__ import annotations

import random
import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from firmware import exact_routes as routes
from shuffling import steps
from shuffling.exact_mode.batch import random_assignments, run_batch
from shuffling.exact_mode.codes import code_set, loads_for_round, n_bits, n_loads, split_sizes, uniform_assignment
from shuffling.exact_mode.physical import (
    FAULT_KINDS,
    Fault,
    deal,
    exact_steps,
    run_exact,
    split_steps,
    run_random_pile_trade,
    run_random_stack_then_trade,
    run_with_fault,
)
from shuffling.quality.routines import load_bounds, stack_trade_round
from test_exact_mode_split import follow


def test_deal_follows_the_mechanism_by_hand() -> None:
    # Load a, b, c, d from the top; d is fed first. Sides in feed order: L R L R.
    # d -> left (bottom of left pile), c -> right, b -> left on top of d, a -> right on top of c.
    left, right = deal(["a", "b", "c", "d"], [0, 1, 0, 1])
    assert left == ["b", "d"]
    assert right == ["a", "c"]


packs = st.integers(min_value=1, max_value=300).flatmap(
    lambda n: st.tuples(st.just(n), st.integers(min_value=max(2, -(-n // 5)), max_value=n + 3), st.integers(0, 2**32))
)


@given(packs)
@settings(max_examples=60, deadline=None)
def test_each_round_is_one_more_digit_of_a_radix_sort(pack: tuple[int, int, int]) -> None:
    n, cap, seed = pack
    try:
        codes = code_set(n, cap, uneven=seed % 2 == 1)
    except ValueError:
        codes = code_set(n, cap)
    arrangement = uniform_assignment(n, random.Random(seed).randbytes, codes)
    orders = run_exact(list(range(n)), arrangement, cap)
    assert len(orders) == n_bits(n)
    for k, order in enumerate(orders, start=1):
        mask = (1 << k) - 1
        # Python's sort is stable: ties keep the starting order.
        assert order == sorted(range(n), key=lambda p: arrangement[p] & mask)
    final_codes = [arrangement[p] for p in (orders[-1] if orders else range(n))]
    assert final_codes == sorted(codes)


@pytest.mark.parametrize("cap", [40, 104, 200])
def test_random_pile_trade_is_one_stable_partition_of_the_whole_pack(cap: int) -> None:
    out = run_random_pile_trade(list(range(162)), cap, 1, random.Random(3))[0]
    # Replay the coins: each load's coins come in feed order, bottom card first.
    rng = random.Random(3)
    side = [0] * 162
    start = 0
    for size in split_sizes(162, n_loads(162, cap)):
        for k in range(size):
            side[start + size - 1 - k] = rng.getrandbits(1)
        start += size
    assert out == [p for p in range(162) if side[p] == 0] + [p for p in range(162) if side[p] == 1]


def test_stack_then_trade_agrees_with_the_quality_model() -> None:
    rng = random.Random(8)
    order = list(range(162))
    mine = run_random_stack_then_trade(order, 1, rng)[0]
    # Recover each card's side from the same coins and run the vectorised model.
    rng = random.Random(8)
    feed_sides = [rng.getrandbits(1) for _ in range(81)] + [rng.getrandbits(1) for _ in range(81)]
    left = np.zeros((1, 162), dtype=bool)
    for j, start in enumerate((0, 81)):
        for k in range(81):
            left[0, start + 80 - k] = feed_sides[81 * j + k] == 0
    decks = np.arange(162, dtype=np.int32)[None, :]
    theirs = stack_trade_round(decks, left, load_bounds(162, 104), np.array([40]))
    assert theirs[0].tolist() == mine


@given(st.integers(3, 40), st.integers(0, 2**32), st.sampled_from(FAULT_KINDS), st.data())
@settings(max_examples=80, deadline=None)
def test_vectorised_runs_match_card_by_card(n: int, seed: int, kind: str, data: st.DataObject) -> None:
    cap = data.draw(st.integers(max(2, -(-n // 4)), n + 2))
    codes = code_set(n, cap)
    rng = np.random.default_rng(seed)
    arr = random_assignments(codes, 4, rng)
    r = data.draw(st.integers(0, n_bits(n) - 1))
    sizes = loads_for_round(n, cap, codes, r)
    j = data.draw(st.integers(0, len(sizes) - 1))
    k = data.draw(st.integers(0, sizes[j]))
    fault = Fault(kind, r, j, k)
    out = run_batch(arr, cap, fault)
    for i in range(4):
        assert out[i].tolist() == run_with_fault(list(range(n)), arr[i].tolist(), cap, fault).orders[-1]


def test_a_fault_changes_the_order() -> None:
    codes = code_set(162, 104)
    arr = random_assignments(codes, 20, np.random.default_rng(2))
    clean = run_batch(arr, 104)
    faulty = run_batch(arr, 104, Fault("double_feed", 2, 0, 10))
    assert (clean != faulty).any()
    with pytest.raises(ValueError):
        Fault("dropped card", 0)


# --- the person's steps, carried out as data ---------------------------------


def follow_steps(n: int, cap: int, arrangement: list[int], uneven: bool = False) -> list[int]:
    """Carry out exact_steps' step data on a table (the split's harness, on whole-pack radix)."""
    return follow(routes.radix_route(n, cap), arrangement, uneven)


@pytest.mark.parametrize(
    "n, cap, uneven",
    [(162, 104, False), (162, 104, True), (52, 104, False), (104, 104, False), (208, 104, False),
     (300, 104, False), (300, 104, True), (432, 104, False), (7, 3, False), (9, 2, False)],
)
def test_following_the_steps_gives_the_simulated_order(n: int, cap: int, uneven: bool) -> None:
    codes = code_set(n, cap, uneven)
    arrangement = uniform_assignment(n, random.Random(n * cap).randbytes, codes)
    final = follow_steps(n, cap, arrangement, uneven)
    assert final == run_exact(list(range(n)), arrangement, cap)[-1]
    assert [arrangement[c] for c in final] == sorted(codes)
    starts = [es for es in exact_steps(n, cap) if isinstance(es.step, steps.Touch)]
    assert len(starts) == n_bits(n) * n_loads(n, cap)
    assert [es.round for es in exact_steps(n, cap)] == sorted(es.round for es in exact_steps(n, cap))


@given(st.integers(9, 60), st.integers(0, 2**32), st.data())
@settings(max_examples=40, deadline=None)
def test_miscounted_cuts_do_not_matter_while_loads_stay_in_order(n: int, seed: int, data: st.DataObject) -> None:
    cap = data.draw(st.integers(max(2, -(-n // 4)), n))
    codes = code_set(n, cap)
    arrangement = uniform_assignment(n, random.Random(seed).randbytes, codes)
    cut_lists = []
    for _ in range(n_bits(n)):
        points = sorted(data.draw(st.lists(st.integers(0, n), min_size=1, max_size=4)))
        edges = [0, *points, n]
        cut_lists.append([b - a for a, b in zip(edges, edges[1:])])
    out = run_with_fault(list(range(n)), arrangement, cap, cuts=lambda r: cut_lists[r]).orders[-1]
    assert out == run_exact(list(range(n)), arrangement, cap)[-1]


def test_the_docs_quote_the_steps_words() -> None:
    """docs/exact-mode.md's steps of Samba's split and of whole-pack radix's round
    1 for 162 cards, and docs/guide.md's rounds 2 and 3 of Samba's split, are
    the steps' words."""
    docs = Path(__file__).resolve().parents[2] / "docs"
    exact_md = (docs / "exact-mode.md").read_text().split("## What the person does", 1)[1]
    split_part, radix_part = exact_md.split("Whole-pack radix (the routine", 1)
    split = split_steps(routes.split_route(162, 104))
    listed = re.findall(r"^\d+\. (.*)$", split_part, re.M)
    assert listed == [es.text for es in split if es.round == 1]
    quoted = re.findall(r"^> (.*)$", split_part, re.M)
    assert quoted == [split[j].text for j in (11, 23)]  # load P's second pass, and its end
    assert steps.words(split[-1].step) in " ".join(split_part.split())
    listed = re.findall(r"^\d+\. (.*)$", radix_part.split("Rounds 2 to 8", 1)[0], re.M)
    assert listed == [es.text for es in exact_steps(162, 104) if es.round == 1]
    guide_md = (docs / "guide.md").read_text().split("For Samba, rounds 2", 1)[1]
    block = re.search(r"```\n(.*?)```", guide_md, re.S)
    assert block is not None
    assert block[1].splitlines() == [es.text for es in split if es.round in (2, 3)]
