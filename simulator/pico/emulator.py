"""EmulatedPico: MicroPython's rp2 port on an emulated RP2040 (rp2040js, in
node), wired to the simulated mechanism, behind a pseudo-terminal that
serial tools open like a Pico's USB port.

    with EmulatedPico(fs=flash_fs.build_fs(flash_fs.firmware_files())) as pico:
        pico.port                        # /dev/pts/N
        pico.load(range(52)); pico.touch(100)

Lockstep: node runs the chip for one slice of emulated time (1 ms while
the motor runs, 5 ms otherwise) with the pin levels this side gives it, and
answers with what the chip drove meanwhile (DRV8833 inputs as time per
state, nSLEEP, sensor power, LED) and its USB output. This side then moves
the mechanism (simulator/virtual/board/sim_world.py, the one model of the
cards, motor and sensors, here under CPython) on by the same time and
computes the next slice's levels. The HX711's bit-level protocol runs in
node, where the SCK edges are; its conversion result comes from the world.
"""
from __future__ import annotations

import base64
import collections
import importlib.util
import json
import queue
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import Future
from pathlib import Path
from types import TracebackType
from typing import Any, Callable, Iterable

from simulator.pico import image as img
from simulator.virtual.pty_port import PtyPort

HERE = Path(__file__).resolve().parent
HARNESS = HERE / "harness.js"
BOARD_DIR = HERE.parent / "virtual" / "board"
ADC_MAX = 4095
ADC_REF_MV = 3300
BUSY_SLICE_US = 1000  # the world's own step
IDLE_SLICE_US = 5000
MAX_PENDING_HOST = 4096  # stop reading the port beyond this: the host waits, as on USB
LOG_LIMIT = 256 * 1024
# How many times longer than a real Pico the host may wait for an answer
# (advertised with the port: simulator/virtual/registry.py, host/device_link.py).
# The emulated chip runs 5-6 times slower than real time while its core is
# busy on an idle machine; the rest is room for a loaded one.
SLOWDOWN = 30.0
# Named pins of the RPI_PICO board definition (MicroPython's pins.csv).
NAMED_PINS = {"LED": 25}


class EmulatorError(RuntimeError):
    """The emulator cannot start or has stopped."""


