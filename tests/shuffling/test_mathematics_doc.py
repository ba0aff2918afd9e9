"""docs/mathematics.md says what the computations give: stack-trade's figures at 162 cards, and the comparisons."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from shuffling.quality import stack_trade_laws as se
from shuffling.quality.riffle_distance import tv_riffle
from shuffling.quality.words import bound_figure

ROOT = Path(__file__).resolve().parents[2]
DOC = (ROOT / "docs" / "mathematics.md").read_text()
N, CAPACITY = 162, 104


def _table_row(label: str) -> list[str]:
    """The cells after the label of the stack-trade figures table's row `label`."""
    line = next(ln for ln in DOC.splitlines() if ln.startswith(f"| {label} |"))
    return [c.strip() for c in line.strip("|").split("|")[1:]]


def _section(start: str, end: str) -> str:
    text = DOC.split(start, 1)[1]
    return " ".join(text.split(end, 1)[0].split())


@pytest.fixture(scope="module")
def bounds() -> list[se.ExactBound]:
    found = se.exact_bounds(N, CAPACITY, 16)
    assert found is not None
    return found


def test_the_stack_trade_table_is_what_the_chains_give(bounds):
    one, two = _table_row("one card, best"), _table_row("two positions, best")
    pile = _table_row("pile-trade, exact")
    assert len(one) == len(two) == len(pile) == len(bounds) == 16
    for r, b in enumerate(bounds, start=1):
        # Four decimals, or two significant digits below 0.001, as the report prints a bound.
        assert one[r - 1] == bound_figure(b.one_card), r
        assert two[r - 1] == ("" if b.pair is None else bound_figure(b.pair)), r
        assert pile[r - 1] == f"{tv_riffle(N, r):.4f}", r
    # The pair chain runs through every round, and the pair is the stronger in each.
    assert all(b.pair is not None and b.pair > b.one_card and b.value == b.pair for b in bounds)


def test_the_pairs_the_doc_names_are_the_strongest_and_the_figures_it_compares_are_theirs(bounds):
    named = _table_row("the strongest pair of positions")
    candidates = se.candidate_position_pairs(N, CAPACITY)
    followed = [b for b in bounds if b.pair is not None]
    laws = se.pair_laws(N, CAPACITY, len(followed), candidates, of="positions")
    bottom_two = _table_row("bottom two of the first load (79, 80)")
    for r, b in enumerate(followed, start=1):
        tv = dict(zip(candidates, se.pair_tv(laws[r - 1])))
        best = max(tv.values())
        if named[r - 1] == "any":  # every pair searched gives the same figure to six decimals
            assert max(tv.values()) - min(tv.values()) < 5e-7, r
        else:
            a, c = (int(x) for x in named[r - 1].split(","))
            assert tv[(a, c)] == best and b.pair_positions == (a, c), r
        assert bottom_two[r - 1] == bound_figure(tv[(79, 80)]), r
    # "Pairs of cards followed forward are stronger after one round and weaker from round 2 on."
    forward = _table_row("two cards followed forward, best")
    cards = se.pair_laws(N, CAPACITY, 6, candidates, of="cards")
    for r, d in enumerate(cards, start=1):
        strongest = float(se.pair_tv(d).max())
        assert forward[r - 1] == f"{strongest:.4f}", r
        position_pair = followed[r - 1].pair + se.TOLERANCE
        assert (strongest > position_pair) == (r == 1), r


def test_before_round_8_the_doc_does_not_put_pile_trade_at_distance_1():
    """After round 7 pile-trade is exactly 0.9831: not 1 to four decimals, as exact mode is."""
    from fractions import Fraction

    from shuffling.exact_mode.codes import device_code_set
    from shuffling.exact_mode.quality import exact_mode_tv

    pile7 = tv_riffle(N, 7)
    codes, _ = device_code_set(N, CAPACITY)
    assert f"{float(exact_mode_tv(codes, 7)):.4f}" == "1.0000" and pile7 < 0.99995
    better = _section("**Which routine is better, where it is known.**", "## Sources")
    assert "all three are at distance 1" not in better
    exact_bullet = better.split("- Exact mode against both:", 1)[1].split("- Pile-trade against", 1)[0]
    assert f"at {pile7:.4f} after round 7" in exact_bullet
    assert float(exact_mode_tv(codes, 7)) == float(1 - Fraction(1, 2**38))  # "1 - 2^-38"
    assert "1 - 2^-38" in exact_bullet


def test_the_doc_names_no_upper_bound_below_pile_trade_and_not_none_at_all():
    assert not re.search(r"no upper bound (for|on) stack-trade('s distance)? (is|was) (known|found)", DOC)
    assert "no upper bound below pile-trade's is known" in " ".join(DOC.split())
