"""Exact mode on a batch of packs at once (numpy), with an optional fault.

Same rules as physical.run_with_fault, which tests check card for card; this
version exists only for speed, for Monte Carlo on 162 cards and more. A batch
is an array of shape (S, N): row s lists the labels of the cards top to
bottom, a label being the card's position in the starting order.
"""
from __future__ import annotations

from collections.abc import Iterator

import numpy as np
from numpy.typing import NDArray

from firmware import exact_routes as routes
from shuffling.exact_mode.codes import device_code_set, loads_for_round, n_bits, route_code_set
from shuffling.exact_mode import pipelined
from shuffling.exact_mode.physical import Fault
from shuffling.quality.kernels import identity_decks, inverse_riffle, partition_by_key_bit, partition_span_by_key

IntArray = NDArray[np.integer]
BoolArray = NDArray[np.bool_]


def random_assignments(codes: list[int], samples: int, rng: np.random.Generator) -> NDArray[np.int32]:
    """`samples` independent uniform arrangements of the code set (row s: code at each position)."""
    base = np.broadcast_to(np.asarray(codes, dtype=np.int32), (samples, len(codes)))
    return np.ascontiguousarray(rng.permuted(base, axis=1))


def partition_segment(decks: IntArray, left: BoolArray, lo: NDArray[np.intp], hi: NDArray[np.intp]) -> IntArray:
    """In each row s, stably partition positions [lo[s], hi[s]) into left cards then right cards.

    Positions outside the segment stay where they are. Returns a new array.
    """
    decks = np.ascontiguousarray(decks)  # the scatter below writes through reshape(-1)
    s, n = decks.shape
    col = np.arange(n, dtype=np.intp)[None, :]
    lo2, hi2 = lo[:, None], hi[:, None]
    inside = (col >= lo2) & (col < hi2)
    is_left = left & inside
    is_right = ~left & inside
    cl = np.cumsum(is_left, axis=1)
    cr = np.cumsum(is_right, axis=1)
    n_left = cl[:, -1:]
    newpos = np.where(inside, np.where(left, lo2 + cl - 1, lo2 + n_left + cr - 1), col)
    newpos = newpos + (np.arange(s, dtype=np.intp) * n)[:, None]
    out = np.empty_like(decks)
    out.reshape(-1)[newpos.reshape(-1)] = decks.reshape(-1)
    return out


def _load_rows(sizes: list[int], load: NDArray[np.intp]) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.intp)
    sz = np.asarray(sizes, dtype=np.intp)
    return starts[load], starts[load] + sz[load]


def run_batch(
    codes_by_position: NDArray[np.integer],
    capacity: int,
    fault: Fault | None = None,
    *,
    fault_load: NDArray[np.intp] | None = None,
    fault_index: NDArray[np.intp] | None = None,
    n_rounds: int | None = None,
) -> IntArray:
    """Final arrangement of each row after exact mode, starting from the order 0..N-1.

    `fault` gives the kind and round; the load and index come from the fault
    or, per row, from `fault_load` / `fault_index` (so a batch can spread one
    kind of mistake over every place it could happen).
    """
    s, n = np.shape(codes_by_position)
    decks: IntArray = np.broadcast_to(np.arange(n, dtype=np.int32), (s, n)).copy()
    for decks in run_batch_rounds(codes_by_position, capacity, fault, fault_load=fault_load,
                                  fault_index=fault_index, n_rounds=n_rounds):
        pass
    return decks


def run_batch_rounds(
    codes_by_position: NDArray[np.integer],
    capacity: int,
    fault: Fault | None = None,
    *,
    fault_load: NDArray[np.intp] | None = None,
    fault_index: NDArray[np.intp] | None = None,
    n_rounds: int | None = None,
) -> Iterator[IntArray]:
    """As run_batch, yielding the arrangement after every round (a fresh array each time)."""
    believed: IntArray = np.array(codes_by_position, dtype=np.int32, copy=True, order="C")
    s, n = believed.shape
    code_list = sorted(believed[0].tolist())
    rounds = n_bits(n) if n_rounds is None else n_rounds
    decks: IntArray = np.broadcast_to(np.arange(n, dtype=np.int32), (s, n)).copy()
    whole_lo = np.zeros(s, dtype=np.intp)
    whole_hi = np.full(s, n, dtype=np.intp)
    for r in range(rounds):
        left = ((believed >> r) & 1) == 0
        phys_left = left.copy()
        if fault is not None and fault.round == r:
            sizes = loads_for_round(n, capacity, code_list, r)
            load = fault_load if fault_load is not None else np.full(s, fault.load, dtype=np.intp)
            index = fault_index if fault_index is not None else np.full(s, fault.index, dtype=np.intp)
            lo, hi = _load_rows(sizes, load)
            decks, phys_left = _faulty_round(fault.kind, decks, left, phys_left, lo, hi, index)
        decks = partition_segment(decks, phys_left, whole_lo, whole_hi)
        believed = partition_segment(believed, left, whole_lo, whole_hi)
        yield decks


def _faulty_round(kind: str, decks: IntArray, left: BoolArray, phys_left: BoolArray,
                  lo: NDArray[np.intp], hi: NDArray[np.intp],
                  index: NDArray[np.intp]) -> tuple[IntArray, BoolArray]:
    """The fault done in each row's load [lo, hi): the pack before the
    round's gathering (a load dealt twice, or the part of a pass dealt
    before it stopped), and the sides the cards physically took."""
    s, n = decks.shape
    if kind == "swap_round":
        phys_left = ~left
    elif kind == "swap_piles":
        col = np.arange(n)[None, :]
        inside = (col >= lo[:, None]) & (col < hi[:, None])
        phys_left = np.where(inside, ~left, left)
    elif kind == "double_feed":
        # The card fed at index+1 sits one position above the card fed at index.
        rows = np.arange(s)
        p = hi - 1 - index
        ok = p - 1 >= lo
        phys_left[rows[ok], p[ok] - 1] = left[rows[ok], p[ok]]
    elif kind == "repeat_load":
        decks = partition_segment(decks, left, lo, hi)
    elif kind == "abort":
        m = np.minimum(index, hi - lo)
        decks = partition_segment(decks, left, hi - m, hi)
    return decks, phys_left


