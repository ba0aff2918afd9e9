"""The simulated board: the driver interface the firmware expects, over the
simulated world, with a virtual clock.

Environment (read once at start):
  SHUFFLER_SIM_CONTROL  control endpoint: a Unix socket path, or tcp:PORT
  SHUFFLER_SIM_SPEED    virtual ms per real ms (default 1; 0 = no real waiting)
  SHUFFLER_SIM_IDLE_SPEED  at speed 0, virtual ms per real ms while the motor
                        driver sleeps (nothing on the machine moves): the board
                        waits for a line that long instead of spinning a core
                        (default 0: as fast as the computer goes throughout)
  SHUFFLER_SIM_SEED     noise seed (default 1)
  SHUFFLER_SIM_MISSING  sensors missing from boot, comma separated
                        (stack, exit, touch, battery)
  SHUFFLER_SIM_BATTERY_MV  battery voltage at boot (default 9000)
  SHUFFLER_DATA_DIR     where calibration and configuration are kept (default .)
  SHUFFLER_SIM_CAPACITY cards the simulated tray deals (default: the profile's 104)
  SHUFFLER_SIM_BLANK    a board that came blank (only MicroPython, as a Pico from
                        its download page): no factory figures for the load cell,
                        so it counts nothing until `shuffler setup` calibrates it
  SHUFFLER_SIM_WDT_MS   tests only: the watchdog timeout (default: the profile's)
  SHUFFLER_SIM_MECHANISM  plausible (hardware/mechanism.py's speeds, the default)
                        or fast (twice that, for long routines in tests)
  SHUFFLER_SIM_WIRING   how the board is wired wrong, comma separated
                        (sim_world.WIRING: motor_reversed, load_cell_reversed,
                        touch_dead, beam_receiver_missing)
  SHUFFLER_SIM_TABLE    where the card table is kept, so cards stay where they lie
                        across resets (sim_table.py); none: each boot starts bare
  SHUFFLER_SIM_UART     esp32: serial input through a receive ring of that board's
                        size and line rate, which drops what arrives while it is
                        full (sim_uart.py); unset: the unix port's stdin as it is
  SHUFFLER_SIM_RANDOM_FILE  tests only: the board's random bytes are read from
                        this file, in order, instead of os.urandom, so a test
                        knows the exact-mode codes without the wire telling it

The virtual clock only moves in sleep_ms(), one simulated millisecond at a
time, so the world and the firmware stay in step however slow the host is.
"""

import os
import sys
import time

try:
    import micropython
except ImportError:
    micropython = None

from sim_table import Table
from sim_world import World

WDT_EXIT_CODE = 3
POWER_CYCLE_EXIT_CODE = 77  # a hard reset for the virtual shuffler, as machine.reset()
POWER_GONE_EXIT_CODE = 78  # the process that hosts the board ended: nothing is left to run it
_PERIOD = 0x3FFFFFFF  # same wrap as time.ticks_ms
ASLEEP_REAL_MS = 10  # real ms an asleep board waits per 20 simulated ms when time runs as fast as it can


def _env(name, default):
    v = os.getenv(name)
    return v if v else default


def _apply_test_settings(profile):
    # What a test changes of the board's profile: a watchdog shorter than the
    # waits, a smaller machine for small packs, a board nothing calibrated.
    wdt = os.getenv("SHUFFLER_SIM_WDT_MS")
    if wdt:
        profile["wdt_ms"] = int(wdt)
    cap = os.getenv("SHUFFLER_SIM_CAPACITY")
    if cap:
        profile["capacity"] = int(cap)
    if os.getenv("SHUFFLER_SIM_BLANK"):
        profile["stack_cal_default"] = None  # nothing calibrated it at a factory


def _world_at_boot():
    # The simulated world as the environment sets it up: its noise seed, its
    # mechanism, how it is wired, the battery and the sensors missing.
    wiring = [w for w in _env("SHUFFLER_SIM_WIRING", "").split(",") if w]
    world = World(int(_env("SHUFFLER_SIM_SEED", "1")), _env("SHUFFLER_SIM_MECHANISM", "plausible"), wiring)
    world.mv = int(_env("SHUFFLER_SIM_BATTERY_MV", "9000"))
    for name in _env("SHUFFLER_SIM_MISSING", "").split(","):
        if name:
            world.inject("sensor_missing", 0, name)
    return world


def _uart(world):
    # esp32's receive ring (SHUFFLER_SIM_UART), or None: the unix port's stdin as it is.
    port = os.getenv("SHUFFLER_SIM_UART")
    if not port:
        return None
    import sim_uart
    figures = __import__("profile_" + port).PROFILE
    return sim_uart.Uart(lambda: world.now, figures["uart_rx_ring"], figures["uart_baud"])


