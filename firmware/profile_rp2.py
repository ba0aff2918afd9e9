"""Board profile: Raspberry Pi Pico (RP2040) with a TTP223 touch module.
Data only; see hardware/."""

PROFILE = {
    "name": "rp2",
    "driver": "board_rp2",
    "capacity": 104,
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
    "sensor_settle_ms": 400,  # HX711 after power-up
    "battery_divider": (1220, 220),
    "touch_kind": "digital",  # raw is 1 while touched
    "touch_baseline_min": 0,
    "touch_baseline_max": 0,  # a touch module has no baseline: must read 0 at rest
    "stack_samples": 8,
    "stack_raw_min": -8000000,
    "stack_raw_max": 8000000,
    "stack_per_card_min": 50,
    "stack_cal_default": None,
    "battery_min_mv": 3000,
    "battery_max_mv": 10500,
    "battery_warn_mv": 7200,
    "battery_cutoff_mv": 6400,
    "battery_sag_mv": 400,
    "battery_per_card_mv": 1,
    "wdt_ms": 4000,
    "poll_ms": 1,
    "idle_poll_ms": 20,
    # USB holds back what the port cannot take, so nothing is dropped while
    # a card moves; polling the USB stack mid-card stalled the card loop on
    # the emulated Pico (double feeds with the fast mechanism). Drained
    # between cards and in every wait with the motor still.
    "serial_drain_moving": False,
    # No light sleep this long after the last line from a host: an ESP32
    # asleep loses serial bytes, so a host that is talking keeps it awake.
    "host_awake_ms": 60000,
    "heap_lock_pass": False,
    # The mechanism (hardware/mechanism.py): one card blocks the exit beam
    # block_ref_ms at block_ref_mv and block_ref_duty; the firmware learns
    # the real figure (and the time from the motor's start to the beam)
    # from the cards it deals and scales both with the drive voltage. A card
    # blocking it double_pct % of that is a double feed; no card at the
    # beam within jam_pct % of the feed time (at least jam_min_ms) a jam; a
    # card has left once the beam reads clear beam_clear_pct % of its time
    # (at least beam_clear_min_ms: two polls).
    "block_ref_mv": 9000,
    "block_ref_duty": 65,
    "block_ref_ms": 33,
    "double_pct": 130,
    "jam_pct": 300,
    "jam_min_ms": 60,
    "beam_clear_pct": 8,
    "beam_clear_min_ms": 2,
    "defaults": {
        "motor_duty": 65,  # 65 % of 9 V: about the 6 V the motor is wound for
        "card_timeout_ms": 400,
        "block_max_ms": 1000,
        "brake_ms": 5,
        "idle_sleep_s": 300,
        "touch_pct": 70,
        "debounce_ms": 30,
        "progress_every": 1,
    },
}
