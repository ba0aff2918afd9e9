"""Pipelined exact routines: what they would ask of the device, on two spelled out.

    python benchmarks/exact_mode_pipelined.py     # a few seconds

A pipelined routine feeds a pass a new part of the pack together with a
pile of an earlier pass, so that passes run full.

1. 7 cards on a 5-card tray in 4 passes, where the split and whole-pack
   radix take 6 (the counting bound is 3): the loads are the top 5 cards;
   the last 2 on top of pass 1's left pile; pass 1's right pile on top of
   pass 2's left pile; pass 3's left pile on top of pass 2's right pile; the
   pack is then pass 4's left pile, pass 3's right pile and pass 4's right
   pile, top to bottom. Every side of every card is tried, with every load
   within the tray. Prints how many of the 7! orders it reaches; how many it
   reaches with any one set of pile counts (how many cards each pass sends
   left), the most for any set, and how many sets it takes to reach them all.

2. A canasta pack, 108 cards on a 104-card tray, in 10 passes (the split
   takes 11, whole-pack radix 14, the counting bound is 6), by `held_out`
   below: the device draws the final order, uniformly, and works every side
   out from it. Pass 1 deals the top 104 cards (load A) and sends right the
   4 cards that are to end in a run of 4 places of the final pack where none
   of the bottom 4 cards (load B) ends, the rest left; load B on top of pass
   1's left pile (104 cards) is then sorted alone in 7 passes, its left pile
   on its right pile between them, its last two piles lifted apart; the 4
   cards held out are sorted in 2 passes; the pack is the last left pile,
   the 4 sorted cards, the last right pile, top to bottom (or, with the run
   at the top, the 4 on the sorted 104). The 104 cards are sorted by codes
   of 7 bits in which the k cards above the run of 4 have the top bit 0 and
   the others 1, so k must lie in 104 - 64 to 64 (or be 0 or 104, the run
   at an end): among places 40 to 67 at most 4 hold B's cards, so the other
   24 or more fall in at most 5 runs and one run is 5 long: a run of 4
   always starts at a place k from 40 to 64. The benchmark checks every
   placement of B's cards among places 40 to 67 (where alone they matter),
   deals uniformly random final orders and orders chosen to be hard (B's
   cards spread over that stretch, or every order reversed) card by card
   through the passes, each ending in its final order with every load
   within the tray, and the same construction for every order of small
   packs, by enumeration.

   Every load's count is fixed (104, 104 seven times, 4 twice); only the
   piles vary, with k. This routine tries the run at the top first (k = 0,
   chance 0.858), and its counts tell an onlooker 0.70 bits (exactly, over
   every set of B's places); but k = 0 and k = 64 give the same counts and
   different gatherings, so its last step would depend on the order. The
   routine the device runs (firmware/exact_routes.py, pipelined_route)
   keeps the run inside, k from 40 to 64, one gathering for every order,
   and tells 0.93 bits (shuffling/exact_mode/onlooker.py).

3. A search of every preset pack (shuffling/packs.py) on a 104-card tray
   for a pipelined routine with less modelled time than the split: the
   whole pack dealt as the device's pipelined routine, or any split whose
   stacks may each be dealt that way instead of split again, every first
   part size tried. Only canasta's 108 cards gain; its routine is built.

In the first, no one set of pile counts reaches every order: the counts of
some pass depend on more of the order than one number, and no fixed code
set drives it.
"""
from __future__ import annotations

import itertools
import math
import random
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from firmware import exact_codes  # noqa: E402
from firmware import exact_routes as routes  # noqa: E402

N, TRAY = 7, 5


