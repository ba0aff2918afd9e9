"""Every routine `shuffler quality` can report, by name.

The report itself (shuffling.quality.report) knows routines only through
the ReportRoutine interface, so it imports neither exact mode nor this
list; the command line and the tests pick routines here.

`exact` is the exact routine the shuffler runs for the pack (the split for
every pack bigger than the tray, whole-pack radix for one that fits);
`exact-radix` and `exact-split` name each routine, so that the report can
show the other one beside it.
"""
from __future__ import annotations

from firmware import exact_routes as routes
from shuffling.exact_mode.report_routine import EXACT_MODE, EXACT_RADIX, EXACT_SPLIT
from shuffling.quality.report_routine import PILE_TRADE, STACK_TRADE, ReportRoutine
from shuffling.quality.routines import Machine

__all__ = ["REPORT_ROUTINES", "report_routines", "default_routines"]

# The random-side routines, then exact mode: the report's default order.
REPORT_ROUTINES: dict[str, ReportRoutine] = {
    r.name: r for r in (STACK_TRADE, PILE_TRADE, EXACT_MODE, EXACT_RADIX, EXACT_SPLIT)}


def report_routines(*names: str) -> tuple[ReportRoutine, ...]:
    """The routines called `names` (when none is named: stack-trade, pile-trade and
    exact mode as the shuffler runs it), in the order given."""
    for name in names:
        if name not in REPORT_ROUTINES:
            raise ValueError(f"unknown routine {name!r}; valid routines: {', '.join(REPORT_ROUTINES)}")
    return tuple(REPORT_ROUTINES[n] for n in (names or (STACK_TRADE.name, PILE_TRADE.name, EXACT_MODE.name)))


def default_routines(n_cards: int, capacity: int, machine: Machine) -> tuple[ReportRoutine, ...]:
    """The report's routines when none is asked for: every routine the machine's
    settings apply to, exact mode as the shuffler runs it for this pack, and
    beside it the other exact routine, where the pack has one (a pack that fits
    the tray has no split)."""
    chosen = routes.route(n_cards, capacity).kind
    other = EXACT_SPLIT if chosen == routes.RADIX else EXACT_RADIX
    out = [r for r in (STACK_TRADE, PILE_TRADE, EXACT_MODE, other)
           if r.refuses(machine) is None and r.refuses_pack(n_cards, capacity) is None]
    return tuple(out)
