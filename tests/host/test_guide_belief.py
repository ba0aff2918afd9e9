"""The guide believes only what adds up (docs/guide.md, "What the guide
believes"): devices that say what cannot be true, each met once. A board
reflashed mid-session (another message table, another protocol, another
firmware version), a pass of more cards than its load held, a count that
goes back, a device that repeats one count for ever, an exact routine done
early, done with other rounds, or whose rounds change. Each stops the guide
with one line naming the fault (the exit of `shuffler guide` is then
non-zero: tests/host/test_guide_cli.py), holds the pass, and claims nothing
the device did not earn: no summary, exactness lost in the ledger, no
`--resume` offered."""
from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from firmware import protocol
from host import device_messages
from host import guide as guide_machine
from host import plan as planlib
from host.guide import ledger as proof
from host.guide import notices
from host.guide import stop_reasons as why
from host.guide.stop_reasons import Changed
from host.guide.machine import Machine
from host.device_link import Link
from host.guide.handlers import AfterPass, Answer, Dealing, Stopped, Tick
from hosttest_support import FakeShuffler, run_on_fake
from guide_in_memory import IN_MEMORY, MemoryDevice, Quiet, Record
from suite import Clock


def plan(rounds: int = 2) -> planlib.Plan:
    return planlib.make_plan(planlib.choose_pack("samba", None), 104, "good", rounds=rounds)


def claims_nothing(result: Any, text: str) -> None:
    assert isinstance(result, guide_machine.GuideStopped), text
    assert "exactly 0" not in text and "Shuffled" not in text


# -- on a scripted device on a pty ------------------------------------------------------------

OTHER_DIGEST = (protocol.digest() + 1) % 4194302


@pytest.mark.restart
@pytest.mark.parametrize("changed, change", [
    ({"digest": OTHER_DIGEST}, Changed(why.TABLE, protocol.digest(), OTHER_DIGEST)),
    ({"proto": protocol.PROTOCOL_VERSION + 1},
     Changed(why.PROTOCOL, protocol.PROTOCOL_VERSION, protocol.PROTOCOL_VERSION + 1)),
    ({"fw": "0.2.0"}, Changed(why.VERSION, "0.1.0", "0.2.0")),
])
def test_a_board_reflashed_mid_session_stops_the_guide_in_one_line(changed: dict[str, Any], change: Changed) -> None:
    fake = FakeShuffler(lambda k, p: "restart" if (p, k) == (2, 30) else None)
    fake.reboot_hello = changed
    port = fake.dev.port
    result, voice, _ = run_on_fake(fake, plan())
    claims_nothing(result, voice.text)
    assert isinstance(result, guide_machine.GuideStopped)
    assert result.reason == why.OtherFirmware(port, (change,)), result  # what changed; the flash to run names the port
    assert "\n" not in str(result)
    assert not voice.told(notices.Restarted)  # not taken for the same shuffler starting again
    assert fake.passes == 2  # no pass after it


@pytest.mark.restart
def test_a_board_back_after_the_cable_with_another_protocol_stops_the_guide_in_one_line() -> None:
    """The fourth form: unplugged, reflashed, plugged back in."""
    fake = FakeShuffler(lambda k, p: "unplug" if (p, k) == (1, 34) else None)

    def reopen() -> Link:
        if fake.dev._stop.is_set():
            fake.replug(restarted=True)
            fake.dev.proto = protocol.PROTOCOL_VERSION + 1
        return Link.open(fake.dev.port)

    t0 = time.monotonic()
    port = fake.dev.port
    result, voice, _ = run_on_fake(fake, plan(), reopen=reopen, reconnect_s=20)
    claims_nothing(result, voice.text)
    assert isinstance(result, guide_machine.GuideStopped)
    new = Changed(why.PROTOCOL, protocol.PROTOCOL_VERSION, protocol.PROTOCOL_VERSION + 1)
    assert result.reason == why.OtherFirmware(port, (new,)), result
    assert time.monotonic() - t0 < 20  # said at once, not after waiting it out


class Inflating(FakeShuffler):
    """Its second pass says it holds 39 cards more than its tray does."""

    def _pass(self) -> None:
        if self.passes == 1:
            self.passes += 1
            self.dev.emit({"ev": "touch", "state": "idle"})
            self.dev.emit({"ev": "loaded", "n": len(self.tray) + 39})
            self.state = "dealing"
            return
        super()._pass()