def sorted_rounds(codes_by_position: NDArray[np.integer], n_rounds: int) -> Iterator[IntArray]:
    """run_batch_rounds without a fault, by sorting: the same packs, several times sooner.

    After k correct rounds the pack is the cards stably sorted by the low k
    bits of their codes (the radix-sort claim in docs/exact-mode.md), and a
    card's label is its starting position, so the pack after round k is the
    pack after round k - 1 stably partitioned by bit k - 1 of each card's
    code: one compiled pass a round (kernels.partition_by_key_bit), a
    least-significant-digit radix sort. Tests check it against
    run_batch_rounds.
    """
    small = int(np.max(codes_by_position)) < 2**16
    codes: NDArray[np.integer] = np.ascontiguousarray(codes_by_position, dtype=np.uint16 if small else np.int64)
    decks = identity_decks(*codes.shape)
    for k in range(n_rounds):
        decks = partition_by_key_bit(decks, codes, k)
        yield decks


def route_rounds(codes_by_position: NDArray[np.integer], route: routes.Route, n_rounds: int) -> Iterator[IntArray]:
    """The packs after each of the first `n_rounds` rounds of an exact routine
    (firmware/exact_routes.py), by the codes at each starting position.

    A round deals the cards at positions [lo, lo + size) and leaves its left
    cards, then its right cards, each in order (exact_routes.partition); the
    split's stacks and parts lie apart on the table, and the pack here is
    them put together in order, top part first: the order they make at the
    end. Whole-pack radix is sorted_rounds (the same packs: a SORT round of
    the whole pack by bit r). Tests check both against physical.run_route,
    card by card.
    """
    if route.kind == routes.RADIX:
        yield from sorted_rounds(codes_by_position, n_rounds)
        return
    codes: NDArray[np.integer] = np.ascontiguousarray(codes_by_position, dtype=np.int32)
    pipe = route.kind == routes.PIPELINED
    if pipe:  # the codes follow from the places drawn (exact_routes.held_codes)
        codes = pipelined.held_code_rows(codes, route.capacity)
    decks = identity_decks(*codes.shape)
    every = np.arange(int(codes.max()) + 1 if codes.size else route.n)
    for r in range(n_rounds):
        kind, lo, size, param = route.kinds[r], route.lo[r], route.size[r], route.param[r]
        # The split's codes are places in the final pack, so the round's stack
        # holds exactly the codes lo..lo + size - 1 (codes outside are never read);
        # the pipelined routine's stack holds codes lo and up.
        inside = (lambda c: lo <= c) if pipe else (lambda c: lo <= c < lo + size)
        right = np.array([routes.round_side(c - lo, kind, param) if inside(c) else 0 for c in every],
                         dtype=np.bool_)
        decks = partition_span_by_key(decks, codes, right, lo, lo + size)
        # Once P's last pass is dealt, its piles lie apart with Q between them.
        yield pipelined.gathered(decks, codes, route.capacity) if pipe and r >= n_bits(route.capacity) else decks


def simulate_route(
    route: routes.Route,
    rounds: int,
    samples: int,
    rng: np.random.Generator,
    chunk: int = 10_000,
) -> Iterator[tuple[int, IntArray]]:
    """`samples` correct runs of an exact routine, `chunk` at a time, yielding
    (r, decks) after every round.

    Each run draws its own uniformly random arrangement of the code set the
    device takes for the routine (codes.route_code_set) and starts from the
    order 0..N-1, so labels are positions in the starting order. Rounds 1..R
    are the routine's; after them the device deals at random, so any later
    round is one random pile-trade round: a fair inverse riffle of the whole
    pack. Memory is bounded by the chunk, not by `samples`.
    """
    if rounds < 0 or samples < 1 or chunk < 1:
        raise ValueError("need rounds >= 0, samples >= 1 and chunk >= 1")
    codes = route_code_set(route)
    exact_rounds = min(rounds, route.rounds)
    done = 0
    while done < samples:
        m = min(chunk, samples - done)
        decks: IntArray = np.broadcast_to(np.arange(route.n, dtype=np.int32), (m, route.n)).copy()
        assignment = random_assignments(codes, m, rng)
        for r, decks in enumerate(route_rounds(assignment, route, exact_rounds), 1):
            yield r, decks
        for r in range(exact_rounds + 1, rounds + 1):
            decks = inverse_riffle(decks, rng)
            yield r, decks
        done += m


def simulate_exact_mode(
    n_cards: int,
    capacity: int,
    rounds: int,
    samples: int,
    rng: np.random.Generator,
    chunk: int = 10_000,
) -> Iterator[tuple[int, IntArray]]:
    """simulate_route for whole-pack radix, with the device's code set
    (codes.device_code_set): rounds 1..b are exact mode, then random
    pile-trade rounds. The exact rounds come from sorted_rounds, which equals
    run_batch_rounds."""
    if rounds < 0 or samples < 1 or chunk < 1:
        raise ValueError("need rounds >= 0, samples >= 1 and chunk >= 1")
    route = routes.radix_route(n_cards, capacity)
    assert route.rounds == n_bits(n_cards) and route_code_set(route) == device_code_set(n_cards, capacity)[0]
    return simulate_route(route, rounds, samples, rng, chunk)