class Board:
    def __init__(self, profile):
        _apply_test_settings(profile)
        self.profile = profile
        self.name = profile["name"]
        self.data_dir = _env("SHUFFLER_DATA_DIR", ".")
        speed = float(_env("SHUFFLER_SIM_SPEED", "1"))
        self.us_per_ms = int(1000 / speed) if speed > 0 else 0
        idle = float(_env("SHUFFLER_SIM_IDLE_SPEED", "0"))
        self.idle_us_per_ms = int(1000 / idle) if idle > 0 and not self.us_per_ms else 0
        self.world = _world_at_boot()
        self.table = Table(self.world, os.getenv("SHUFFLER_SIM_TABLE") or None)
        self.table.restore()
        self.wdt_ms = 0
        self.wdt_last = 0
        self.led_on = False
        self.control = None
        self.random_file = None
        path = os.getenv("SHUFFLER_SIM_RANDOM_FILE")
        if path:
            self.random_file = open(path, "rb")
        self.uart = _uart(self.world)  # the firmware's Link reads the port through it when set
        addr = os.getenv("SHUFFLER_SIM_CONTROL")
        if addr:
            import sim_control
            # Its requests' module too, compiled now while the heap is whole
            # (at the first request it would need a bigger heap to boot and deal).
            import sim_requests  # noqa: F401
            self.control = sim_control.Control(addr, self.handle)
        self._watch_host()

    def _watch_host(self):
        # Under the virtual shuffler's serial bridge, stdin is the bridge's
        # pipe. When it ends, the process hosting the board has gone (however
        # it ended, SIGKILL included): the power is off, and the board stops
        # rather than run on, unseen, at full speed.
        self.host = None
        if os.getenv("VIRTUAL_SHUFFLER_MODE"):
            import select
            self.host = select.poll()
            self.host.register(sys.stdin, select.POLLIN)
            self.host_hangup = select.POLLHUP | select.POLLERR

    # ----- time -----------------------------------------------------------
    def ticks_ms(self):
        return self.world.now & _PERIOD

    def sleep_ms(self, ms):
        w = self.world
        i = 0
        while i < ms:
            w.advance()
            i += 1
        if self.us_per_ms:
            time.sleep_us(ms * self.us_per_ms)
        elif self.idle_us_per_ms and not w.driver_awake:
            self.idle_wait(ms * self.idle_us_per_ms)
        if self.wdt_ms and w.now - self.wdt_last > self.wdt_ms:
            self.watchdog_reset()

    def idle_wait(self, us):
        """Nothing on the machine moves: wait up to `us` of real time, and
        less when a line from the host comes (it is read at once)."""
        if self.host is not None and us >= 1000:
            self.host.poll(us // 1000)
        else:
            time.sleep_us(us)

    # ----- randomness ------------------------------------------------------
    def randbytes(self, n):
        if self.random_file is None:
            return os.urandom(n)
        got = self.random_file.read(n)
        if len(got) != n:
            raise ValueError("the test's random bytes ran out")
        return got

    # ----- watchdog ---------------------------------------------------------
    def wdt_start(self, ms):
        self.wdt_ms = ms
        self.wdt_last = self.world.now

    def wdt_feed(self):
        self.wdt_last = self.world.now

    def wdt_release(self):
        self.wdt_ms = 0

    def watchdog_reset(self):
        self._reset("sim: watchdog reset, motor off\n", WDT_EXIT_CODE)

    def _reset(self, why, code):
        if micropython is not None:
            while True:  # a reset frees everything: undo any heap lock
                try:
                    bytearray(1)
                    break
                except MemoryError:
                    micropython.heap_unlock()
        self.motor_stop()
        self.table.save()  # the cards stay where they lie
        if why:
            sys.stderr.write(why)
        sys.exit(code)

    # ----- sensors and actuators ------------------------------------------
    def touch_raw(self):
        return self.world.touch_raw()

    def stack_raw(self):
        # An HX711 at 80 samples/s: each reading takes about 12 ms.
        self.sleep_ms(12)
        return self.world.stack_raw()

    def exit_blocked(self):
        w = self.world
        while w.hang:  # a driver stuck on a dead bus
            self.sleep_ms(10)
        if w.fed == w.error_at and w.throat_n == 0 and w.runs > w.land_run:
            # card error_at is being fed: the motor started again after the last landed
            w.error_at = -1
            raise OSError(5)  # a driver error in the middle of a card
        return w.exit_blocked()

    def battery_mv(self):
        return self.world.battery_mv()

    def motor(self, direction, duty):
        self.world.motor(direction, duty)

    def motor_brake(self):
        self.world.stop(True)

    def motor_stop(self):
        # As the real boards: braked, then the driver's nSLEEP low.
        self.world.stop(True)
        self.world.driver_awake = False
        self.table.save()  # a pass ended: where its cards landed (skipped under the heap lock)

    def led(self, on):
        self.led_on = on

    def light_sleep(self, touch_threshold, wake):
        """Sleep until the pad reads below touch_threshold or wake() is true
        (True then: the serial line woke it)."""
        w = self.world
        w.sleeping = True
        w.sleeps += 1
        w.slept_at = w.now
        if w.driver_awake:
            w.awake_while_asleep += 1
        try:
            while True:
                self.wdt_feed()
                self.service()
                if w.touch_raw() < touch_threshold:
                    return False
                if wake():
                    return True
                self.sleep_ms(20)
                if not self.us_per_ms:
                    # As fast as the computer goes, yet asleep: nothing moves
                    # until a touch or a line, so wait for them a little in
                    # real time rather than spin a core.
                    time.sleep_ms(ASLEEP_REAL_MS)
        finally:
            w.sleeping = False
            # The sensors were off: the HX711 settles after power-up.
            t = 0
            while t < self.profile.get("sensor_settle_ms", 0):
                wake()
                self.wdt_feed()
                self.sleep_ms(10)
                t += 10

    # ----- control endpoint -------------------------------------------------
    def pending(self):
        return self.control is not None and self.control.pending()

    def service(self):
        if self.control is not None:
            self.control.service()
        self.table.save()
        if self.host is not None:
            for _obj, ev in self.host.ipoll(0):
                if ev & self.host_hangup:
                    self._reset("", POWER_GONE_EXIT_CODE)

    def handle(self, req):
        # A request of the control endpoint, answered by sim_requests.py
        # (imported at boot with the endpoint; here for the emulated Pico's
        # face, which calls this with the board folder on its path).
        import sim_requests
        return sim_requests.handle(self, req)
