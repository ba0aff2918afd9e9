"""Speed and memory of the shuffle-quality simulator.

1. Card moves per second of one machine pass: the vectorised kernel against
   the straightforward per-deck stable argsort, side by side, with the ratio.
2. Time and peak traced memory of simulating SAMPLES shuffles of a 162-card
   pack for 16 rounds of each routine on a 104-card machine, collecting the
   lower-bound statistics after every round, chunk by chunk; then the same
   with a quarter of the samples, to show the peak follows the chunk size and
   not the number of samples.
3. Time of the exact Bayer-Diaconis figures, and the exact distances of
   small packs by enumeration (pile-trade against stack-trade).

Run: python benchmarks/simulator_speed.py [--samples 100000] [--chunk 20000]
"""
from __future__ import annotations

import argparse
import math
import os
import resource
import sys
import time
import tracemalloc

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import numpy as np  # noqa: E402

from simulator.limits import MAX_PACK_CARDS  # noqa: E402
from simulator.quality.bounds import RoundStats, best_lower_bound  # noqa: E402
from simulator.quality.exact import tv_riffle  # noqa: E402
from simulator.quality.enumerate import exact_laws  # noqa: E402
from simulator.quality.kernels import (  # noqa: E402
    identity_decks,
    inverse_riffle,
    inverse_riffle_argsort,
    inverse_riffle_reference,
    riffle,
)
from simulator.quality.routines import ROUTINES, exact_tv, simulate  # noqa: E402

N_CARDS, CAPACITY, ROUNDS = 162, 104, 16


def moves_per_second(fn, decks: np.ndarray, rng: np.random.Generator, min_time: float = 1.0) -> float:  # type: ignore[no-untyped-def]
    done, start = 0, time.perf_counter()
    while True:
        fn(decks, rng)
        done += decks.size
        elapsed = time.perf_counter() - start
        if elapsed >= min_time:
            return done / elapsed


def kernel_speed() -> None:
    rng = np.random.default_rng(1)
    big = identity_decks(20000, N_CARDS)
    small = identity_decks(2000, N_CARDS)
    vec = moves_per_second(inverse_riffle, big, rng)
    ref = moves_per_second(inverse_riffle_reference, small, rng)
    bat = moves_per_second(inverse_riffle_argsort, big, rng)
    fwd = moves_per_second(riffle, big, rng)
    print(f"one pass of {N_CARDS} cards, card moves per second (measured in this run):")
    print(f"  vectorised inverse_riffle (20,000 decks a call) {vec / 1e6:8.1f} million")
    print(f"  per-deck stable argsort reference               {ref / 1e6:8.1f} million")
    print(f"  ratio vectorised / reference                    {vec / ref:8.1f} x")
    print(f"  one stable argsort over the batch               {bat / 1e6:8.1f} million")
    print(f"  ratio vectorised / batch argsort                {vec / bat:8.1f} x")
    print(f"  vectorised forward riffle                       {fwd / 1e6:8.1f} million")


def run_report(samples: int, chunk: int) -> dict[str, float]:
    out = {}
    for name in ROUTINES:
        stats = RoundStats(N_CARDS, ROUNDS)
        t0 = time.perf_counter()
        for r, decks in simulate(name, N_CARDS, CAPACITY, ROUNDS, samples, seed=2, chunk=chunk):
            stats.update(r, decks)
        res = stats.finish()
        out[name] = time.perf_counter() - t0
        out[name + ":results"] = res  # type: ignore[assignment]
    return out


