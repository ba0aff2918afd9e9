"""Board profile: the simulated board (unix port). Data only, what differs
from profile_common."""

try:
    from profile_common import merged
except ImportError:  # CPython: the host and the tests import the firmware as a package
    from firmware.profile_common import merged  # type: ignore[no-redef,import-not-found]

PROFILE = merged({
    "name": "sim",
    "driver": "board_sim",  # found on MICROPYPATH (simulator/virtual/board)
    "stack_cal_default": (84000, 760),  # tare, counts per card: the sim's factory values
    "wdt_ms": 2000,
    "host_awake_ms": 5000,
    "heap_lock_pass": True,
    "block_ref_duty": 80,
    "block_ref_ms": 27,
    "defaults": {"motor_duty": 80},
})
del merged
