"""What an onlooker who counts the piles learns (shuffling/exact_mode/onlooker.py), against
the counts of every arrangement of the codes, dealt card by card."""
from __future__ import annotations

import itertools
import math
from collections import Counter, defaultdict
from fractions import Fraction
from pathlib import Path

import pytest

from firmware import exact_routes as routes
from shuffling import steps as step_kinds
from shuffling.exact_mode.codes import route_code_set
from shuffling.exact_mode.onlooker import counts_entropy, onlooker, onlooker_bits
from shuffling.exact_mode.physical import deal, device_steps

pytestmark = [pytest.mark.exact_mode]

ROOT = Path(__file__).resolve().parents[2]


def _loads_from_the_steps(route: routes.Route) -> dict[int, list[int]]:
    """Each round's loads as the person's steps put them in the tray (1-based rounds)."""
    loads: dict[int, list[int]] = defaultdict(list)
    for es in device_steps(route):
        if isinstance(es.step, step_kinds.PutInTray):  # a Reload is one too
            assert es.step.cards is not None
            loads[es.round].append(es.step.cards)
    return loads


def _counts_of_every_arrangement(route: routes.Route) -> tuple[Counter, dict, int]:
    """Deal every arrangement of the route's codes card by card, with the loads the steps
    name: the law of everything an onlooker counts (each load's left pile, round by
    round), and for each outcome the final orders it gives."""
    codes = route_code_set(route)
    loads = _loads_from_the_steps(route)
    counted: Counter = Counter()
    finals: dict = defaultdict(set)
    total = 0
    for arrangement in itertools.permutations(codes):
        pack = list(range(route.n))  # cards by starting position
        code_of = dict(zip(pack, arrangement))
        seen = []
        for r in range(route.rounds):
            kind, lo, size, param = route.kinds[r], route.lo[r], route.size[r], route.param[r]
            lefts, rights, at, piles = [], [], lo, []
            assert sum(loads[r + 1]) == size
            for load_size in loads[r + 1]:
                load = pack[at:at + load_size]
                sides = [routes.round_side(code_of[card] - lo, kind, param) for card in reversed(load)]
                left, right = deal(load, sides)  # the bottom card is fed first
                piles.append(len(left))
                lefts += left
                rights += right
                at += load_size
            seen.append(tuple(piles))
            pack[lo:lo + size] = lefts + rights
        counted[tuple(seen)] += 1
        finals[tuple(seen)].add(tuple(pack))
        total += 1
    return counted, finals, total


def _entropy(counted: Counter, total: int) -> float:
    return -sum(c / total * math.log2(c / total) for c in counted.values())


SMALL = [(n, c) for n in range(3, 8) for c in range(2, n + 1)] + [(8, 3), (8, 2), (8, 5)]


@pytest.mark.parametrize("n, capacity", SMALL)
def test_the_bits_are_the_entropy_of_every_count_of_every_arrangement(n: int, capacity: int) -> None:
    for kind in (routes.RADIX, routes.SPLIT):  # the pipelined routine: test_exact_mode_pipelined.py
        try:
            route = routes.route(n, capacity, kind)
        except ValueError:
            continue  # no split for a pack that fits the tray
        counted, finals, total = _counts_of_every_arrangement(route)
        assert total == math.factorial(n)
        assert onlooker_bits(route) == pytest.approx(_entropy(counted, total), abs=1e-9), (n, capacity, kind)
        # Given the counts, the order is uniform over the orders that give them:
        # each arrangement with those counts gives an order of its own.
        for seen, c in counted.items():
            assert len(finals[seen]) == c
        # The rounds named are the rounds whose counts vary.
        varying = {r + 1 for r in range(route.rounds) if len({seen[r] for seen in counted}) > 1}
        assert {x.round for x in onlooker(route).rounds} == varying, (n, capacity, kind)


def test_a_pack_that_fits_the_tray_tells_nothing() -> None:
    for n in (2, 7, 52, 104):
        found = onlooker(routes.route(n, 104))
        assert found.fixed and found.bits == 0.0 and found.left_bits == pytest.approx(math.log2(math.factorial(n)))


