"""The protocol client against a scripted device on a pseudo-terminal: the
handshake, replies matched by id, garbage, silence, another protocol version
and a device that goes away."""
from __future__ import annotations

import json
import threading
import time
from typing import Any

import pytest
import serial

from firmware import protocol
from host import wire
from host import ports
from host import port_records as said
from host.device_link import (REQUEST_TIMEOUT_S, DeviceError, Garbage, Link, LinkClosed, LinkError, LinkTimeout,
                       ProtocolMismatch)
from hosttest_support import FakeDevice
from simulator.virtual import registry


@pytest.fixture
def make_fake_device() -> Any:
    made: list[FakeDevice] = []

    def make(*args: Any, **kwargs: Any) -> FakeDevice:
        dev = FakeDevice(*args, **kwargs)
        made.append(dev)
        return dev

    yield make
    for dev in made:
        dev.close()


def test_handshake_and_status(make_fake_device: Any) -> None:
    dev = make_fake_device()
    link = Link.open(dev.port)
    try:
        hello = link.handshake(timeout=2)
        assert hello["proto"] == protocol.PROTOCOL_VERSION and hello["board"] == "fake"
        assert dev.requests[0] == {"cmd": "hello", "id": dev.requests[0]["id"], "proto": protocol.PROTOCOL_VERSION}
        assert link.status()["state"] == "idle"
    finally:
        link.close()


def test_a_short_reply_is_taken_as_it_comes_not_when_the_read_would_end(make_fake_device: Any) -> None:
    # A serial read of n bytes returns once n bytes came or the port's
    # timeout ran out: a link that asked for more than a reply holds would sit
    # on the reply until then. Reads on this port may block for 20 s; the
    # reply is taken within 5 s only if the link takes bytes as they come.
    dev = make_fake_device()
    link = Link(serial.Serial(dev.port, baudrate=115200, timeout=20), name=dev.port)
    try:
        assert link.request("status", timeout=5)["state"] == "idle"
    finally:
        link.close()


def test_replies_are_matched_by_id_not_by_order(make_fake_device: Any) -> None:
    def late_first(dev: FakeDevice, req: dict[str, Any]) -> None:
        if req["cmd"] == "status":
            dev.reply({"cmd": "status", "id": req["id"] + 1000}, state="wrong")  # someone else's
            dev.reply(req, state="idle", marker=req["id"])
    dev = make_fake_device(late_first)
    link = Link.open(dev.port)
    try:
        got = link.request("status", timeout=2)
        assert got["state"] == "idle" and got["marker"] == got["id"]
    finally:
        link.close()


@pytest.mark.serial_garbage
def test_garbage_is_reported_and_the_link_carries_on(make_fake_device: Any) -> None:
    dev = make_fake_device()
    link = Link.open(dev.port)
    try:
        dev.emit(b"MPY: soft reboot\r\n")
        dev.emit(b"\xff\xfe not ascii\n")
        dev.emit({"ev": "touch", "state": "idle"})
        seen = [link.next_event(2), link.next_event(2), link.next_event(2)]
        assert isinstance(seen[0], Garbage) and b"soft reboot" in seen[0].line
        assert isinstance(seen[1], Garbage)
        assert seen[2] == {"ev": "touch", "state": "idle"}
        assert len(link.garbage) == 2
        assert link.handshake(timeout=2)["proto"] == protocol.PROTOCOL_VERSION
    finally:
        link.close()


def test_silence_times_out(make_fake_device: Any) -> None:
    dev = make_fake_device(lambda d, r: None)
    link = Link.open(dev.port)
    try:
        t0 = time.monotonic()
        with pytest.raises(LinkTimeout):
            link.request("status", timeout=0.3)
        with pytest.raises(LinkTimeout) as info:
            link.handshake(timeout=0.6)
        assert info.value.record == said.NoHello(dev.port, 0.6)
        assert time.monotonic() - t0 < 3
        assert link.next_event(0.1) is None
    finally:
        link.close()


@pytest.mark.parametrize("refuses", [True, False])
def test_another_protocol_version_is_named(make_fake_device: Any, refuses: bool) -> None:
    if refuses:
        dev = make_fake_device(proto=protocol.PROTOCOL_VERSION + 1)  # answers E_PROTO
    else:
        def old(d: FakeDevice, req: dict[str, Any]) -> None:  # ignores our version, says its own
            d.reply(req, fw="0.0.1", proto=protocol.PROTOCOL_VERSION + 1, board="fake", capacity=104, state="idle")
        dev = make_fake_device(old)
    link = Link.open(dev.port)
    try:
        with pytest.raises(ProtocolMismatch) as info:
            link.handshake(timeout=2)
        assert info.value.record == said.OtherProtocol(dev.port, protocol.PROTOCOL_VERSION + 1, protocol.PROTOCOL_VERSION)
    finally:
        link.close()


