"""The fixed code set, the load sizes it implies, and the unbiased code draw.

The arithmetic the device does (code set, bounded draw, Fisher-Yates) lives
in firmware/exact_codes.py, which the device runs as it is; this module gives it types
and adds what only the host needs (load plans, cut plans, expected bytes).
"""
from __future__ import annotations

from fractions import Fraction
from typing import Callable

from firmware import exact_codes as portable
from firmware import exact_routes as routes

RandBytes = Callable[[int], bytes]


def n_bits(n_cards: int) -> int:
    """b = ceil(log2 N): the number of rounds exact mode needs."""
    return int(portable.n_bits(n_cards))


def n_loads(n_cards: int, capacity: int) -> int:
    """L = ceil(N / C), the number of loads a round takes."""
    if capacity < 1:
        raise ValueError("capacity must be at least one card")
    if n_cards < 1:
        raise ValueError("a pack needs at least one card")
    return -(-n_cards // capacity)


def split_sizes(n_cards: int, parts: int) -> list[int]:
    """Near-equal sizes, larger first: 162 into 2 is [81, 81], 7 into 3 is [3, 2, 2]."""
    q, r = divmod(n_cards, parts)
    return [q + 1 if i < r else q for i in range(parts)]


def code_set(n_cards: int, capacity: int, uneven: bool = False) -> list[int]:
    """N distinct b-bit codes, every bit as balanced as N allows (or, if `uneven`, off by a little).

    Codes come in complementary pairs (x, x ^ (2^b - 1)); a pair adds exactly
    one 1 and one 0 at every bit, so for even N every bit splits N/2 : N/2 and
    for odd N the one unpaired code moves each bit by one. With two loads the
    new loads are "all lefts" and "all rights", whose sizes are these counts,
    so ceil(N/2) <= C (true whenever L = 2) keeps both within capacity.

    uneven=True makes every bit split (N-e)/2 + 1 : (N-e)/2 + e - 1 with e
    extra codes that each clear a different group of bits (every bit is 0 in
    exactly one of them); the rest are complementary pairs. Then the left
    stack and the right stack never hold the same number of cards, so with
    two loads a round gathered the wrong way round shows in the next load's
    count before that load is dealt. For even N, e is chosen so that both
    counts are odd (79 : 83 for 162 cards): a load with an odd number of
    cards never splits into equal piles, so swapping one load's piles shows
    too. Raises ValueError when N or C leave no room for it.
    """
    loads = n_loads(n_cards, capacity)
    codes = [int(c) for c in portable.code_set(n_cards, capacity, uneven)]
    if loads == 2:
        for r in range(n_bits(n_cards)):
            zeros, ones = bit_counts(codes, r)
            if max(zeros, ones) > capacity:  # cannot happen; guards a future edit
                raise AssertionError("code set breaks capacity")
    return codes


def device_code_set(n_cards: int, capacity: int) -> tuple[list[int], bool]:
    """The code set the device takes, and whether it is the uneven one.

    As firmware/exact.py does: the uneven set wherever it fits (so the count
    sensor catches a swapped stack or pile), the balanced one otherwise.
    """
    try:
        return code_set(n_cards, capacity, uneven=True), True
    except ValueError:
        return code_set(n_cards, capacity), False


def route_code_set(route: routes.Route) -> list[int]:
    """The codes the device takes for a routine (firmware/exact.py): the split's
    (and the pipelined routine's, before exact_routes.held_codes) are each
    card's place in the final pack, 0 to N - 1; whole-pack radix's
    the uneven set where it fits, the balanced one otherwise."""
    if route.kind != routes.RADIX:  # the pipelined routine's codes then follow from them (held_codes)
        return list(range(route.n))
    return device_code_set(route.n, route.capacity)[0]


def bit_counts(codes: list[int], bit: int) -> tuple[int, int]:
    """(codes with the bit 0, codes with the bit 1): the left and right totals of a round."""
    ones = 0
    for c in codes:
        ones += (c >> bit) & 1
    return len(codes) - ones, ones


def loads_for_round(n_cards: int, capacity: int, codes: list[int], round_index: int) -> list[int]:
    """Sizes of the loads fed in round `round_index` (0-based), top load first.

    Round 0 feeds the pack cut into L near-equal loads. After a round the
    gathered pack is all left piles (in load order) then all right piles:
    - L = 1: the whole pack again;
    - L = 2: the new loads are exactly "all lefts" and "all rights", so their
      sizes are the bit counts of the previous round's bit, fixed in advance
      because the code set is fixed;
    - L >= 3: the gathered pack is cut from the top into L near-equal loads;
      the cut sizes are fixed, and because the number of left cards is known
      in advance (the bit count), so is where each cut falls (see cut_plan).
    """
    loads = n_loads(n_cards, capacity)
    if len(codes) != n_cards:
        raise ValueError("need one code per card")
    if round_index < 0:
        raise ValueError("rounds are numbered from 0")
    if round_index == 0 or loads != 2:
        return split_sizes(n_cards, loads)
    zeros, ones = bit_counts(codes, round_index - 1)
    return [zeros, ones]


def cut_plan(n_cards: int, capacity: int, codes: list[int], round_index: int) -> list[tuple[int, int]]:
    """For L >= 3: (cards from the left stack, cards from the right stack) for each new load.

    Describes the loads of round `round_index` (>= 1) in terms of the stacks
    gathered after round `round_index - 1`: the left stack (all left piles in
    load order) lies on the right stack, and the loads are cut from the top.
    """
    if round_index < 1:
        raise ValueError("the first round's loads are a plain cut of the pack")
    sizes = loads_for_round(n_cards, capacity, codes, round_index)
    left_total, _ = bit_counts(codes, round_index - 1)
    plan: list[tuple[int, int]] = []
    taken = 0
    for size in sizes:
        from_left = max(0, min(size, left_total - taken))
        plan.append((from_left, size - from_left))
        taken += size
    return plan


def bounded_int(m: int, randbytes: RandBytes) -> tuple[int, int]:
    """A uniform integer in [0, m) from random bytes, and the bytes used.

    Takes k bytes (256^k >= m) as a big-endian number v and accepts it when
    v < limit = floor(256^k / m) * m; each accepted residue v % m then has
    exactly floor(256^k / m) preimages. Rejected draws are thrown away and
    redrawn, which keeps the result exact at the cost of a few extra bytes.
    """
    value, used = portable.bounded_int(m, randbytes)
    return int(value), int(used)


def uniform_assignment(n: int, randbytes: RandBytes, codes: list[int] | None = None) -> list[int]:
    """A uniformly random arrangement of `codes` (default 0..n-1) by Fisher-Yates.

    Position i of the result is the code of the card at pack position i.
    Every one of the n! arrangements has probability exactly 1/n!, because
    each bounded_int draw is exact. (No fixed number of coin flips can do
    this: each arrangement would get probability k / 2^t, never 1/n! for n >= 3.)
    """
    out = list(range(n)) if codes is None else list(codes)
    if len(out) != n:
        raise ValueError("need one code per card")
    portable.shuffle_codes(out, randbytes)
    return out


def expected_bytes(n: int) -> Fraction:
    """Exact expected number of random bytes uniform_assignment(n, ...) reads.

    A draw in [0, m) reads k bytes per attempt and succeeds with probability
    limit / 256^k, so it reads k * 256^k / limit bytes on average.
    """
    total = Fraction(0)
    for m in range(2, n + 1):
        k = 1
        while (1 << (8 * k)) < m:
            k += 1
        span = 1 << (8 * k)
        limit = span - span % m
        total += Fraction(k * span, limit)
    return total
