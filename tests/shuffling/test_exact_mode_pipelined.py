"""The pipelined routine: a pack a few cards bigger than the tray (canasta's
108 on a 104-card tray) in fewer passes than the split, every load's count
fixed (firmware/exact_routes.py, pipelined_route; docs/exact-mode.md,
*The pipelined routine*; benchmarks/exact_mode_pipelined.py)."""
from __future__ import annotations

import itertools
import math
import random
import sys
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np
import pytest

from firmware import exact_routes as routes
from shuffling import steps as step_kinds
from shuffling.exact_mode import pipelined
from shuffling.exact_mode.batch import route_rounds
from shuffling.exact_mode.codes import n_bits
from shuffling.exact_mode.onlooker import onlooker, onlooker_bits
from shuffling.exact_mode.physical import deal, route_steps

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
import exact_mode_pipelined as bench  # noqa: E402
from test_exact_mode_split import follow  # noqa: E402

pytestmark = [pytest.mark.exact_mode]

# Every pack of at most 8 cards that has the routine (one card held out: h = 1).
SMALL = [(n, c) for n in range(3, 9) for c in range(2, n) if routes.pipelined_route(n, c) is not None]


def test_the_small_packs_with_the_routine() -> None:
    assert SMALL == [(4, 3), (6, 5), (7, 6), (8, 7)]


@pytest.mark.parametrize("n, cap", SMALL)
def test_every_order_comes_out_once_following_the_steps(n: int, cap: int) -> None:
    """Every arrangement of the places, turned into codes as the device does,
    dealt card by card by the person's steps (every count a step states
    checked, every load within the tray): the pack ends in the order of the
    places, so every order comes out exactly once."""
    route = routes.route(n, cap, routes.PIPELINED)
    seen = Counter()
    for places in itertools.permutations(range(n)):
        codes = list(places)
        routes.held_codes(codes, n, cap)
        final = follow(route, codes)
        assert final == sorted(range(n), key=lambda c: places[c])
        seen[tuple(final)] += 1
    assert len(seen) == math.factorial(n) and set(seen.values()) == {1}


def test_canasta_in_10_passes_against_the_splits_11() -> None:
    n, tray = 108, 104
    pipe = routes.route(n, tray)
    assert pipe.kind == routes.PIPELINED and pipe.passes() == 10 and routes.held_window(n, tray) == (40, 64)
    assert routes.split_route(n, tray).passes() == 11 and routes.radix_route(n, tray).passes() == 14
    assert pipe.ms < routes.split_route(n, tray).ms
    # Every load the steps put in the tray holds a count fixed in advance.
    loads = [es.step.cards for es in route_steps(pipe) if isinstance(es.step, step_kinds.PutInTray)]
    assert loads == [104] * 8 + [4] * 2
    rng = random.Random(5)
    for _ in range(100):
        places = list(range(n))
        rng.shuffle(places)
        codes = list(places)
        k = routes.held_codes(codes, n, tray)
        assert 40 <= k <= 64
        assert follow(pipe, codes) == sorted(range(n), key=lambda c: places[c])


@pytest.mark.parametrize("cap", range(2, 25))
def test_the_window_is_exactly_where_a_run_is_always_free(cap: int) -> None:
    """held_window's formula against every placement of load B's cards among
    the places where they matter: where it offers the routine, every
    placement leaves a free run of h places starting lo to hi; where it does
    not, some placement leaves none."""
    half = 1 << (n_bits(cap) - 1)
    lo, hi = cap - half, half
    for h in range(1, 5):
        window = range(lo, hi + h)
        always = all(any(not set(range(k, k + h)) & set(chosen) for k in range(lo, hi + 1))
                     for m in range(min(h, len(window)) + 1) for chosen in itertools.combinations(window, m))
        assert (routes.held_window(cap + h, cap) is not None) == always, (cap, h)