def load_world_module() -> Any:
    """sim_world.py, the mechanism model the unix-port sim board runs, under CPython."""
    if str(BOARD_DIR) not in sys.path:
        sys.path.append(str(BOARD_DIR))  # sim_world may import its sibling data modules
    spec = importlib.util.spec_from_file_location("sim_world", BOARD_DIR / "sim_world.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def rp2_profile() -> dict[str, Any]:
    from firmware import profile_rp2

    return dict(profile_rp2.PROFILE)


def node_ready() -> None:
    """Install the harness's pinned npm packages on first use (package-lock.json),
    so a fresh clone needs no step of its own; fail in one line when node or
    npm is missing or the install fails."""
    if shutil.which("node") is None:
        raise EmulatorError("the emulated Pico needs node (20 or later) on the PATH")
    if (HERE / "node_modules" / "rp2040js").is_dir():
        return
    npm = shutil.which("npm")
    if npm is None:
        raise EmulatorError(f"the emulated Pico needs rp2040js: run `npm ci` in {HERE}")
    done = subprocess.run([npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"], cwd=HERE,
                          capture_output=True, text=True)
    if done.returncode != 0 or not (HERE / "node_modules" / "rp2040js").is_dir():
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise EmulatorError(f"the emulated Pico needs rp2040js: `npm ci` in {HERE} failed: {last}")


class EmulatedPico:
    def __init__(
        self,
        *,
        fs: bytes | None = None,
        time_scale: float = 0.0,
        seed: int = 1,
        battery_mv: int = 9000,
        missing: Iterable[str] = (),
        mechanism: str = "plausible",
        profile: dict[str, Any] | None = None,
        wiring: Iterable[str] = (),
    ) -> None:
        """fs: a littlefs image for the flash (None: an erased filesystem, which
        MicroPython formats at first boot). time_scale: emulated ms per real ms
        at most (0: as fast as the emulator goes). missing: sensors absent
        from power-on (stack, exit, touch, battery). mechanism: the world's
        speed profile, "plausible" (hardware/mechanism.py) or "fast" (for
        long routines in tests). wiring: how the board is wired wrong
        (sim_world.WIRING: motor_reversed, load_cell_reversed, touch_dead,
        beam_receiver_missing)."""
        self.image = img.find_image()
        node_ready()
        self.profile = profile or rp2_profile()
        self.pins = {k: NAMED_PINS.get(v, v) for k, v in self.profile["pins"].items()}
        self.div_total, self.div_low = self.profile["battery_divider"]
        self.time_scale = time_scale
        self.fs = fs
        self.world_mod = load_world_module()
        self.world = self.world_mod.World(seed, mechanism, tuple(wiring))
        self.world.mv = battery_mv
        for sensor in missing:
            self.world.inject("sensor_missing", 0, sensor)
        self._tmp = Path(tempfile.mkdtemp(prefix="shuffler-pico-"))
        self._init_harness()
        self._init_seen()

    def _init_harness(self) -> None:
        """The emulator's process and what links it to this side: the port,
        the loop's thread, calls queued into it, the serial log."""
        self._proc: subprocess.Popen[str] | None = None
        self._port: PtyPort | None = None
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._calls: queue.Queue[tuple[Callable[[], Any], Future[Any]]] = queue.Queue()
        self._log: collections.deque[bytes] = collections.deque()
        self._log_size = 0
        self._log_lock = threading.Lock()
        self._tx = bytearray()  # host bytes read from the port, for the next slice
        self._pending = 0

    def _init_seen(self) -> None:
        """What the board has done, as seen from its pins: the time, its
        boots and events, the LED, the sensors' power, its sleeps and drives."""
        self.now_us = 0
        self.boots = 0
        self.events: list[tuple[int, str]] = []
        self.led = False
        self.sensor_power: bool | None = None  # unknown until the board drives it
        self.idle_while_asleep: list[float] = []  # the core's idle fraction in each light sleep
        self._sleep_idle = [0.0, 0.0]
        self._motor_busy = False
        self.drives: collections.Counter[tuple[int, int]] = collections.Counter()  # (dir, duty %) -> ms
        self.error: BaseException | None = None

    # -- life cycle --------------------------------------------------------------
    def start(self) -> "EmulatedPico":
        if self._thread is not None:
            return self
        pins_file = self._tmp / "pins.json"
        pins_file.write_text(json.dumps(self.pins))
        argv = ["node", str(HARNESS), str(self.image.bootrom), str(self.image.uf2), str(pins_file)]
        if self.fs is not None:
            fs_file = self._tmp / "fs.img"
            fs_file.write_bytes(self.fs)
            argv += [str(fs_file), str(img.FS_OFFSET)]
        self._proc = subprocess.Popen(
            argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1,
            cwd=str(HERE),
        )
        self._port = PtyPort()
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name="emulated-pico", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=10)
            self._thread = None
        if self._proc is not None:
            try:
                if self._proc.stdin:
                    self._proc.stdin.close()
            except OSError:
                pass
            try:
                self._proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()
            self._proc = None
        if self._port is not None:
            self._port.close()
            self._port = None
        shutil.rmtree(self._tmp, ignore_errors=True)

    def __enter__(self) -> "EmulatedPico":
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    @property
    def port(self) -> str:
        if self._port is None:
            raise EmulatorError("the emulated Pico is not running")
        return self._port.path

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    # -- the lockstep loop ---------------------------------------------------------
    def _request(self, req: dict[str, Any]) -> dict[str, Any]:
        proc = self._proc
        assert proc is not None and proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(json.dumps(req) + "\n")
        proc.stdin.flush()
        line = proc.stdout.readline()
        if not line:
            raise EmulatorError(f"the emulator stopped (exit code {proc.poll()})")
        rep = json.loads(line)
        if rep.get("ok") is False:
            raise EmulatorError(str(rep.get("error")))
        return dict(rep)

    def _run(self) -> None:
        t0 = time.monotonic()
        try:
            while not self._stop.is_set():
                self._serve_calls()
                port = self._port
                if port is not None and self._pending + len(self._tx) < MAX_PENDING_HOST:
                    self._tx += port.read()
                us = BUSY_SLICE_US if self._motor_busy else IDLE_SLICE_US
                if self.time_scale > 0:
                    ahead = (self.now_us + us) / 1000 / self.time_scale - (time.monotonic() - t0) * 1000
                    if ahead > 0:
                        time.sleep(ahead / 1000)
                rep = self._request({
                    "op": "slice", "us": us, "in": self._inputs(),
                    "tx": base64.b64encode(bytes(self._tx)).decode(),
                })
                self._tx.clear()
                self._apply(rep, us)
        except BaseException as exc:  # noqa: BLE001 - kept for the caller
            self.error = exc
        finally:
            self._fail_calls()

    def _inputs(self) -> dict[str, Any]:
        w = self.world
        touch = w.touch_driven()  # None: nothing drives the line, the pad's pull decides
        # The IR receiver pulls its output low while it sees no light (a card in
        # the beam, or the emitter unpowered); otherwise the pull-up holds it
        # high, as it does with no receiver at all.
        dark = w.exit_blocked() or (self.sensor_power is False and not w.no_receiver)
        exit_level = 0 if dark else None
        stack = w.stack_raw()
        mv = w.battery_mv()
        counts = round(mv * self.div_low / self.div_total * ADC_MAX / ADC_REF_MV)
        adc = [0, 0, 0, 0]
        adc[self.pins["battery_adc"] - 26] = max(0, min(ADC_MAX, counts))
        return {"touch": touch, "exit": exit_level, "stack": stack, "adc": adc}

    def _apply(self, rep: dict[str, Any], us: int) -> None:
        w = self.world
        self.now_us = int(rep["t"])
        if rep.get("rx"):
            data = base64.b64decode(rep["rx"])
            self._record(data)
            if self._port is not None:
                self._port.write(data)
        self._pending = int(rep.get("pend", 0))
        for ev in rep.get("events", []):
            self.events.append((self.now_us, ev))
        self.boots = int(rep.get("boots", self.boots))
        self.led = bool(rep.get("led"))
        awake = self._drive_motor(rep, us)
        self._follow_sensor_power(bool(rep.get("power")), awake, float(rep.get("idle", 0.0)), us)
        for _ in range(us // 1000):
            w.advance()

    def _drive_motor(self, rep: dict[str, Any], us: int) -> bool:
        """The motor as the driver's pins set it over the slice; whether the driver is awake."""
        w = self.world
        # The DRV8833: IN1 IN2 = 10 forward, 01 reverse, 11 brake, 00 coast; asleep it floats.
        fwd, rev, brake, coast = rep["motor"]
        awake = bool(rep.get("nsleep"))
        if not awake:
            w.stop(False)
        elif fwd > rev and fwd > 0.005:
            w.motor(1, round(fwd * 100))
        elif rev > 0.005:
            w.motor(-1, round(rev * 100))
        else:
            w.stop(brake >= coast)
        w.driver_awake = awake
        if w.dir != 0:
            self.drives[(w.dir, w.duty)] += us // 1000
        self._motor_busy = w.dir != 0 or w.throat_n > 0
        return awake

    def _follow_sensor_power(self, power: bool, awake: bool, idle: float, us: int) -> None:
        """The sensors' power over the slice: the board cutting it is a light
        sleep, whose idle fraction of the core is kept when it wakes."""
        w = self.world
        if self.sensor_power and not power:  # the board cut the power it gave: light sleep
            w.sleeping = True
            w.sleeps += 1
            w.slept_at = w.now
            self._sleep_idle = [0.0, 0.0]
            if awake:
                w.awake_while_asleep += 1
        if not power and w.sleeping:
            self._sleep_idle[0] += idle * us
            self._sleep_idle[1] += us
        if power and self.sensor_power is False and w.sleeping:
            w.sleeping = False
            if self._sleep_idle[1]:
                self.idle_while_asleep.append(self._sleep_idle[0] / self._sleep_idle[1])
        self.sensor_power = power

    # -- calls into the loop from other threads --------------------------------------
    def _serve_calls(self) -> None:
        while True:
            try:
                fn, fut = self._calls.get_nowait()
            except queue.Empty:
                return
            if not fut.set_running_or_notify_cancel():
                continue
            try:
                fut.set_result(fn())
            except Exception as exc:  # noqa: BLE001 - goes back to the caller
                fut.set_exception(exc)

    def _fail_calls(self) -> None:
        while True:
            try:
                _fn, fut = self._calls.get_nowait()
            except queue.Empty:
                return
            if fut.set_running_or_notify_cancel():
                fut.set_exception(EmulatorError("the emulated Pico stopped"))

    def call(self, fn: Callable[[], Any], timeout: float = 30.0) -> Any:
        """Run fn between two slices (so the world never changes mid-slice)."""
        if not self.running:
            raise EmulatorError(f"the emulated Pico is not running ({self.error!r})")
        fut: Future[Any] = Future()
        self._calls.put((fn, fut))
        return fut.result(timeout=timeout)

    # -- what a user sees ------------------------------------------------------------
    def _record(self, data: bytes) -> None:
        with self._log_lock:
            self._log.append(data)
            self._log_size += len(data)
            while self._log_size > LOG_LIMIT and len(self._log) > 1:
                self._log_size -= len(self._log.popleft())

    def output(self) -> bytes:
        """The USB output so far (recent part), whether or not a host listened."""
        with self._log_lock:
            return b"".join(self._log)

    def hard_reset(self) -> None:
        """The RUN pin: the chip restarts from the boot ROM; the flash and the world stay."""
        self.call(lambda: self._request({"op": "reset"}))

    def save_flash(self, path: str | Path, offset: int = img.FS_OFFSET,
                   length: int = img.FS_BLOCK_SIZE * img.FS_BLOCK_COUNT) -> None:
        self.call(lambda: self._request({"op": "flash", "path": str(path), "offset": offset, "length": length}))

    def emulated_ms(self) -> float:
        return self.now_us / 1000

    # -- the mechanism (the same operations as the sim board's control endpoint) -----
    def load(self, ids: Iterable[Any]) -> int:
        cards = list(ids)

        def do() -> int:
            self.world.load(cards)
            return int(self.world.tray_n)
        return int(self.call(do))

    def take(self, pile: str) -> list[Any]:
        return list(self.call(lambda: self.world.take(pile)))

    def touch(self, ms: int = 100) -> None:
        def do() -> None:
            self.world.touch_until = self.world.now + ms
        self.call(do)

    def inject(self, fault: str, k: int = 0, mode: str = "") -> None:
        """jam, double_feed (mode "overlap" or ""), empty_at, battery_low,
        sensor_missing (mode = the sensor)."""
        if fault in ("hang", "driver_error", "save_fail"):
            raise ValueError(f"{fault} is a fault of the simulated board's driver, not of the mechanism")
        self.call(lambda: self.world.inject(fault, k, mode))

    def fix(self) -> None:
        self.call(self.world.fix)

    def set_battery(self, mv: int) -> None:
        def do() -> None:
            self.world.mv = mv
        self.call(do)

    def query(self) -> dict[str, Any]:
        def do() -> dict[str, Any]:
            snap = dict(self.world.snapshot())
            snap["led"] = self.led
            snap["time_us"] = self.now_us
            snap["boots"] = self.boots
            return snap
        return dict(self.call(do))

    def wait_until(self, predicate: Callable[[], bool], timeout: float) -> None:
        """Poll predicate (in the caller's thread) until true, or raise."""
        deadline = time.monotonic() + timeout
        while not predicate():
            if not self.running:
                raise EmulatorError(f"the emulated Pico stopped ({self.error!r})")
            if time.monotonic() > deadline:
                raise TimeoutError(f"condition not reached in {timeout} s of wall time "
                                   f"(emulated {self.emulated_ms():.0f} ms)")
            time.sleep(0.02)
