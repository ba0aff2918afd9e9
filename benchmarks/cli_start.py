"""How long `shuffler --help` takes, side by side with Python starting and
doing nothing, in one run: the help lists the commands without importing
them (host/cli.py), so it should cost little more than Python's own start.
Each is run in turn, many times, and the medians are compared.

    python benchmarks/cli_start.py [runs]
"""
from __future__ import annotations

import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGET_S = 0.3
CASES = {
    "python -c pass": [sys.executable, "-c", "pass"],
    "shuffler --help": [sys.executable, "-m", "host.cli", "--help"],
    "shuffler plan --help": [sys.executable, "-m", "host.cli", "plan", "--help"],
}


def timed(argv: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(argv, cwd=ROOT, stdout=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start


def main(runs: int = 15) -> None:
    times: dict[str, list[float]] = {name: [] for name in CASES}
    for name, argv in CASES.items():
        timed(argv)  # the first run fills the disk cache and writes the .pyc files
    for _ in range(runs):
        for name, argv in CASES.items():  # interleaved: a busy moment hits all alike
            times[name].append(timed(argv))
    base = statistics.median(times["python -c pass"])
    print(f"median of {runs} runs each, interleaved")
    for name, seen in times.items():
        median = statistics.median(seen)
        print(f"{name:22} {median * 1000:7.0f} ms  ({median / base:4.1f} x python -c pass; "
              f"min {min(seen) * 1000:.0f}, max {max(seen) * 1000:.0f} ms)")
    help_s = statistics.median(times["shuffler --help"])
    print(f"shuffler --help: {help_s:.2f} s, target under {TARGET_S} s: {'met' if help_s < TARGET_S else 'NOT met'}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 15)
