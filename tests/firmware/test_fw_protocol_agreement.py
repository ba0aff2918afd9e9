"""The firmware and the host agree on one declaration of the protocol
(firmware/protocol.py): every line the real firmware sends on the
MicroPython unix port keeps to it, field by field, with no field it does
not declare; every event it declares is one the firmware sends, and every
one the firmware sends is declared; and the host's validator is the one
generated from that table."""

from __future__ import annotations

import importlib
import re
from typing import Any

import pytest

from firmware import protocol
from host import wire
from fwtest_support import FIRMWARE, FwProcess
from host import device_messages

pytestmark = pytest.mark.micropython


def undeclared(msg: dict[str, Any], fields: device_messages.Fields, envelope: tuple[str, ...]) -> list[str]:
    """Keys of msg (and of its declared objects) that the table does not declare."""
    extra = [k for k in msg if k not in fields.rules and k not in envelope]
    for key, rule in fields.rules.items():
        if rule.kind == "obj" and isinstance(msg.get(key), dict):
            assert rule.fields is not None
            extra += [f"{key}.{k}" for k in undeclared(msg[key], rule.fields, ())]
    return extra


def strict_problem(msg: dict[str, Any]) -> str | None:
    """None when msg keeps to the declaration and carries nothing else."""
    why = device_messages.problem(msg)
    if why:
        return why
    if protocol.F_EV in msg:
        fields = device_messages.EVENTS.get(msg[protocol.F_EV])
        if fields is None:
            return f"event {msg[protocol.F_EV]!r} is not declared"
        extra = undeclared(msg, fields, (protocol.F_EV,))
    elif msg[protocol.F_OK]:
        fields = device_messages.REPLIES.get(msg[protocol.F_RE])
        if fields is None:
            return f"a reply to {msg[protocol.F_RE]!r} is not declared"
        extra = undeclared(msg, fields, (protocol.F_RE, protocol.F_OK, protocol.F_ID))
    else:
        extra = undeclared(msg, device_messages.ERROR, (protocol.F_RE, protocol.F_OK, protocol.F_ID))
    return f"undeclared {', '.join(extra)}" if extra else None


def session(dev: FwProcess) -> None:
    """What a host and a person do with the board: questions, settings,
    calibration, a pass, a jam and its resumption, refusals, an exact
    routine begun, asked about and cancelled, and bad lines."""
    w = dev.world
    assert w is not None
    for cmd, fields in (("hello", {"proto": protocol.PROTOCOL_VERSION}), ("status", {}), ("read", {}),
                        ("read", {"what": "cal"}), ("config", {}), ("config", {"set": {"progress_every": 1}}),
                        ("count", {}), ("calibrate", {"what": "touch"}), ("calibrate", {"what": "beam"}),
                        ("resume", {}), ("abort", {}), ("clear", {}), ("hello", {"proto": 99}), ("feed", {"n": 3})):
        dev.call(cmd, **fields)
    assert dev.call("start")["err"] == protocol.E_REFUSED  # an empty tray: refused, with its fault event
    dev.event("fault")
    w.load(list(range(12)))
    w.inject("jam", k=4)
    assert dev.call("start")["ok"] is True
    assert dev.event("fault")["code"] == protocol.FAULT_JAM
    assert dev.call("status")["state"] == protocol.ST_PAUSED
    w.fix()
    dev.call("resume")
    dev.event("done")
    w.take("left")
    w.take("right")
    w.load(list(range(6)))
    assert dev.call("feed", n=7, side=protocol.LEFT)["err"] == protocol.E_BAD_VALUE  # the tray holds 6
    assert dev.call("feed", n=2, side=protocol.LEFT)["ok"] is True
    dev.event("done")
    assert dev.call("exact", n=8)["ok"] is True
    dev.event("exact_next")
    assert dev.call("exact", held=True)["mode"] == protocol.MODE_EXACT
    dev.call("status")
    assert dev.call("exact", cancel=True)["ok"] is True
    dev.event("exact_lost")
    dev.write(b'{oops\n')
    dev.write(b'{"cmd":"fly","id":5}\n')
    assert dev.call("calibrate", what="stack", n=0)["ok"] is True
    dev.call("status")


