"""Board profiles: the figures every board shares. Each board's profile
(profile_esp32.py, profile_rp2.py, profile_sim.py) holds only what differs
on it, as data, and merged() puts that over these. See hardware/."""

import sys

_DEFAULTS = {
    "motor_duty": 65,  # 65 % of 9 V: about the 6 V the motor is wound for
    "card_timeout_ms": 400,
    "block_max_ms": 1000,
    "brake_ms": 5,
    "idle_sleep_s": 300,
    "touch_pct": 70,
    "debounce_ms": 30,
    "progress_every": 1,
}

# What every board has, the simulated one too (the parts' figures are each
# hardware board's own). name and driver are here so that they fill slots
# of this literal: a key added later grows the dict's table.
_FIGURES = {
    "name": None,  # each board's own
    "driver": None,  # the module with the board's driver
    "capacity": 104,
    "sensor_settle_ms": 400,  # HX711 after power-up (and after a light sleep)
    "touch_kind": "capacitive",  # raw falls when touched
    "touch_baseline_min": 200,
    "touch_baseline_max": 4000,
    "stack_samples": 8,
    "stack_raw_min": -8000000,
    "stack_raw_max": 8000000,
    "stack_per_card_min": 50,  # raw counts per card below this: implausible
    "stack_cal_default": None,  # (tare, counts per card), or None: must be calibrated on the board
    "battery_min_mv": 3000,  # below: no battery or a broken divider
    "battery_max_mv": 10500,
    "battery_warn_mv": 7200,
    "battery_cutoff_mv": 6400,  # the H-bridge and regulator stop working below this
    "battery_sag_mv": 400,  # drop under motor load
    "battery_per_card_mv": 1,  # drain per card dealt
    "wdt_ms": 4000,
    "poll_ms": 1,
    "idle_poll_ms": 20,
    # No light sleep this long after the last line from a host: an ESP32
    # asleep loses serial bytes, so a host that is talking keeps it awake.
    "host_awake_ms": 60000,
    "heap_lock_pass": False,  # proven on the unix port; not risked on a device
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
    "defaults": _DEFAULTS,
}


def merged(own):
    """The shared figures with a board's own over them ("defaults" key by
    key). The dict is handed over, not copied, and this module leaves
    sys.modules: the next import builds fresh figures, and once the board's
    profile drops the name merged nothing of this module stays on the heap."""
    for k in own:
        if k == "defaults":
            _DEFAULTS.update(own[k])
        else:
            _FIGURES[k] = own[k]
    sys.modules.pop(__name__, None)
    return _FIGURES
