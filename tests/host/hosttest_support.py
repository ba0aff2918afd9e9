"""Helpers the host tests share: a scripted device on a pseudo-terminal,
a voice that keeps what the guide says, a guide run over the virtual
shuffler with a scripted person, and the check of a guided routine's record
of every card handled against docs/mechanism.md."""
from __future__ import annotations

import json
import random
import threading
import time
from typing import TYPE_CHECKING, Any, Callable, Iterator

from device_client import LineSplitter
from firmware import protocol
from host import wire
from host import guide as guide_machine
from host import person as person_model
from host import plan as planlib
from host.device_link import Link
from host.guide.options import GuideOptions
from pty_device import FakePort

if TYPE_CHECKING:
    from simulator.virtual import VirtualShuffler

Handler = Callable[["FakeDevice", dict[str, Any]], None]


class FakeDevice(FakePort):
    """A device on a pty that answers requests with `handler` (default: a
    well-behaved idle shuffler) and can write anything to the host."""

    def __init__(self, handler: Handler | None = None, proto: int = protocol.PROTOCOL_VERSION, uid: str = "5eed") -> None:
        self.proto = proto
        self.uid = uid
        self.handler = handler or FakeDevice.idle_shuffler
        self.requests: list[dict[str, Any]] = []
        self._lines = LineSplitter()
        super().__init__()

    def emit(self, obj: dict[str, Any] | bytes) -> None:  # type: ignore[override]
        super().emit(obj if isinstance(obj, bytes) else (json.dumps(obj) + "\n").encode())

    def on_data(self, chunk: bytes) -> None:
        for line in self._lines.feed(chunk):
            try:
                req = json.loads(line)
            except ValueError:
                continue
            self.requests.append(req)
            self.handler(self, req)

    def reply(self, req: dict[str, Any], **fields: Any) -> None:
        self.emit(wire.reply(req["cmd"], req.get("id"), **fields))

    def idle_shuffler(self, req: dict[str, Any]) -> None:
        cmd = req["cmd"]
        if cmd == "hello":
            if req.get("proto") not in (None, self.proto):
                self.emit(protocol.error_reply("hello", req.get("id"), protocol.E_PROTO, proto=self.proto))
                return
            self.reply(req, fw="0.1.0", proto=self.proto, board="fake", capacity=104, state="idle", uid=self.uid,
                       digest=protocol.digest())
        elif cmd == "status":
            self.reply(req, state="idle", fault=0, k=0, n=0, left=0, right=0)
        elif cmd == "clear":
            self.reply(req, state="idle")
        else:
            self.emit(protocol.error_reply(cmd, req.get("id"), protocol.E_STATE))