def test_every_line_the_firmware_sends_keeps_to_the_declaration(fw_process: FwProcess) -> None:
    session(fw_process)
    assert fw_process.lines, "the firmware sent nothing"
    for line in fw_process.lines:
        msg = wire.parse_message(line)
        assert strict_problem(msg) is None, (line, strict_problem(msg))
    hello = fw_process.seen[0]
    assert hello[protocol.F_EV] == protocol.EV_HELLO
    # The digest MicroPython computes of its own table is CPython's of the same table.
    assert hello[protocol.F_DIGEST] == protocol.digest() == device_messages.DIGEST
    kinds = {m[protocol.F_EV] for m in fw_process.seen if protocol.F_EV in m}
    assert {protocol.EV_HELLO, protocol.EV_LOADED, protocol.EV_PROGRESS, protocol.EV_DONE, protocol.EV_FAULT, protocol.EV_EXACT_NEXT,
            protocol.EV_EXACT_LOST} <= kinds
    replies = {m[protocol.F_RE] for m in fw_process.seen if m.get(protocol.F_OK) is True}
    assert set(protocol.COMMANDS) - replies == {protocol.CMD_ABORT}  # every other command answered yes at least once
    assert {m[protocol.F_ERR] for m in fw_process.seen if m.get(protocol.F_OK) is False} >= {
        protocol.E_BAD_JSON, protocol.E_UNKNOWN_CMD, protocol.E_STATE, protocol.E_PROTO, protocol.E_REFUSED, protocol.E_BAD_VALUE}


def sent_in_firmware(pattern: str) -> set[str]:
    """The protocol constants a pattern finds in the firmware's sources, as their values."""
    names: set[str] = set()
    for path in sorted(FIRMWARE.glob("*.py")):
        names |= set(re.findall(pattern, path.read_text()))
    return {getattr(protocol, n) for n in names}


def test_every_declared_event_is_sent_and_every_sent_event_is_declared() -> None:
    # Every event goes out through report.event (or the progress template built from the table).
    sent = sent_in_firmware(r"report\.event\(protocol\.(EV_\w+)") | sent_in_firmware(r"report\.template\(protocol\.(EV_\w+)")
    assert sent == set(protocol.EVENTS)


def test_no_firmware_module_builds_a_message_itself() -> None:
    for name in ("controller.py", "dealer.py", "app.py", "exact.py", "exact_routes.py"):
        text = (FIRMWARE / name).read_text()
        for built in ("protocol.F_EV", '"ev"', "wire.reply(", "protocol.error_reply(", "wire.fault_event(", "link.send(", "b'{"):
            assert built not in text, (name, built)


def test_each_command_has_one_handler_and_a_declared_reply() -> None:
    text = (FIRMWARE / "controller.py").read_text()
    table = text.split("HANDLERS = {", 1)[1].split("}", 1)[0]
    handled = {getattr(protocol, n) for n in re.findall(r"protocol\.(CMD_\w+): Controller\.cmd_\w+", table)}
    assert handled == set(protocol.COMMANDS)
    assert set(protocol.REPLY_FIELDS[::2]) == set(protocol.COMMANDS)
    assert set(protocol.COMMAND_FIELDS[::2]) == set(protocol.COMMANDS)


def test_the_host_validator_is_the_one_generated_from_the_table(monkeypatch: pytest.MonkeyPatch) -> None:
    for table, parsed in ((protocol.EVENT_FIELDS, device_messages.EVENTS), (protocol.REPLY_FIELDS, device_messages.REPLIES)):
        assert set(parsed) == set(table[::2])
        for name, spec in zip(table[::2], table[1::2]):
            assert parsed[name].names == tuple(item.partition(":")[0] for item in spec.split())
    # Change the table: the validator and the digest follow it, with nothing else edited.
    changed = list(protocol.EVENT_FIELDS)
    i = changed.index(protocol.EV_DONE) + 1
    changed[i] = changed[i] + " spare:0..1!"
    monkeypatch.setattr(protocol, "EVENT_FIELDS", tuple(changed))
    try:
        dm = importlib.reload(device_messages)
        assert "spare" in dm.EVENTS[protocol.EV_DONE].required
        # Refused without the new field and only for it (its words: tests/host/test_device_words.py).
        assert dm.problem({"ev": "done", "k": 1, "n": 1}) is not None
        assert [dm.problem({"ev": "done", "k": 1, "n": 1, "spare": v}) for v in (0, 1)] == [None, None]
        assert dm.DIGEST == protocol.digest()
        before = dm.DIGEST
    finally:
        monkeypatch.undo()
        importlib.reload(device_messages)
    assert device_messages.DIGEST != before and device_messages.DIGEST == protocol.digest()
