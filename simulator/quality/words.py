"""Counts in words, for titles and routine descriptions that read as prose."""
from __future__ import annotations

__all__ = ["number", "loads_phrase"]

_SMALL = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")


def number(n: int) -> str:
    """Zero to ten in words, larger counts in figures."""
    return _SMALL[n] if 0 <= n < len(_SMALL) else f"{n:,}"


def loads_phrase(sizes: list[int]) -> str:
    """The loads of a pack: 'two loads of 81', 'two loads of 55 and 54',
    'three loads: one of 91 and two of 90'. Sizes differ by at most one,
    larger first (routines.load_sizes)."""
    if not sizes or max(sizes) - min(sizes) > 1 or sizes != sorted(sizes, reverse=True):
        raise ValueError(f"loads must be near-equal, larger first, not {sizes!r}")
    count = len(sizes)
    loads = "load" if count == 1 else "loads"
    big, small = sizes[0], sizes[-1]
    if big == small:
        return f"{number(count)} {loads} of {big}"
    if count == 2:
        return f"two loads of {big} and {small}"
    n_big = sizes.count(big)
    return f"{number(count)} loads: {number(n_big)} of {big} and {number(count - n_big)} of {small}"