def report(samples: int, chunk: int) -> None:
    print(f"\n{samples:,} shuffles of {N_CARDS} cards, {ROUNDS} rounds, capacity {CAPACITY}, chunk {chunk:,},")
    print("lower-bound statistics after every round:")
    t0 = time.perf_counter()
    timing = run_report(samples, chunk)
    total = time.perf_counter() - t0
    for name in ROUTINES:
        print(f"  {name:12s} {timing[name]:6.1f} s")
    print(f"  both routines {total:5.1f} s (untraced)")
    print(f"  peak resident memory of the process so far: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB")

    for n in (samples, max(samples // 4, 1)):
        tracemalloc.start()
        run_report(n, chunk)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        print(f"  peak traced memory, {n:,} samples: {peak / 2**20:6.1f} MiB")

    res_pile = timing["pile-trade:results"]
    res_stack = timing["stack-trade:results"]
    print("\nround  pile-trade exact   pile-trade best bound        stack-trade best bound")
    for r in range(1, ROUNDS + 1):
        ex = exact_tv("pile-trade", N_CARDS, CAPACITY, r)
        bp = best_lower_bound(res_pile[r], n_cards=N_CARDS, bits=r * N_CARDS)  # type: ignore[index]
        bs = best_lower_bound(res_stack[r], n_cards=N_CARDS, bits=r * N_CARDS)  # type: ignore[index]
        print(f"{r:5d}  {float(ex):16.4f}   {str(bp):28s} {str(bs)}")


def exact_speed() -> None:
    print("exact Bayer-Diaconis figures, computed from scratch:")
    t0 = time.perf_counter()
    vals = [tv_riffle(N_CARDS, k) for k in range(1, 17)]
    t1 = time.perf_counter()
    tv_riffle(1000, 12)
    t2 = time.perf_counter()
    print(f"  tv_riffle(162, k) for k = 1..16 in {t1 - t0:.3f} s (k=10: {vals[9]:.4f})")
    print(f"  tv_riffle(1000, 12) in {t2 - t1:.3f} s; tv_riffle(52, 7) = {tv_riffle(52, 7):.4f}")
    # What a report at the card limit computes: every round until the smallest threshold.
    big = MAX_PACK_CARDS + 1  # one more than the limit, so no distance is cached yet
    times = []
    for k in range(1, 21):
        t = time.perf_counter()
        tv_riffle(big, k)
        times.append(time.perf_counter() - t)
    print(f"  tv_riffle({big}, k) for k = 1..20 in {sum(times):.2f} s, slowest round {max(times):.3f} s "
          f"(the tools accept up to {MAX_PACK_CARDS} cards)")
    over = 2 * sum(math.comb(N_CARDS, j) for j in range(CAPACITY + 1, N_CARDS + 1)) / 2**N_CARDS
    print(f"  log2({N_CARDS}!) = {math.lgamma(N_CARDS + 1) / math.log(2):.1f}; chance a pile-trade group of "
          f"{N_CARDS} cards exceeds {CAPACITY}: {over:.2e} per round\n")


def small_packs() -> None:
    print("\nexact TV of small packs by enumeration (all side choices), rounds 1..6:")
    for routine, n, c in (("pile-trade", 8, 4), ("stack-trade", 8, 4), ("pile-trade", 6, 2), ("stack-trade", 6, 2), ("stack-trade", 6, 3)):
        t0 = time.perf_counter()
        tvs = [float(law.tv()) for law in exact_laws(routine, n, c, 6)]
        print(f"  {routine:12s} {n} cards, capacity {c}: " + " ".join(f"{v:.4f}" for v in tvs)
              + f"   ({time.perf_counter() - t0:.1f} s)")
    print("  k inverse riffles, 8 cards:          " + " ".join(f"{tv_riffle(8, k):.4f}" for k in range(1, 7)))
    print("  k inverse riffles, 6 cards:          " + " ".join(f"{tv_riffle(6, k):.4f}" for k in range(1, 7)))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--samples", type=int, default=100_000)
    ap.add_argument("--chunk", type=int, default=20_000)
    args = ap.parse_args()
    print(f"cpus available: {len(os.sched_getaffinity(0))}")
    exact_speed()  # first, while nothing is cached
    kernel_speed()
    report(args.samples, args.chunk)
    small_packs()


if __name__ == "__main__":
    main()
