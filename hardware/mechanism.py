"""The feed mechanism's timing, as data: what the simulated world moves by,
what the firmware's thresholds are derived from (firmware/profile_*.py,
checked against this by tests/firmware/test_fw_mechanism.py) and what the
power budget (hardware/power_budget.py) charges the motor for.

Plain data and integer arithmetic: it imports under MicroPython (the
simulated world) and CPython alike. Lengths in micrometres, voltages in
millivolts, times in milliseconds.

The feed: an N20 gear motor (6 V winding, about 300 rpm) turns a rubber
roller of 22 mm under the tray; the roller pushes the bottom card out
through the exit throat, long edge first, and the card blocks the exit beam
for its whole length. At fixed PWM duty a DC motor's speed follows the
average voltage it sees, so the card slows as the battery runs down: from
9.5 V to 6.4 V at 65 % duty the roller turns about 5.0 then 3.4 rev/s
(33 % slower), and a card blocks the beam for 255 then 380 ms.
"""

MECHANISM = {
    "card_length_um": 88900,  # poker size 63.5 x 88.9 mm, fed long edge first
    "roller_diameter_um": 22000,
    "feed_gap_um": 12000,  # a card's leading edge at rest to the exit beam
    "spin_up_ms": 30,  # from rest to speed, no card movement counted before
    # Roller speed per volt of average drive (battery mV x duty): 5.0 rev/s
    # at 9.5 V and 65 % duty, in milli-rev/s per volt.
    "rps_milli_per_volt": 810,
    "motor_ma_per_volt": 40,  # average motor current per volt of drive, under a card's drag
    "double_offset_pct": 50,  # a second card riding along starts half a card behind
    "card_jitter_pct": 3,  # card-to-card spread of the feed speed (slip, wear)
}

PI_MILLI = 3142


def drive_mv(mv, duty_pct):
    """Average voltage across the motor."""
    return mv * duty_pct // 100


def speed_um_per_ms(mv, duty_pct, m=MECHANISM):
    """The card's speed: roller circumference x rev/s."""
    rps_milli = m["rps_milli_per_volt"] * drive_mv(mv, duty_pct) // 1000
    return PI_MILLI * m["roller_diameter_um"] // 1000 * rps_milli // 1000000


def block_ms(mv, duty_pct, m=MECHANISM):
    """How long one card blocks the exit beam."""
    return m["card_length_um"] // speed_um_per_ms(mv, duty_pct, m)


def feed_ms(mv, duty_pct, m=MECHANISM):
    """From the motor's start until the card reaches the beam."""
    return m["spin_up_ms"] + m["feed_gap_um"] // speed_um_per_ms(mv, duty_pct, m)


def motor_ma(mv, duty_pct, m=MECHANISM):
    """Battery current while the motor feeds a card."""
    return m["motor_ma_per_volt"] * drive_mv(mv, duty_pct) // 1000