def test_more_cards_out_than_the_load_held_is_a_fault_of_the_device() -> None:
    fake = Inflating()
    result, voice, person = run_on_fake(fake, plan())
    claims_nothing(result, voice.text)
    assert result.record == notices.DeviceContradicted("more_out", (("load", 81), ("out", 120)))
    assert str(result).startswith(notices.note_words(result.record))  # said in the note's one wording
    assert result.place is not None and (result.place.round, result.place.load) == (1, "B")
    assert fake.passes == 2 and len(fake.tray) == 81  # held: none of load B dealt, no pass after


# -- the machine in memory --------------------------------------------------------------------------

def dealing(mode: str = "random") -> tuple[Machine, MemoryDevice, Record, Clock]:
    """Load A's pass begun (81 cards), in `mode`."""
    clock, device, voice = Clock(), MemoryDevice(), Record()
    m = Machine(plan(1), Quiet(), voice, device, IN_MEMORY.vary(mode=mode, stall_s=8), clock=clock)
    m.begin()
    m.handle(Answer(m.shown.number))  # the cut: load A's step
    m.handle(device_messages.make_event(protocol.EV_LOADED, n=81))
    device.state, device.n = protocol.ST_DEALING, 81
    assert isinstance(m.phase, Dealing)
    return m, device, voice, clock


def progress(k: int, n: int = 81) -> Any:
    return device_messages.make_event(protocol.EV_PROGRESS, k=k, n=n)


def stop_of(m: Machine, fact: Any) -> guide_machine.GuideStopped:
    with pytest.raises(guide_machine.GuideStopped) as stopped:
        m.handle(fact)
    assert isinstance(m.phase, Stopped) and m.summary is None
    return stopped.value


def test_a_count_that_goes_back_is_a_fault_of_the_device_not_a_card() -> None:
    """A device repeating an older progress while its status counts on:
    the older count is not believed (it set the count back, and the status
    one higher then read as a new card every few seconds, for ever)."""
    m, device, voice, clock = dealing()
    m.handle(progress(10))
    clock.advance(9)  # quiet past stall_s: the guide asks the status
    device.k = 11
    m.handle(Tick())
    assert m.pass_ is not None and m.pass_.k == 11
    stop = stop_of(m, progress(10))
    assert m.notes[-1] == notices.DeviceContradicted("count_back", (("now", 10), ("was", 11)))
    assert stop.reason == why.DeviceHeld(m.notes[-1], exactness_lost=False)  # random mode claimed no exactness


def test_a_device_repeating_one_count_for_ever_ends_in_one_line_not_a_hang() -> None:
    m, device, voice, clock = dealing()
    device.k = 10
    m.handle(progress(10))
    with pytest.raises(guide_machine.GuideStopped) as stopped:
        for _ in range(200):  # 200 s of the device repeating itself, a progress and a tick a second
            clock.advance(1)
            m.handle(progress(10))
            m.handle(Tick())
    assert clock.now - 1000 <= 3 * 8 + 2  # counted from the last real progress: a repeat is none
    reason = stopped.value.reason
    assert isinstance(reason, why.Stalled) and reason.name == device.name, reason
    assert 2 * 8 < reason.seconds <= 3 * 8 + 2  # past twice stall_s, from the last real progress


def exact_after_load_a() -> tuple[Machine, MemoryDevice, Record, Clock]:
    """Exact mode (whole-pack radix, 8 rounds of loads A and B): load A of
    round 1 dealt, the guide waiting for the device's word on its routine."""
    m, device, voice, clock = dealing("exact")
    m.handle(device_messages.make_event(protocol.EV_DONE, k=81, n=81))
    assert isinstance(m.phase, AfterPass)
    return m, device, voice, clock


def lost_and_claimless(m: Machine, fault: str, **values: int) -> None:
    """Exactness lost in the ledger on the device's fault, by its name and
    the values it was seen with, and the guide stopped there."""
    assert m.ledger.lost and m.ledger.entries[-1].outcome == proof.LOST
    assert m.ledger.entries[-1].what == proof.DeviceContradiction(fault, tuple(sorted(values.items())))
    assert m.ledger.entries[-1].then == proof.StoppedThere()
    assert not m.resumable  # no --resume offered: the device's routine is not believed


@pytest.mark.exact_mode
def test_an_exact_routine_done_early_is_a_fault_of_the_device() -> None:
    m, _, _, _ = exact_after_load_a()
    stop = stop_of(m, device_messages.make_event(protocol.EV_EXACT_DONE, rounds=8))
    assert stop.reason == why.DeviceHeld(m.notes[-1], exactness_lost=True)  # the line says exactness is lost
    lost_and_claimless(m, "done_early", passes=1, of=16)


@pytest.mark.exact_mode
def test_an_exact_routine_done_with_other_rounds_is_a_fault_of_the_device() -> None:
    m, _, _, _ = exact_after_load_a()
    stop_of(m, device_messages.make_event(protocol.EV_EXACT_DONE, rounds=1))
    lost_and_claimless(m, "done_rounds", was=8, now=1)


