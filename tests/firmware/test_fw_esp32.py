"""firmware/board_esp32.py on the MicroPython unix port against a fake of
the esp32 port (tests/firmware/esp32_fake: machine and esp32 modules that
raise what MicroPython v1.28's esp32 port raises). What runs here is the
real driver; only the port under it is a fake."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from fwtest_support import FIRMWARE, MICROPYTHON, require_micropython

pytestmark = pytest.mark.micropython

FAKE = Path(__file__).resolve().parent / "esp32_fake"

PRELUDE = r"""
import json, sys
import esp32_state
import machine, esp32
import profile_esp32
from board_esp32 import Board

def board():
    return Board(dict(profile_esp32.PROFILE))

def report(**kw):
    print(json.dumps(kw))
"""


def run_esp32(body: str) -> dict:
    """Run body after PRELUDE on the unix port over the fake; its report()."""
    require_micropython()
    env = dict(os.environ, MICROPYPATH=os.pathsep.join([str(FAKE), str(FIRMWARE)]))
    out = subprocess.run([MICROPYTHON, "-c", PRELUDE + body], capture_output=True, text=True,
                         env=env, timeout=60)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_the_fake_raises_what_the_port_raises() -> None:
    r = run_esp32(r"""
def raises(f):
    try:
        f()
    except ValueError as e:
        return str(e)
    return None
esp32.wake_on_touch(True)
gpio = raises(lambda: esp32.wake_on_gpio((machine.Pin(3),), esp32.WAKEUP_ALL_LOW))
gpio_off = raises(lambda: esp32.wake_on_gpio(None, esp32.WAKEUP_ALL_LOW))
ext0 = raises(lambda: esp32.wake_on_ext0(machine.Pin(4)))
esp32.wake_on_touch(False)
esp32.wake_on_gpio((machine.Pin(3),))
touch = raises(lambda: esp32.wake_on_touch(True))
esp32.wake_on_gpio(None)  # None keeps the pins armed
touch_still = raises(lambda: esp32.wake_on_touch(True))
esp32.wake_on_gpio(())
report(gpio=gpio, gpio_off=gpio_off, ext0=ext0, touch=touch, touch_still=touch_still,
       uart=hasattr(esp32, "wake_on_uart"),
       wdt_id=raises(lambda: machine.WDT(1, 1000)) is not None,
       wdt_short=raises(lambda: machine.WDT(timeout=0)),
       wdt_same=machine.WDT(timeout=1000) is machine.WDT(timeout=2000),
       wdt_stop=hasattr(machine.WDT(timeout=1000), "deinit"),
       timer=raises(lambda: machine.Timer(4)),
       pad=raises(lambda: machine.TouchPad(machine.Pin(5))))
""")
    assert r == {"gpio": "no resources", "gpio_off": "no resources", "ext0": "no resources",
                 "touch": "no resources", "touch_still": "no resources", "uart": False,
                 "wdt_id": True, "wdt_short": "WDT timeout too short", "wdt_same": True,
                 "wdt_stop": False, "timer": "invalid Timer number", "pad": "invalid pin for touchpad"}


@pytest.mark.touch
@pytest.mark.light_sleep
def test_light_sleep_wakes_on_touch_with_only_the_sources_the_port_offers() -> None:
    r = run_esp32(r"""
b = board()
esp32_state.touch_at = esp32_state.now + 3500
woke_by_line = b.light_sleep(500, lambda: False)
report(line=woke_by_line, sleeps=esp32_state.sleeps, power=esp32_state.levels[32], touch_armed=esp32_state.wake_touch, now=esp32_state.now)
""")
    assert r["line"] is False
    assert len(r["sleeps"]) == 4 and r["now"] >= 3500
    for s in r["sleeps"]:
        # Touch plus a timed wake, no GPIO or ext0 source; the sensors off.
        assert (s["ms"], s["touch"], s["gpio"], s["ext0"], s["sensor_power"]) == (1000, True, 0, -1, 0)
    assert r["power"] == 1 and r["touch_armed"] is False


@pytest.mark.light_sleep
def test_a_waiting_serial_line_ends_the_sleep_after_a_timed_wake() -> None:
    r = run_esp32(r"""
b = board()
calls = []
def line():
    calls.append(1)
    return len(esp32_state.sleeps) >= 2
report(line=b.light_sleep(500, line), sleeps=len(esp32_state.sleeps), power=esp32_state.levels[32])
""")
    assert r == {"line": True, "sleeps": 2, "power": 1}


@pytest.mark.light_sleep
def test_sensor_power_comes_back_when_the_sleep_fails() -> None:
    r = run_esp32(r"""
b = board()
def fail():
    esp32_state.touch_error = True  # the pad breaks while the board sleeps
    return False
try:
    b.light_sleep(500, fail)
    err = None
