"""Exact mode: the firmware deals every card by one bit of a random code.

With a fixed set of N distinct codes of b = ceil(log2 N) bits, assigned to the
cards uniformly at random, b pile-trade rounds carry out an LSD radix sort on
the codes, so the pack ends in an exactly uniform random order.

Modules: codes (code set, load sizes, the unbiased code draw), physical (the
pass and gathering as docs/mechanism.md fixes them, and the person's steps),
uniformity (exhaustive proofs for small packs), mistakes (what a fault costs),
quality (per-round distance from uniform, exact mode against random mode),
report_routine (exact mode as a routine of the quality report), onlooker
(what counting a routine's piles tells of the order).
"""