@pytest.mark.exact_mode
def test_an_exact_routine_whose_rounds_change_is_a_fault_of_the_device() -> None:
    m, _, _, _ = exact_after_load_a()
    stop_of(m, device_messages.make_event(protocol.EV_EXACT_NEXT, round=1, rounds=12, load="B", count=81))
    lost_and_claimless(m, "next_rounds", was=8, now=12)


@pytest.mark.exact_mode
def test_the_routine_s_own_next_load_is_believed() -> None:
    """The check that refuses a changed routine takes the one it began with."""
    m, _, _, _ = exact_after_load_a()
    m.handle(device_messages.make_event(protocol.EV_EXACT_NEXT, round=1, rounds=8, load="B", count=81))
    assert not isinstance(m.phase, Stopped) and not m.ledger.lost


# -- a late hello, end to end on the link the guide opens ----------------------------------------

def test_a_guide_on_a_board_that_answers_hello_late_begins() -> None:
    fake = FakeShuffler()
    answer = fake.dev.handler

    def late(dev: Any, req: dict[str, Any]) -> None:
        if req["cmd"] == "hello":
            timer = threading.Timer(0.6, answer, (dev, req))
            timer.daemon = True
            timer.start()
            return
        answer(dev, req)
    fake.dev.handler = late
    t0 = time.monotonic()
    result, voice, _ = run_on_fake(fake, plan(1))
    assert isinstance(result, guide_machine.Summary), voice.text
    assert result.loads == [[81, 81]] and time.monotonic() - t0 < 60


def test_a_pass_of_more_cards_than_the_tray_holds_is_a_fault_of_the_device() -> None:
    clock, device, voice = Clock(), MemoryDevice(), Record()
    m = Machine(plan(1), Quiet(), voice, device, IN_MEMORY, clock=clock)
    m.begin()
    m.handle(Answer(m.shown.number))  # the cut: load A's step
    stop = stop_of(m, device_messages.make_event(protocol.EV_LOADED, n=device.capacity + 1))
    said = notices.DeviceContradicted("tray_over", (("capacity", device.capacity), ("out", device.capacity + 1)))
    assert m.notes[-1] == said and stop.reason == why.DeviceHeld(said, exactness_lost=False)


@pytest.mark.restart
def test_shuffler_guide_on_a_board_reflashed_under_it_exits_non_zero_with_one_line(tmp_path: Path) -> None:
    """`shuffler guide --port` as a person runs it: the board answers its
    status, then says hello with another protocol (reflashed under the
    guide). One line on stderr, what changed and what to run; exit 1."""
    from hosttest_support import FakeDevice
    from suite import shuffler

    def reflashed(dev: FakeDevice, req: dict[str, Any]) -> None:
        dev.idle_shuffler(req)
        if req["cmd"] == "status" and not getattr(dev, "said", False):
            dev.said = True  # type: ignore[attr-defined]
            dev.emit({"ev": "hello", "fw": "0.1.0", "proto": protocol.PROTOCOL_VERSION + 1, "board": "fake",
                      "capacity": 104, "state": "idle", "uid": dev.uid, "digest": protocol.digest()})
    dev = FakeDevice(reflashed)
    feed = tmp_path / "steps.jsonl"
    try:
        out = shuffler("guide", "--port", dev.port, "--pack", "samba", "--mode", "random", "--wait", "60",
                       "--steps-file", str(feed), timeout=120)
    finally:
        dev.close()
    lines = out.stderr.strip().splitlines()
    assert out.returncode == 1 and len(lines) == 1, out.stderr
    stop = json.loads(feed.read_text().splitlines()[-1])  # the stop's record: the line on stderr is its words
    assert stop["record"] == "stop" and lines[0].endswith(stop["words"]), (stop, lines)
    new = {"kind": "Changed", "what": why.PROTOCOL, "was": protocol.PROTOCOL_VERSION,
           "now": protocol.PROTOCOL_VERSION + 1}
    assert stop["reason"] == {"kind": "OtherFirmware", "name": dev.port, "changes": [new]}, stop
    assert "Traceback" not in out.stderr
    assert "exactly" not in out.stdout and "Shuffled" not in out.stdout


@pytest.mark.exact_mode
def test_an_exact_routine_done_in_the_middle_of_its_first_pass_is_a_fault_of_the_device() -> None:
    m, _, _, _ = dealing("exact")
    m.handle(progress(40))
    stop_of(m, device_messages.make_event(protocol.EV_EXACT_DONE, rounds=8))
    lost_and_claimless(m, "done_early", passes=0, of=16)
