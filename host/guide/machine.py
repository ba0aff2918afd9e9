"""The guided shuffle as one state machine driven by facts: the loop.

What the guide believes changes only from facts: the device's events and
replies, the tray's count, the person's answers, the clock. One loop
(`Machine.run`) gathers them and hands each to the handler `HANDLERS` names
for the machine's phase and the fact's kind (host/guide/handlers.py); the
handler returns the next phase. Every fact is taken in every phase: a load
put in the tray, or a pass begun, while a table step is on screen completes
that step; a touch out of turn is a transition, never an error.

The handlers are grouped by what they follow: the person's work
(host/guide/waiting.py), the pass (dealing.py), exact mode's routine
(exact_events.py); what they share is host/guide/core.py. Importing this
module registers them all.
"""
from __future__ import annotations

import time

from host.guide import dealing as _dealing  # noqa: F401 - registers its handlers
from host.guide import exact_events as _exact_events  # noqa: F401
from host.guide import waiting as _waiting  # noqa: F401
from host.guide.core import POLL_S, Core
from host.guide.handlers import HOLD, ONWARD, Answer, Fact, Finished, Handling, Phase, Settled, Stopped, Tick, on
from host.guide.results import Summary


class Machine(Core):
    def run(self) -> Summary:
        """Walk the routine to its end (its summary) or a stop (GuideStopped)."""
        try:
            self.phase = self.guarded(self.begin)
            while not isinstance(self.phase, (Stopped, Finished)):
                self.guarded(lambda: self.handle(self.next_fact()))  # a device that breaks the protocol stops it
        finally:
            self.voice.bar_end()
        summary = self.summary
        assert summary is not None
        return summary

    def next_fact(self) -> Fact:
        """The clock a few times a second whatever else comes; else the
        person's answers, after the device's events that came before them;
        else the device's next event."""
        if self.pending:
            return self.pending.popleft()
        now = self.clock()
        if now - self.last_tick >= POLL_S:
            self.last_tick = now
            return Tick()
        said = [Answer(a.number, a.via) for a in self.person.answers()]
        if said:
            older = self.device.waiting() if self.device is not None else 0
            self.pending.extend(self.device_fact(0.0) for _ in range(older))
            self.pending.extend(said)
            return self.pending.popleft()
        if self.device is None:
            time.sleep(POLL_S / 5)
            return Tick()
        return self.device_fact(POLL_S / 5)


@on("settled", Handling, goes=ONWARD)
def settled_events(m: Core, fact: Settled) -> Phase:
    """The events before a count are looked at, and the machine is still
    where the action left it: the action goes on."""
    got = fact.then()
    if got is HOLD:
        return m.phase
    return m.advance(got)
