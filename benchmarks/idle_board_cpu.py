"""CPU a virtual shuffler's interpreter takes while nobody uses it, at time
scale 0 (as fast as the computer goes): awake and idle, then asleep (after
its idle_sleep_s), side by side, as the fraction of one core over a window
of wall time (one second awake, since it soon falls asleep). Asleep, the board waits for a touch or a line in real
time (board_sim.ASLEEP_REAL_MS per 20 simulated ms) instead of spinning.

The machine's load average is printed beside the figures: other work on the
machine takes cores from the awake board, which spins as fast as it may.

Run: python benchmarks/idle_board_cpu.py [--window 5]
"""
from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

from firmware import build
from simulator.virtual import VirtualShuffler

TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS  # utime + stime


def core_fraction(pid: int, window: float) -> float:
    c0, t0 = cpu_seconds(pid), time.monotonic()
    time.sleep(window)
    return (cpu_seconds(pid) - c0) / (time.monotonic() - t0)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--window", type=float, default=5.0, help="seconds of wall time per figure")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        flash = Path(tmp) / "flash"
        build.install_to_dir(build.build_image("sim", Path(tmp) / "image"), flash)
        with VirtualShuffler(flash, time_scale=0, advertise=False) as dev:
            with dev.world(timeout=20) as world:
                pid = dev.interpreter_pid
                assert pid is not None
                # Right after boot: the board falls asleep within seconds of wall time at this scale.
                awake = core_fraction(pid, 1.0) if not world.query()["sleeping"] else None
                deadline = time.monotonic() + 600
                while not world.query()["sleeping"]:
                    if time.monotonic() > deadline:
                        raise SystemExit("the board did not fall asleep within 600 s")
                    time.sleep(0.2)
                asleep = core_fraction(pid, args.window)
    print(f"load average {os.getloadavg()[0]:.2f}")
    if awake is None:
        print("awake and idle: not measured (it fell asleep first)")
    else:
        print(f"awake and idle: {awake:.3f} of a core")
    print(f"asleep:         {asleep:.3f} of a core")
    if awake:
        print(f"asleep / awake: {asleep / awake:.3f}")


if __name__ == "__main__":
    main()
