"""A pipelined routine deals a canasta pack in 10 passes, one fewer than the split, with pile
counts that depend on the order (benchmarks/exact_mode_pipelined.py, docs/exact-mode.md)."""
from __future__ import annotations

import itertools
import random
import sys
from pathlib import Path

import pytest

from firmware import exact_routes as routes

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import exact_mode_pipelined as pipelined  # noqa: E402

pytestmark = [pytest.mark.exact_mode]


@pytest.mark.parametrize("n, tray", [(7, 6), (8, 7), (7, 5)])
def test_every_order_of_a_small_pack_comes_out_of_the_held_out_routine(n: int, tray: int) -> None:
    counts = set()
    for final in itertools.permutations(range(n)):
        out, sizes, lefts = pipelined.held_out(list(final), n, tray)
        assert out == list(final) and max(sizes) <= tray and len(sizes) == pipelined.passes_of(n, tray)
        counts.add(tuple(lefts))
    assert len(counts) > 1  # the counts follow the order


def test_canasta_in_10_passes_against_the_splits_11() -> None:
    n, tray = 108, 104
    split = routes.route(n, tray)
    assert split.kind == routes.SPLIT and split.passes() == 11 and routes.radix_route(n, tray).passes() == 14
    assert pipelined.passes_of(n, tray) == 10
    # A run of 4 places free of load B's cards starts at some place 40 to 64, wherever B's cards end.
    assert [p for p in pipelined.places_for_the_run(n, tray) if 0 < p < tray] == list(range(40, 65))
    for chosen in itertools.combinations(range(40, 68), 4):
        from_b = [p in chosen for p in range(n)]
        assert pipelined.run_start(from_b, n, tray) is not None
    rng = random.Random(5)
    counts = set()
    for _ in range(200):
        final = list(range(n))
        rng.shuffle(final)
        out, sizes, lefts = pipelined.held_out(final, n, tray)
        assert out == final and max(sizes) <= tray and len(sizes) == 10
        counts.add(tuple(lefts))
    assert len(counts) > 1
