"""The planner: loads, rounds and figures, checked against the simulator and
against an exact enumeration of the routine written out card by card."""
from __future__ import annotations

import itertools
import math
from collections import Counter
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hardware import mechanism
from host import plan as planlib
from shuffling import steps, time_model
from shuffling.limits import MAX_PACK_CARDS
from shuffling.packs import PACKS
from shuffling.quality.riffle_distance import tv_riffle_exact


def plan_for(pack: str | None = None, cards: int | None = None, capacity: int = 104,
             quality: str = "good") -> planlib.Plan:
    return planlib.make_plan(planlib.choose_pack(pack, cards), capacity, quality)


@pytest.mark.parametrize("pack,loads", [
    ("samba", (81, 81)), ("bolivia", (81, 81)), ("brazilian", (81, 81)), ("chile", (81, 81)),
    ("mexicana", (81, 81)), ("canasta", (54, 54)), ("cuban-canasta", (54, 54)), ("bridge", (52,)),
])
def test_loads_of_the_presets(pack: str, loads: tuple[int, ...]) -> None:
    assert plan_for(pack).loads == loads


@pytest.mark.parametrize("pack", ["hand-and-foot", "modern-samba", "super-samba", "carolina"])
def test_big_packs_take_three_or_more_loads(pack: str) -> None:
    p = plan_for(pack)
    assert len(p.loads) >= 3
    assert sum(p.loads) == PACKS[pack].cards
    assert max(p.loads) <= 104 and max(p.loads) - min(p.loads) <= 1
    assert p.names[:3] == ("A", "B", "C")


@settings(max_examples=60, deadline=None)
@given(cards=st.integers(2, 400), capacity=st.integers(2, 150))
def test_loads_fit_and_hold_the_pack(cards: int, capacity: int) -> None:
    sizes = planlib.load_sizes(cards, capacity)
    assert sum(sizes) == cards
    assert max(sizes) <= capacity
    assert len(sizes) == math.ceil(cards / capacity)
    assert len(set(planlib.load_names(len(sizes)))) == len(sizes)


@pytest.mark.parametrize("quality", ["casual", "good", "near-random", "casino"])
def test_rounds_are_the_fewest_that_reach_the_threshold(quality: str) -> None:
    p = plan_for("samba", quality=quality)
    threshold = planlib.quality_level(quality).threshold
    assert float(tv_riffle_exact(162, p.rounds)) <= threshold
    assert float(tv_riffle_exact(162, p.rounds - 1)) > threshold
    assert p.distance == float(tv_riffle_exact(162, p.rounds))
    assert p.passes == 2 * p.rounds


def test_stricter_quality_never_needs_fewer_rounds() -> None:
    rounds = [plan_for("samba", quality=q.name).rounds for q in planlib.QUALITY_LEVELS]
    assert rounds == sorted(rounds)
    assert len(set(rounds)) == len(rounds)


def test_changing_the_pack_changes_the_figure_as_the_simulator_says() -> None:
    samba, canasta = plan_for("samba"), plan_for("canasta")
    for r in range(1, 8):
        assert planlib.distance_after(162, 104, r) == float(tv_riffle_exact(162, r))
        assert planlib.distance_after(108, 104, r) == float(tv_riffle_exact(108, r))
    # A bigger pack is never closer to random after the same number of rounds.
    assert all(a >= b for a, b in zip(samba.by_round, canasta.by_round))
    assert samba.rounds >= canasta.rounds


def test_changing_the_capacity_changes_passes_not_the_figure() -> None:
    # Pile trade is one inverse riffle of the whole pack per round, whatever the loads.
    big = plan_for("samba", capacity=200)
    small = plan_for("samba", capacity=60)
    usual = plan_for("samba")
    assert big.loads == (162,) and len(small.loads) == 3
    assert big.by_round == usual.by_round == small.by_round
    assert (big.passes, usual.passes, small.passes) == (usual.rounds, 2 * usual.rounds, 3 * usual.rounds)
    assert small.timing.total_s > usual.timing.total_s > big.timing.total_s


def test_time_adds_up() -> None:
    p = plan_for("samba")
    assert p.timing.machine_s == pytest.approx(p.passes * time_model.pass_s(81))
    assert p.timing.total_s > p.timing.machine_s
    # Every step a person does in the routine, each at its kind's time.
    steps = planlib.round_steps(p.names, p.loads)
    per_round = sum(time_model.HANDLING_S[type(x).__name__.lower()] for x in steps)
    assert p.timing.handling_s == pytest.approx(p.rounds * per_round + time_model.HANDLING_S["cut"])


def test_an_81_card_pass_deals_in_four_to_seven_seconds_by_the_mechanism() -> None:
    # As fast as the Lotus: about five seconds a pass (hardware/mechanism.py).
    assert 4.0 <= time_model.pass_s(81) <= 7.0
    assert time_model.card_ms() == mechanism.card_ms(9000, 65) + time_model.FIRMWARE_CARD_MS
    # A run-down battery deals slower.
    assert time_model.pass_s(81, mv=6400) > 1.2 * time_model.pass_s(81)