class FakeShuffler:
    """A world and a device in one: a touch deals the tray into two piles
    (bottom card first, each card on top of its pile) and reports it over the
    pty. `trouble(k)` may interrupt the pass after card k: return "restart",
    "unplug", "silent", "stuck" or None."""

    def __init__(self, trouble: Callable[[int, int], str | None] = lambda k, n: None, uid: str = "5eed") -> None:
        self.tray: list[Any] = []
        self.left: list[Any] = []  # top first
        self.right: list[Any] = []
        self.rng = random.Random(5)
        self.trouble = trouble
        self.passes = 0
        self.state = "idle"
        self.last = {"k": 0, "n": 0, "left": 0, "right": 0}
        self.silent = False
        self.fault = 0
        self.uid = uid
        self.reboot_hello: dict[str, Any] = {}  # what its hello says after a restart (a reflash: other firmware)
        self.dev = FakeDevice(self._handle, uid=uid)

    def replug(self, restarted: bool = True, uid: str | None = None) -> FakeDevice:
        """A new port for the same table (the old one was unplugged): the
        device restarted (it remembers no pass) unless `restarted` is False."""
        if restarted:
            self.state = "idle"
            self.last = {"k": 0, "n": 0, "left": 0, "right": 0}
        self.dev = FakeDevice(self._handle, uid=self.uid if uid is None else uid)
        return self.dev

    def _handle(self, dev: FakeDevice, req: dict[str, Any]) -> None:
        if self.silent:
            return
        if req["cmd"] == "status":
            dev.reply(req, state=self.state, fault=self.fault, **self.last)
        elif req["cmd"] == "clear":
            self.state, self.fault = "idle", 0
            dev.reply(req, state="idle")
        elif req["cmd"] == "count" and self.state == "dealing":
            dev.emit(protocol.error_reply("count", req.get("id"), protocol.E_BUSY))
        elif req["cmd"] == "count":
            dev.reply(req, n=len(self.tray), capacity=104)
        else:
            dev.idle_shuffler(req)

    # world side
    def load(self, ids: list[Any]) -> int:
        self.tray = list(ids) + self.tray
        return len(self.tray)

    def take(self, pile: str) -> list[Any]:
        out = {"left": self.left, "right": self.right, "tray": self.tray}.get(pile, [])
        if pile == "left":
            self.left = []
        elif pile == "right":
            self.right = []
        elif pile == "tray":
            self.tray = []
        return list(out)

    def fix(self) -> None:
        pass

    def set_battery(self, mv: int) -> None:
        pass

    def close(self) -> None:
        pass

    def touch(self, ms: int = 100) -> None:
        if self.tray:
            self.state = "dealing"  # from the touch on, a count is answered busy
        threading.Thread(target=self._pass, daemon=True).start()

    def _pass(self) -> None:
        n = len(self.tray)
        self.passes += 1
        self.dev.emit({"ev": "touch", "state": "idle"})
        if n == 0:
            self.dev.emit(wire.fault_event(protocol.FAULT_EMPTY, latched=False, n=0))
            return
        self.dev.emit({"ev": "loaded", "n": n})
        self.state = "dealing"
        left = right = 0
        for k in range(1, n + 1):
            card = self.tray.pop()  # the bottom card is fed first
            if self.rng.random() < 0.5:
                self.left.insert(0, card)
                left += 1
            else:
                self.right.insert(0, card)
                right += 1
            self.last = {"k": k, "n": n, "left": left, "right": right}
            self.dev.emit(b'{"ev":"progress","k":%d,"n":%d,"left":%d,"right":%d}\n' % (k, n, left, right))
            what = self.trouble(k, self.passes)
            if what == "restart":
                self.state = "idle"
                self.last = {"k": 0, "n": 0, "left": 0, "right": 0}
                self.dev.emit(b"MPY: soft reboot\r\n")
                self.dev.emit({"ev": "hello", "fw": "0.1.0", "proto": protocol.PROTOCOL_VERSION, "board": "fake",
                               "capacity": 104, "state": "idle", "uid": self.uid, "digest": protocol.digest(),
                               **self.reboot_hello})
                return
            if what == "unplug":
                self.dev.unplug()
                return
            if what == "silent":
                self.silent = True
                return
            if what == "stuck":
                return  # it says it deals (status: dealing at card k) and deals no card more
            if what == "garbage":
                self.dev.emit(b"\x00\x01 noise on the line\n")
        self.state = "idle"
        self.dev.emit({"ev": "done", "k": n, "n": n, "left": left, "right": right})


class TextVoice(guide_machine.Voice):
    """The console's lines as text, and the records they were made from
    (the notices and the steps shown), for tests to assert on."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.notices: list[Any] = []
        self.steps_shown: list[Any] = []

    def say(self, text: str) -> None:
        self.lines.append(text)

    def notice(self, notice: Any) -> None:
        self.notices.append(notice)
        super().notice(notice)

    def step(self, shown: Any) -> None:
        self.steps_shown.append(shown.step)
        super().step(shown)

    @property
    def text(self) -> str:
        return "\n".join(self.lines)

    def told(self, kind: type, **fields: Any) -> list[Any]:
        """The notices of `kind` the guide gave, those with these fields'
        values: what tests judge the guide's telling by (its words are the
        console's rendering, tested on their own)."""
        return [n for n in self.notices
                if isinstance(n, kind) and all(getattr(n, name) == value for name, value in fields.items())]

    def showed(self, kind: type, **fields: Any) -> list[Any]:
        """The steps of `kind` shown, those with these fields' values."""
        return [s for s in self.steps_shown
                if isinstance(s, kind) and all(getattr(s, name) == value for name, value in fields.items())]


# The guide's options on a fake shuffler and on the virtual one: a person who
# leaves a step alone a few seconds has gone; the machine's waits shortened.
ON_FAKE = GuideOptions(wait_s=5)
ON_VIRTUAL = GuideOptions(wait_s=20, reconnect_s=10, stall_s=3, settle_s=0.2)


def run_on_fake(fake: FakeShuffler, plan: planlib.Plan, person: person_model.ScriptedPerson | None = None,
                reopen: Any = None, voice: TextVoice | None = None,
                **changes: Any) -> tuple[guide_machine.Summary | guide_machine.GuideStopped, TextVoice, person_model.ScriptedPerson]:
    """The guide run to its end (or its stop) against a fake shuffler, the scripted person at the
    table, with ON_FAKE's options but for `changes` (fields of GuideOptions); the link and the
    fake are closed whatever happens."""
    voice = voice or TextVoice()
    link = Link.open(fake.dev.port)
    link.handshake(timeout=2)
    person = person or person_model.ScriptedPerson(fake, 162)
    guide = guide_machine.Guide(plan, person, voice, ON_FAKE.vary(**changes), link=link,
                                reopen=reopen or (lambda: Link.open(fake.dev.port)))
    try:
        result: guide_machine.Summary | guide_machine.GuideStopped = guide.run()
    except guide_machine.GuideStopped as exc:
        result = exc
    finally:
        (guide.link or link).close()
        fake.dev.close()
    return result, voice, person


