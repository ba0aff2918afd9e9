"""The cards the tray weighs, as data: a card's weight for each card stock
and what the load cell under the tray gives for a gram, so that `shuffler
setup` can tell a per-card figure that no card gives (a deck miscounted by
half, a hand on the tray, something under it) from one that may be right.

What the board cannot see: how many cards the person put in. A deck of 50
counted as 52 gives a per-card figure 4 % low, which a card of some stock
could give; only a second count, of another number of cards, shows it
(host/setup.py). Plain data and integer arithmetic.
"""

# A poker-size card (63.5 x 88.9 mm) by its stock, in milligrams: paper
# (casino and club cards, 0.28 to 0.31 mm) and plastic (PVC).
STOCK_MG = {"paper": (1600, 2000), "plastic": (2300, 2700)}
# What the load cell and its HX711 give a gram, as built here (hardware/README.md:
# a card of about 1.8 g): the simulated world's cards weigh 1.8 g and read
# 760 (simulator/virtual/board/sim_world.py STACK_PER_CARD).
COUNTS_PER_G = 422
# A bar load cell's rated output is within this of its nominal (1.0 +- 0.15
# mV/V): one cell gives this much more or less a gram than another.
SENSITIVITY_PCT = 15


def per_card_range() -> tuple[int, int]:
    """The counts a card of any stock gives on any such load cell: (lowest, highest)."""
    lo_mg = min(lo for lo, _ in STOCK_MG.values())
    hi_mg = max(hi for _, hi in STOCK_MG.values())
    return (lo_mg * COUNTS_PER_G * (100 - SENSITIVITY_PCT) // 100_000,
            -(-hi_mg * COUNTS_PER_G * (100 + SENSITIVITY_PCT) // 100_000))