def deal(load: tuple[int, ...], sides: tuple[int, ...]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """One pass (docs/mechanism.md): each pile keeps the load's order."""
    left = tuple(c for c, s in zip(load, sides) if s == 0)
    right = tuple(c for c, s in zip(load, sides) if s == 1)
    return left, right


def outcomes() -> dict[tuple[int, ...], set[tuple[int, ...]]]:
    """Every final order the routine reaches, with the pile counts (cards sent left each pass) that reach it."""
    pack = tuple(range(N))
    reached: dict[tuple[int, ...], set[tuple[int, ...]]] = defaultdict(set)

    def passes(load: tuple[int, ...]):  # type: ignore[no-untyped-def]
        if len(load) > TRAY:
            return
        for sides in itertools.product((0, 1), repeat=len(load)):
            yield deal(load, sides)

    for l1, r1 in passes(pack[:5]):
        for l2, r2 in passes(pack[5:] + l1):
            for l3, r3 in passes(r1 + l2):
                for l4, r4 in passes(l3 + r2):
                    reached[l4 + r3 + r4].add((len(l1), len(l2), len(l3), len(l4)))
    return reached


def seven_on_five() -> None:
    reached = outcomes()
    total = math.factorial(N)
    by_counts: dict[tuple[int, ...], set[tuple[int, ...]]] = defaultdict(set)
    for order, counts in reached.items():
        for c in counts:
            by_counts[c].add(order)
    best_counts, best = max(by_counts.items(), key=lambda kv: len(kv[1]))
    # How many sets of counts it takes to reach every order (greedy: an upper bound on the fewest).
    left, chosen = set(reached), 0
    while left:
        pick = max(by_counts.values(), key=lambda orders: len(orders & left))
        left -= pick
        chosen += 1
    split, radix = routes.split_route(N, TRAY), routes.radix_route(N, TRAY)
    assert split is not None
    print(f"{N} cards on a {TRAY}-card tray, 4 passes (the split: {split.passes()}, whole-pack radix: "
          f"{radix.passes()}; counting bound: {math.ceil(math.log2(total) / TRAY)})")
    print(f"  orders reached: {len(reached)} of {total}")
    print(f"  sets of pile counts used: {len(by_counts)}; the most orders any one reaches: {len(best)} "
          f"(counts left {best_counts}); sets needed to reach every order: at most {chosen}")
    print(f"  so no one set of pile counts reaches every order: {total - len(best)} orders need other counts")


# ----- the held-out run: N = C + h cards, h <= C ------------------------------------------------


def places_for_the_run(n: int, tray: int) -> list[int]:
    """Where the run of the h cards held out may start (k cards of the sorted 104 above it):
    at either end, or where the sort's last pass can split its cards k : tray - k."""
    half = 1 << (exact_codes.n_bits(tray) - 1)
    return sorted({0, tray} | set(range(max(0, tray - half), min(tray, half) + 1)))


def run_start(from_b: list[bool], n: int, tray: int) -> int | None:
    """The first place k (places_for_the_run) where h places in a row hold none of B's cards, or None."""
    h = n - tray
    for k in places_for_the_run(n, tray):
        if not any(from_b[k:k + h]):
            return k
    return None


def passes_of(n: int, tray: int) -> int:
    return 1 + exact_codes.n_bits(tray) + exact_codes.n_bits(n - tray)


def held_out(final: list[int], n: int, tray: int) -> tuple[list[int], list[int], list[int]]:
    """Deal the pack 0..n-1 (top first: load A the top `tray` cards, load B the rest) so that it
    ends in the order `final` (top first), card by card: the pack at the end, each pass's load
    size and each pass's left count."""
    h = n - tray
    from_b = [card >= tray for card in final]
    k = run_start(from_b, n, tray)
    if k is None:
        raise ValueError("no run of places for the cards held out")
    held = set(final[k:k + h])
    assert not held & set(range(tray, n))
    middle = 0 < k < tray
    code, held_code = held_out_codes(final, k, h, tray, middle)
    bits = exact_codes.n_bits(tray)
    sizes: list[int] = []
    lefts: list[int] = []

    def one_pass(load: tuple[int, ...], side_of) -> tuple[tuple[int, ...], tuple[int, ...]]:  # type: ignore[no-untyped-def]
        assert len(load) <= tray, "a load over the tray"
        sides = tuple(side_of(c) for c in reversed(load))  # the bottom card is fed first
        left, right = deal_fed(load, sides)
        sizes.append(len(load))
        lefts.append(len(left))
        return left, right

    pack = tuple(range(n))
    l1, r1 = one_pass(pack[:tray], lambda c: 1 if c in held else 0)
    load = pack[tray:] + l1  # load B on top of pass 1's left pile
    for bit in range(bits):
        left, right = one_pass(load, lambda c, b=bit: (code[c] >> b) & 1)
        load = left + right
    top, bottom = left, right  # the last pass's piles, lifted apart
    run = r1
    for bit in range(exact_codes.n_bits(h)):
        left, right = one_pass(run, lambda c, b=bit: (held_code[c] >> b) & 1)
        run = left + right
    return gathered(top, bottom, run, k, middle), sizes, lefts


def held_out_codes(final: list[int], k: int, h: int, tray: int,
                   middle: bool) -> tuple[dict[int, int], dict[int, int]]:
    """The codes that sort each card to its final place: the sorted load's
    (its cards in their final order; a run in the middle leaves a gap of
    half the codes where the held-out cards go), and the held-out run's."""
    held = set(final[k:k + h])
    rest = [c for c in final if c not in held]  # the sorted load: its cards in their final order
    half = 1 << (exact_codes.n_bits(tray) - 1)
    code = {c: (i if not middle or i < k else half + i - k) for i, c in enumerate(rest)}
    held_code = {c: i for i, c in enumerate(final[k:k + h])}
    return code, held_code


def gathered(top: tuple[int, ...], bottom: tuple[int, ...], run: tuple[int, ...], k: int,
             middle: bool) -> list[int]:
    """The pack at the end: the held-out run on top of the sorted load, under
    it, or between the last pass's piles."""
    if not middle:
        sorted_load = top + bottom
        return list(run + sorted_load) if k == 0 else list(sorted_load + run)
    return list(top + run + bottom)


def deal_fed(load: tuple[int, ...], fed: tuple[int, ...]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """A pass by the sides of the cards as fed (the bottom card first): each card lands on top of its
    pile, so each pile, read top to bottom, keeps the load's order."""
    left: list[int] = []
    right: list[int] = []
    for card, side in zip(reversed(load), fed):
        (left if side == 0 else right).append(card)
    return tuple(reversed(left)), tuple(reversed(right))


def small_packs() -> None:
    """The held-out routine for every order of small packs."""
    for n, tray in ((7, 6), (8, 6), (8, 7)):
        counts = set()
        for final in itertools.permutations(range(n)):
            out, sizes, lefts = held_out(list(final), n, tray)
            assert out == list(final) and max(sizes) <= tray
            counts.add(tuple(lefts))
        split = routes.split_route(n, tray)
        assert split is not None
        print(f"  {n} cards on a {tray}-card tray: all {math.factorial(n)} orders in {passes_of(n, tray)} passes "
              f"(the split: {split.passes()}); {len(counts)} different sets of pile counts")


def canasta(samples: int = 2000, seed: int = 0) -> None:
    n, tray = 108, 104
    h = n - tray
    split, radix = routes.split_route(n, tray), routes.radix_route(n, tray)
    assert split is not None
    bound = math.ceil(math.lgamma(n + 1) / math.log(2) / tray)
    print(f"{n} cards on a {tray}-card tray, held out: {passes_of(n, tray)} passes (the split: {split.passes()}, "
          f"whole-pack radix: {radix.passes()}; counting bound: {bound})")
    lo, hi, checked = every_placement_leaves_a_run(n, tray)
    print(f"  a run of {h} places with none of load B's cards starts at some place {lo} to {hi}: every one of the "
          f"{checked:,} placements of at most {h} of B's cards among places {lo} to {hi + h - 1} leaves one")
    finals = final_orders(n, tray, samples, seed)
    counts = set()
    for final in finals:
        out, sizes, lefts = held_out(final, n, tray)
        assert out == final and max(sizes) <= tray and len(sizes) == passes_of(n, tray)
        counts.add(tuple(lefts))
    print(f"  {len(finals):,} final orders ({samples:,} uniformly random, the reversed pack and four with B's cards "
          f"spread over places {lo} to {hi + h - 1}) dealt card by card: every one ends in its order, every load "
          f"within the tray")
    print(f"  their piles' counts: {len(counts):,} different sets of left counts, so the counts depend on the "
          f"order dealt")
    small_packs()


def every_placement_leaves_a_run(n: int, tray: int) -> tuple[int, int, int]:
    """Every placement of B's cards among places 40 to 67 (108 on 104), where
    alone they matter to the middle run, leaves a run of places free of them
    starting at some place lo to hi: (lo, hi, placements checked)."""
    h = n - tray
    places = places_for_the_run(n, tray)
    lo, hi = min(p for p in places if 0 < p < tray), max(p for p in places if 0 < p < tray)
    checked = 0
    for m in range(h + 1):
        for chosen in itertools.combinations(range(lo, hi + h), m):
            from_b = [False] * n
            for p in chosen:
                from_b[p] = True
            assert any(not any(from_b[k:k + h]) for k in range(lo, hi + 1)), chosen
            checked += 1
    return lo, hi, checked


def final_orders(n: int, tray: int, samples: int, seed: int) -> list[list[int]]:
    """The orders to deal to: `samples` uniformly random, the reversed pack,
    and four with load B's cards spread over the middle places."""
    rng = random.Random(seed)
    finals = []
    for _ in range(samples):
        final = list(range(n))
        rng.shuffle(final)
        finals.append(final)
    finals.append(list(reversed(range(n))))
    for spread in ((44, 49, 54, 59), (41, 46, 51, 56), (40, 45, 50, 55), (63, 58, 53, 48)):
        others = list(reversed(range(tray)))
        final = []
        b_cards = iter(range(tray, n))
        for place in range(n):
            final.append(next(b_cards) if place in spread else others.pop())
        finals.append(final)
    return finals


def audit_bits(n: int = 108, tray: int = 104) -> tuple[float, float]:
    """What the piles of `held_out` tell (its run tried at the top first), exactly, over every
    set of load B's places; and what the device's routine tells (onlooker.py)."""
    from collections import Counter

    from shuffling.exact_mode.onlooker import onlooker_bits
    from shuffling.exact_mode.pipelined import pile_counts

    h, half = n - tray, 1 << (exact_codes.n_bits(tray) - 1)
    starts = places_for_the_run(n, tray)
    # Only B's places among those a run tried before the middle ones can cover matter.
    matter = sorted({p for k in starts if k < tray for p in range(k, k + h)})
    law: Counter = Counter()
    for m in range(h + 1):
        weight = math.comb(n - len(matter), h - m)
        for chosen in itertools.combinations(matter, m):
            from_b = [False] * n
            for p in chosen:
                from_b[p] = True
            k = run_start(from_b, n, tray)
            assert k is not None
            # With the run at an end the 104 are sorted by codes 0 to 103: the counts of k = half.
            law[pile_counts(tray, k if 0 < k < tray else half)] += weight
    whole = math.comb(n, h)
    assert sum(law.values()) == whole
    bits = -sum(c / whole * math.log2(c / whole) for c in law.values())
    return bits, onlooker_bits(routes.route(n, tray, routes.PIPELINED))


def search_presets(tray: int = 104) -> None:
    """Each preset pack: the split against the best routine whose stacks may be dealt pipelined."""
    from shuffling.packs import PACKS

    print(f"every preset pack on a {tray}-card tray: the split against the best with pipelined stacks")
    for cards in sorted({p.cards for p in PACKS.values()}):
        names = ", ".join(sorted(k for k, p in PACKS.items() if p.cards == cards))
        split = routes.split_route(cards, tray)
        if split is None:
            print(f"  {cards} ({names}): fits the tray, no split")
            continue
        best, passes = [0] * (cards + 1), [0] * (cards + 1)
        for m in range(1, cards + 1):
            if m <= tray:
                best[m], passes[m] = routes.part_ms(m), exact_codes.n_bits(m)
                continue
            a = min(range(1, m), key=lambda x: best[x] + best[m - x])
            best[m] = routes.split_ms(m, tray) + best[a] + best[m - a]
            passes[m] = exact_codes.n_loads(m, tray) + passes[a] + passes[m - a]
            if routes.held_window(m, tray) is not None:
                pipe = routes.pipelined_ms(m, tray) - routes.table_time.HANDLING_MS["gather"]
                if pipe < best[m]:
                    best[m], passes[m] = pipe, 1 + exact_codes.n_bits(tray) + exact_codes.n_bits(m - tray)
        full = best[cards] + routes.table_time.HANDLING_MS["gather"]
        gain = "beats the split" if full < split.ms else "no gain"
        print(f"  {cards} ({names}): the split {split.passes()} passes, {split.ms / 1000:.1f} s; with pipelined "
              f"stacks {passes[cards]} passes, {full / 1000:.1f} s: {gain}")


def main() -> None:
    seven_on_five()
    canasta()
    audit, built = audit_bits()
    print(f"  what its piles tell: {audit:.2f} bits (the run tried at the top first: k = 0 and k = 64 give the "
          f"same counts, different gatherings); the device's routine, the run inside: {built:.2f} bits")
    search_presets()


if __name__ == "__main__":
    main()
