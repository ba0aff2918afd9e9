"""Card faces and the starting orders a pack can be in before it is shuffled.

A starting order is an array `face_of_label`: label i (the card's position in
the starting order, counted from the top) -> card id. Card ids number the
pack's physical cards in new-deck order, so `faces.rank[face_of_label[i]]`
is the rank of the i-th card from the top.

Conventions used throughout the project:

* ranks 2..14 (11 J, 12 Q, 13 K, 14 A); jokers have rank 0 and suit -1;
* suits 0 spades, 1 diamonds, 2 clubs, 3 hearts (diamonds and hearts red);
* new-deck order, top to bottom of the face-down deck: A-K of spades,
  A-K of diamonds, K-A of clubs, K-A of hearts, then that deck's jokers;
  the decks of a multi-deck pack are stacked, deck 0 on top.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from shuffling.packs import Pack

JOKER = 0
WILD_RANKS = (2, JOKER)
NATURAL_RANKS = tuple(range(4, 15))  # fours to aces
SUIT_SYMBOLS = ("S", "D", "C", "H")
RED_SUITS = (1, 3)
RANK_NAMES = {11: "J", 12: "Q", 13: "K", 14: "A"}
# The five possible sambas in a suit: seven in a row, no threes, no wilds.
SAMBA_STARTS = (4, 5, 6, 7, 8)
SAMBA_LENGTH = 7


@dataclass(frozen=True)
class Faces:
    """Face of every physical card of a pack, indexed by card id."""

    rank: np.ndarray
    suit: np.ndarray
    deck: np.ndarray

    @property
    def cards(self) -> int:
        return int(self.rank.size)

    def name(self, card: int) -> str:
        r = int(self.rank[card])
        if r == JOKER:
            return "Jk"
        return f"{RANK_NAMES.get(r, str(r))}{SUIT_SYMBOLS[int(self.suit[card])]}"

    def is_wild(self, card: int) -> bool:
        return int(self.rank[card]) in WILD_RANKS

    def is_red_three(self, card: int) -> bool:
        return int(self.rank[card]) == 3 and int(self.suit[card]) in RED_SUITS


def _one_deck() -> list[tuple[int, int]]:
    """(rank, suit) of a 52-card deck in new-deck order."""
    up = [2 + i for i in range(13)]
    ace_first = [14] + up[:-1]  # A, 2, ..., K
    order: list[tuple[int, int]] = []
    order += [(r, 0) for r in ace_first]
    order += [(r, 1) for r in ace_first]
    order += [(r, 2) for r in reversed(ace_first)]
    order += [(r, 3) for r in reversed(ace_first)]
    return order


def pack_faces(pack: Pack) -> Faces:
    """The faces of `pack` in new-deck order (card id = position in that order)."""
    if pack.loose:
        raise ValueError(f"{pack.title} has {pack.loose} cards outside whole decks, so no faces")
    rank: list[int] = []
    suit: list[int] = []
    deck: list[int] = []
    for d in range(pack.decks):
        for r, s in _one_deck():
            rank.append(r)
            suit.append(s)
            deck.append(d)
        for _ in range(pack.jokers_in_deck(d)):
            rank.append(JOKER)
            suit.append(-1)
            deck.append(d)
    return Faces(np.array(rank, np.int8), np.array(suit, np.int8), np.array(deck, np.int16))


# The kinds of meld on the table after a hand of Samba.
SAMBA, PURE_CANASTA, MIXED_CANASTA, SEQUENCE, GROUP = "samba", "pure canasta", "mixed canasta", "sequence", "group"


@dataclass(frozen=True)
class Meld:
    """A meld gathered from the table: its kind, owning team and card ids."""

    kind: str  # SAMBA, PURE_CANASTA, MIXED_CANASTA, SEQUENCE or GROUP
    team: int
    cards: tuple[int, ...]


@dataclass(frozen=True)
class StartOrder:
    """A pack's order before shuffling, with where each card came from."""

    name: str
    faces: Faces
    face_of_label: np.ndarray  # label -> card id
    meld_of_label: np.ndarray  # label -> index into `melds`, -1 if not in a meld
    melds: tuple[Meld, ...] = ()
    sections: tuple[tuple[str, int, int], ...] = field(default=())  # (name, first label, end)

    @property
    def cards(self) -> int:
        return int(self.face_of_label.size)


