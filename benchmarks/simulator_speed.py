"""Speed and memory of the shuffle-quality simulator.

1. Card moves per second of one machine pass over 162-card decks, on one
   core (CPU time of this process), measured side by side in rounds: the
   compiled kernel, the sort by packed keys it replaced, one stable argsort
   over the batch, and the forward riffle; the ratio of the compiled kernel
   to the batch argsort; and exact mode's rounds as compiled radix passes
   against the argsort per round they replaced.
2. The default report, `shuffler quality --pack samba`, run as a user runs
   it (a subprocess, every routine, 100,000 shuffles per point): wall and CPU
   time, and CPU time per thread, first with an empty cache of compiled code
   (a fresh NUMBA_CACHE_DIR, so compiling counts), then again with the cache
   it left.
3. Time and peak traced memory of simulating SAMPLES shuffles of a 162-card
   pack for 16 rounds of each routine on a 104-card machine, collecting the
   lower-bound statistics after every round, chunk by chunk; then the same
   with a quarter of the samples, to show the peak follows the chunk size and
   not the number of samples.
4. Time of the exact Bayer-Diaconis figures, and the exact distances of
   small packs by enumeration (pile-trade against stack-trade).

The machine's load average is printed beside the figures: other work slows
wall time, and CPU time less so.

With --instructions it counts instead, under valgrind's callgrind, the
instructions one pass of 20,000 decks takes with the compiled kernel and with
the batch argsort (three calls less one, so start-up cancels): a figure no
other work on the machine can change. That takes some minutes.

Run: python benchmarks/simulator_speed.py [--samples 100000] [--chunk 20000] [--report-samples 100000]
     python benchmarks/simulator_speed.py --kernel-and-report   (parts 1 and 2 only)
     python benchmarks/simulator_speed.py --instructions
"""
from __future__ import annotations

import argparse
import math
import os
import resource
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import numpy as np  # noqa: E402

from shuffling.exact_mode.batch import random_assignments, sorted_rounds  # noqa: E402
from shuffling.exact_mode.codes import device_code_set  # noqa: E402
from shuffling.limits import MAX_PACK_CARDS  # noqa: E402
from shuffling.quality.bounds import RoundStats, best_lower_bound  # noqa: E402
from shuffling.quality.riffle_distance import tv_riffle  # noqa: E402
from shuffling.quality.enumerate import exact_laws  # noqa: E402
from shuffling.quality.kernels import (  # noqa: E402
    draw_sides,
    identity_decks,
    inverse_riffle,
    inverse_riffle_argsort,
    inverse_riffle_reference,
    riffle,
    segmented_partition_sort,
)
from shuffling.quality.routines import ROUTINES, exact_tv, simulate  # noqa: E402

N_CARDS, CAPACITY, ROUNDS = 162, 104, 16


ROOT = Path(__file__).resolve().parents[1]


def moves_per_second(fn, decks: np.ndarray, rng: np.random.Generator, min_time: float = 1.0) -> float:  # type: ignore[no-untyped-def]
    done, start = 0, time.process_time()
    while True:
        fn(decks, rng)
        done += decks.size
        elapsed = time.process_time() - start
        if elapsed >= min_time:
            return done / elapsed


