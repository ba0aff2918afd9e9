"""Pack presets match the card counts the rules give."""
import pytest

from shuffling.limits import MAX_PACK_CARDS
from shuffling.packs import PACKS, UnknownPackError, custom_pack, get_pack
from shuffling.start_orders import start_order


@pytest.mark.parametrize(
    "name, decks, jokers, cards",
    [
        ("samba", 3, 6, 162),
        ("bolivia", 3, 6, 162),
        ("brazilian", 3, 6, 162),
        ("chile", 3, 6, 162),
        ("mexicana", 3, 6, 162),
        ("canasta", 2, 4, 108),
        ("cuban-canasta", 2, 4, 108),
        ("hand-and-foot", 5, 10, 270),
        ("modern-samba", 6, 12, 324),
        ("super-samba", 7, 14, 378),
        ("carolina", 8, 16, 432),
        ("bridge", 1, 0, 52),
        ("deck", 1, 0, 52),
    ],
)
def test_preset_counts(name, decks, jokers, cards):
    pack = get_pack(name)
    assert (pack.decks, pack.jokers, pack.cards) == (decks, jokers, cards)
    assert pack.name == name and pack.title and pack.notes


def test_jokers_spread_over_decks():
    for pack in PACKS.values():
        per_deck = [pack.jokers_in_deck(d) for d in range(pack.decks)]
        assert sum(per_deck) == pack.jokers
        assert max(per_deck) - min(per_deck) <= 1


def test_names_are_forgiving_about_case_and_separators():
    assert get_pack("Hand_and_Foot") is get_pack("hand-and-foot")
    assert get_pack(" SAMBA ") is get_pack("samba")


def test_unknown_pack_lists_the_valid_ones():
    with pytest.raises(UnknownPackError) as err:
        get_pack("pinochle")
    message = str(err.value)
    assert "pinochle" in message
    for name in PACKS:
        assert name in message


def test_one_card_limit_covers_every_preset():
    assert max(p.cards for p in PACKS.values()) <= MAX_PACK_CARDS == 1000


def test_custom_pack_is_known_only_by_its_size():
    pack = custom_pack(100)
    assert pack.cards == 100 and pack.decks == 0 and pack.name == "custom"
    assert custom_pack(MAX_PACK_CARDS).cards == MAX_PACK_CARDS
    with pytest.raises(ValueError, match="no faces"):
        start_order("new", pack)


@pytest.mark.parametrize("bad", [0, -1, MAX_PACK_CARDS + 1, True, 2.5])
def test_custom_pack_refuses_bad_sizes(bad):
    with pytest.raises(ValueError):
        custom_pack(bad)