def new_deck_order(pack: Pack) -> StartOrder:
    faces = pack_faces(pack)
    n = faces.cards
    return StartOrder(
        "new", faces, np.arange(n), np.full(n, -1), sections=(("new decks", 0, n),)
    )


def random_order(pack: Pack, seed: int = 0) -> StartOrder:
    faces = pack_faces(pack)
    n = faces.cards
    order = np.random.default_rng(seed).permutation(n)
    return StartOrder("random", faces, order, np.full(n, -1), sections=(("random", 0, n),))


class _Pool:
    """Cards not yet placed, looked up by face."""

    def __init__(self, faces: Faces, rng: np.random.Generator) -> None:
        self.rng = rng
        self.faces = faces
        self.left: set[int] = set(range(faces.cards))

    def copies(self, rank: int, suit: int | None = None) -> list[int]:
        f = self.faces
        return sorted(
            c for c in self.left
            if int(f.rank[c]) == rank and (suit is None or int(f.suit[c]) == suit)
        )

    def wilds(self) -> list[int]:
        return sorted(c for c in self.left if self.faces.is_wild(c))

    def take(self, cards: list[int]) -> list[int]:
        for c in cards:
            self.left.remove(c)
        return cards

    def pick(self, candidates: list[int], k: int) -> list[int] | None:
        if len(candidates) < k:
            return None
        idx = self.rng.choice(len(candidates), size=k, replace=False)
        return self.take([candidates[i] for i in idx])

    def rest(self, k: int) -> list[int]:
        k = min(k, len(self.left))
        return self.pick(sorted(self.left), k) or []


def _samba(pool: _Pool, team: int) -> Meld | None:
    rng = pool.rng
    for _ in range(8):
        suit = int(rng.integers(4))
        start = int(rng.choice(SAMBA_STARTS))
        cards: list[int] = []
        for r in range(start, start + SAMBA_LENGTH):
            have = pool.copies(r, suit)
            if not have:
                break
            cards.append(have[int(rng.integers(len(have)))])
        if len(cards) == SAMBA_LENGTH:
            return Meld(SAMBA, team, tuple(pool.take(cards)))
    return None


def _sequence(pool: _Pool, team: int) -> Meld | None:
    rng = pool.rng
    for _ in range(8):
        length = int(rng.integers(3, 7))
        suit = int(rng.integers(4))
        start = int(rng.integers(4, 15 - length + 1))
        picks = [pool.copies(r, suit) for r in range(start, start + length)]
        if all(picks):
            cards = [p[int(rng.integers(len(p)))] for p in picks]
            return Meld(SEQUENCE, team, tuple(pool.take(cards)))
    return None


