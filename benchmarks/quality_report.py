"""Time the default `shuffler quality --pack samba` and print its figures.

Runs the real command (100,000 shuffles per point, default rounds, every
routine: stack-trade, pile-trade, exact mode as the shuffler runs it and the
other exact routine beside it) in a subprocess and reports
wall time, CPU time, the peak memory of the largest process, and the
headline figures. Side by side in the same run it times the command with the
two random-side routines only, to show what exact mode adds. Then it builds
a smaller report with one worker and with the default (a thread per job), to
show what running the jobs side by side buys.

    python benchmarks/quality_report.py [--samples N] [--pack NAME]
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def run_command(pack: str, samples: int, extra: tuple[str, ...] = ()) -> tuple[dict, float, float]:
    with tempfile.TemporaryDirectory() as tmp:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        out = subprocess.run(
            [sys.executable, "-m", "host.cli", "quality", "--pack", pack, "--samples", str(samples),
             "--json", "--plot", str(Path(tmp) / "q.png"), *extra],
            capture_output=True, text=True, cwd=ROOT, check=True,
        )
        wall = time.perf_counter() - t0
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return json.loads(out.stdout), wall, cpu


def side_by_side(samples: int) -> None:
    from shuffling.packs import get_pack
    from shuffling.quality.report import Settings, build_report, default_rounds
    from shuffling.quality.routines import Machine
    from shuffling.report_catalogue import default_routines

    settings = Settings(pack=get_pack("samba"), n_cards=162, rounds=default_rounds(162), samples=samples,
                        routines=default_routines(162, 104, Machine()))
    times = {}
    for workers in (1, None):
        t0 = time.perf_counter()
        build_report(settings, workers=workers)
        times[workers] = time.perf_counter() - t0
    print(f"side by side, {samples:,} shuffles per point, {os.cpu_count()} CPUs: 1 worker {times[1]:.1f} s, "
          f"a thread per job {times[None]:.1f} s, ratio {times[1] / times[None]:.2f}")


def exact_mode_paths(samples: int) -> None:
    """Exact mode's rounds by sorting against the batch passes, side by side on the same packs."""
    import numpy as np

    from shuffling.exact_mode.batch import random_assignments, run_batch_rounds, sorted_rounds
    from shuffling.exact_mode.codes import device_code_set

    codes, _ = device_code_set(162, 104)
    arrangements = random_assignments(codes, samples, np.random.default_rng(1))
    t0 = time.perf_counter()
    passes = list(run_batch_rounds(arrangements, 104))
    t1 = time.perf_counter()
    sorting = list(sorted_rounds(arrangements, 8))
    t2 = time.perf_counter()
    same = all(np.array_equal(a, b) for a, b in zip(passes, sorting, strict=True))
    print(f"exact mode, 8 rounds of {samples:,} Samba packs: batch passes {t1 - t0:.2f} s, "
          f"sorting {t2 - t1:.2f} s, ratio {(t1 - t0) / (t2 - t1):.1f}; same packs: {same}")


def print_routine(routine: dict) -> None:
    """One routine's figures: the passes to each threshold, its exact routine, and round by round."""
    print(f"  {routine['name']}:")
    for row in routine["thresholds"]:
        if row["kind"] == "exact":
            print(f"    distance <= {row['threshold']:g}: pass {row['passes']} (exact {row['distance']:.4f})")
        elif row["kind"] == "never":
            print(f"    distance <= {row['threshold']:g}: never (the machine does not shuffle)")
        else:
            print(f"    distance <= {row['threshold']:g}: not before pass {row['not_before_pass']} (lower bound)")
    if routine.get("exact_rounds") is not None:
        ex = routine["exact_routine"]
        whose = "the shuffler's routine" if ex["chosen"] else "the other routine"
        print(f"    {ex['name']} ({whose}): "
              f"exactly uniform after {routine['exact_rounds']} rounds, {ex['passes']} passes, "
              f"{ex['seconds']:.0f} s at the table; random rounds after that; "
              f"counting its piles tells {ex['onlooker_bits']:.2f} bits")
    for r in (routine["rounds"][0]["pair_bound"] and routine["rounds"]) or ():
        law, pair = r["exact_lower_bound"], r["pair_bound"]
        print(f"    round {r['round']:>2}: rigorous bound {law['value']:.6f} ({law['method']}); strongest pair "
              f"{pair['value']:.6f} at {tuple(pair['positions'])}")
    for r in routine["rounds"]:
        print_round(r)


def print_round(r: dict) -> None:
    """A round's distance (exact, or a lower bound), its coupling bound, guessing and deal figures."""
    d, g = r["distance"], r["guessing"]
    kind = ("exact" if d["kind"] == "exact" else f"at least, ± {d['stderr']:.4f}" if d["stderr"] > 0
            else f"at least, {d['method']}")
    deal = ""
    if r["deal"]:
        deal = "  deal " + ", ".join(f">={m}: {v['value']:.4f} ± {v['stderr']:.4f}"
                                     for m, v in r["deal"].items())
    upper = r.get("upper_bound")
    at_most = "" if upper is None else (f"; at most {upper['value']:.4f} (coupling, "
                                        f"{upper['confidence']:.1%} confidence)")
    print(f"    round {r['round']:>2} (pass {r['passes']:>2}): distance {d['value']:.5f} ({kind}){at_most}; "
          f"guessing {g['value']:.3f} ± {g['stderr']:.3f}{deal}")


def print_reference(ref: dict) -> None:
    """The truly random pack's figures beside the routines'."""
    print(f"  random pack: guessing H_N = {ref['guessing_random']:.4f}, simulated "
          f"{ref['guessing_simulated']['value']:.3f} ± {ref['guessing_simulated']['stderr']:.3f}")
    for m, v in (ref["deal_random"] or {}).items():
        print(f"  random deal >={m}: exact {v['exact']:.4f}, simulated "
              f"{v['simulated']['value']:.4f} ± {v['simulated']['stderr']:.4f}")
    seven = ref["single_deck_seven_passes"]
    print(f"  one 52-card deck after 7 riffles: {seven['distance']:.4f} (exact)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pack", default="samba")
    ap.add_argument("--samples", type=int, default=100_000)
    ap.add_argument("--side-by-side-samples", type=int, default=20_000)
    args = ap.parse_args()

    # Other work on the machine slows the figures; say how busy it was.
    print(f"CPUs: {os.cpu_count()}, load average before: {os.getloadavg()[0]:.1f}")
    report, wall, cpu = run_command(args.pack, args.samples)
    peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    _, wall_random, cpu_random = run_command(args.pack, args.samples,
                                             ("--routine", "stack-trade", "--routine", "pile-trade"))
    print(f"load average after: {os.getloadavg()[0]:.1f}")
    s = report["settings"]
    print(f"shuffler quality --pack {args.pack} --samples {args.samples:,}: "
          f"{s['rounds']} rounds, {len(s['routines'])} routines ({', '.join(s['routines'])})")
    print(f"  wall {wall:.1f} s, CPU {cpu:.1f} s, peak memory of the largest process {peak_mb:.0f} MB")
    print(f"  side by side, stack-trade and pile-trade only: wall {wall_random:.1f} s, CPU {cpu_random:.1f} s; "
          f"every routine takes {wall / wall_random:.2f} times the wall time")
    for routine in report["routines"]:
        print_routine(routine)
    print_reference(report["reference"])
    exact_mode_paths(10_000)
    side_by_side(args.side_by_side_samples)


if __name__ == "__main__":
    main()
