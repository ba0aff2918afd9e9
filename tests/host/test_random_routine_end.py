"""The last step of a random routine calls the pack shuffled only when the
rounds dealt reach the quality asked for: with fewer rounds asked for
(`--rounds`) it says the pack falls short, as the summary does."""
from __future__ import annotations

import pytest

from host import plan as planlib
from host.guide import routines
from shuffling import steps


def last_step(rounds: int | None) -> steps.Step:
    plan = planlib.make_plan(planlib.choose_pack("samba", None), 104, "casino", rounds=rounds)
    routine = routines.RandomRoutine(plan, counted=False)
    shown = routine.begin()
    while not routine.done:
        load = routine.names[routine.index]
        routine.record(routines.PassResult(load, routine.expected[routine.index], None, None, 1))
        shown += routine.after_pass()
    return [item for item in shown if isinstance(item, steps.STEP_TYPES)][-1]


def test_the_rounds_the_quality_needs_end_ready_to_deal() -> None:
    step = last_step(None)
    assert isinstance(step, steps.Gather) and step.short_of == ""  # shuffled and ready to deal


@pytest.mark.parametrize("rounds", [1, 3])
def test_fewer_rounds_than_the_quality_needs_do_not_end_ready_to_deal(rounds: int) -> None:
    assert rounds < planlib.make_plan(planlib.choose_pack("samba", None), 104, "casino").rounds
    step = last_step(rounds)
    assert isinstance(step, steps.Gather) and step.short_of == "casino"  # not ready to deal: fewer rounds than it needs
