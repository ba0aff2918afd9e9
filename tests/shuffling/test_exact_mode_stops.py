"""A pass that stops part way in exact mode, judged by the tray's count alone.

The device's own routine (firmware/exact.py) drives a card-by-card physical
pass (docs/mechanism.md) for every arrangement of the code set of a small
pack (whole-pack radix with one load and with two, and the split), stopped
at every card of every pass of every round, with each thing
the stopped card can have done: come back to the tray (caught in the exit
and put back), gone on to its own pile, or gone out with the next card onto
one pile. Where the device goes on, the pack ends exactly where an
unbroken routine puts it, so going on keeps every order equally likely; and
whether it goes on depends on the counts only, the same for every
arrangement, so the runs it ends (which start again with fresh codes) take
nothing away from that. A rule that looked at the codes (go on when the two
cards gone out together belong on the same pile) would make the pack's
order depend on them: the last test shows it would no longer be uniform.
"""
from __future__ import annotations

import itertools
import sys
from array import array
from collections import Counter
from fractions import Fraction
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "firmware"))  # flat names, as on the device

import exact  # noqa: E402

from shuffling.exact_mode import codes as exact_codes  # noqa: E402

CAUGHT, ONE_OUT, TWO_OUT = "caught and put back", "gone on to its pile", "gone out with the next"


# One load a round, two, and the split (a round of two loads, then loads of 4 and 2 dealt alone).
ROUTINES = ((5, 5, "radix"), (6, 4, "radix"), (6, 4, "split"))


def routine(n: int, capacity: int, arrangement: tuple[int, ...], kind: str = "radix") -> exact.ExactRoutine:
    ex = exact.ExactRoutine(capacity)
    ex.begin(n, lambda k: bytes(k), kind)
    ex.codes, ex.scratch = array("H", arrangement), array("H", arrangement)
    return ex


def stopped_pass(ex: exact.ExactRoutine, load: list[int], k: int, what: str,
                 same_pile_goes_on: bool = False) -> tuple[list[int], list[int]] | None:
    """The pass of `load` stopped with k cards through the beam and the card
    it was feeding `what`; the person puts back what was caught and the rest
    is dealt as the device decides. The piles (top first), or None when it
    ends exactness. same_pile_goes_on: the rule that looks at the codes."""
    n = len(load)
    piles: tuple[list[int], list[int]] = ([], [])  # bottom first
    for j in range(k):
        piles[ex.side(j)].append(load[n - 1 - j])
    out = {CAUGHT: 0, ONE_OUT: 1, TWO_OUT: 2}[what]
    for j in range(k, k + out):  # the card being fed, and one riding with it: onto the card's own side
        piles[ex.card_side(k)].append(load[n - 1 - j])
    ex.stopped(k)
    start = ex.rest_start(n - k - out)
    if start < 0 and same_pile_goes_on and ex.card_side(k) == ex.card_side(k + 1):
        start = k + 2
    if start < 0:
        return None
    ex.prepare_rest(start)
    for j in range(n - start):
        piles[ex.side(j)].append(load[n - 1 - start - j])
    return piles[0][::-1], piles[1][::-1]


def final_order(n: int, capacity: int, arrangement: tuple[int, ...], stop: tuple[int, int, int, str] | None = None,
                same_pile_goes_on: bool = False, kind: str = "radix") -> list[int] | None:
    """The pack after the routine (each round's left piles on its right
    piles, where its stack lay), or None when it ended exactness."""
    ex = routine(n, capacity, arrangement, kind)
    pack = list(range(n))
    while True:
        lefts: list[int] = []
        rights: list[int] = []
        lo = at = ex.lo
        while True:
            want = ex.expected()
            load, at = pack[at:at + want], at + want
            ex.prepare(want)
            if stop is not None and stop[:2] == (ex.round, ex.load):
                piles = stopped_pass(ex, load, stop[2], stop[3], same_pile_goes_on)
                if piles is None:
                    return None
            else:
                piles = ([], [])
                for j in range(want):
                    piles[ex.side(j)].insert(0, load[want - 1 - j])
            lefts += piles[0]
            rights += piles[1]
            r = ex.pass_done()
            if r != exact.NEXT_LOAD:
                break
        pack[lo:at] = lefts + rights
        if r == exact.ALL_DONE:
            return pack


def stops(n: int, capacity: int, kind: str) -> list[tuple[int, int, int, str]]:
    """Every (round, load, card, what) a pass of this routine can stop at."""
    ex = routine(n, capacity, arrangements(n, capacity, kind)[0], kind)
    out = []
    while ex.active:
        r, load, size = ex.round, ex.load, ex.expected()
        for k in range(size):
            out += [(r, load, k, CAUGHT), (r, load, k, ONE_OUT)]
            if k + 1 < size:
                out.append((r, load, k, TWO_OUT))
        ex.prepare(size)
        if ex.pass_done() == exact.ALL_DONE:
            break
    return out


def arrangements(n: int, capacity: int, kind: str = "radix") -> list[tuple[int, ...]]:
    codes = exact_codes.code_set(n, capacity, uneven=False) if kind == "radix" else list(range(n))
    return list(itertools.permutations(codes))


def test_going_on_after_a_stop_ends_where_the_unbroken_routine_does() -> None:
    for n, capacity, kind in ROUTINES:
        every = arrangements(n, capacity, kind)
        unbroken = {a: final_order(n, capacity, a, kind=kind) for a in every}
        assert len({tuple(order) for order in unbroken.values()}) == len(every)  # every order once
        for stop in stops(n, capacity, kind):
            goes_on = [final_order(n, capacity, a, stop, kind=kind) for a in every]
            if stop[3] == TWO_OUT:
                assert goes_on == [None] * len(every), stop  # two gone out together: ended, whatever the codes
                continue
            assert goes_on == [unbroken[a] for a in every], stop


def test_a_rule_that_looked_at_the_codes_would_make_the_pack_depend_on_them() -> None:
    """Going on where the two cards gone out together happen to belong on
    one pile (else starting again with fresh codes, which is uniform): the
    chance of each final order over every arrangement is no longer the same."""
    n, capacity = 5, 5
    every = arrangements(n, capacity)
    stop = (1, 0, 1, TWO_OUT)  # round 2, cards 2 and 3 of the one load out together
    chance: Counter[tuple[int, ...]] = Counter()
    orders = list(itertools.permutations(range(n)))
    for a in every:
        order = final_order(n, capacity, a, stop, same_pile_goes_on=True)
        if order is None:
            for o in orders:  # a fresh routine: every order alike
                chance[o] += Fraction(1, len(orders))
        else:
            chance[tuple(order)] += 1
    assert sum(chance.values()) == len(every)
    assert len(set(chance.values())) > 1  # some orders more likely than others
