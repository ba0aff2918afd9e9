"""The physical passes, the radix-sort result, and the person's written steps."""
from __future__ import annotations

import random
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simulator.shuffling.exact_mode.batch import random_assignments, run_batch
from simulator.shuffling.exact_mode.codes import code_set, loads_for_round, n_bits, n_loads, split_sizes, uniform_assignment
from simulator.shuffling.exact_mode.physical import (
    FAULT_KINDS,
    Fault,
    deal,
    gathering_steps,
    run_exact,
    run_random_pile_trade,
    run_random_stack_then_trade,
    run_with_fault,
)
from simulator.shuffling.quality.routines import load_bounds, stack_trade_round


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


# --- the written steps, carried out literally ----------------------------------


def follow_steps(n: int, cap: int, arrangement: list[int], uneven: bool = False) -> list[int]:
    """Carry out gathering_steps word by word; cards are pack positions, sides from their codes."""
    steps = gathering_steps(n, cap, uneven)
    code_of = dict(enumerate(arrangement))
    loads: dict[str, list[int]] = {}
    rows: dict[str, list[list[int]]] = {"left": [], "right": []}
    stacks: dict[str, list[int]] = {}
    piles: tuple[list[int], list[int]] | None = None
    final: list[int] | None = None
    pack = list(range(n))
    for step in steps:
        r = step.round - 1
        t = step.text
        if m := re.fullmatch(r"Square the pack \((\d+) cards\) face down: it is load A\.", t):
            loads = {"A": pack}
        elif t.startswith("Cut the pack face down into"):
            loads = {}
            at = 0
            for name, size in re.findall(r"([A-Z]) = the (?:top|next) (\d+) cards", t):
                loads[name] = pack[at:at + int(size)]
                at += int(size)
            assert at == n
        elif m := re.fullmatch(r"Put load ([A-Z]) \((\d+) cards\) face down in the tray and touch start\.", t):
            load = loads.pop(m[1])
            assert len(load) == int(m[2]) <= cap
            piles = deal(load, [(code_of[c] >> r) & 1 for c in reversed(load)])
            rows_pending = m[1]
        elif m := re.fullmatch(r"Take out ([A-Z])'s piles without turning them over: .*", t):
            assert piles is not None and m[1] == rows_pending
            rows["left"].append(piles[0])
            rows["right"].append(piles[1])
            piles = None
        elif m := re.fullmatch(r"(Left|Right) row: put (.*)\. This is the (left|right) stack \((\d+) cards\)\.", t):
            side = m[1].lower()
            names = re.findall(r"pile ([A-Z])", m[2])
            assert names == [chr(65 + i) for i in range(len(rows[side]))]
            stacks[side] = [c for pile in rows[side] for c in pile]
            rows[side] = []
            assert len(stacks[side]) == int(m[4])
        elif m := re.fullmatch(r"The left stack is load A for round \d+; the right stack is load B\.", t):
            loads = {"A": stacks.pop("left"), "B": stacks.pop("right")}
        elif m := re.fullmatch(r"Load ([A-Z]) for round \d+: (.*)\.", t):
            what = m[2]
            if mm := re.fullmatch(r"the top (\d+) cards of the (left|right) stack", what):
                k, side = int(mm[1]), mm[2]
                loads[m[1]] = stacks[side][:k]
                stacks[side] = stacks[side][k:]
            elif mm := re.fullmatch(r"what is left of the left stack \((\d+) cards\) on top of the top (\d+) cards of the right stack", what):
                assert len(stacks["left"]) == int(mm[1])
                k = int(mm[2])
                loads[m[1]] = stacks["left"] + stacks["right"][:k]
                stacks["left"], stacks["right"] = [], stacks["right"][k:]
            elif mm := re.fullmatch(r"the rest of the right stack \((\d+) cards\)", what):
                assert len(stacks["right"]) == int(mm[1])
                loads[m[1]] = stacks["right"]
                stacks["right"] = []
            else:
                raise AssertionError(f"unreadable step: {t}")
        elif m := re.fullmatch(r"Put the left pile on top of the right pile: this is load A for round \d+\.", t):
            assert piles is not None
            loads = {"A": piles[0] + piles[1]}
            piles = None
        elif t == "Put the left pile on top of the right pile. The pack is shuffled.":
            assert piles is not None
            final = piles[0] + piles[1]
        elif t == "Put the left stack on top of the right stack. The pack is shuffled.":
            final = stacks.pop("left") + stacks.pop("right")
        else:
            raise AssertionError(f"unreadable step: {t}")
    assert final is not None
    return final


@pytest.mark.parametrize(
    "n, cap, uneven",
    [(162, 104, False), (162, 104, True), (52, 104, False), (104, 104, False), (208, 104, False),
     (300, 104, False), (300, 104, True), (432, 104, False), (7, 3, False), (9, 2, False)],
)
def test_following_the_steps_word_by_word_gives_the_simulated_order(n: int, cap: int, uneven: bool) -> None:
    codes = code_set(n, cap, uneven)
    arrangement = uniform_assignment(n, random.Random(n * cap).randbytes, codes)
    final = follow_steps(n, cap, arrangement, uneven)
    assert final == run_exact(list(range(n)), arrangement, cap)[-1]
    assert [arrangement[c] for c in final] == sorted(codes)
    starts = [s for s in gathering_steps(n, cap) if "touch start" in s.text]
    assert len(starts) == n_bits(n) * n_loads(n, cap)


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