def test_error_replies_raise_device_error_with_the_code(make_fake_device: Any) -> None:
    dev = make_fake_device()
    link = Link.open(dev.port)
    try:
        with pytest.raises(DeviceError) as info:
            link.request("resume", timeout=2)
        assert info.value.code == protocol.E_STATE and info.value.name == "state"
    finally:
        link.close()


@pytest.mark.restart
def test_unplugged_device_ends_waits_with_link_closed(make_fake_device: Any) -> None:
    dev = make_fake_device(lambda d, r: None)
    link = Link.open(dev.port)
    try:
        result: dict[str, BaseException] = {}

        def ask() -> None:
            try:
                link.request("status", timeout=5)
            except LinkError as exc:
                result["exc"] = exc

        asker = threading.Thread(target=ask)
        asker.start()
        time.sleep(0.2)
        t0 = time.monotonic()
        dev.unplug()
        asker.join(timeout=5)
        assert isinstance(result.get("exc"), LinkClosed)
        assert time.monotonic() - t0 < 2  # the wait ended with the port, not at its timeout
        with pytest.raises(LinkClosed):
            link.next_event(1)
        with pytest.raises(LinkClosed):
            link.status()
    finally:
        link.close()


def test_a_port_that_does_not_exist_is_one_clear_error() -> None:
    with pytest.raises(LinkError) as info:
        Link.open("/dev/no-such-shuffler")
    assert info.value.record == said.NoSuchPort("/dev/no-such-shuffler")


def test_replies_left_over_from_a_killed_host_do_not_answer_the_next_one(make_fake_device: Any) -> None:
    """A host killed mid-run leaves replies queued, with ids from 1 up: the next
    run's hello must not take a stale status reply (or event) for its own."""
    def stale_then_honest(dev: FakeDevice, req: dict[str, Any]) -> None:
        if req["cmd"] == "hello":
            for rid in range(1, 5):  # what the earlier run never read
                dev.emit(wire.reply("status", rid, state="idle", k=0, n=0))
                dev.emit(wire.reply("hello", rid, fw="0.0.1", proto=protocol.PROTOCOL_VERSION - 1, board="old", capacity=52))
            dev.emit({"ev": "done", "k": 10, "n": 10, "left": 4, "right": 6})
        dev.idle_shuffler(req)

    dev = make_fake_device(stale_then_honest)
    link = Link.open(dev.port)
    try:
        hello = link.handshake(timeout=2)
        assert hello["board"] == "fake" and hello["proto"] == protocol.PROTOCOL_VERSION
        assert link.drain() == []  # the stale event came before the handshake's reply
    finally:
        link.close()


def test_each_link_draws_its_own_ids(make_fake_device: Any) -> None:
    dev = make_fake_device()
    ids = []
    for _ in range(2):
        link = Link.open(dev.port)
        try:
            link.handshake(timeout=2)
        finally:
            link.close()
        ids.append(dev.requests[-1]["id"])
    assert ids[0] != ids[1]


@pytest.mark.parametrize("event, why", [
    ({"ev": "done", "k": 1000, "n": 81, "left": 600, "right": 400}, "k 1000 is more than n 81"),
    ({"ev": "loaded", "n": -5}, "n -5 is outside"),
    ({"ev": "loaded", "n": 1_000_000_000}, "n 1000000000 is outside"),
    ({"ev": "progress", "k": "abc", "n": 81}, "k is 'abc', not a whole number"),
    ({"ev": "progress", "k": 3, "n": 81, "left": 3, "right": 3}, "do not add up"),
    ({"ev": "fault", "code": 99}, "code 99 is not one the protocol knows"),
])
def test_an_absurd_event_is_a_protocol_fault_not_a_number_to_believe(make_fake_device: Any, event: dict[str, Any],
                                                                      why: str) -> None:
    from host.device_link import BadMessage

    dev = make_fake_device()
    link = Link.open(dev.port)
    try:
        link.handshake(timeout=2)
        dev.emit(event)
        got = link.next_event(2)
        assert isinstance(got, BadMessage) and why in got.why
        broken = got.fault(dev.port).record
        assert isinstance(broken, said.ProtocolBroken) and (broken.name, broken.why) == (dev.port, got.why)
        assert json.loads(broken.sent) == event  # the line as it came
    finally:
        link.close()


