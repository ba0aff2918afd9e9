"""State of the fake esp32 port, shared by the fake machine and esp32
modules and read by the tests."""

now = 0  # ms
levels = {}
log = []
timers = []
wdt = None
wdt_timeout = 0
wdt_fed = 0
resets = 0
adc_uv = 1600000
adc_reads = 0
noise = 1
touch_threshold = 0
touch_error = False
touch_reads = 0
touch_at = -1  # fake clock time a finger lands on the pad (-1: never)
touch_end = -1  # fake clock time it leaves again (-1: it stays)
touch_base = 700
sensor_power_pin = 32
sleeps = []
reason = 0
# What machine_rtc_config holds (ports/esp32/modesp32.c).
wake_touch = False
wake_ulp = False
wake_ext0_pin = -1
wake_gpio_pins = 0


def touch_value():
    if touch_at >= 0 and now >= touch_at and (touch_end < 0 or now < touch_end):
        return touch_base // 4
    return touch_base
