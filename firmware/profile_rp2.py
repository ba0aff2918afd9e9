"""Board profile: Raspberry Pi Pico (RP2040) with a TTP223 touch module.
Data only, what differs from profile_common; see hardware/."""

try:
    from profile_common import merged
except ImportError:  # CPython: the host and the tests import the firmware as a package
    from firmware.profile_common import merged  # type: ignore[no-redef,import-not-found]

PROFILE = merged({
    "name": "rp2",
    "driver": "board_rp2",
    "pins": {
        "touch": 15,  # TTP223 OUT, high while touched
        "motor_in1": 10,
        "motor_in2": 11,
        "motor_sleep": 12,
        "hx711_dout": 2,
        "hx711_sck": 3,
        "exit": 14,  # IR receiver output, low = beam broken
        "battery_adc": 26,  # ADC0, 1 M / 220 k divider
        "sensor_power": 13,  # load switch for the HX711 and the IR emitter
        "led": "LED",  # GP25 on a Pico; on a Pico W the LED is on the radio chip and GP25 its chip select
    },
    "pwm_hz": 20000,  # above hearing
    "exit_blocked_level": 0,  # receiver output while the beam is broken
    "battery_divider": (1220, 220),  # (R1 + R2, R2) in kilo-ohm: 1 M over 220 k
    "touch_kind": "digital",  # raw is 1 while touched
    "touch_baseline_min": 0,
    "touch_baseline_max": 0,  # a touch module has no baseline: must read 0 at rest
    # USB holds back what the port cannot take, so nothing is dropped while
    # a card moves; polling the USB stack mid-card stalled the card loop on
    # the emulated Pico (double feeds with the fast mechanism). Drained
    # between cards and in every wait with the motor still.
    "serial_drain_moving": False,
})
del merged