def _counts_of_every_draw(route: routes.Route) -> tuple[Counter, dict, int]:
    """Every draw of the places dealt card by card with the loads the steps
    name: the law of every pile count, and the final orders each gives."""
    n, cap = route.n, route.capacity
    loads = [es.step.cards for es in route_steps(route) if isinstance(es.step, step_kinds.PutInTray)]
    assert loads == [route.size[r] for r in range(route.rounds)]
    counted: Counter = Counter()
    finals: dict = defaultdict(set)
    for places in itertools.permutations(range(n)):
        codes = list(places)
        routes.held_codes(codes, n, cap)
        pack, seen = list(range(n)), []
        for r in range(route.rounds):
            kind, lo, size, param = route.kinds[r], route.lo[r], route.size[r], route.param[r]
            load = pack[lo:lo + size]
            left, right = deal(load, [routes.round_side(codes[c] - lo, kind, param) for c in reversed(load)])
            seen.append(len(left))
            pack[lo:lo + size] = left + right
        counted[tuple(seen)] += 1
        finals[tuple(seen)].add(tuple(sorted(range(n), key=lambda c: places[c])))
    return counted, finals, math.factorial(n)


@pytest.mark.parametrize("n, cap", SMALL)
def test_what_an_onlooker_learns_is_the_entropy_of_every_count(n: int, cap: int) -> None:
    route = routes.route(n, cap, routes.PIPELINED)
    counted, finals, total = _counts_of_every_draw(route)
    assert sum(counted.values()) == total
    entropy = -sum(c / total * math.log2(c / total) for c in counted.values())
    assert onlooker_bits(route) == pytest.approx(entropy, abs=1e-9)
    for seen, c in counted.items():
        assert len(finals[seen]) == c  # given the counts, every order that gives them once: uniform
    varying = {r + 1 for r in range(route.rounds) if len({seen[r] for seen in counted}) > 1}
    assert {x.round for x in onlooker(route).rounds} == varying
    assert 1 not in varying  # load A's piles hold h and C - h, whatever the order


def test_canasta_tells_less_than_the_split_and_the_audits_variant_tells_0_70() -> None:
    route = routes.route(108, 104)
    law = pipelined.run_law(108, 104)
    # Four of B's cards block at most 16 starts: the run starts at 40 to 56.
    assert sum(law.values()) == pytest.approx(1.0, abs=1e-9) and set(law) == set(range(40, 57))
    # P's last pass sends left exactly the k cards above Q's run: the counts tell k, and nothing else.
    assert len({pipelined.pile_counts(104, k) for k in law}) == len(law)
    bits = onlooker_bits(route)
    assert f"{bits:.2f}" == "0.93" and bits < onlooker_bits(routes.split_route(108, 104))
    # The benchmark's routine tries the run at the top first: 0.70 bits, but k = 0 and k = 64
    # give the same counts and need different gatherings.
    audit, built = bench.audit_bits()
    assert f"{audit:.2f}" == "0.70" and built == bits
    assert pipelined.pile_counts(104, 64) == tuple(sum(1 for c in range(104) if not (c >> b) & 1) for b in range(7))


@pytest.mark.parametrize("n, cap", [(7, 6), (108, 104)])
def test_the_reports_simulation_ends_in_the_order_of_the_places(n: int, cap: int) -> None:
    route = routes.route(n, cap, routes.PIPELINED)
    rng = np.random.default_rng(3)
    places = np.stack([rng.permutation(n) for _ in range(20)]).astype(np.int32)
    decks = list(route_rounds(places, route, route.rounds))[-1]
    for row, place in zip(decks, places):
        assert row.tolist() == sorted(range(n), key=lambda c: place[c])


@pytest.mark.parametrize("n, tray", [(7, 6), (8, 7), (7, 5)])
def test_every_order_of_a_small_pack_comes_out_of_the_held_out_routine(n: int, tray: int) -> None:
    counts = set()
    for final in itertools.permutations(range(n)):
        out, sizes, lefts = bench.held_out(list(final), n, tray)
        assert out == list(final) and max(sizes) <= tray and len(sizes) == bench.passes_of(n, tray)
        counts.add(tuple(lefts))
    assert len(counts) > 1  # the piles follow the order; the loads do not


def test_only_canasta_among_the_presets_gains_from_a_pipelined_routine(capsys: pytest.CaptureFixture) -> None:
    bench.search_presets()
    lines = [ln for ln in capsys.readouterr().out.splitlines() if "beats the split" in ln]
    assert len(lines) == 1 and lines[0].startswith("  108 (")
