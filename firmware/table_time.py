"""Time at the table, as data: what a person takes for each kind of step,
and the machine's time besides the motor's. Plain integers in milliseconds.

The host's time model (shuffling/time_model.py) reads these
figures for every plan, guide and report; the device reads them to choose
the exact routine with the least modelled time (exact_routes.py), so both
sides choose alike. The motor's time per card comes from
hardware/mechanism.py on the host; the device, which cannot import it,
keeps CARD_MS, that figure at the nominal drive (a test checks the two
agree).
"""

# The firmware's own time per card besides the mechanism's: the beam's clear
# debounce (8 % of a card's time, at least 2 ms), the progress line, the
# battery reading.
FIRMWARE_CARD_MS = 3
# From the touch to the first card: the touch's 30 ms debounce and the
# tray's count (8 load-cell readings at 80 a second).
PASS_START_MS = 130
# A card at the nominal drive (a fresh 9 V battery at 65 % duty), the
# firmware's part included: hardware/mechanism.py's card_ms + FIRMWARE_CARD_MS.
CARD_MS = 64

# Milliseconds a person takes for each kind of step, by the step's kind name
# (shuffling/steps.py). Handling a load: putting it in and lifting
# off its piles; a trade: stacking, counting out, cutting.
HANDLING_MS = {
    "cut": 8000,  # square the pack and cut it into loads
    "putintray": 3000,
    "reload": 6000,  # both piles off the machine, the left on the right, back in the tray
    "touch": 1000,
    "lift": 4000,  # both piles off the machine, kept apart
    "stack": 3000,
    "move": 6000,  # count cards from one load to another
    "evenout": 5000,
    "draw": 6000,  # the next round's loads from the stacks' tops
    "gather": 3000,
    "swap": 4000,
    "unload": 3000,
    "setaside": 5000,
    "fix": 10000,
    "collect": 15000,  # every card into one pack, in any order
    "roundsummary": 0,  # a sentence in a report, not a thing done
}
