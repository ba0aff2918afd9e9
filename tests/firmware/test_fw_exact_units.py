"""The firmware's exact routine (firmware/exact.py) under CPython, against the
simulator's physical model of exact mode (shuffling/exact_mode/physical.py)
and the code sorting that proves it exact."""

from __future__ import annotations

import math
import random
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "firmware"))  # flat names, as on the device

import exact  # noqa: E402
import exact_routes  # noqa: E402

from firmware import protocol  # noqa: E402
from host import wire
from host import device_words  # noqa: E402
from shuffling.exact_mode import codes as code_sets  # noqa: E402
from shuffling.exact_mode.physical import deal, run_exact, run_route  # noqa: E402
from shuffling.exact_mode.uniformity import chi_square_sf, chi_square_uniform  # noqa: E402

pytestmark = [pytest.mark.exact_mode]


def byte_stream(seed: int):  # type: ignore[no-untyped-def]
    rng = random.Random(seed)
    return lambda k: bytes(rng.getrandbits(8) for _ in range(k))


def run_device_routine(n: int, capacity: int, seed: int, kind: str | None = None
                       ) -> tuple[list[int], list[list[int]], exact.ExactRoutine]:
    """A correct exact routine: the person loads what the routine expects,
    each pass is dealt by the routine's sides, and a round's piles are
    gathered all left on all right in the place its cards came from."""
    ex = exact.ExactRoutine(capacity)
    ex.begin(n, byte_stream(seed), kind)
    pack = list(range(n))
    counts: list[list[int]] = []
    while ex.active:
        lefts: list[int] = []
        rights: list[int] = []
        lo = start = ex.lo
        sizes: list[int] = []
        while True:
            want = ex.expected()
            assert ex.check(want)
            sizes.append(want)
            load = pack[start:start + want]
            start += want
            ex.prepare(want)
            left, right = deal(load, [ex.side(k) for k in range(want)])
            lefts += left
            rights += right
            r = ex.pass_done()
            if r == exact.ALL_DONE:
                ex.end()
            if r != exact.NEXT_LOAD:
                break
        counts.append(sizes)
        pack[lo:start] = lefts + rights
    return pack, counts, ex


@settings(max_examples=60, deadline=None)
@given(n=st.integers(2, 300), capacity=st.integers(2, 120), seed=st.integers(0, 2**32))
def test_the_device_routine_gives_the_order_the_code_sorting_predicts(n: int, capacity: int, seed: int) -> None:
    if code_sets.n_loads(n, capacity) > exact.MAX_LOADS:
        return
    final, counts, ex = run_device_routine(n, capacity, seed, exact_routes.RADIX)
    # The same random bytes, through the simulator's own draw.
    try:
        codes, uneven = code_sets.code_set(n, capacity, uneven=True), True
    except ValueError:
        codes, uneven = code_sets.code_set(n, capacity), False
    assert ex.uneven == uneven  # the uneven set wherever it fits
    arrangement = code_sets.uniform_assignment(n, byte_stream(seed), codes)
    # Position i started with card i: the final pack is the cards sorted by code ...
    assert final == sorted(range(n), key=lambda i: arrangement[i])
    # ... which is what the card-by-card physical model gives too.
    assert final == run_exact(list(range(n)), arrangement, capacity)[-1]
    # The device expected the loads the code set fixes, every round, all within capacity.
    assert len(counts) == code_sets.n_bits(n)
    for r, sizes in enumerate(counts):
        assert sizes == code_sets.loads_for_round(n, capacity, codes, r)
        assert max(sizes) <= capacity
    # The codes are wiped at the end.
    assert not ex.active and set(ex.codes) <= {0}


