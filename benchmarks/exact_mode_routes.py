"""Exact mode's routines for the packs people play: passes and modelled time at the table.

    python benchmarks/exact_mode_routes.py     # a few seconds

For every preset on a 104-card tray (Samba, canasta 108, hand-and-foot and
Carolina among them), side by side: whole-pack radix and the split (rounds,
passes, the split's parts, the modelled time at the table and its machine
and handling parts, by shuffling/time_model.py on each routine's
steps), which one the device takes, and the counting lower bound on the
passes of any routine: a pass deals at most min(N, C) cards, each to one of
two piles, so P passes have at most 2^(P min(N, C)) outcomes and need
P >= log2(N!) / min(N, C) to reach every order; with the distance of each
routine from that bound. Then, over every pack of up to 512 cards on every
tray of 2 to 199 cards within 26 loads (the device's limits), where
whole-pack radix has less modelled time than the split (nowhere, in the run
the docs quote) and where the split takes more passes yet less time. Then
the time the planning takes, on CPython and on the MicroPython unix port
(the device plans when a routine begins and again when it takes one up
after a restart).
"""
from __future__ import annotations

import math
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from firmware import exact_routes as routes  # noqa: E402
from firmware_budget import FIRMWARE, run_mp  # noqa: E402
from shuffling import time_model  # noqa: E402
from shuffling.exact_mode.physical import device_steps  # noqa: E402
from shuffling.exact_mode.quality import passes_lower_bound  # noqa: E402
from shuffling.packs import PACKS  # noqa: E402

CAPACITY = 104

PLAN_SCRIPT = r"""
import time
import exact_routes as routes_table
best = 10 ** 9
for _ in range(5):
    t0 = time.ticks_us()
    routes_table.route(432, 104)
    best = min(best, time.ticks_diff(time.ticks_us(), t0))
print("plan_432_us", best)
"""


def _runs(values: list[int]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for v in values:
        if out and out[-1][1] == v - 1:
            out[-1] = (out[-1][0], v)
        else:
            out.append((v, v))
    return out


def row(route: routes.Route) -> tuple[int, int, time_model.Timing]:
    return route.rounds, route.passes(), time_model.timing(es.step for es in device_steps(route))


def main() -> None:
    print(f"Exact routines on a {CAPACITY}-card tray (time: shuffling/time_model.py on each routine's "
          f"steps; {time_model.card_ms()} ms a card)")
    print_every_pack()
    print()
    print("In detail, for the four packs (machine + handling = total, seconds):")
    for name in ("samba", "canasta", "hand-and-foot", "carolina"):
        print_pack_in_detail(name)
    print_radix_against_split()
    print_planning_time()


def print_every_pack() -> None:
    """Every pack's routines side by side: passes and time, the split's parts, the device's choice, the bound."""
    header = (f"{'pack':<16}{'cards':>6}  {'whole-pack radix':<30}{'split':<30}{'parts':<30}{'device':<8}"
              f"{'bound':>6}")
    print(header)
    print("-" * len(header))
    for cards, name in sorted({(p.cards, p.name) for p in PACKS.values()}):
        radix = routes.radix_route(cards, CAPACITY)
        split = routes.split_route(cards, CAPACITY)
        chosen = routes.route(cards, CAPACITY)
        cells = []
        for r in (radix, split):
            if r is None:
                cells.append("(fits the tray: no split)")
                continue
            rounds, passes, t = row(r)
            cells.append(f"{passes} passes, {time_model.duration(t.total_s)}")
        parts = "" if split is None else " + ".join(str(s) for s in split.part_size)
        bound = passes_lower_bound(cards, CAPACITY)
        print(f"{name:<16}{cards:>6}  {cells[0]:<30}{cells[1]:<30}{parts:<30}{chosen.kind:<8}{bound:>6}")
    print("(bound: the counting lower bound on passes; for a pack that fits the tray, ceil(log2 N) passes are the "
          "least any routine of whole-pack passes takes: docs/exact-mode.md)")


def print_pack_in_detail(name: str) -> None:
    """One pack's routines: rounds, passes against the bound, machine and handling time."""
    cards = PACKS[name].cards
    bound = passes_lower_bound(cards, CAPACITY)
    print(f"  {PACKS[name].title}, {cards} cards: counting lower bound {bound} passes "
          f"(log2({cards}!) = {math.lgamma(cards + 1) / math.log(2):.1f} bits, {CAPACITY} cards a pass)")
    for r in (routes.radix_route(cards, CAPACITY), routes.split_route(cards, CAPACITY),
              routes.pipelined_route(cards, CAPACITY)):
        if r is None:
            continue
        rounds, passes, t = row(r)
        label = {routes.RADIX: "whole-pack radix", routes.SPLIT: "split", routes.PIPELINED: "pipelined"}[r.kind]
        print(f"    {label:<17} {rounds:>2} rounds, {passes:>2} passes ({passes - bound:+d} on the bound): "
              f"{t.machine_s:6.1f} + {t.handling_s:6.1f} = {t.total_s:6.1f} s ({time_model.duration(t.total_s)})"
              + ("  <- the device's" if r.kind == routes.route(cards, CAPACITY).kind else ""))


def print_radix_against_split() -> None:
    """Where whole-pack radix beats the split on time, over many trays, and where the split takes more
    passes than radix on this tray (yet less time)."""
    radix_better: list[tuple[int, int]] = []
    more_passes: dict[int, list[int]] = {}  # passes more than whole-pack radix -> pack sizes
    for capacity in range(2, 200):
        top = min(512, 26 * capacity)
        if top <= capacity:
            continue
        best, _ = routes.split_tree(top, capacity)  # every stack size's least time, up to the biggest pack
        for cards in range(capacity + 1, top + 1):
            split_ms = best[cards] + routes.table_time.HANDLING_MS["gather"]
            if routes.radix_ms(cards, capacity) < split_ms:
                radix_better.append((cards, capacity))
            elif capacity == CAPACITY:
                split = routes.split_route(cards, capacity)
                assert split is not None and split.ms == split_ms
                extra = split.passes() - routes.radix_route(cards, capacity).passes()
                if extra > 0:
                    more_passes.setdefault(extra, []).append(cards)
    print()
    print(f"Packs of up to 512 cards bigger than trays of 2 to 199 (within 26 loads) where whole-pack radix takes "
          f"less time than the split: {len(radix_better)} {radix_better[:10]}")
    for extra, sizes in sorted(more_passes.items()):
        runs = [f"{a}-{b}" if a != b else str(a) for a, b in _runs(sizes)]
        print(f"On a {CAPACITY}-card tray the split takes {extra} more pass{'es' if extra > 1 else ''} than "
              f"whole-pack radix, yet less time, at {len(sizes)} pack sizes: {', '.join(runs)}")


def print_planning_time() -> None:
    """The time to plan the biggest pack's routine, on CPython and on the MicroPython unix port."""
    t0 = time.perf_counter()
    for _ in range(20):
        routes.route(432, CAPACITY)
    cpython_ms = (time.perf_counter() - t0) / 20 * 1000
    res = run_mp(PLAN_SCRIPT, [FIRMWARE], timeout=120)
    print()
    print(f"Planning Carolina's routine (432 cards, both routines and the split's parts): {cpython_ms:.1f} ms on "
          f"CPython, {int(res['plan_432_us']) / 1000:.1f} ms on the MicroPython unix port (best of 5)")


if __name__ == "__main__":
    main()
