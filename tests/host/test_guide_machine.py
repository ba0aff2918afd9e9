"""The guide's state machine walked fact by fact (hypothesis, stateful):
whatever a device, a person and the clock do, in whatever order, every fact
is taken in every phase; a handler leads only to the phases the table says
it may (so docs/guide.md's diagram, drawn from the table, is true); no two
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
from host.guide.device import Stop
from host.guide.machine import Machine
from host.guide.results import GuideStopped
from host.guide.table import ANY, FACT_KINDS, TABLE, Answer, Closed, Noise, Phase, Tick, Tray, transition
from host.guide.voice import Shown, Voice
from host.person import Said
from shuffling import steps as step_kinds

DOC = Path(__file__).resolve().parents[2] / "docs" / "guide.md"


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


NEXT = {"round": 1, "rounds": 8, "load": "A", "count": 81}


def routine(cards: int, nxt: dict[str, Any]) -> Any:
    """The record of an exact routine as the device's reply gives it (whole-pack radix, 8 rounds)."""
    return device_messages.object_record("routine", {"n": cards, "loads": 2, "uneven": True, "kind": "radix",
                                                     "rounds": 8, "next": nxt})


class FakeDevice:
    """The device's side as the machine sees it (host/guide/device.py),
    in memory: a tray, a state, an exact routine or none."""

    name = "/dev/fake"
    uid = "5eed"
    capacity = 104
    garbage = 0

    def __init__(self) -> None:
        self.tray = 0
        self.state = protocol.ST_IDLE
        self.mode = protocol.MODE_RANDOM
        self.next = NEXT
        self.closed = False
        self.gone = False  # the port is away and does not come back

    def wait_s(self, seconds: float) -> float:
        return seconds

    def next_event(self, timeout: float) -> None:
        return None

    def drain(self) -> None:
        pass

    def status(self, timeout: float | None = None) -> Any:
        return device_messages.make_reply(protocol.CMD_STATUS, state=self.state, mode=self.mode, k=0, n=0,
                                          next=self.next if self.mode == protocol.MODE_EXACT else None)

    def count(self) -> int | None:
        return self.tray if self.state == protocol.ST_IDLE else None

    def waiting(self) -> int:
        return 0

    def events_waiting(self) -> bool:
        return False

    def clear(self) -> bool:
        self.state = protocol.ST_IDLE
        return True

    def exact_begin(self, cards: int) -> Any:
        self.mode = protocol.MODE_EXACT
        self.next = NEXT
        return routine(cards, self.next)

    def exact_held(self) -> Any:
        return routine(162, self.next) if self.mode == protocol.MODE_EXACT else None

    def exact_cancel(self) -> None:
        self.mode = protocol.MODE_RANDOM

    def start(self) -> None:
        pass

    def keep_awake(self) -> None:
        pass

    def reconnect(self, within_s: float, why: str) -> Any:
        if self.gone:
            raise Stop(f"the shuffler did not come back within {within_s:g} s ({why})")
        return self.status()

    def check_uid(self, uid: str | None) -> None:
        if uid != self.uid:
            raise Stop(f"another shuffler answers on {self.name} (uid {uid}, not {self.uid})")

    def close(self) -> None:
        self.closed = True


class Record(Voice):
    """Keeps what one fact made the machine say."""

    def __init__(self) -> None:
        self.notices: list[notice_kinds.Notice] = []
        self.steps: list[Shown] = []

    def say(self, text: str) -> None:
        pass

    def notice(self, notice: notice_kinds.Notice) -> None:
        notice_kinds.words(notice)  # every notice has its wording
        self.notices.append(notice)

    def step(self, shown: Shown) -> None:
        step_kinds.words(shown.step)
        self.steps.append(shown)


class Quiet:
    """A person who does nothing by themselves; the test answers for them."""

    unattended = False
    reads = True

    def __init__(self) -> None:
        self.queue: list[Said] = []

    def do(self, step: step_kinds.Step, number: int, round: int | None = None) -> None:
        pass

    def answers(self) -> list[Said]:
        out, self.queue = self.queue, []
        return out


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
        st.just(device_messages.make_event(protocol.EV_ABORTED, k=3, n=n, left=1, right=2)),
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
        self.device = FakeDevice()
        self.voice = Record()
        self.person = Quiet()
        self.machine = Machine(plan, self.person, self.voice, self.device, mode="exact" if exact else "random",
                               read_s=read_s, settle_s=0.5, clock=self.clock)
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
        allowed = set(transition(before, fact.kind).goes) | {before}
        self.voice.notices.clear()
        try:
            m.handle(fact)
        except GuideStopped:
            assert Phase.STOPPED in allowed or m.phase is Phase.STOPPED, (before, fact)
            self.ended = True
            return
        assert m.phase in allowed, f"{fact.kind} in {before.name} led to {m.phase.name}, not one of {allowed}"
        if m.phase is Phase.FINISHED:
            self.ended = True
        self.check_notices(self.voice.notices)

    @rule()
    @precondition(lambda self: self.ended)
    def the_run_is_over(self) -> None:
        assert self.machine is not None and self.machine.phase in (Phase.STOPPED, Phase.FINISHED)

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


GuideWalk.TestCase.settings = settings(max_examples=int(__import__("os").environ.get("GUIDE_WALK_EXAMPLES", "150")), stateful_step_count=40, deadline=None,
                                       suppress_health_check=list(HealthCheck))
test_the_guide_takes_every_fact_in_every_phase = GuideWalk.TestCase


def test_every_kind_of_fact_has_a_handler_or_is_ignored_on_purpose() -> None:
    """Each kind of fact either has a default for every phase or a handler
    in each phase that waits; the ones left to the default are listed."""
    handled = {kind for (_, kind) in TABLE}
    ignored = set(FACT_KINDS) - handled
    assert ignored == {protocol.EV_CLEARED}, ignored  # a cleared fault says nothing the clear's reply did not
    for (phase, kind), t in TABLE.items():
        assert hasattr(Machine, t.handler), t
        assert phase is ANY or phase in Phase


def test_the_diagram_in_the_guide_page_is_the_one_the_table_draws() -> None:
    text = DOC.read_text()
    assert diagram.markdown() in text, "docs/guide.md: paste `python -m host.guide.diagram` over its diagram"