except ValueError as e:
    err = str(e)
report(err=err, power=esp32_state.levels[32], touch_armed=esp32_state.wake_touch)
""")
    assert r == {"err": "Touch pad error", "power": 1, "touch_armed": False}


@pytest.mark.watchdog
@pytest.mark.restart
def test_a_loop_that_stops_beating_is_reset() -> None:
    r = run_esp32(r"""
b = board()
b.wdt_start(4000)
for _ in range(10):  # beating: fed
    b.wdt_feed()
    machine.advance(1000)
fed = esp32_state.resets
try:
    machine.advance(5000)  # the loop hangs
except SystemExit:
    pass
report(fed=fed, resets=esp32_state.resets)
""")
    assert r == {"fed": 0, "resets": 1}


@pytest.mark.restart
def test_the_repl_hand_over_survives_soft_resets() -> None:
    """mpremote soft-resets on entering the raw REPL; that ends every timer,
    and the port's watchdog cannot be stopped."""
    r = run_esp32(r"""
b = board()
b.wdt_start(4000)
b.wdt_release()
for _ in range(5):
    machine.soft_reset()
    machine.advance(60000)  # a long REPL session
report(resets=esp32_state.resets, timeout=esp32_state.wdt_timeout, timers=len(esp32_state.timers))
""")
    assert r == {"resets": 0, "timeout": 3600000, "timers": 0}


@pytest.mark.watchdog
def test_a_second_app_start_leaves_no_old_timer_feeding_the_watchdog() -> None:
    r = run_esp32(r"""
b = board()
b.wdt_start(4000)
b.wdt_release()  # Ctrl-C
b2 = board()  # app.main() again from the REPL
b2.wdt_start(4000)
timers = len(esp32_state.timers)
try:
    machine.advance(6000)  # the new main loop hangs
except SystemExit:
    pass
report(timers=timers, resets=esp32_state.resets)
""")
    assert r == {"timers": 1, "resets": 1}


@pytest.mark.exact_mode
def test_exact_mode_bytes_hash_noise_samples_with_os_urandom() -> None:
    r = run_esp32(r"""
b = board()
n = profile_esp32.PROFILE["noise_samples"]
a0 = esp32_state.adc_reads
x = b.randbytes(40)
per_call = esp32_state.adc_reads - a0
y = b.randbytes(40)
report(n=n, per_call=per_call, lens=[len(x), len(y)], differ=x != y, touch=esp32_state.touch_reads)
""")
    assert r["lens"] == [40, 40] and r["differ"] is True
    assert r["per_call"] == 2 * r["n"] and r["touch"] >= 4 * r["n"]  # two 32-byte blocks per call


WOKEN_BY_TOUCH = r"""
import time
from controller import Controller

class QuietLink:
    intr = False
    def __init__(self): self.sent = []
    def pump(self): pass
    def woken(self): return False
    def send(self, obj): self.sent.append(obj)
    def write_raw(self, buf): pass

class FakeClock:
    # The driver's waits on the fake's clock, so the finger can leave
    # while the sensors settle.
    ticks_diff = staticmethod(time.ticks_diff)
    ticks_add = staticmethod(time.ticks_add)
    ticks_us = staticmethod(time.ticks_us)
    def ticks_ms(self): return esp32_state.now
    def sleep_ms(self, ms): machine.advance(ms)

import board_common, board_esp32
board_esp32.time = board_common.time = FakeClock()  # the driver and the shared part
b = board()
c = Controller(b, dict(profile_esp32.PROFILE), QuietLink())
c.touch.baseline = esp32_state.touch_base
c.cfg["idle_sleep_s"] = 1
esp32_state.now = 200000  # idle for longer than idle_sleep_s and host_awake_ms
started = []
c.start_pass = lambda cmd, rid: started.append([cmd, rid])
# A finger on the pad for %d ms during the second timed slice.
esp32_state.touch_at = esp32_state.now + 1500
esp32_state.touch_end = esp32_state.touch_at + %d
c.maybe_sleep()
report(started=started, events=[m.get("ev") for m in c.link.sent], sleeps=len(esp32_state.sleeps),
       power=esp32_state.levels[32], touched_now=esp32_state.touch_value() < esp32_state.touch_threshold)
"""


@pytest.mark.touch
@pytest.mark.light_sleep
def test_the_touch_that_wakes_the_board_starts_the_pass() -> None:
    """The controller over the real ESP32 driver: a short touch wakes the
    board from light sleep and is over before the HX711 has settled; it is
    the touch that asked for the pass, so the pass starts without another."""
    r = run_esp32(WOKEN_BY_TOUCH % (50, 50))
    assert r["sleeps"] == 2 and r["power"] == 1
    assert r["touched_now"] is False  # the finger had gone before the pass began
    assert r["events"] == ["touch"] and r["started"] == [[None, None]]