@settings(max_examples=60, deadline=None)
@given(n=st.integers(3, 512), capacity=st.integers(2, 120), seed=st.integers(0, 2**32))
def test_the_device_split_gives_the_order_of_its_codes(n: int, capacity: int, seed: int) -> None:
    if code_sets.n_loads(n, capacity) > exact.MAX_LOADS or n <= capacity:
        return
    route = exact_routes.split_route(n, capacity)
    assert route is not None
    final, counts, ex = run_device_routine(n, capacity, seed, exact_routes.SPLIT)
    # The same random bytes arrange the codes 0..n-1, a card's place in the final pack.
    arrangement = code_sets.uniform_assignment(n, byte_stream(seed))
    assert final == sorted(range(n), key=lambda i: arrangement[i])
    assert final == run_route(list(range(n)), arrangement, route)
    # Split rounds are cut near-equal, a part's passes hold the whole part, all within the tray.
    assert counts == [code_sets.split_sizes(route.size[r], route.loads[r]) for r in range(route.rounds)]
    assert max(max(c) for c in counts) <= capacity and not ex.uneven
    assert not ex.active and set(ex.codes) <= {0}


@settings(max_examples=60, deadline=None)
@given(capacity=st.integers(2, 300), h=st.integers(1, 12), seed=st.integers(0, 2**32))
def test_the_device_pipelined_routine_gives_the_order_of_its_places(capacity: int, h: int, seed: int) -> None:
    n = capacity + h
    route = exact_routes.pipelined_route(n, capacity)
    if route is None or n > exact.MAX_CARDS:
        with pytest.raises(ValueError):
            exact.ExactRoutine(capacity).begin(n, byte_stream(seed), exact_routes.PIPELINED)
        return
    model, counts, ex = run_device_routine(n, capacity, seed, exact_routes.PIPELINED)
    places = code_sets.uniform_assignment(n, byte_stream(seed))
    codes = list(places)
    k = exact_routes.held_codes(codes, n, capacity)
    # Q (the model's first h positions) and P each sorted by place: the gathering is the order of the places.
    assert model == run_route(list(range(n)), codes, route)
    gathered = model[h:h + k] + model[:h] + model[h + k:]
    assert gathered == sorted(range(n), key=lambda i: places[i])
    # Every load's count is the routine's own: A, then P's passes, then Q's, one load each.
    assert counts == [[capacity]] * (1 + code_sets.n_bits(capacity)) + [[h]] * code_sets.n_bits(h)
    assert not ex.active and set(ex.codes) <= {0}


def test_the_device_takes_the_routine_the_host_plans() -> None:
    for n, capacity in ((162, 104), (108, 104), (52, 104), (270, 104), (432, 104), (7, 3), (52, 30)):
        ex = exact.ExactRoutine(capacity)
        ex.begin(n, byte_stream(n))
        assert ex.route.kind == exact_routes.route(n, capacity).kind
        assert ex.rounds == exact_routes.route(n, capacity).rounds


def test_samba_splits_and_the_count_catches_parts_swapped() -> None:
    ex = exact.ExactRoutine(104)
    ex.begin(162, byte_stream(3))
    assert (ex.route.kind, ex.rounds, ex.loads, ex.uneven) == ("split", 14, 2, False)
    assert (ex.expected(), ex.fixed_counts(), ex.load_name()) == (81, False, "A")
    assert ex.check(80) and not ex.check(162)  # a miscut split round is harmless while B keeps a card
    for _ in range(2):
        ex.prepare(81)
        ex.pass_done()
    # Round 2: load P, 98 cards; load Q (64) put in first is caught.
    assert (ex.round, ex.load_name(), ex.expected(), ex.fixed_counts()) == (1, "P", 98, True)
    assert not ex.check(64) and ex.check(98)
    for _ in range(7):
        ex.prepare(98)
        ex.pass_done()
    assert (ex.round, ex.load_name(), ex.expected()) == (8, "Q", 64)
    assert not ex.check(98)


