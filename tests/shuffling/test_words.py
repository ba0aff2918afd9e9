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


@pytest.mark.parametrize("routine, n, capacity, expected", [
    ("stack-trade", 52, 104, "nothing to trade"),
    ("stack-trade", 162, 104, "two loads of 81) and put its left pile on its right pile, then trade the top 40 cards "
                              "of load A for the top 40 cards of load B."),
    ("stack-trade", 3, 2, "two loads of 2 and 1) and put its left pile on its right pile, then trade the top card "
                          "of load A for the top card of load B."),
    ("stack-trade", 300, 104, "three loads of 100) and put its left pile on its right pile, then move the top 50 "
                              "cards of each load onto the next load, and those of load C onto load A."),
    ("stack-trade", 1000, 2, "500 loads of 2) and put its left pile on its right pile, then move the top card of "
                             "each load onto the next load, and those of the last load onto load A."),
    ("pile-trade", 52, 104, "left pile on the right pile"),
    ("pile-trade", 162, 104, "A's left pile, B's left pile, A's right pile and B's right pile"),
    ("pile-trade", 271, 104, "three loads: one of 91 and two of 90"),
])
def test_a_routine_s_round_reads_as_prose(routine, n, capacity, expected):
    from shuffling.quality.routines import ROUTINES

    text = ROUTINES[routine].description(n, capacity)
    assert expected in text
    if routine == "stack-trade" and len(load_sizes(n, capacity)) == 1:
        assert "half" not in text and "load A" not in text


def test_a_comparison_note_says_each_verdict_plainly():
    """The quality report's note on a pair of routines, worded from their verdicts
    (shuffling/quality/comparison.py; the verdicts are judged in test_comparison.py)."""
    from shuffling.quality.comparison import compare, comparison_notes
    from test_comparison import _exact, _mc, _routine, _upper

    pile = _routine("pile-trade", _exact(1.0, 0.98, 0.76))
    stack = _routine("stack-trade", [_mc(1.0, 0.0001), _mc(0.88, 0.001), _mc(0.59, 0.002)])
    assert [v.how for v in compare(stack, pile)] == ["both far", "not known", "not known"]
    (note,) = comparison_notes([stack, pile])
    assert note.startswith("stack-trade against pile-trade: after round 1, both are still far")
    assert "after rounds 2-3, whether stack-trade is closer to random than pile-trade is NOT KNOWN" in note
    pile = _routine("pile-trade", _exact(0.9, 0.5, 0.3))
    mc = [_mc(0.2, 0.01)] * 3
    stack = _routine("stack-trade", mc, mc, upper=[_upper(0.95), _upper(0.4), _upper(0.3)])
    assert [v.how for v in compare(stack, pile)] == ["not known, upper bound above", "closer (simulated)",
                                                     "not known, upper bound above"]
    (note,) = comparison_notes([stack, pile])
    assert "after round 2, stack-trade is closer to random than pile-trade by simulation" in note
    assert ("after rounds 1 and 3, whether stack-trade is closer to random than pile-trade is NOT KNOWN: "
            "stack-trade's lower bounds stay at or below pile-trade's exact distance, and no upper bound below "
            "pile-trade's is known") in note