def _group(pool: _Pool, team: int, size: int, complete: bool) -> Meld | None:
    """Cards of one rank, with wilds only as the rules allow them."""
    rng = pool.rng
    for _ in range(8):
        rank = int(rng.choice(NATURAL_RANKS))
        # At most two wilds, and naturals at least twice the wilds.
        max_wild = min(2, size // 3)
        n_wild = int(rng.integers(0, max_wild + 1))
        naturals = pool.copies(rank)
        if len(naturals) < size - n_wild or len(pool.wilds()) < n_wild:
            continue
        nat = pool.pick(naturals, size - n_wild) or []
        wild = pool.pick(pool.wilds(), n_wild) or []
        cards = nat + wild
        rng.shuffle(cards)
        kind = (MIXED_CANASTA if n_wild else PURE_CANASTA) if complete else GROUP
        return Meld(kind, team, tuple(cards))
    return None


def after_samba_hand(pack: Pack, seed: int = 0, players: int = 4) -> StartOrder:
    """The pack as a table gathers it after a hand of Samba.

    Generated from the rules with a seeded RNG: the team that went out has
    one or two sambas and one or two canastas, the other team up to one
    samba and two canastas, and both have a few shorter sequences and groups;
    melded red threes lie with their team's melds. Gathered top to bottom:
    team 0's melds meld by meld, its red threes, team 1's melds and red
    threes, then the discard pile, the stock, and the players' hands (the
    player who went out holds none). Bigger packs get proportionally more
    melds. Needs at least two decks (a canasta needs seven of one rank).
    """
    if pack.decks < 2:
        raise ValueError(f"the samba start needs at least two decks; {pack.name} has {pack.decks}")
    faces = pack_faces(pack)
    rng = np.random.default_rng(seed)
    pool = _Pool(faces, rng)
    melds, table = _lay_melds(pool, rng, faces, max(1, round(pack.decks / 3)))
    discard, stock, hands = _leftovers(pool, rng, players)
    gathered = _Gathering()
    for section, cards, meld in table:
        gathered.put(section, cards, meld)
    gathered.put("discard pile", discard, -1)
    gathered.put("stock", stock, -1)
    for p, hand in enumerate(hands):
        if hand:
            gathered.put(f"hand {p}", hand, -1)
    return StartOrder(
        "samba",
        faces,
        np.array(gathered.face_of_label, dtype=np.int64),
        np.array(gathered.meld_of_label, dtype=np.int64),
        tuple(melds),
        tuple(gathered.sections),
    )


def _leftovers(pool: "_Pool", rng: np.random.Generator,
               players: int) -> tuple[list[int], list[int], list[list[int]]]:
    """The cards no meld took: the discard pile, the stock and each player's
    hand (the player who went out holds none). Drawn after the melds, so a
    seed gives the same hand as ever."""
    discard = pool.rest(int(rng.integers(4, 21)))
    out_player = int(rng.choice(range(0, players, 2)))
    hand_sizes = [0 if p == out_player else int(rng.integers(3, 19)) for p in range(players)]
    hand_cards = pool.rest(min(sum(hand_sizes), len(pool.left)))
    stock = pool.rest(len(pool.left))
    rng.shuffle(stock)
    hands = []
    at = 0
    for size in hand_sizes:
        hands.append(hand_cards[at:at + size])
        at += len(hands[-1])
    return discard, stock, hands


def _lay_melds(pool: "_Pool", rng: np.random.Generator, faces: Faces,
               scale: int) -> tuple[list[Meld], list[tuple[str, list[int], int]]]:
    """Both teams' melds and red threes as they lie on the table: the melds,
    and the table's sections in gathering order (section, cards, meld index
    or -1)."""
    plan = [
        # (team, sambas, canastas, short melds)
        (0, int(rng.integers(1, 3)) * scale, int(rng.integers(1, 3)) * scale, int(rng.integers(0, 3)) * scale),
        (1, int(rng.integers(0, 2)) * scale, int(rng.integers(0, 3)) * scale, int(rng.integers(1, 4)) * scale),
    ]
    melds: list[Meld] = []
    table: list[tuple[str, list[int], int]] = []
    red_threes = [c for c in range(faces.cards) if faces.is_red_three(c)]
    for team, n_samba, n_canasta, n_short in plan:
        made: list[Meld | None] = []
        made += [_samba(pool, team) for _ in range(n_samba)]
        made += [_group(pool, team, 7 + int(rng.choice(3, p=[0.6, 0.25, 0.15])), True)
                 for _ in range(n_canasta)]
        for _ in range(n_short):
            if rng.random() < 0.5:
                made.append(_sequence(pool, team))
            else:
                made.append(_group(pool, team, int(rng.integers(3, 7)), False))
        for m in made:
            if m is not None:
                table.append((f"team {team} melds", list(m.cards), len(melds)))
                melds.append(m)
        # Red threes are laid down as they are drawn; about half have been.
        mine = [c for c in red_threes if c in pool.left and rng.random() < 0.3]
        if mine:
            table.append((f"team {team} red threes", pool.take(mine), -1))
    return melds, table


class _Gathering:
    """The pack as it is gathered, section by section, top first."""

    def __init__(self) -> None:
        self.face_of_label: list[int] = []
        self.meld_of_label: list[int] = []
        self.sections: list[tuple[str, int, int]] = []

    def put(self, section: str, cards: list[int], meld: int) -> None:
        start = len(self.face_of_label)
        self.face_of_label.extend(cards)
        self.meld_of_label.extend([meld] * len(cards))
        if self.sections and self.sections[-1][0] == section:
            self.sections[-1] = (section, self.sections[-1][1], len(self.face_of_label))
        else:
            self.sections.append((section, start, len(self.face_of_label)))


START_ORDERS = ("new", "samba", "random")


def start_order(kind: str, pack: Pack, seed: int = 0) -> StartOrder:
    """The starting order called `kind` ("new", "samba" or "random")."""
    if kind == "new":
        return new_deck_order(pack)
    if kind == "samba":
        return after_samba_hand(pack, seed)
    if kind == "random":
        return random_order(pack, seed)
    raise ValueError(f"unknown start {kind!r}; valid starts: {', '.join(START_ORDERS)}")