@pytest.mark.serial_garbage
def test_a_malformed_reply_is_one_clear_error(make_fake_device: Any) -> None:
    from host.device_link import ProtocolFault

    def lots(dev: FakeDevice, req: dict[str, Any]) -> None:
        if req["cmd"] == "count":
            dev.reply(req, n=81, capacity="lots")
        else:
            dev.idle_shuffler(req)

    dev = make_fake_device(lots)
    link = Link.open(dev.port)
    try:
        link.handshake(timeout=2)
        with pytest.raises(ProtocolFault, match="capacity is 'lots', not a whole number"):
            link.request("count")
    finally:
        link.close()


def test_a_port_that_is_not_a_serial_port_is_named_plainly() -> None:
    with pytest.raises(LinkError) as info:
        Link.open("/dev/null")
    assert info.value.record == said.NotASerialPort("/dev/null")
    with pytest.raises(LinkError) as info:
        ports.open_link("/dev")
    assert info.value.record == said.NotASerialPort("/dev", said.FOLDER)


def test_a_real_board_keeps_the_short_timeouts_and_a_slow_device_advertised_with_its_port_gets_longer(
        make_fake_device: Any, tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """A device that answers in 2.5 s: a real board's port (never advertised)
    gives up after 2 s; the same device advertised with a slowdown of 4 (as
    the emulated Pico advertises its own) is waited for, by the link the
    commands open (host/ports.py)."""
    monkeypatch.setenv(registry.ENV_DIR, str(tmp_path))

    def slow(dev: FakeDevice, req: dict[str, Any]) -> None:
        time.sleep(2.5)
        FakeDevice.idle_shuffler(dev, req)
    dev = make_fake_device(slow)
    link = ports.open_link(dev.port)
    try:
        assert link.slowdown == 1.0
        with pytest.raises(LinkTimeout) as info:
            link.status()
        assert info.value.record == said.NoAnswer(dev.port, protocol.CMD_STATUS, REQUEST_TIMEOUT_S)
    finally:
        link.close()
    advert = registry.advertise(dev.port, tmp_path, board="pico", slowdown=4.0)
    link = ports.open_link(dev.port)
    try:
        assert link.slowdown == 4.0 and link.wait_s(REQUEST_TIMEOUT_S) == 4 * REQUEST_TIMEOUT_S
        assert link.status()["state"] == "idle"
    finally:
        link.close()
        registry.withdraw(advert)


def test_one_request_is_outstanding_at_a_time_whatever_the_threads(make_fake_device: Any) -> None:
    """A board's receive ring holds one request (an ESP32's drops what does
    not fit): the link writes the next only after the last one's reply."""
    lock = threading.Lock()
    unanswered: set[int] = set()
    seen_at_arrival: list[int] = []

    def slow(dev: FakeDevice, req: dict[str, Any]) -> None:
        with lock:
            seen_at_arrival.append(len(unanswered))
            unanswered.add(req["id"])

        def answer() -> None:
            with lock:
                unanswered.discard(req["id"])
            dev.reply(req, state="idle")
        threading.Timer(0.1, answer).start()

    dev = make_fake_device(slow)
    link = Link.open(dev.port)
    got: list[str] = []
    try:
        threads = [threading.Thread(target=lambda: got.append(link.status(timeout=5)["state"])) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=10)
        assert got == ["idle"] * 4
        assert seen_at_arrival == [0, 0, 0, 0]  # nothing else unanswered when each arrived
    finally:
        link.close()


@pytest.mark.parametrize("late_s", [0.6, 1.3])
def test_a_hello_answered_late_inside_the_deadline_is_taken(make_fake_device: Any, late_s: float) -> None:
    """A board that answers every hello `late_s` after it was asked (a slow
    boot, a busy port): each attempt waits HELLO_EVERY_S, and the late reply
    to an earlier attempt is still taken."""
    def late(dev: FakeDevice, req: dict[str, Any]) -> None:
        timer = threading.Timer(late_s, FakeDevice.idle_shuffler, (dev, req))
        timer.daemon = True
        timer.start()
    dev = make_fake_device(late)
    link = Link.open(dev.port)
    try:
        hello = link.handshake(timeout=5)
        assert hello["proto"] == protocol.PROTOCOL_VERSION
        hellos = [r["id"] for r in dev.requests if r["cmd"] == "hello"]
        assert len(hellos) >= 2 and hello["id"] == hellos[0]  # asked again, and the first answer taken
        assert link.status(timeout=3)["state"] == "idle"  # the turn is free again
    finally:
        link.close()
