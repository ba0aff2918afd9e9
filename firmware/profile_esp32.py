"""Board profile: ESP32 DevKitC (ESP32-WROOM-32). Data only; see hardware/."""

PROFILE = {
    "name": "esp32",
    "driver": "board_esp32",
    "capacity": 104,
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
    "pwm_hz": 20000,  # above hearing
    "exit_blocked_level": 0,  # receiver output while the beam is broken
    "sensor_settle_ms": 400,  # HX711 after power-up
    "battery_divider": (1220, 220),  # (R1 + R2, R2) in kilo-ohm: 1 M over 220 k
    "touch_kind": "capacitive",
    "touch_baseline_min": 200,
    "touch_baseline_max": 4000,
    "stack_samples": 8,
    "stack_raw_min": -8000000,
    "stack_raw_max": 8000000,
    "stack_per_card_min": 50,
    "stack_cal_default": None,  # must be calibrated on the board
    "battery_min_mv": 3000,
    "battery_max_mv": 10500,
    "battery_warn_mv": 7200,
    "battery_cutoff_mv": 6400,
    "battery_sag_mv": 400,
    "battery_per_card_mv": 1,
    "wdt_ms": 4000,
    # After Ctrl-C the watchdog (which cannot be stopped) gets this timeout,
    # so a REPL session survives soft resets; then the firmware starts again.
    "wdt_handover_ms": 3600000,
    "poll_ms": 1,
    "idle_poll_ms": 20,
    # No light sleep this long after the last line from a host: an ESP32
    # asleep loses serial bytes, so a host that is talking keeps it awake.
    "host_awake_ms": 60000,
    "heap_lock_pass": False,  # proven on the unix port; not risked on the device
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