def test_samba_uses_the_uneven_set_and_the_count_catches_a_swapped_stack() -> None:
    ex = exact.ExactRoutine(104)
    ex.begin(162, byte_stream(3), exact_routes.RADIX)
    assert ex.uneven and ex.rounds == 8 and ex.loads == 2
    assert (ex.expected(), ex.fixed_counts()) == (81, False)
    assert ex.check(80)  # a miscut first round is harmless ...
    assert not ex.check(162)  # ... as long as load B keeps a card
    for _ in range(2):
        ex.prepare(81)
        ex.pass_done()
    # Round 2: the left stack (79) is load A, the right stack (83) load B.
    assert (ex.round, ex.expected(), ex.fixed_counts()) == (1, 79, True)
    assert not ex.check(83)  # the right stack put in first
    assert ex.check(79)


def test_a_small_machine_and_refusals() -> None:
    ex = exact.ExactRoutine(3)
    ex.begin(5, byte_stream(1))
    assert (ex.route.kind, ex.loads, ex.rounds, list(ex.route.part_size)) == ("split", 2, 4, [3, 2])
    ex.begin(5, byte_stream(1), exact_routes.RADIX)
    assert (ex.loads, ex.rounds) == (2, 3)
    for kind in ("other", exact_routes.SPLIT):
        with pytest.raises(ValueError):
            exact.ExactRoutine(104).begin(52, byte_stream(1), kind)  # a pack that fits the tray has no split
    for bad in (1, exact.MAX_CARDS + 1):
        with pytest.raises(ValueError):
            ex.begin(bad, byte_stream(1))
    with pytest.raises(ValueError):
        exact.ExactRoutine(2).begin(100, byte_stream(1))  # 50 loads: more than A to Z


def test_lost_reasons_have_stable_numbers_and_sentences() -> None:
    assert (protocol.LOST_DOUBLE_FEED, protocol.LOST_COUNT, protocol.LOST_ABORTED, protocol.LOST_CANCELLED, protocol.LOST_EXIT_COUNT,
            protocol.LOST_REST) == (1, 2, 3, 4, 5, 6)
    assert sorted(device_words.LOST) == sorted(protocol.LOST_CODES)
    assert all(name and msg.endswith(".") for name, msg in device_words.LOST.values())
    assert len({name for name, _ in device_words.LOST.values()}) == len(device_words.LOST)


def test_a_worst_case_exact_status_fits_one_line() -> None:
    rep = wire.reply("status", protocol.MAX_ID, k=104, n=104, state=protocol.ST_DEALING, fault=protocol.FAULT_NOT_CALIBRATED,
                  mv=10500, uptime_ms=protocol.MAX_ID, mode=protocol.MODE_EXACT,
                  next={"round": 9, "rounds": 9, "load": "Z", "count": 104})
    assert len(protocol.encode(rep)) <= protocol.MAX_LINE


def test_chi_square_tail_against_closed_forms() -> None:
    # df = 2: exp(-x/2); df = 1: erfc(sqrt(x/2)); df = 4: (1 + x/2) exp(-x/2).
    for x in (0.1, 1.0, 3.0, 10.0, 40.0):
        assert chi_square_sf(x, 2) == pytest.approx(math.exp(-x / 2), rel=1e-9)
        assert chi_square_sf(x, 1) == pytest.approx(math.erfc(math.sqrt(x / 2)), rel=1e-9)
        assert chi_square_sf(x, 4) == pytest.approx((1 + x / 2) * math.exp(-x / 2), rel=1e-9)
    # Large df: the median of chi-square(df) is close to df (1 - 2/(9 df))^3.
    assert chi_square_sf(119 * (1 - 2 / (9 * 119)) ** 3, 119) == pytest.approx(0.5, abs=0.01)
    assert chi_square_uniform([10, 10, 10]) == (0.0, 1.0)


