"""Every limit the simulator and the host tools apply, each named for what it limits.

One home per limit: modules import the name they need from here, and the
command-line tools word a value outside its range with `out_of_range`, so
`shuffler quality`, `plan` and `guide` refuse the same values in the same
words. Two limits live elsewhere because the code they guard runs on
MicroPython and cannot import this module: exact mode's card and load
limits in firmware/exact.py (copied below and checked equal by a test), and
the virtual board's tray room (simulator/virtual/board/sim_world.py).
"""
from __future__ import annotations

__all__ = [
    "MIN_PACK_CARDS",
    "MAX_PACK_CARDS",
    "MAX_EXACT_DISTANCE_CARDS",
    "MAX_EXACT_MODE_CARDS",
    "MAX_EXACT_MODE_LOADS",
    "MAX_ENUMERATION_CARDS",
    "MAX_POSITION_TABLE_CARDS",
    "MAX_EXACT_LAW_CARDS",
    "MAX_PAIR_LAW_CARDS",
    "MIN_CAPACITY",
    "MAX_CAPACITY",
    "MIN_ROUNDS",
    "MAX_ROUNDS",
    "MAX_SEARCH_ROUNDS",
    "MIN_SAMPLES",
    "MAX_SAMPLES",
    "out_of_range",
]

# Cards in a pack the host tools (quality, plan, guide) accept. The biggest
# preset has 432; every accepted pack gets exact distances from random, which
# needs MAX_PACK_CARDS <= MAX_EXACT_DISTANCE_CARDS (tested).
MIN_PACK_CARDS = 2
MAX_PACK_CARDS = 1000

# Largest pack whose exact Bayer-Diaconis distance is computed: each round
# sums an Eulerian row of N big integers, a fraction of a second at 1,000
# cards and growing quickly beyond; bigger packs get lower bounds only.
MAX_EXACT_DISTANCE_CARDS = 1000

# Cards and loads the device's exact mode handles: codes of at most 9 bits
# fit the firmware's array("H"), and loads are named A to Z. The firmware's
# own constants (firmware/exact.py MAX_CARDS, MAX_LOADS) are these.
MAX_EXACT_MODE_CARDS = 512
MAX_EXACT_MODE_LOADS = 26

# Pack size for exact enumeration of every arrangement (N! orders, times
# 2**N side vectors for a random round): 9 cards is still quick.
MAX_ENUMERATION_CARDS = 9

# Above this pack size the lower bounds keep no N x N card-position table.
MAX_POSITION_TABLE_CARDS = 1000

# Stack-trade's exact position laws (shuffling/quality/stack_trade_laws.py): the
# one-card chain multiplies N x N matrices once a round; the pair chain costs
# about n**4 / 10 operations a round per load of n cards, plus N x N matrix
# products between loads: about 0.1 s a round at 162 cards, 2 s at 432.
MAX_EXACT_LAW_CARDS = 500
MAX_PAIR_LAW_CARDS = 200

# Cards the machine holds (--capacity).
MIN_CAPACITY = 2
MAX_CAPACITY = 100_000

# Rounds a report, plan or guide accepts (--rounds).
MIN_ROUNDS = 1
MAX_ROUNDS = 100

# How far ahead an exact distance is followed to find the first round at or
# below a threshold; a threshold not reached by then is said to be so.
MAX_SEARCH_ROUNDS = 200

# Shuffles simulated per point in a report (--samples). The fewest is what
# the lower bounds can cross-fit on (shuffling.quality.bounds): shuffle i
# falls in part i mod 4 and each half needs a shuffle to measure on, and
# parts 0 and 2 both hold one from the third shuffle on.
MIN_SAMPLES = 3
MAX_SAMPLES = 10_000_000


def out_of_range(option: str, value: int, least: int, most: int, unit: str = "") -> str | None:
    """None when least <= value <= most, else one line saying what is allowed.

    `option` names the setting as the person typed it ("--rounds"); `unit`
    follows the figures ("cards"). Whole numbers only: a bool or a float is
    out of range too.
    """
    if not isinstance(value, bool) and isinstance(value, int) and least <= value <= most:
        return None
    tail = f" {unit}" if unit else ""
    shown = f"{value:,}" if isinstance(value, int) and not isinstance(value, bool) else repr(value)
    return f"{option} must be between {least:,} and {most:,}{tail}, not {shown}"
