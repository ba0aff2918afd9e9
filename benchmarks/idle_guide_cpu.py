"""CPU that `shuffler guide --web --sim` takes while it waits for the person
at step 1 (splitting the pack, which only the person can do): the guide, its
page's server and the virtual shuffler together (the command and every
process under it), as the fraction of one core over a window of wall time,
with a page open on it (a WebSocket, as a browser's tab holds it, hearing the
guide's beat).

The machine's load average is printed beside the figure: other work on the
machine slows the guide's own, not its waiting.

Run: python benchmarks/idle_guide_cpu.py [--window 10]
"""
from __future__ import annotations

import argparse
import asyncio
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlsplit

import aiohttp

ROOT = Path(__file__).resolve().parents[1]
TICKS = os.sysconf("SC_CLK_TCK")
ADDRESS = re.compile(r"The guide's page: (http://\S+)")


def tree(pid: int) -> list[int]:
    """`pid` and every process under it."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry.name))
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo.extend(children.get(p, []))
    return out


def name_of(pid: int) -> str:
    """What the process runs, shortly: the board's interpreter, or the command."""
    try:
        args = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return "gone"
    text = b" ".join(args).decode(errors="replace")
    return "the virtual shuffler's board" if "micropython" in text else text[:60]


def cpu_seconds(pids: list[int]) -> float:
    total = 0.0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += (int(fields[11]) + int(fields[12])) / TICKS  # utime + stime
    return total


async def watch(address: str, window: float, pid: int) -> tuple[float, int, dict[str, float]]:
    """With a page open: wait for step 1, then the CPU over `window` s; the beats heard meanwhile."""
    parts = urlsplit(address)
    ws_url = f"{parts.scheme}://{parts.netloc}/ws?{parts.query}"
    async with aiohttp.ClientSession() as s:
        async with s.ws_connect(ws_url, origin=f"{parts.scheme}://{parts.netloc}") as ws:
            deadline = time.monotonic() + 300
            while True:
                got = await asyncio.wait_for(ws.receive_json(), 300)
                if (got.get("step") or {}).get("number") == 1:
                    break
                if time.monotonic() > deadline:
                    raise SystemExit("the guide never showed step 1")
            await asyncio.sleep(2.0)  # the start's own work (flashing, the first looks) over
            pids = tree(pid)
            each = {p: cpu_seconds([p]) for p in pids}
            c0, t0, beats = cpu_seconds(pids), time.monotonic(), 0
            while time.monotonic() - t0 < window:
                try:
                    got = await asyncio.wait_for(ws.receive_json(), t0 + window - time.monotonic())
                except asyncio.TimeoutError:
                    break
                beats += "beat" in got
            took = time.monotonic() - t0
            parts_used = {f"{name_of(p)} ({p})": (cpu_seconds([p]) - each[p]) / took for p in pids}
            return (cpu_seconds(pids) - c0) / took, beats, parts_used


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--window", type=float, default=10.0, help="seconds of wall time measured")
    args = ap.parse_args()
    out = Path(tempfile.mkstemp(prefix="idle-guide-", suffix=".out")[1])
    with out.open("wb") as sink:
        proc = subprocess.Popen([sys.executable, "-m", "host.cli", "guide", "--web", "--sim", "--no-browser",
                                 "--pack", "samba", "--bind", "127.0.0.1:0"], cwd=ROOT, stdout=sink,
                                stderr=subprocess.STDOUT, start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while not (m := ADDRESS.search(out.read_text(errors="replace"))):
            if proc.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"the guide printed no address:\n{out.read_text(errors='replace')[-2000:]}")
            time.sleep(0.2)
        used, beats, parts = asyncio.run(watch(m.group(1), args.window, proc.pid))
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(30)
        out.unlink(missing_ok=True)
    print(f"load average {os.getloadavg()[0]:.2f}")
    print(f"waiting at step 1, a page open: {used:.3f} of a core (the guide, its page's server and the "
          f"virtual shuffler), over {args.window:.0f} s, {beats} beats heard")
    for name, share in sorted(parts.items(), key=lambda kv: -kv[1]):
        print(f"   {name}: {share:.3f}")


if __name__ == "__main__":
    main()