def run_guided(dev: VirtualShuffler, plan: planlib.Plan, person_cls: type[person_model.ScriptedPerson] = person_model.ScriptedPerson,
               options: GuideOptions = ON_VIRTUAL, link_as: Any = None, **person_kw: Any
               ) -> tuple[guide_machine.Summary, TextVoice, person_model.ScriptedPerson]:
    """Run a whole guided routine on the virtual shuffler, as `options` say;
    the scripted person (person_cls(..., **person_kw)) reaches the device as
    `person.device`. link_as: what the guide gets for the link (a port that
    delays what the device says, say), made from it."""
    link = Link.open(dev.port)
    link.handshake(timeout=10)
    world = dev.world(timeout=10)
    voice = TextVoice()
    person = person_cls(world, plan.cards, **person_kw)
    person.device = dev  # type: ignore[attr-defined]
    guide = guide_machine.Guide(plan, person, voice, options, link=link_as(link) if link_as else link,
                                reopen=lambda: Link.open(dev.port))
    try:
        summary = guide.run()
    finally:
        (guide.link or link).close()
        world.close()
    return summary, voice, person


def restart(dev: VirtualShuffler, person: person_model.ScriptedPerson) -> None:
    """Reset the virtual shuffler, wait for it to boot again and give the
    person a fresh connection to its world."""
    boots = dev.boots
    person.world.close()
    dev.hard_reset()
    deadline = time.monotonic() + 15
    while dev.boots == boots and time.monotonic() < deadline:
        time.sleep(0.02)
    person.world = dev.world(timeout=10)


def every_card_once_a_round(person: person_model.ScriptedPerson, rounds: int = 2) -> None:
    """Each round dealt all 162 cards once, and the final pack holds each once."""
    for r in range(1, rounds + 1):
        dealt = [c for e in person.log if e["op"] == "take" and e["round"] == r for c in e["left"] + e["right"]]
        assert sorted(dealt) == list(range(162)), f"round {r}"
    final = [e for e in person.log if e["op"] == "final"][0]["pack"]
    assert sorted(final) == list(range(162))


def check_record(log: list[dict[str, Any]], cards: int, rounds: int, loads: int) -> None:
    """Every card dealt once per round, piles in load order, pile trade, final permutation."""
    pack = list(range(cards))
    assert log[0] == {"op": "start", "pack": pack}
    takes = [e for e in log if e["op"] == "take"]
    assert len(takes) == rounds * loads
    tray_in: dict[tuple[int, str], list[Any]] = {}
    for e in log:
        if e["op"] in ("load", "put_back") and not (e["op"] == "load" and e.get("ids") == []):
            tray_in.setdefault((e["round"], e["load"]), []).append(e["ids"])
        if e["op"] in ("unload", "set_aside"):
            tray_in.setdefault((e["round"], e["load"]), []).append(("out", e["ids"]))
    current = pack
    for r in range(1, rounds + 1):
        mine = [e for e in takes if e["round"] == r]
        dealt = [c for e in mine for c in e["left"] + e["right"]]
        assert sorted(dealt) == pack, f"round {r}: not every card dealt exactly once"
        # The round's loads, in order, are the pack as it stood: piles keep the load's order.
        order = {c: i for i, c in enumerate(current)}
        for e in mine:
            for pile in (e["left"], e["right"]):
                assert [order[c] for c in pile] == sorted(order[c] for c in pile), \
                    f"round {r}, load {e['load']}: a pile is out of the load's order"
        # Pile trade: all left piles in load order on top of all right piles.
        current = [c for e in mine for c in e["left"]] + [c for e in mine for c in e["right"]]
    final = [e for e in log if e["op"] == "final"]
    assert len(final) == 1 and final[0]["pack"] == current
    assert sorted(current) == pack


def small_tray_shuffler(tmp_path_factory: Any, tray: int) -> Iterator[Any]:
    """A virtual shuffler whose tray deals `tray` cards, flashed, keeping
    every card it deals (the small packs of the exact-mode slip tests)."""
    from firmware import build
    from simulator.virtual import VirtualShuffler

    dev = VirtualShuffler(time_scale=0.0, keep_cards=True, env={"SHUFFLER_SIM_CAPACITY": str(tray)})
    build.install_to_dir(build.build_image("sim", tmp_path_factory.mktemp("image")), dev.flash_dir)
    dev.start()
    yield dev
    dev.stop()
