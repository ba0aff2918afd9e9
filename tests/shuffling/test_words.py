"""Counts in words for the report's titles and routine descriptions."""
import pytest

from shuffling.quality.routines import load_sizes
from shuffling.quality.words import loads_phrase, number


def test_numbers():
    assert [number(k) for k in (0, 1, 2, 10, 11, 1500)] == ["zero", "one", "two", "ten", "11", "1,500"]


@pytest.mark.parametrize(
    "n, capacity, text",
    [
        (52, 104, "one load of 52"),
        (162, 104, "two loads of 81"),
        (109, 104, "two loads of 55 and 54"),
        (271, 104, "three loads: one of 91 and two of 90"),
        (1000, 2, "500 loads of 2"),
    ],
)
def test_loads_read_as_prose(n, capacity, text):
    assert loads_phrase(load_sizes(n, capacity)) == text


@pytest.mark.parametrize("bad", [[], [81, 79], [80, 81]])
def test_loads_phrase_refuses_uneven_loads(bad):
    with pytest.raises(ValueError):
        loads_phrase(bad)


def test_the_guessing_note_gives_h_n_for_the_pack():
    from shuffling.quality.guessing import harmonic
    from shuffling.quality.words import guessing_note

    note = guessing_note(52, harmonic(52))
    assert "of the 52 they name right" in note and "H_N = 1 + 1/2 + ... + 1/52 = 4.54" in note


def test_the_deal_note_reads_the_melds_as_a_gap_to_a_random_deal():
    from shuffling.quality.words import deal_note

    note = deal_note({4: 0.0442, 3: 0.3964}, 4, 15)
    assert note.startswith("≥3 and ≥4 of one meld:") and "three or four cards" in note
    assert "gap to a random pack's (0.3964 and 0.0442)" in note and "0 is a random deal" in note


@pytest.mark.parametrize("kinds, said, unsaid", [
    ({"exact"}, ['"pass X"'], ["not before", "never"]),
    ({"exact", "lower-bound"}, ['"pass X"', '"not before pass X"'], ["never"]),
    ({"never"}, ['"never"'], ["pass X"]),
])
def test_the_passes_note_explains_only_the_answers_given(kinds, said, unsaid):
    from shuffling.quality.words import passes_note

    note = passes_note(kinds)
    assert all(s in note for s in said) and not any(u in note for u in unsaid)