def test_a_stopped_pass_goes_on_where_the_tray_s_count_shows_every_card_on_its_own_pile() -> None:
    """The beam counted k cards: with the card it was feeding back in the
    tray (n - k left) or gone out to its own side (n - k - 1 left) the rest
    deals on from there; two or more gone out beyond the count, or cards
    put back in, end exactness. The codes are never looked at."""
    for seed in range(20):
        ex = exact.ExactRoutine(104)
        ex.begin(40, byte_stream(seed))
        n = ex.expected()
        ex.prepare(n)
        ex.stopped(12)
        assert ex.rest_start(n - 12) == 12 and ex.rest_start(n - 13) == 13
        assert ex.rest_start(n - 14) == ex.rest_start(n - 20) == exact.REST_MORE
        assert ex.rest_start(n - 11) == exact.REST_COUNT and ex.rest_start(n + 1) == exact.REST_COUNT
        assert ex.rest_start(0) == exact.REST_MORE  # every card gone: more than the one being fed
        # The rest, from card 13: its part's sides are the load's from there on.
        whole = [ex.side(k) for k in range(n)]
        ex.prepare_rest(13)
        assert [ex.side(k) for k in range(n - 13)] == whole[13:]
        # A second stop counts from the start of the load.
        ex.stopped(4)
        assert ex.stopped_at == 17 and ex.rest_start(n - 17) == 17 and ex.rest_start(n - 12) == exact.REST_COUNT
        ex.prepare_rest(18)
        assert ex.pass_done() == exact.ROUND_DONE and not ex.in_pass and ex.stopped_at == -1  # one load a round


@pytest.mark.restart
def test_after_a_restart_the_count_alone_says_where_the_pass_stopped() -> None:
    ex = exact.ExactRoutine(104)
    ex.begin(40, byte_stream(1))
    n = ex.expected()
    ex.prepare(n)
    ex.prepare_rest(5)  # a rest already begun at card 5 when the power went
    back = exact.ExactRoutine(104)
    assert back.from_dict(ex.to_dict())
    assert back.in_pass and back.stopped_at == -1
    assert back.rest_start(n - 9) == 9 and back.rest_start(n - 5) == 5 and back.rest_start(n - 4) == exact.REST_COUNT


@pytest.mark.parametrize("kind, n", [(exact_routes.SPLIT, 162), (exact_routes.RADIX, 162), (exact_routes.PIPELINED, 108)])
def test_a_routine_kept_in_flash_comes_back_whole_and_a_spoilt_one_is_refused(kind: str, n: int) -> None:
    ex = exact.ExactRoutine(104)
    ex.begin(n, byte_stream(7), kind)
    for _ in range(3):
        ex.prepare(ex.expected())
        ex.pass_done()
    saved = ex.to_dict()
    back = exact.ExactRoutine(104)
    assert back.from_dict(saved)
    assert (back.round, back.load, back.start, back.expected(), back.uneven) == \
        (ex.round, ex.load, ex.start, ex.expected(), ex.uneven)
    assert list(back.codes) == list(ex.codes) and back.to_dict() == saved
    # Both go on alike to the end.
    while ex.active:
        for r in (ex, back):
            r.prepare(r.expected())
        assert [ex.side(k) for k in range(ex.pass_n)] == [back.side(k) for k in range(back.pass_n)]
        results = (ex.pass_done(), back.pass_done())
        assert results[0] == results[1]
        if results[0] == exact.ALL_DONE:
            break
    for spoil in ({"v": 99}, {"codes": [1, 2]}, {"round": saved["rounds"]}, {"rounds": 3}, {"n": "x"},
                  {"codes": None}, {"routine": "other"}, {"start": n + 1}, {"load": 2}):
        other = exact.ExactRoutine(104)
        assert not other.from_dict({**saved, **spoil}) and not other.active
    assert not exact.ExactRoutine(52).from_dict(saved)  # a routine for another tray


def test_round_kinds_are_the_planners() -> None:
    # exact.py folds a round's kind into its own constants, so its per-card
    # test does not need the planner imported; they must be the planner's.
    assert (exact._SORT_ROUND, exact._SPLIT_ROUND) == (exact_routes.SORT_ROUND, exact_routes.SPLIT_ROUND)
