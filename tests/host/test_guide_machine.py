"""The guide's state machine walked fact by fact (hypothesis, stateful):
whatever a device, a person and the clock do, in whatever order, every fact
is taken in every phase; a handler leads only to the phases its registration says
it may (so docs/guide.md's diagram, drawn from `HANDLERS`, is true); no two
notices given for one fact contradict each other, and none is given twice;
nothing but a GuideStopped ends the run. The diagram in docs/guide.md is
the one host/guide/diagram.py draws."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from firmware import protocol
from host import plan as planlib
from host.guide import diagram
from host.guide import notices as notice_kinds
from host import device_messages
from host.guide.machine import Machine
from host.guide.results import GuideStopped
from host.guide.handlers import ANY, FACT_KINDS, HANDLERS, PHASES, Answer, Closed, Finished, Noise, Stopped, Tick, Tray, transition
from guide_in_memory import IN_MEMORY, MemoryDevice, Quiet, Record
from suite import Clock

DOC = Path(__file__).resolve().parents[2] / "docs" / "guide.md"


FAULTS = [device_messages.make_event(protocol.EV_FAULT, code=protocol.FAULT_JAM, k=30, n=81, latched=True),
          device_messages.make_event(protocol.EV_FAULT, code=protocol.FAULT_DOUBLE_FEED, k=30, n=81, latched=True),
          device_messages.make_event(protocol.EV_FAULT, code=protocol.FAULT_TRAY_EMPTIED, k=30, n=81, latched=True),
          device_messages.make_event(protocol.EV_FAULT, code=protocol.FAULT_BATTERY_LOW, k=30, n=81, latched=True),
          device_messages.make_event(protocol.EV_FAULT, code=protocol.FAULT_SENSOR, k=30, n=81, latched=True, part=protocol.PART_EXIT),
          device_messages.make_event(protocol.EV_FAULT, code=protocol.FAULT_SENSOR, latched=True, part=protocol.PART_STACK),
          device_messages.make_event(protocol.EV_FAULT, code=protocol.FAULT_EMPTY, n=0, latched=False),
          device_messages.make_event(protocol.EV_FAULT, code=protocol.FAULT_OVER_CAPACITY, n=110, capacity=104, latched=False),
          device_messages.make_event(protocol.EV_FAULT, code=protocol.FAULT_BATTERY_LOW, latched=False, mv=6000),
          device_messages.make_event(protocol.EV_FAULT, code=protocol.FAULT_INTERNAL, k=3, n=81, latched=True)]


def hello(uid: str) -> Any:
    """A hello nobody asked for, from the shuffler with this uid."""
    return device_messages.make_event(protocol.EV_HELLO, proto=protocol.PROTOCOL_VERSION, capacity=104,
                                      digest=device_messages.DIGEST, uid=uid)


def facts(m: Machine) -> st.SearchStrategy[Any]:
    """Any fact a device, a person or the clock can bring, now."""
    number = m.shown.number if m.shown else 0
    n = m.pass_.part_n if m.pass_ and m.pass_.part_n else 81
    return st.one_of(
        st.just(Tick()), st.just(Noise()), st.just(Closed("unplugged")),
        st.builds(Answer, st.sampled_from([number, number - 1, number + 1])),
        st.builds(Tray, st.integers(0, 110)),
        st.sampled_from(FAULTS),
        st.builds(lambda k: device_messages.make_event(protocol.EV_PROGRESS, k=k, n=n, left=k // 2, right=k - k // 2), st.integers(0, n)),
        st.just(device_messages.make_event(protocol.EV_DONE, k=n, n=n, left=n // 2, right=n - n // 2)),
        st.just(device_messages.make_event(protocol.EV_ABORTED, k=min(3, n), n=n, left=min(1, n), right=min(3, n) - min(1, n))),
        st.builds(lambda k: device_messages.make_event(protocol.EV_LOADED, n=k), st.integers(1, 104)),
        st.sampled_from([device_messages.make_event(protocol.EV_TOUCH, state=protocol.ST_IDLE), device_messages.make_event(protocol.EV_TOUCH, state=protocol.ST_PAUSED)]),
        st.sampled_from([hello("5eed"), hello("07e7")]),
        st.just(device_messages.make_event(protocol.EV_WARN, code=4, mv=7000)), st.just(device_messages.make_event(protocol.EV_CLEARED)),
        st.just(device_messages.make_event(protocol.EV_STOPPED)),
        st.just(device_messages.make_event(protocol.EV_EXACT_NEXT, round=1, rounds=8, load="B", count=81)),
        st.just(device_messages.make_event(protocol.EV_EXACT_ROUND, round=1, rounds=8)),
        st.just(device_messages.make_event(protocol.EV_EXACT_DONE, rounds=8)),
        st.builds(lambda code: device_messages.make_event(protocol.EV_EXACT_LOST, code=code, load="A", n=80,
                                       expected=81), st.sampled_from(sorted(protocol.LOST_CODES))),
    )


class GuideWalk(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.machine: Machine | None = None
        self.ended = False

    @rule(exact=st.booleans(), read_s=st.sampled_from([0.0, 1.0]))
    @precondition(lambda self: self.machine is None)
    def begin(self, exact: bool, read_s: float) -> None:
        plan = planlib.make_plan(planlib.choose_pack("samba", None), 104, "good", rounds=2)
        self.clock = Clock()
        self.device = MemoryDevice()
        self.voice = Record()
        self.person = Quiet()
        options = IN_MEMORY.vary(mode="exact" if exact else "random", read_s=read_s)
        self.machine = Machine(plan, self.person, self.voice, self.device, options, clock=self.clock)
        self.machine.begin()

    @rule(data=st.data(), wait=st.sampled_from([0.0, 0.3, 2.0, 400.0]))
    @precondition(lambda self: self.machine is not None and not self.ended)
    def a_fact(self, data: st.DataObject, wait: float) -> None:
        m = self.machine
        assert m is not None
        self.clock.now += wait
        fact = data.draw(facts(m))
        self.device.tray = data.draw(st.integers(0, 104), label="the tray now")
        self.device.gone = data.draw(st.booleans(), label="the device stays away")
        before = m.phase
        allowed = set(transition(before, fact.kind).goes) | {type(before)}
        self.voice.notices.clear()
        try:
            got = m.handle(fact)
        except GuideStopped:
            assert Stopped in allowed or isinstance(m.phase, Stopped), (before, fact)
            self.ended = True
            return
        assert got is m.phase, "the phase a handler returns is the machine's"
        assert type(m.phase) in allowed, \
            f"{fact.kind} in {before.key} led to {m.phase.key}, not one of {sorted(p.key for p in allowed)}"
        if isinstance(m.phase, Finished):
            self.ended = True
        self.check_notices(self.voice.notices)

    @rule()
    @precondition(lambda self: self.ended)
    def the_run_is_over(self) -> None:
        assert self.machine is not None and isinstance(self.machine.phase, (Stopped, Finished))

    @staticmethod
    def check_notices(said: list[notice_kinds.Notice]) -> None:
        claims = [c for n in said for c in notice_kinds.CLAIMS.get(type(n), ())]
        for a, b in notice_kinds.CONFLICTS:
            assert not (a in claims and b in claims), said
        assert len(said) == len(set(said)), f"a notice given twice for one fact: {said}"

    @invariant()
    def every_number_of_a_pass_adds_up(self) -> None:
        m = self.machine
        if m is None or m.pass_ is None:
            return
        p = m.pass_
        assert 0 <= p.dealt and (p.size is None or p.dealt <= p.size + p.aside), p


GuideWalk.TestCase.settings = settings(max_examples=int(__import__("os").environ.get("GUIDE_WALK_EXAMPLES", "80")), stateful_step_count=40, deadline=None,
                                       suppress_health_check=list(HealthCheck))
test_the_guide_takes_every_fact_in_every_phase = GuideWalk.TestCase


def test_every_kind_of_fact_has_a_handler_or_is_ignored_on_purpose() -> None:
    """Each kind of fact either has a default for every phase or a handler
    in each phase that waits; the ones left to the default are listed."""
    handled = {kind for (_, kind) in HANDLERS}
    ignored = set(FACT_KINDS) - handled
    assert ignored == {protocol.EV_CLEARED}, ignored  # a cleared fault says nothing the clear's reply did not
    for (phase, kind), t in HANDLERS.items():
        assert callable(t.handler), t
        assert phase is ANY or phase in PHASES


def test_the_diagram_in_the_guide_page_is_the_one_the_table_draws() -> None:
    text = DOC.read_text()
    assert diagram.markdown() in text, "docs/guide.md: paste `python -m host.guide.diagram` over its diagram"
