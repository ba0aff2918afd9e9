"""The names of places on the card table and the words for counts, as the
steps (shuffling/steps.py) say them."""
from __future__ import annotations

PACK = "pack"
ASIDE = "aside"
LEFT_STACK = "left stack"
RIGHT_STACK = "right stack"


def left_of(load: str) -> str:
    return f"{load}.left"


def right_of(load: str) -> str:
    return f"{load}.right"


def cards(n: int) -> str:
    """'1 card', '81 cards'."""
    return f"{n} card{'s' * (n != 1)}"


def group(first: str, last: str) -> str:
    """The stack that holds loads `first` to `last` before it is split into them."""
    return f"{first}-{last}"


def place(name: str) -> str:
    """A place on the table in words: 'load A', "A's left pile", 'the left stack',
    'the stack for loads P to R'."""
    if name == PACK:
        return "the pack"
    if name == ASIDE:
        return "the cards kept aside"
    if name in (LEFT_STACK, RIGHT_STACK):
        return f"the {name}"
    if name.endswith(".left") or name.endswith(".right"):
        load, side = name.rsplit(".", 1)
        return f"{load}'s {side} pile"
    if "-" in name:
        first, last = name.split("-", 1)
        return f"the stack for loads {first} to {last}"
    return f"load {name}"


_SMALL = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")


def number(n: int) -> str:
    """Zero to ten in words, larger counts in figures."""
    return _SMALL[n] if 0 <= n < len(_SMALL) else f"{n:,}"


def loads_phrase(sizes: list[int] | tuple[int, ...]) -> str:
    """The loads of a pack: 'two loads of 81', 'two loads of 55 and 54',
    'three loads: one of 91 and two of 90'. Sizes differ by at most one,
    larger first (routines.load_sizes)."""
    sizes = list(sizes)
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


def _count(n: int | None, about: bool = False) -> str:
    return "" if n is None else f" ({'about ' if about else ''}{cards(n)})"


__all__ = ["PACK", "ASIDE", "LEFT_STACK", "RIGHT_STACK", "left_of", "right_of", "cards", "group", "place",
           "number", "loads_phrase"]
