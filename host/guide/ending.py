"""The end of a guided run: its summary, from what the routines dealt."""
from __future__ import annotations

from typing import Sequence, Union

from host.guide import routines
from host.guide.results import (AT_MOST, EXACT, EXACT_AGAIN, EXACT_METHOD, EXACT_THEN_RANDOM, RANDOM_AFTER_LOSS_METHOD,
                                Summary)
from host.guide.ledger import CONDITION, Ledger
from host.guide.notices import EarlierRoundsCounted, Note
from host.guide.ledger_words import as_data
from host.plan import Plan, distance_after
from shuffling.exact_mode.onlooker import onlooker

Routine = Union[routines.RandomRoutine, routines.GuidedExactRoutine]


def summary(routine: Routine, earlier: Sequence[Routine], plan: Plan, seconds: float, notes: list[Note],
            ledger: Ledger | None = None) -> Summary:
    """The summary of a run that ended with `routine`, after the routines
    given up before it (`earlier`: exactness lost). `notes` is the run's
    list of notes; a note the summary needs is added to it. A run that ends
    exact claims exactly 0 on the ledger's condition (what the shuffler
    cannot see) and shows the ledger."""
    out = _summary(routine, earlier, plan, seconds, notes)
    # Every pass dealt: a routine given up, a part dealt again, as well as the routine it ends with.
    out.table_seconds = sum(r.table_seconds() for r in (*earlier, routine))
    if ledger is not None:
        out.exactness = as_data(ledger)
    if isinstance(routine, routines.GuidedExactRoutine):
        out.condition = CONDITION
        out.onlooker = onlooker(routine.route).to_dict()
    return out


def _summary(routine: Routine, earlier: Sequence[Routine], plan: Plan, seconds: float, notes: list[Note]) -> Summary:
    earlier_passes = sum(r.passes for r in earlier)
    earlier_rounds = sum(max(0, r.round - 1) for r in earlier)
    loads = [row for r in earlier for row in r.per_round] + list(routine.per_round)
    if isinstance(routine, routines.GuidedExactRoutine):
        return Summary(rounds=earlier_rounds + routine.rounds, passes=earlier_passes + routine.passes,
                       seconds=seconds, distance=0.0, cards=plan.cards, notes=notes, loads=loads,
                       mode=EXACT_AGAIN if earlier else EXACT, method=EXACT_METHOD)
    rplan = routine.plan
    done = rplan.rounds - routine.first_round + 1
    distance = distance_after(rplan.cards, rplan.capacity, rplan.rounds)
    if earlier:
        return Summary(rounds=earlier_rounds + rplan.rounds, passes=earlier_passes + routine.passes,
                       seconds=seconds, distance=distance, cards=rplan.cards, notes=notes, loads=loads,
                       mode=EXACT_THEN_RANDOM, distance_kind=AT_MOST, method=RANDOM_AFTER_LOSS_METHOD)
    if routine.first_round > 1:
        notes.append(EarlierRoundsCounted(routine.first_round - 1))
    return Summary(rounds=rplan.rounds, passes=done * len(rplan.names), seconds=seconds, distance=distance,
                   cards=rplan.cards, notes=notes, loads=loads)
