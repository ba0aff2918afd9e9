"""Which routine is closer to random: only what the figures prove, and 'not known' elsewhere."""
from __future__ import annotations

from shuffling.quality.comparison import compare, comparison_notes
from shuffling.quality.estimate import Estimate
from shuffling.quality.results import (
    HomeGame,
    Landmarks,
    PassesNeeded,
    RoundResult,
    RoutineResult,
    UpperBound,
)


def _routine(name: str, distances: list[Estimate], lower: list[Estimate] | None = None,
             law: list[Estimate | None] | None = None, upper: list[UpperBound | None] | None = None) -> RoutineResult:
    lower = lower or distances
    law = law or [None] * len(distances)
    upper = upper or [None] * len(distances)
    guess = Estimate(1.0, 0.0, "estimate", "guessing game")
    rows = tuple(RoundResult(round=i + 1, passes=2 * (i + 1), distance=d, lower_bound=lo, statistics={},
                             guessing=guess, deal=None, exact_lower_bound=la, upper_bound=up)
                 for i, (d, lo, la, up) in enumerate(zip(distances, lower, law, upper)))
    return RoutineResult(
        name=name, title=name, description="", passes_per_round=2,
        exact=all(d.kind == "exact" for d in distances), rounds=rows, thresholds=(),
        landmarks=Landmarks(HomeGame(3, 6, distances[0]), PassesNeeded(0.3, "never")),
    )


def _exact(*values: float) -> list[Estimate]:
    return [Estimate(v, 0.0, "exact", "Bayer-Diaconis") for v in values]


def _mc(value: float, se: float) -> Estimate:
    return Estimate(value, se, "lower-bound", "descents")


def test_verdicts_say_only_what_the_bounds_prove() -> None:
    pile = _routine("pile-trade", _exact(1.0, 0.9, 0.5, 0.3, 0.0))
    mc = [_mc(0.999, 0.001), _mc(0.85, 0.01), _mc(0.8, 0.01), _mc(0.2, 0.01), _mc(0.01, 0.01)]
    law = [Estimate(0.995, 0.0, "lower-bound", "exact law"), Estimate(0.95, 0.0, "lower-bound", "exact law"),
           None, Estimate(0.01, 0.0, "lower-bound", "exact law"), None]
    stack = _routine("stack-trade", mc, mc, law)
    hows = [v.how for v in compare(stack, pile)]
    assert hows == ["both far", "further (proved)", "further (simulated)", "not known", "not closer"]


def test_a_bound_within_its_error_of_the_exact_figure_proves_nothing() -> None:
    pile = _routine("pile-trade", _exact(0.5))
    stack = _routine("stack-trade", [_mc(0.51, 0.01)])
    assert [v.how for v in compare(stack, pile)] == ["not known"]


def test_the_notes_say_not_known_plainly() -> None:
    pile = _routine("pile-trade", _exact(1.0, 0.98, 0.76))
    mc = [_mc(1.0, 0.0001), _mc(0.88, 0.001), _mc(0.59, 0.002)]
    stack = _routine("stack-trade", mc)
    assert [v.how for v in compare(stack, pile)] == ["both far", "not known", "not known"]
    assert len(comparison_notes([stack, pile])) == 1  # one note for the pair (its words: tests/shuffling/test_words.py)
    # Two exact routines, or a routine against itself, need no note.
    assert comparison_notes([pile, _routine("exact", _exact(1.0, 0.5, 0.0))]) == []


def _upper(value: float) -> UpperBound:
    return UpperBound(value, 0.975, 100, 100, "coupling")


def test_a_simulated_upper_bound_below_the_exact_distance_shows_closer_and_above_it_not_known() -> None:
    pile = _routine("pile-trade", _exact(0.9, 0.5, 0.3))
    mc = [_mc(0.2, 0.01), _mc(0.2, 0.01), _mc(0.2, 0.01)]
    stack = _routine("stack-trade", mc, mc, upper=[_upper(0.95), _upper(0.4), _upper(0.3)])
    hows = [v.how for v in compare(stack, pile)]
    # Only a bound below by more than the tables show counts; equal to it proves nothing.
    assert hows == ["not known, upper bound above", "closer (simulated)", "not known, upper bound above"]
    assert len(comparison_notes([stack, pile])) == 1


def test_rounds_of_other_passes_are_paired_by_the_passes_dealt() -> None:
    """The split's rounds end at passes 2, 3, 4, 5 (a split round, then one pass a round):
    stack-trade's round at pass 4 meets the split's pack at pass 4, at pass 6 its pack at pass 5."""
    split = _routine("exact", _exact(1.0, 1.0, 0.7, 0.0))
    split = RoutineResult(**{**split.__dict__, "passes_per_round": None,
                             "rounds": tuple(RoundResult(**{**r.__dict__, "passes": p})
                                             for r, p in zip(split.rounds, (2, 3, 4, 5)))})
    mc = [_mc(0.999, 0.001), _mc(0.71, 0.01), _mc(0.5, 0.01)]
    stack = _routine("stack-trade", mc)  # passes 2, 4, 6: against 1.0 (pass 2), 0.7 (pass 4), 0.0 (pass 5)
    verdicts = compare(stack, split)
    assert [(v.round, v.how) for v in verdicts] == [(1, "both far"), (2, "not known"), (3, "further (simulated)")]
    # Nothing to compare with before the exact routine's first round is over.
    late = RoutineResult(**{**split.__dict__, "rounds": tuple(RoundResult(**{**r.__dict__, "passes": r.passes + 2})
                                                              for r in split.rounds)})
    assert [v.round for v in compare(stack, late)] == [2, 3]