def _sort_by_keys(decks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    return segmented_partition_sort(decks, draw_sides(decks.shape, rng))


def kernel_speed(rounds: int = 5) -> None:
    rng = np.random.default_rng(1)
    big = identity_decks(20000, N_CARDS)
    small = identity_decks(2000, N_CARDS)
    inverse_riffle(big[:1], rng)  # compiled (or loaded from the cache) before timing
    kernels = {
        "compiled inverse_riffle (20,000 decks a call)": inverse_riffle,
        "sort by packed keys (the kernel before)": _sort_by_keys,
        "one stable argsort over the batch": inverse_riffle_argsort,
        "vectorised forward riffle": riffle,
    }
    # Side by side: each round times every kernel once; the best round of each counts.
    best = dict.fromkeys(kernels, 0.0)
    for _ in range(rounds):
        for name, fn in kernels.items():
            best[name] = max(best[name], moves_per_second(fn, big, rng, min_time=0.3))
    ref = moves_per_second(inverse_riffle_reference, small, rng)
    compiled, batch = best["compiled inverse_riffle (20,000 decks a call)"], best["one stable argsort over the batch"]
    print(f"one pass of {N_CARDS} cards on one core, card moves per CPU second "
          f"(best of {rounds} rounds side by side, load average {os.getloadavg()[0]:.1f}):")
    for name, rate in best.items():
        print(f"  {name:46s} {rate / 1e6:8.1f} million")
    print(f"  {'per-deck stable argsort reference':46s} {ref / 1e6:8.1f} million")
    print(f"  ratio compiled / batch argsort                 {compiled / batch:8.1f} x")
    print(f"  ratio compiled / sort by packed keys           "
          f"{compiled / best['sort by packed keys (the kernel before)']:8.1f} x")
    print(f"  ratio compiled / per-deck reference            {compiled / ref:8.1f} x")


def _argsort_rounds(codes: np.ndarray, n_rounds: int) -> list[np.ndarray]:
    """Exact mode's rounds as the report computed them before: a stable argsort by the low k bits."""
    small = codes.astype(np.uint16)
    return [np.argsort(small & ((1 << k) - 1), axis=1, kind="stable").astype(np.int16)
            for k in range(1, n_rounds + 1)]


def exact_mode_rounds(rounds: int = 5) -> None:
    """Exact mode's eight rounds of 10,000 Samba packs: compiled radix passes against the argsort."""
    codes, _ = device_code_set(N_CARDS, CAPACITY)
    arrangements = random_assignments(codes, 10_000, np.random.default_rng(3))
    list(sorted_rounds(arrangements[:1], 8))  # compiled (or loaded) before timing
    best = {"radix": math.inf, "argsort": math.inf}
    for _ in range(rounds):
        for name, fn in (("radix", lambda: list(sorted_rounds(arrangements, 8))),
                         ("argsort", lambda: _argsort_rounds(arrangements, 8))):
            t = time.process_time()
            fn()
            best[name] = min(best[name], time.process_time() - t)
    same = all(np.array_equal(a, b) for a, b in
               zip(sorted_rounds(arrangements, 8), _argsort_rounds(arrangements, 8), strict=True))
    print(f"exact mode, 8 rounds of 10,000 Samba packs, CPU seconds (best of {rounds}): radix passes "
          f"{best['radix']:.3f}, argsort per round {best['argsort']:.3f}, ratio "
          f"{best['argsort'] / best['radix']:.1f} x; same packs: {same}")


# Resident memory now (a peak figure would start from the parent's, across fork and exec).
_RUNTIME_MEMORY = """
import numpy as np
def resident():
    status = open("/proc/self/status").read()
    return int(status.split("VmRSS:")[1].split()[0]) / 1024
before = resident()
from shuffling.quality import deck_statistics, kernels
decks = kernels.identity_decks(3, 162)
deck_statistics.guess_scores(kernels.inverse_riffle(decks, np.random.default_rng(0)))
print(before, resident())
"""


def runtime_memory() -> None:
    """Resident memory a process gains by loading the compiled code (numba and LLVM)."""
    out = subprocess.run([sys.executable, "-c", _RUNTIME_MEMORY], cwd=ROOT, capture_output=True, text=True,
                         check=True).stdout.split()
    before, after = float(out[0]), float(out[1])
    print(f"  resident memory of a process with numpy {before:.0f} MiB, "
          f"with the compiled code loaded {after:.0f} MiB")


def _cpu_seconds(stat: Path) -> float | None:
    """User + system CPU seconds from a /proc stat file (a process's or a thread's)."""
    try:
        fields = stat.read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _run_watched(cmd: list[str], env: dict[str, str]) -> tuple[float, float, list[float]]:
    """Wall time of a command, and the CPU seconds of its main thread and of each other thread.

    Threads are sampled from /proc every 20 ms until the command ends, so a
    thread's figure is at most one sample old.
    """
    cpu: dict[int, float] = {}
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL)
    tasks = Path(f"/proc/{proc.pid}/task")
    while proc.poll() is None:
        try:
            tids = [int(t) for t in os.listdir(tasks)]
        except OSError:
            tids = []
        for tid in tids:
            got = _cpu_seconds(tasks / str(tid) / "stat")
            if got is not None:
                cpu[tid] = got
        time.sleep(0.02)
    wall = time.perf_counter() - t0
    if proc.returncode:
        raise SystemExit(f"{' '.join(cmd)} failed with status {proc.returncode}")
    main = cpu.pop(proc.pid, 0.0)
    return wall, main, sorted(cpu.values(), reverse=True)


