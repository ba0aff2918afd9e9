"""Shuffle quality: exact distances, the machine's kernels, routines, lower bounds and the report.

Modules: estimate (a figure with its error and kind), exact (Bayer-Diaconis
distances), kernels (vectorised passes), routines (stack-trade, pile-trade and
chunked simulation), bounds (Monte Carlo lower bounds), enumerate (exact
distributions of small packs), report_routine (what the report asks of a
routine), report (every figure of `shuffler quality`), results (those
figures as typed results), plot and words (how they are shown).
Nothing here imports shuffling.exact_mode, which builds on these tools.
"""
