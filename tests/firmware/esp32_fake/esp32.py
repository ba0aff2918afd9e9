"""A fake `esp32` module of MicroPython v1.28's esp32 port (classic ESP32:
touch, ext0, ext1, ULP). The wake rules are those of ports/esp32/modesp32.c:
wake_on_touch raises ValueError("no resources") while an ext0 pin or gpio
pins are armed; wake_on_ext0 and wake_on_gpio raise it while touch is armed
(wake_on_gpio also while the ULP is), even when called to disarm. Called
with pins None, wake_on_gpio keeps the pins armed before (only an empty
sequence disarms them). There is no wake_on_uart."""

import esp32_state

WAKEUP_ALL_LOW = False
WAKEUP_ANY_HIGH = True


def wake_on_touch(wake):
    if esp32_state.wake_ext0_pin != -1 or esp32_state.wake_gpio_pins != 0:
        raise ValueError("no resources")
    esp32_state.wake_touch = bool(wake)


def wake_on_ext0(pin=None, level=False):
    if esp32_state.wake_touch:
        raise ValueError("no resources")
    esp32_state.wake_ext0_pin = -1 if pin is None else pin.id


def wake_on_ext1(pins=None, level=False):
    pass


def wake_on_ulp(wake):
    if esp32_state.wake_ext0_pin != -1 or esp32_state.wake_gpio_pins != 0:
        raise ValueError("no resources")
    esp32_state.wake_ulp = bool(wake)


def wake_on_gpio(pins=None, level=False):
    if esp32_state.wake_ulp or esp32_state.wake_touch:
        raise ValueError("no resources")
    if pins is None:
        return  # the pins armed before stay armed
    bits = 0
    for p in pins:
        bits |= 1 << p.id
    esp32_state.wake_gpio_pins = bits
