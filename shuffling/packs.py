"""Pack presets: how many decks and jokers each game shuffles.

This module is the single source of pack sizes for the simulator and the
host tool. A deck is the standard 52 cards (13 ranks in 4 suits); jokers are
spread over the decks as evenly as possible, two per deck for every
multi-deck game here.
"""
from __future__ import annotations

from dataclasses import dataclass

from shuffling.limits import MAX_PACK_CARDS

DECK_SIZE = 52


@dataclass(frozen=True)
class Pack:
    """A pack of identical-backed cards shuffled together."""

    name: str
    title: str
    decks: int
    jokers: int
    notes: str = ""
    loose: int = 0  # cards outside whole decks: a pack known only by its size

    @property
    def cards(self) -> int:
        return self.decks * DECK_SIZE + self.jokers + self.loose

    def jokers_in_deck(self, deck: int) -> int:
        """Jokers that travel with deck `deck` (earlier decks take any remainder)."""
        base, extra = divmod(self.jokers, self.decks)
        return base + (1 if deck < extra else 0)


def _pack(name: str, title: str, decks: int, jokers: int, notes: str) -> Pack:
    return Pack(name=name, title=title, decks=decks, jokers=jokers, notes=notes)


_THREE_DECK = "three decks and six jokers"

PACKS: dict[str, Pack] = {
    p.name: p
    for p in (
        _pack("samba", "Samba", 3, 6, f"{_THREE_DECK}; 15 cards dealt to each of four players"),
        _pack("bolivia", "Bolivia", 3, 6, f"Samba's pack ({_THREE_DECK})"),
        _pack("brazilian", "Brazilian Canasta", 3, 6, f"Bolivia's pack ({_THREE_DECK})"),
        _pack("chile", "Chile", 3, 6, f"{_THREE_DECK}, 162 cards"),
        _pack("mexicana", "Mexicana", 3, 6, f"{_THREE_DECK}; 13 cards dealt to each player"),
        _pack("canasta", "Canasta", 2, 4, "two decks and four jokers"),
        _pack("cuban-canasta", "Cuban Canasta", 2, 4, "the standard 108-card canasta pack"),
        _pack("hand-and-foot", "Hand and Foot", 5, 10, "five decks; two jokers per deck assumed"),
        _pack("modern-samba", "Modern Samba", 6, 12, "six decks; two jokers per deck"),
        _pack("super-samba", "Super Samba", 7, 14, "seven decks; two jokers per deck"),
        _pack("carolina", "Carolina Samba", 8, 16, "eight decks with two jokers per deck"),
        _pack("bridge", "Single deck", 1, 0, "one standard 52-card deck, no jokers"),
        _pack("deck", "Single deck", 1, 0, "same as bridge: one 52-card deck"),
    )
}


def custom_pack(cards: int) -> Pack:
    """A pack known only by its number of cards (no decks, so no faces or melds)."""
    if isinstance(cards, bool) or not isinstance(cards, int) or not 1 <= cards <= MAX_PACK_CARDS:
        raise ValueError(f"a pack holds 1 to {MAX_PACK_CARDS} cards, not {cards!r}")
    return Pack(name="custom", title="Custom pack", decks=0, jokers=0,
                notes="a number of cards, no preset", loose=cards)


class UnknownPackError(ValueError):
    """Raised for a pack name that is not a preset."""


def get_pack(name: str) -> Pack:
    """The preset called `name` (case-insensitive; '_' and ' ' read as '-')."""
    key = name.strip().lower().replace("_", "-").replace(" ", "-")
    try:
        return PACKS[key]
    except KeyError:
        valid = ", ".join(sorted(PACKS))
        raise UnknownPackError(f"unknown pack {name!r}; valid packs: {valid}") from None