def report_command(samples: int) -> None:
    """The default report as a user runs it: first compiling into an empty cache, then reusing it.

    Besides wall and CPU time, the CPU time of each thread: the main thread
    works before and after the report's jobs (imports, the plot), which run
    side by side in threads of their own. On c idle cores the command takes
    about the main thread's CPU time plus the larger of the longest job's
    and the jobs' total over c; on a first run, compiling adds its CPU time
    in full (numba compiles one function at a time). Other work on the
    machine stretches wall time much more than CPU time.
    """
    cores = len(os.sched_getaffinity(0))
    print(f"\nshuffler quality --pack samba --samples {samples:,} (every routine, default rounds), "
          f"{cores} CPUs:")
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "NUMBA_CACHE_DIR": str(Path(tmp) / "numba-cache")}
        cmd = [sys.executable, "-m", "host.cli", "quality", "--pack", "samba", "--samples", str(samples),
               "--plot", str(Path(tmp) / "q.png")]
        runs = {}
        for label in ("empty cache, compiling", "cache from the run before"):
            load = os.getloadavg()[0]
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            wall, main, threads = _run_watched(cmd, env)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            user, system = after.ru_utime - before.ru_utime, after.ru_stime - before.ru_stime
            busy = [c for c in threads if c >= 0.05]
            runs[label] = user + system, main + max(max(busy, default=0.0), sum(busy) / cores)
            print(f"  {label}: wall {wall:.1f} s at load average {load:.1f} (before the run), "
                  f"CPU {user + system:.1f} s (user {user:.1f}, system {system:.1f})")
            print(f"    CPU per thread: main {main:.1f} s, others "
                  + (", ".join(f"{c:.1f}" for c in busy) or "none") + " s")
        (cold_cpu, _), (warm_cpu, warm_idle) = runs.values()
        # Numba compiles one function at a time: at worst compiling adds in full, at best shared out.
        print(f"  on {cores} idle cores about {warm_idle:.1f} s with the cache filled (main thread + the larger "
              f"of the longest job and the jobs' total / {cores}),")
        compiling = cold_cpu - warm_cpu
        print(f"  between about {warm_idle + compiling / cores:.1f} s and {warm_idle + compiling:.1f} s on a first "
              f"run (compiling, {compiling:.1f} s of CPU time, adds in full where no other job can run meanwhile)")
    runtime_memory()


def _one_kernel(which: str, calls: int) -> None:
    """`calls` passes of 20,000 decks with one kernel (what --instructions counts)."""
    rng = np.random.default_rng(1)
    decks = identity_decks(20000, N_CARDS)
    fn = inverse_riffle if which == "compiled" else inverse_riffle_argsort
    fn(decks[:1], rng)  # the compiled code loaded before counting starts
    for _ in range(calls):
        fn(decks, rng)


def instruction_counts() -> None:
    per_pass = {}
    for which in ("argsort", "compiled"):
        counts = []
        # The first run under valgrind compiles: its CPU looks new to the cache of compiled code.
        for calls in (0, 1, 3):
            out = subprocess.run(
                ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable,
                 __file__, "--one-kernel", which, str(calls)],
                capture_output=True, text=True, check=True)
            counts.append(int(out.stderr.split("Collected :")[1].split()[0]))
        per_pass[which] = (counts[2] - counts[1]) / 2
    cards = 20000 * N_CARDS
    print(f"instructions per card of one pass of {N_CARDS} cards (callgrind, 20,000 decks a call):")
    print(f"  compiled inverse_riffle          {per_pass['compiled'] / cards:6.1f}")
    print(f"  one stable argsort over the batch {per_pass['argsort'] / cards:6.1f}")
    print(f"  ratio argsort / compiled          {per_pass['argsort'] / per_pass['compiled']:6.1f} x")


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
    ap.add_argument("--report-samples", type=int, default=100_000)
    ap.add_argument("--instructions", action="store_true", help="count instructions under callgrind instead")
    ap.add_argument("--kernel-and-report", action="store_true",
                    help="only the kernel ratios and the default report's time (parts 1 and 2)")
    ap.add_argument("--one-kernel", nargs=2, metavar=("KERNEL", "CALLS"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one_kernel:
        _one_kernel(args.one_kernel[0], int(args.one_kernel[1]))
        return
    if args.instructions:
        instruction_counts()
        return
    print(f"cpus available: {len(os.sched_getaffinity(0))}, load average {os.getloadavg()[0]:.1f}")
    if args.kernel_and_report:
        kernel_speed()
        exact_mode_rounds()
        report_command(args.report_samples)
        return
    exact_speed()  # first, while nothing is cached
    kernel_speed()
    exact_mode_rounds()
    report_command(args.report_samples)
    report(args.samples, args.chunk)
    small_packs()


if __name__ == "__main__":
    main()
