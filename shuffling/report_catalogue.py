"""Every routine `shuffler quality` can report, by name.

The report itself (shuffling.quality.report) knows routines only through
the ReportRoutine interface, so it imports neither exact mode nor this
list; the command line and the tests pick routines here.
"""
from __future__ import annotations

from shuffling.exact_mode.report_routine import EXACT_MODE
from shuffling.quality.report_routine import PILE_TRADE, STACK_TRADE, ReportRoutine

__all__ = ["REPORT_ROUTINES", "report_routines"]

# The random-side routines, then exact mode: the report's default order.
REPORT_ROUTINES: dict[str, ReportRoutine] = {r.name: r for r in (STACK_TRADE, PILE_TRADE, EXACT_MODE)}


def report_routines(*names: str) -> tuple[ReportRoutine, ...]:
    """The routines called `names` (all of them when none is named), in the order given."""
    for name in names:
        if name not in REPORT_ROUTINES:
            raise ValueError(f"unknown routine {name!r}; valid routines: {', '.join(REPORT_ROUTINES)}")
    return tuple(REPORT_ROUTINES[n] for n in (names or tuple(REPORT_ROUTINES)))
