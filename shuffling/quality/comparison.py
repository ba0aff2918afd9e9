"""Which routine is closer to random, round by round, where the report's figures can tell.

A routine with exact distances (pile-trade, exact mode) can be compared
with another one exactly. A routine with only lower bounds (stack-trade at
more than one load) can be shown further from random than an exact one, when
its lower bound exceeds the exact distance: rigorously, by a bound with no
simulation error (the counting bound, or the exact position laws of
stack_trade_laws.py), or by simulation, when the Monte Carlo bound clears the
exact distance by two standard errors. It is closer only where its upper
bound, simulated by coupling (coupling.py), lies below the exact distance;
at 162 cards that bound stays above pile-trade's in every round, so no upper
bound below pile-trade's is known (docs/mathematics.md). Every other round
is "not known", and the words say so.

Rounds are paired by machine passes: each round of the routine with lower
bounds against the exact routine's last round that ends at as many passes
or fewer (the same round, for routines whose rounds take the same passes;
for the split, whose rounds take one pass or a stack's loads, its pack at
that pass or the one before it).
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .estimate import Estimate
from .results import RoutineResult

__all__ = ["Verdict", "compare", "comparison_notes", "SMALL_PACK_NOTE"]

# Two distances closer than this are shown as equal (the tables print four decimals).
SHOWN_EQUAL = 5e-5
# Both routines count as far from random when the exact one is within
# SHOWN_EQUAL of 1 and the other's lower bound reads at least this.
FAR = 0.99
# The Monte Carlo bound must clear the exact distance by this many standard errors.
SIGNIFICANCE = 2.0

SMALL_PACK_NOTE = ("On packs small enough to enumerate every arrangement (8 cards in two loads, 6 in three), "
                   "stack-trade is further from random than pile-trade in every round.")


@dataclass(frozen=True)
class Verdict:
    """How routine `first` compares with the exact routine `second` after `round` rounds.

    how: "further (proved)", "further (simulated)", "closer (simulated)"
    (first's simulated upper bound below second's exact distance), "not
    closer" (second is exactly random), "both far" (second within
    SHOWN_EQUAL of 1, first's bound at least FAR: no comparison means
    anything there), "equal", "closer" / "further" (both exact), or "not
    known" ("not known, upper bound above" where first has a simulated upper
    bound, and it lies at or above second's exact distance).
    """

    round: int
    first: str
    second: str
    how: str


def _best_bound(lower: Estimate, exact_law: Estimate | None, distance: Estimate) -> tuple[float, float]:
    """The largest rigorous bound (no simulation error) and the Monte Carlo bound less two errors."""
    rigorous = max([e.value for e in (exact_law, distance) if e is not None and e.stderr == 0.0], default=0.0)
    return rigorous, lower.value - SIGNIFICANCE * lower.stderr


def compare(first: RoutineResult, second: RoutineResult) -> list[Verdict]:
    """Round-by-round verdicts of `first` against `second`, which must be exact."""
    if not second.exact:
        raise ValueError(f"{second.name} has no exact distances to compare with")
    out = []
    for a in first.rounds:
        # Only rounds whose distance is exact (the pipelined routine has its end alone).
        before = [b for b in second.rounds if b.passes <= a.passes and b.distance.kind == "exact"]
        if not before:
            continue  # the exact routine has no round over yet: nothing to compare with
        b = before[-1]
        e = b.distance.value
        if first.exact:
            x = a.distance.value
            how = "equal" if abs(x - e) <= SHOWN_EQUAL else ("closer" if x < e else "further")
        else:
            rigorous, simulated = _best_bound(a.lower_bound, a.exact_lower_bound, a.distance)
            upper = a.upper_bound
            if rigorous > e + SHOWN_EQUAL:
                how = "further (proved)"
            elif simulated > e + SHOWN_EQUAL:
                how = "further (simulated)"
            elif upper is not None and upper.value < e - SHOWN_EQUAL:
                how = "closer (simulated)"
            elif e == 0.0:
                how = "not closer"
            elif e >= 1 - SHOWN_EQUAL and max(rigorous, a.distance.value) >= FAR:
                how = "both far"
            else:
                how = "not known" if upper is None else "not known, upper bound above"
        out.append(Verdict(a.round, first.name, second.name, how))
    return out


def _rounds(rs: list[int]) -> str:
    """1, 2, 3, 5 -> 'rounds 1-3 and 5'."""
    spans: list[tuple[int, int]] = []
    for r in rs:
        if spans and r == spans[-1][1] + 1:
            spans[-1] = (spans[-1][0], r)
        else:
            spans.append((r, r))
    parts = [f"{a}" if a == b else f"{a}-{b}" for a, b in spans]
    head = "round " if len(rs) == 1 else "rounds "
    return head + (parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1])


_PHRASES = {
    "further (proved)": "{a} is further from random than {b} (its rigorous lower bound exceeds {b}'s exact distance)",
    "further (simulated)": "{a} is further from random than {b} by simulation (its lower bound exceeds {b}'s "
                           "exact distance by two standard errors)",
    "closer (simulated)": "{a} is closer to random than {b} by simulation (its simulated upper bound lies "
                          "below {b}'s exact distance)",
    "not closer": "{b} is exactly random, so {a} cannot be closer",
    "both far": "both are still far from random (distance about 1)",
    "equal": "both are equally far from random",
    "closer": "{a} is closer to random than {b} (both exact)",
    "further": "{a} is further from random than {b} (both exact)",
    "not known": ("whether {a} is closer to random than {b} is NOT KNOWN: {a} has only lower bounds, "
                  "which stay at or below {b}'s exact distance, and no upper bound for {a} is known"),
    "not known, upper bound above": (
        "whether {a} is closer to random than {b} is NOT KNOWN: {a}'s lower bounds stay at or below {b}'s exact "
        "distance, and no upper bound below {b}'s is known ({a}'s simulated upper bound stays above it)"),
}


def comparison_notes(routines: Sequence[RoutineResult]) -> list[str]:
    """One plain sentence per pair (a routine with lower bounds, an exact routine) of the report."""
    notes = []
    for a in routines:
        if a.exact or not a.shuffles:
            continue
        for b in routines:
            if b is a or not b.exact or not b.shuffles:
                continue
            verdicts = compare(a, b)
            parts = []
            for how, text in _PHRASES.items():
                rs = [v.round for v in verdicts if v.how == how]
                if rs:
                    parts.append(f"after {_rounds(rs)}, " + text.format(a=a.title, b=b.title))
            if parts:
                notes.append(f"{a.title} against {b.title}: " + "; ".join(parts) + ".")
    return notes
