"""The feed mechanism's timing, as data: what the simulated world moves by,
what the firmware's thresholds are derived from (firmware/profile_*.py,
checked against this by tests/firmware/test_fw_mechanism.py), what the
power budget (hardware/power_budget.py) charges the motor for and what the
time model (shuffling/time_model.py) deals a pass in.

Plain data and integer arithmetic: it imports under MicroPython (the
simulated world) and CPython alike. Lengths in micrometres, voltages in
millivolts, times in milliseconds.

The feed, as fast as the Lotus (a pass of about 81 cards in about five
seconds): a Pololu 10:1 Micro Metal Gearmotor MP 6V (item #2363; #2377
with the extended rear shaft; 2200 rpm without load at 6 V, Pololu's
micro metal gearmotor datasheet) turns a 32 mm rubber roller (the
Pololu Wheel 32x7mm, whose hub takes the motor's 3 mm D shaft) under the
tray. The roller pushes the bottom card out through the exit throat, long
edge first, and the card blocks the exit beam for its whole length. At
65 % of 9 V the motor sees about 5.9 V and, pushing one card, turns at
about 1560 rpm (26 rev/s, about 70 % of its speed without load): a card
moves at 2.6 m/s and blocks the beam for about 33 ms. At fixed PWM duty a
DC motor's speed follows the average voltage it sees, so the card slows as
the battery runs down: from 9.5 V to 6.4 V at 65 % duty a card blocks the
beam for 32 then 47 ms.

The throat is long: a card's leading edge rests 40 mm before the beam, so
a second card dragged along with the first is still short of the beam
when the firmware stops the motor for a card that blocks it too long
(130 % of a card's time: the next card moves 0.3 card lengths, 27 mm, by
then), and the count of cards left in the tray tells a double feed (two
cards out) from a beam that reads blocked with one card out.
"""

MECHANISM = {
    "card_length_um": 88900,  # poker size 63.5 x 88.9 mm, fed long edge first
    "roller_diameter_um": 32000,  # Pololu Wheel 32x7mm
    "feed_gap_um": 40000,  # a card's leading edge at rest to the exit beam
    "spin_up_ms": 8,  # from rest to speed, no card movement counted before
    # Roller speed per volt of average drive (battery mV x duty) with a card
    # in the feed: 26 rev/s at 5.85 V, in milli-rev/s per volt.
    "rps_milli_per_volt": 4450,
    "motor_ma_per_volt": 50,  # average motor current per volt of drive, under a card's drag
    "double_offset_pct": 50,  # a second card riding along starts half a card behind
    "card_jitter_pct": 3,  # card-to-card spread of the feed speed (slip, wear)
    # A flicker of the beam at a card's edge (a worn corner, a lifted edge)
    # lasts while the card moves this far.
    "flicker_um": 1500,
}

PI_MILLI = 3142
BRAKE_MS = 5  # the boards' brake_ms: the roller brakes this long after each card


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


def card_ms(mv, duty_pct, m=MECHANISM):
    """The motor's time for one card: to the beam, through it, the brake."""
    return feed_ms(mv, duty_pct, m) + block_ms(mv, duty_pct, m) + BRAKE_MS


def flicker_ms(mv, duty_pct, m=MECHANISM):
    """How long an edge's flicker lasts (at least 1 ms)."""
    t = m["flicker_um"] // speed_um_per_ms(mv, duty_pct, m)
    return t if t > 0 else 1


def motor_ma(mv, duty_pct, m=MECHANISM):
    """Battery current while the motor feeds a card."""
    return m["motor_ma_per_volt"] * drive_mv(mv, duty_pct) // 1000
