"""The guided shuffle: the plan, step by step, checked against the device.

`Guide(plan, person, voice, options, link=...)` runs one routine through
the state machine of host/guide/machine.py and returns its Summary, or
raises GuideStopped with one line saying why and where. The pieces:

* options.py: what the guide was asked to do (GuideOptions), one record
  from the command line to the machine, the page and the tests;
* table.py: the phases (a record each), the facts that drive the machine,
  its handler table;
* machine.py: the loop; core.py: what the machine keeps and the services
  its handlers share; waiting.py, dealing.py, exact_events.py: the
  handlers, each returning the next phase; faults.py: a fault's notice and
  fix, one row per code; ending.py: the summary;
* routines.py: random and exact mode, the policies it consults;
* notices.py: every status and warning, as data, worded once;
* device.py: the shuffler, its replies and events as the records host/device_messages.py generates;
* voice.py: what a front-end renders; diagram.py: the table, drawn.
"""
from __future__ import annotations

import time
from typing import Callable

from host import person as persons
from host.guide.core import MAX_FRUITLESS_PARTS, MAX_RECONNECTS_PER_PASS, MAX_RESTARTS_PER_PASS
from host.guide.device import Device
from host.guide.machine import Machine
from host.guide.notices import Where
from host.guide.options import READ_S, RECONNECT_S, SETTLE_S, STALL_S, GuideOptions
from host.guide.results import GuideStopped, Summary
from host.guide.routines import even_split, load_tolerance
from host.guide import stop_words
from host.guide.stop_reasons import EXACT_NEEDS_SHUFFLER, OptionsRefused
from host.guide.voice import Shown, Voice
from host.device_link import Link
from host.plan import Plan

Place = Where

__all__ = ["Guide", "GuideOptions", "GuideStopped", "Summary", "Voice", "Shown", "Place", "Where", "load_tolerance",
           "even_split",
           "MAX_FRUITLESS_PARTS", "MAX_RECONNECTS_PER_PASS", "MAX_RESTARTS_PER_PASS", "READ_S", "RECONNECT_S",
           "SETTLE_S", "STALL_S"]


class Guide:
    """One guided routine, as `options` say (host/guide/options.py): random
    mode, or exact mode with a device; `options.resume` goes on with the
    exact routine the device holds. `simulated`: the shuffler on the link is
    a simulated one, faster than real time."""

    def __init__(self, plan: Plan, person: persons.Person, voice: Voice, options: GuideOptions = GuideOptions(),
                 link: Link | None = None, reopen: Callable[[], Link] | None = None, simulated: bool = False,
                 clock: Callable[[], float] = time.monotonic) -> None:
        if options.routine_mode == "exact" and link is None:
            refused = OptionsRefused(EXACT_NEEDS_SHUFFLER)
            raise GuideStopped(stop_words.words(refused), None, reason=refused)
        device = Device(link, reopen, clock) if link is not None else None
        self.machine = Machine(plan, person, voice, device, options, simulated=simulated, clock=clock)
        self.plan = plan

    @property
    def mode(self) -> str:
        return self.machine.mode

    def run(self) -> Summary:
        return self.machine.run()

    @property
    def link(self) -> Link | None:
        """The link the guide ends with (it may have reopened the port)."""
        return self.machine.device.link if self.machine.device is not None else None

    @property
    def place(self) -> Where | None:
        return self.machine.place