def test_the_plan_says_the_time_a_card_and_a_pass_take() -> None:
    d = plan_for("samba").to_dict()["time"]
    assert d["per_card_ms"] == time_model.card_ms()
    assert d["pass_s"] == [round(time_model.pass_s(81), 3)] * 2
    assert d["assumption"] == time_model.assumption(81)  # the time model's, for the biggest load


def test_every_kind_of_step_has_a_time() -> None:
    assert set(time_model.HANDLING_S) == set(steps.kind_names())


@pytest.mark.parametrize("text", ["near random", "Near_Random", " near-random "])
def test_quality_names_are_forgiving(text: str) -> None:
    assert planlib.quality_level(text).name == "near-random"


@pytest.mark.parametrize("pack,cards,capacity,quality", [
    ("nope", None, 104, "good"), (None, 1, 104, "good"), (None, 0, 104, "good"),
    (None, MAX_PACK_CARDS + 1, 104, "good"), ("samba", 52, 104, "good"),
    ("samba", None, 1, "good"), ("samba", None, 104, "perfect"),
])
def test_bad_input_is_a_plan_error(pack: str | None, cards: int | None, capacity: int, quality: str) -> None:
    with pytest.raises(planlib.PlanError):
        planlib.make_plan(planlib.choose_pack(pack, cards), capacity, quality)


# -- the routine as a person does it, enumerated exactly -------------------------

def deal(load: list[int], sides: tuple[int, ...]) -> tuple[list[int], list[int]]:
    """docs/mechanism.md: the bottom card is fed first and lands on top of its pile."""
    left: list[int] = []
    right: list[int] = []
    for k, side in enumerate(sides):
        card = load[len(load) - 1 - k]
        (left if side == 0 else right).insert(0, card)
    return left, right


def person_round(pack: list[int], sizes: tuple[int, ...], sides: tuple[int, ...]) -> list[int]:
    """One round carried out from trade_steps' data for two loads, with the
    pile counts the device would report."""
    a, b = pack[:sizes[0]], pack[sizes[0]:]
    a_left, a_right = deal(a, sides[:len(a)])
    b_left, b_right = deal(b, sides[len(a):])
    table = {"A.left": a_left, "A.right": a_right, "B.left": b_left, "B.right": b_right}
    for step in planlib.trade_steps(["A", "B"], list(sizes), [len(a_left), len(b_left)],
                                    [len(a_right), len(b_right)]):
        steps.do_on_table(step, table)
    assert [len(table["A"]), len(table["B"])] == list(sizes)
    return table["A"] + table["B"]


def test_the_two_load_trade_reaches_the_planned_figure_exactly() -> None:
    n, capacity, rounds = 5, 3, 2
    sizes = tuple(planlib.load_sizes(n, capacity))
    assert sizes == (3, 2)
    law: Counter[tuple[int, ...]] = Counter()
    for sides in itertools.product((0, 1), repeat=n * rounds):
        pack = list(range(n))
        for r in range(rounds):
            pack = person_round(pack, sizes, sides[r * n:(r + 1) * n])
        law[tuple(pack)] += 1
    total = 2 ** (n * rounds)
    tv = sum(abs(Fraction(law.get(p, 0), total) - Fraction(1, math.factorial(n)))
             for p in itertools.permutations(range(n))) / 2
    assert float(tv) == pytest.approx(planlib.distance_after(n, capacity, rounds), abs=1e-12)
    # And the steps a person is shown name the same piles in the same order.
    shown = planlib.trade_steps(["A", "B"], list(sizes))
    assert [(type(x), x.parts, x.result) for x in shown[:2]] == [
        (steps.Stack, (steps.left_of("A"), steps.left_of("B")), "A"),
        (steps.Stack, (steps.right_of("A"), steps.right_of("B")), "B")]


def test_three_rounds_leave_samba_as_far_from_random_as_docs_say() -> None:
    # docs/guide.md: three rounds leave 162 cards at 1.0000 to four decimals.
    assert f"{planlib.distance_after(162, 104, 3):.4f}" == "1.0000"


def test_the_quality_table_in_the_docs_is_what_the_planner_computes() -> None:
    from pathlib import Path
    import re

    doc = (Path(__file__).resolve().parents[2] / "docs" / "guide.md").read_text()
    rows = re.findall(r"^\| `([a-z-]+)`(?: \(default\))? \| ([0-9.]+) \| (\d+) \((\d+)\) \| ([0-9.]+) \|$", doc, re.M)
    assert [r[0] for r in rows] == [q.name for q in planlib.QUALITY_LEVELS]
    for name, threshold, rounds, passes, distance in rows:
        p = plan_for("samba", quality=name)
        assert float(threshold) == p.quality.threshold
        assert (int(rounds), int(passes)) == (p.rounds, p.passes)
        assert distance == f"{p.distance:.4f}"