def _split_round_law(route: routes.Route) -> float:
    """The one split round of a two-part split, from the loads its steps cut and its
    parts' sizes alone: load A's left count is hypergeometric, B's follows."""
    first = _loads_from_the_steps(route)[1][0]
    a = route.part_size[0]
    whole = math.comb(route.n, first)
    law = [Fraction(math.comb(a, k) * math.comb(route.n - a, first - k), whole) for k in range(first + 1)]
    assert sum(law) == 1
    return -sum(float(p) * math.log2(p) for p in law if p)


@pytest.mark.parametrize("pack, cards, figure, parts", [("samba", 162, "3.7", (98, 64)),
                                                        ("canasta", 108, "2.0", (104, 4))])
def test_the_split_tells_samba_3_7_bits_and_canasta_2_0(pack: str, cards: int, figure: str,
                                                        parts: tuple[int, int]) -> None:
    route = routes.route(cards, 104, routes.SPLIT)
    assert route.kind == routes.SPLIT and tuple(route.part_size) == parts
    assert [route.kinds[r] for r in range(route.rounds)].count(routes.SPLIT_ROUND) == 1
    bits = onlooker_bits(route)
    assert bits == pytest.approx(_split_round_law(route), abs=1e-12)
    assert f"{bits:.1f}" == figure
    assert [x.round for x in onlooker(route).rounds] == [1]


def test_whole_pack_radix_tells_as_much_in_its_first_round_when_the_pack_needs_two_loads() -> None:
    # Round 1 deals the pack as cut, in random code order; every later load is a whole stack.
    route = routes.radix_route(162, 104)
    codes = route_code_set(route)
    zeros = sum(1 for c in codes if c & 1 == 0)
    assert zeros == 79  # the uneven set
    whole = math.comb(162, 81)
    law = [Fraction(math.comb(zeros, k) * math.comb(162 - zeros, 81 - k), whole) for k in range(82)]
    direct = -sum(float(p) * math.log2(p) for p in law if p)
    assert onlooker_bits(route) == pytest.approx(direct, abs=1e-12)
    assert f"{direct:.1f}" == "3.7" and direct > onlooker_bits(routes.split_route(162, 104))
    assert [x.round for x in onlooker(route).rounds] == [1]


def test_counts_entropy_is_the_joint_law_of_the_slices() -> None:
    # Every way of choosing the left cards of a block of 9, counted slice by slice.
    for left in range(10):
        for slices in ([9], [4, 5], [2, 3, 4], [1, 1, 7], [3, 3, 3]):
            law: Counter = Counter()
            for chosen in itertools.combinations(range(9), left):
                cuts = list(itertools.accumulate([0, *slices]))
                law[tuple(sum(1 for x in chosen if a <= x < b) for a, b in zip(cuts, cuts[1:]))] += 1
            total = math.comb(9, left)
            assert counts_entropy(9, left, slices) == pytest.approx(_entropy(law, total), abs=1e-12)
    with pytest.raises(ValueError):
        counts_entropy(9, 3, [4, 4])


def test_the_docs_onlooker_table_is_what_the_routines_give() -> None:
    text = (ROOT / "docs" / "exact-mode.md").read_text()
    table = text.split("| pack | cards | a random order holds | the split tells | whole-pack radix tells |", 1)[1]
    rows = [ln for ln in table.split("\n\n", 1)[0].splitlines() if ln.startswith("| ") and "---" not in ln]
    assert len(rows) == 5

    def said(seen) -> str:  # type: ignore[no-untyped-def]
        if seen.fixed:
            return "0 (one load: every count fixed)"
        rounds = [r.round for r in seen.rounds]
        runs = (f"rounds {rounds[0]} to {rounds[-1]}" if len(rounds) > 3 and rounds == list(range(1, len(rounds) + 1))
                else ("round " if len(rounds) == 1 else "rounds ") + ", ".join(str(r) for r in rounds))
        return f"{seen.bits:.1f} bits ({runs})"

    for row in rows:
        _, cards, holds, split, radix = [c.strip() for c in row.strip("|").split("|")]
        n = int(cards)
        radix_seen = onlooker(routes.radix_route(n, 104))
        assert holds == f"{radix_seen.order_bits:.1f} bits"
        assert radix == said(radix_seen), n
        found = routes.split_route(n, 104)
        assert split == ("(fits the tray)" if found is None else said(onlooker(found))), n
