"""A fake `machine` module of MicroPython v1.28's esp32 port (classic
ESP32), for unix-port tests of firmware/board_esp32.py, since that board
cannot be emulated here. It enforces what the port's sources do, not what
would be convenient:

- WDT (extmod/machine_wdt.c, ports/esp32/machine_wdt.c): id 0 only
  (ValueError otherwise), a timeout above 0 ("WDT timeout too short");
  WDT() again reconfigures the one task watchdog and returns it; there is
  no deinit: it cannot be stopped. A soft reset leaves it running.
- Timer (ports/esp32/machine_timer.c): hardware timers 0-3 ("invalid Timer
  number" otherwise); a soft reset deinits them all (soft_reset() here).
- TouchPad (ports/esp32/machine_touchpad.c): only GPIO 0, 2, 4, 12, 13, 14,
  15, 27, 32, 33 ("invalid pin for touchpad"); read() raises ValueError
  ("Touch pad error") when the pad fails; config(value) sets the threshold
  below which the pad wakes light sleep.
- lightsleep(ms) (ports/esp32/modmachine.c, machine_sleep_helper): wakes on
  the timer and on the sources armed through the esp32 module (touch,
  ext0, ext1, gpio), nothing else; wake_reason() says which.

The fake's clock moves only in lightsleep() and advance(); the task
watchdog is taken not to count during light sleep.
"""

import esp32_state

TIMER_WAKE = 4
TOUCHPAD_WAKE = 5
PIN_WAKE = 2
EXT0_WAKE = 2
EXT1_WAKE = 3
ULP_WAKE = 6
SLEEP = 2
DEEPSLEEP = 4


class Pin:
    IN = 1
    OUT = 3
    OPEN_DRAIN = 7
    PULL_UP = 2
    PULL_DOWN = 1

    def __init__(self, id, mode=-1, pull=-1, value=None):
        if not (0 <= id <= 39) or 6 <= id <= 11 or id in (20, 24, 28, 29, 30, 31):
            raise ValueError("invalid pin")
        if mode == Pin.OUT and id >= 34:
            raise ValueError("pin can only be input")
        self.id = id
        if value is not None:
            self.value(value)

    def value(self, v=None):
        if v is None:
            return esp32_state.levels.get(self.id, 0)
        esp32_state.levels[self.id] = 1 if v else 0
        esp32_state.log.append(("pin", self.id, esp32_state.levels[self.id]))
        return None

    def __call__(self, v=None):
        return self.value(v)


class PWM:
    def __init__(self, pin, freq=0, duty_u16=0):
        self.pin = pin
        self.duty_u16(duty_u16)

    def duty_u16(self, d=None):
        if d is None:
            return esp32_state.levels.get(("pwm", self.pin.id), 0)
        esp32_state.levels[("pwm", self.pin.id)] = d
        return None


class ADC:
    ATTN_0DB = 0
    ATTN_11DB = 3

    def __init__(self, pin, atten=0):
        self.pin = pin

    def read_u16(self):
        esp32_state.adc_reads += 1
        esp32_state.noise = (esp32_state.noise * 1103515245 + 12345) & 0x7FFFFFFF
        return (esp32_state.adc_uv * 65535 // 3300000 + (esp32_state.noise >> 16) % 7) & 0xFFFF

    def read_uv(self):
        esp32_state.adc_reads += 1
        return esp32_state.adc_uv


TOUCH_GPIOS = (4, 0, 2, 15, 13, 12, 14, 27, 33, 32)


class TouchPad:
    def __init__(self, pin):
        if pin.id not in TOUCH_GPIOS:
            raise ValueError("invalid pin for touchpad")
        self.gpio = pin.id

    def config(self, value):
        esp32_state.touch_threshold = value

    def read(self):
        if esp32_state.touch_error:
            raise ValueError("Touch pad error")
        esp32_state.touch_reads += 1
        return esp32_state.touch_value()


class _WDT:
    def feed(self):
        esp32_state.wdt_fed = esp32_state.now


def WDT(id=0, timeout=5000):
    if id != 0:
        raise ValueError()
    if timeout <= 0:
        raise ValueError("WDT timeout too short")
    esp32_state.wdt_timeout = timeout
    esp32_state.wdt_fed = esp32_state.now
    if esp32_state.wdt is None:
        esp32_state.wdt = _WDT()
    return esp32_state.wdt


class Timer:
    ONE_SHOT = 0
    PERIODIC = 1

    def __init__(self, id, **kw):
        if not 0 <= id <= 3:
            raise ValueError("invalid Timer number")
        self.id = id
        self.period = 0
        self.callback = None
        self.due = 0
        if kw:
            self.init(**kw)

    def init(self, mode=PERIODIC, period=-1, callback=None, freq=-1):
        self.deinit()
        self.period = period
        self.mode = mode
        self.callback = callback
        self.due = esp32_state.now + period
        esp32_state.timers.append(self)

    def deinit(self):
        if self in esp32_state.timers:
            esp32_state.timers.remove(self)
        esp32_state.log.append(("timer_deinit", self.id))


def _run_timers():
    for t in list(esp32_state.timers):
        if esp32_state.now >= t.due:
            t.due = esp32_state.now + t.period
            if t.mode == Timer.ONE_SHOT:
                esp32_state.timers.remove(t)
            t.callback(t)


def _check_wdt():
    if esp32_state.wdt is not None and esp32_state.now - esp32_state.wdt_fed > esp32_state.wdt_timeout:
        esp32_state.resets += 1
        raise SystemExit("fake esp32: watchdog reset")


def advance(ms):
    """Fake only: the CPU runs for ms milliseconds doing nothing but timers."""
    end = esp32_state.now + ms
    while esp32_state.now < end:
        esp32_state.now += 1
        _run_timers()
        _check_wdt()


def soft_reset():
    """Fake only: what a soft reset does to the port's state."""
    for t in list(esp32_state.timers):
        t.deinit()


def lightsleep(ms=None):
    esp32_state.sleeps.append({"ms": ms, "touch": esp32_state.wake_touch, "gpio": esp32_state.wake_gpio_pins,
                     "ext0": esp32_state.wake_ext0_pin, "sensor_power": esp32_state.levels.get(esp32_state.sensor_power_pin)})
    if not (ms or esp32_state.wake_touch or esp32_state.wake_gpio_pins or esp32_state.wake_ext0_pin != -1):
        raise RuntimeError("fake esp32: a light sleep with no wake source never ends")
    end = esp32_state.now + (ms if ms else 10 ** 9)
    fed_lag = esp32_state.now - esp32_state.wdt_fed
    while esp32_state.now < end:
        esp32_state.now += 1
        if esp32_state.wake_touch and esp32_state.touch_value() < esp32_state.touch_threshold:
            esp32_state.reason = TOUCHPAD_WAKE
            break
    else:
        esp32_state.reason = TIMER_WAKE
    esp32_state.wdt_fed = esp32_state.now - fed_lag  # the task watchdog does not count asleep
    _run_timers()


def wake_reason():
    return esp32_state.reason


def disable_irq():
    return 0


def enable_irq(state):
    pass


def reset():
    esp32_state.resets += 1
    raise SystemExit("fake esp32: machine.reset()")


def unique_id():
    return b"\x24\x0a\xc4\x00\x11\x22"
