"""Shuffle quality: exact distances, the machine's kernels, routines and lower bounds.

Modules: estimate (a figure with its error and kind), exact (Bayer-Diaconis
distances), kernels (vectorised passes), routines (stack-trade, pile-trade and
chunked simulation), bounds (Monte Carlo lower bounds), enumerate (exact
distributions of small packs).
"""
