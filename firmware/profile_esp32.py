"""Board profile: ESP32 DevKitC (ESP32-WROOM-32). Data only, what differs
from profile_common; see hardware/."""

try:
    from profile_common import merged
except ImportError:  # CPython: the host and the tests import the firmware as a package
    from firmware.profile_common import merged  # type: ignore[no-redef,import-not-found]

PROFILE = merged({
    "name": "esp32",
    "driver": "board_esp32",
    "pins": {
        "touch": 4,  # T0, a copper pad under the lid
        "motor_in1": 25,  # DRV8833 AIN1
        "motor_in2": 26,  # DRV8833 AIN2
        "motor_sleep": 27,  # DRV8833 nSLEEP, low = driver off
        "hx711_dout": 16,
        "hx711_sck": 17,
        "exit": 34,  # IR receiver output, low = beam broken
        "battery_adc": 35,  # 1 M / 220 k divider from the 9 V battery
        "sensor_power": 32,  # load switch for the HX711 and the IR emitter
        "led": 2,
    },
    "pwm_hz": 20000,  # above hearing
    "exit_blocked_level": 0,  # receiver output while the beam is broken
    "battery_divider": (1220, 220),  # (R1 + R2, R2) in kilo-ohm: 1 M over 220 k
    # Light sleep wakes on the touch pad or after a slice; then it listens
    # for the serial line (the UART is stopped while asleep).
    # The REPL's UART: a byte arriving while the stdin ring is full is
    # dropped (ports/esp32/mphalport.c, uart.c); the firmware drains it in
    # every wait (link.py). The simulated board copies these figures.
    "uart_rx_ring": 260,
    "uart_baud": 115200,
    "sleep_slice_ms": 1000,
    "sleep_listen_ms": 20,
    # Samples of ADC, touch and clock noise hashed with os.urandom per 32
    # random bytes for exact mode (os.urandom alone is pseudo-random with
    # the radio off).
    "noise_samples": 256,
    # After Ctrl-C the watchdog (which cannot be stopped) gets this timeout,
    # so a REPL session survives soft resets; then the firmware starts again.
    "wdt_handover_ms": 3600000,
})
del merged
