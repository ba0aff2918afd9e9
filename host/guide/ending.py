"""The end of a guided run: its summary, from what the routines dealt."""
from __future__ import annotations

from typing import TYPE_CHECKING

from host.guide import notices
from host.guide import routines
from host.guide.results import (EXACT, EXACT_AGAIN, EXACT_METHOD, EXACT_THEN_RANDOM, RANDOM_AFTER_LOSS_METHOD,
                                Summary)
from host.guide.table import Phase
from host.plan import distance_after

if TYPE_CHECKING:
    from host.guide.machine import Machine


class Ending:
    def finish(self: Machine) -> None:
        """The last step is done."""
        assert self.routine is not None
        if self.routine.exact and self.device is not None and not self.exact_finished:
            self.tell(notices.ExactNotConfirmed())
            self.note("the shuffler did not confirm the end of exact mode")
        self.phase = Phase.FINISHED
        self.summary = self.make_summary()

    def make_summary(self: Machine) -> Summary:
        summary = self.summary_of_routines()
        summary.simulated = self.simulated
        return summary

    def summary_of_routines(self: Machine) -> Summary:
        routine = self.routine
        assert routine is not None
        seconds = self.clock() - self.started
        earlier_passes = sum(r.passes for r in self.earlier)
        earlier_rounds = sum(max(0, r.round - 1) for r in self.earlier)
        loads = [row for r in self.earlier for row in r.per_round] + list(routine.per_round)
        if isinstance(routine, routines.ExactRoutine):
            return Summary(rounds=earlier_rounds + routine.rounds, passes=earlier_passes + routine.passes,
                           seconds=seconds, distance=0.0, cards=self.plan.cards, notes=self.notes, loads=loads,
                           mode=EXACT_AGAIN if self.earlier else EXACT, method=EXACT_METHOD)
        plan = routine.plan
        done = plan.rounds - routine.first_round + 1
        distance = distance_after(plan.cards, plan.capacity, plan.rounds)
        if self.earlier:
            return Summary(rounds=earlier_rounds + plan.rounds, passes=earlier_passes + routine.passes,
                           seconds=seconds, distance=distance, cards=plan.cards, notes=self.notes, loads=loads,
                           mode=EXACT_THEN_RANDOM, distance_kind="at most", method=RANDOM_AFTER_LOSS_METHOD)
        if routine.first_round > 1:
            self.note(f"the distance counts rounds 1 to {routine.first_round - 1} as done as guided before this run")
        return Summary(rounds=plan.rounds, passes=done * len(plan.names), seconds=seconds, distance=distance,
                       cards=plan.cards, notes=self.notes, loads=loads)
