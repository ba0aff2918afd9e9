"""The guide's state machine walked fact by fact, in memory: the device's
side as the machine sees it (host/guide/device.py), a voice that keeps what
one fact made the machine say, a person who does nothing by themselves.
The tests hand the machine each fact themselves."""
from __future__ import annotations

from typing import Any

from firmware import protocol
from host import device_messages
from host.guide import notices as notice_kinds
from host.guide import stop_reasons
from host.guide.device import Stop
from host.guide.options import GuideOptions
from host.guide.voice import Shown, Voice
from host.person import Said
from shuffling import steps as step_kinds

NEXT = {"round": 1, "rounds": 8, "load": "A", "count": 81}


def routine(cards: int, nxt: dict[str, Any]) -> Any:
    """The record of an exact routine as the device's reply gives it (whole-pack radix, 8 rounds)."""
    return device_messages.object_record("routine", {"n": cards, "loads": 2, "uneven": True, "kind": "radix",
                                                     "rounds": 8, "next": nxt})


class MemoryDevice:
    """The device's side as the machine sees it (host/guide/device.py),
    in memory: a tray, a state, an exact routine or none."""

    name = "/dev/fake"
    uid = "5eed"
    capacity = 104
    garbage = 0
    firmware = None  # the session's firmware (version, protocol, digest): None, not compared here

    def __init__(self) -> None:
        self.tray = 0
        self.state = protocol.ST_IDLE
        self.mode = protocol.MODE_RANDOM
        self.next = NEXT
        self.closed = False
        self.gone = False  # the port is away and does not come back
        self.k, self.n = 0, 0  # the pass in hand's count, as its status gives it

    def wait_s(self, seconds: float) -> float:
        return seconds

    def next_event(self, timeout: float) -> None:
        return None

    def drain(self) -> None:
        pass

    def status(self, timeout: float | None = None) -> Any:
        return device_messages.make_reply(protocol.CMD_STATUS, state=self.state, mode=self.mode, k=self.k, n=self.n,
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

    def exact_begin(self, cards: int, kind: str | None = None) -> Any:
        self.mode = protocol.MODE_EXACT
        self.next = NEXT
        return routine(cards, self.next)

    def exact_held(self) -> Any:
        return routine(162, self.next) if self.mode == protocol.MODE_EXACT else None

    def exact_repair(self, parent: bool = False) -> Any:
        """The part in hand dealt again from fresh codes: the routine goes on from where it is."""
        if self.mode != protocol.MODE_EXACT:
            raise Stop("the shuffler holds no exact routine to deal a part of again")
        return routine(162, self.next)

    def exact_cancel(self) -> None:
        self.mode = protocol.MODE_RANDOM

    def start(self) -> None:
        pass

    def keep_awake(self) -> None:
        pass

    def reconnect(self, within_s: float, why: str) -> Any:
        if self.gone:
            raise Stop(stop_reasons.NotBack(within_s, why))
        return self.status()

    def check_uid(self, uid: str | None) -> None:
        if uid != self.uid:
            raise Stop(stop_reasons.OtherShuffler(self.name, uid, self.uid))

    def check_firmware(self, fw: object, proto: object, digest: object, partial: bool = False) -> None:
        if proto != protocol.PROTOCOL_VERSION or (digest is not None and digest != protocol.digest()):
            raise Stop(stop_reasons.OtherFirmware(self.name, (
                stop_reasons.Changed(stop_reasons.PROTOCOL, protocol.PROTOCOL_VERSION, proto),
                stop_reasons.Changed(stop_reasons.TABLE, protocol.digest(), digest))))

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


# The guide's options for a machine driven fact by fact on the test's clock:
# no read time (the test answers once it has looked), a tray count settled
# in half a second of that clock.
IN_MEMORY = GuideOptions(read_s=0, settle_s=0.5)


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


def exit_beam_missed_three(voice: Voice) -> Any:
    """A one-round Samba guide on an in-memory device, with `voice`: load A
    cut and in the tray, then the device's fault mid-pass, the exit beam
    having missed 3 cards that left the tray (its reason, `why`, with the
    count, `out`). Returns the fault as the machine was handed it."""
    from host import plan as planlib
    from host.guide.machine import Machine
    from host.guide.handlers import Answer
    from suite import Clock

    plan = planlib.make_plan(planlib.choose_pack("samba", None), 104, "good", rounds=1)
    m = Machine(plan, Quiet(), voice, MemoryDevice(), IN_MEMORY, clock=Clock())
    m.begin()
    m.handle(Answer(1))  # the cut: load A's step
    m.handle(device_messages.make_event(protocol.EV_LOADED, n=81))
    fault = device_messages.make_event(protocol.EV_FAULT, code=protocol.FAULT_SENSOR, latched=True, k=40, n=81,
                                       part=protocol.PART_EXIT, why=protocol.WHY_MISSED, out=3)
    m.handle(fault)
    return fault
