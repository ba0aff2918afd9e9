"""Every request in every state the board can be in: idle, mid-pass, with
a pass paused and with an alarm latched, each field of each command (the
one declaration, firmware/protocol.py) at each end of its range, beyond
it, of each wrong kind and missing, on the real firmware (the MicroPython
unix port). The board never answers with an internal error, refuses a bad
field as the declaration says whatever its state, and every refusal
carries the values its reason names (the words the host gives it,
host/device_words.py, name them in braces). One firmware process a state;
a probe that moved the board out of its state (an abort, a resume, a
clear) is followed by putting it back."""

from __future__ import annotations

import re
import time
from typing import Any, Callable

import pytest

from firmware import protocol
from fwtest_support import FwProcess
from host import device_messages, device_words
from test_fw_requests_declared import LIMITS, VALID, probes, refusal_of, rule_fields

pytestmark = pytest.mark.micropython

LOAD = 100  # cards in the tray for a pass the probes meet mid-way
# A reason's words name the values it carries in braces; some names are
# worked out from a value of another name, some are optional decoration.
DERIVED = {"fall": "by", "choices": "field", "cards": "k"}
OPTIONAL = {"reading", "cards_out", "held_words"}


def named_values(why: int) -> set[str]:
    """The fields a refusal with this reason must carry (its words' braces)."""
    names = set(re.findall(r"{(\w+)}", device_words.WHYS[why][1])) - OPTIONAL
    return {DERIVED.get(n, n) for n in names}


def state(dev: FwProcess) -> str:
    return str(dev.call("status")["state"])


def until(dev: FwProcess, wanted: Callable[[str], bool], timeout: float = 20.0) -> str:
    """The board's state once `wanted` holds of it (asked until then)."""
    deadline = time.monotonic() + timeout
    while True:
        now = state(dev)
        if wanted(now) or time.monotonic() > deadline:
            return now
        dev.read_some(0.02)


def fresh_table(dev: FwProcess) -> None:
    """The person takes everything off and puts a whole load in the tray."""
    w = dev.world
    assert w is not None
    if state(dev) in (protocol.ST_DEALING, protocol.ST_PAUSED):
        dev.call("abort")
        until(dev, lambda s: s not in (protocol.ST_DEALING, protocol.ST_PAUSED))
    w.fix()
    w.clear_table()
    dev.call("clear")
    dev.call("config", set={"progress_every": 10})
    w.load(list(range(LOAD)))


def enter_dealing(dev: FwProcess) -> None:
    fresh_table(dev)
    assert dev.call("start")["ok"] is True


def enter_paused(dev: FwProcess) -> None:
    fresh_table(dev)
    assert dev.world is not None
    dev.world.inject("jam", k=LOAD // 2)  # a jam stays until fixed: a resume meets it again
    assert dev.call("start")["ok"] is True
    assert until(dev, lambda s: s == protocol.ST_PAUSED) == protocol.ST_PAUSED


def enter_alarm(dev: FwProcess) -> None:
    fresh_table(dev)
    assert dev.world is not None
    dev.world.inject("sensor_missing", sensor="stack")  # clear's self-test finds it still gone
    assert dev.call("start")["ok"] is False
    assert until(dev, lambda s: s == protocol.ST_ALARM) == protocol.ST_ALARM


def enter_idle(dev: FwProcess) -> None:
    if dev.call("exact", held=True).get("mode") == protocol.MODE_EXACT:
        dev.call("exact", cancel=True)
    fresh_table(dev)


ENTER: dict[str, Callable[[FwProcess], None]] = {
    protocol.ST_IDLE: enter_idle, protocol.ST_DEALING: enter_dealing,
    protocol.ST_PAUSED: enter_paused, protocol.ST_ALARM: enter_alarm,
}


def put_back(dev: FwProcess, target: str) -> None:
    """After a probe: the board in `target` again, its settings the defaults."""
    now = state(dev)
    if target == protocol.ST_PAUSED and now == protocol.ST_DEALING:
        now = until(dev, lambda s: s != protocol.ST_DEALING)  # a resume meets the jam again
    if target == protocol.ST_IDLE:
        enter_idle(dev)
    elif now != target:
        ENTER[target](dev)
    elif target != protocol.ST_DEALING:
        dev.call("config", set={"progress_every": 10})


def check_every_answer(dev: FwProcess) -> int:
    """No internal error anywhere, every message as declared, every refusal
    with the values its reason names. The number of refusals seen."""
    refusals = 0
    for msg in dev.seen:
        assert device_messages.problem(msg) is None, (msg, device_messages.problem(msg))
        if msg.get("ev") == protocol.EV_FAULT:
            assert msg["code"] != protocol.FAULT_INTERNAL, msg
        if msg.get("ok") is False:
            refusals += 1
            assert msg["err"] != protocol.E_INTERNAL, msg
            why = msg.get("why")
            if why is not None:
                missing = {n for n in named_values(why) if n not in msg}
                assert not missing, (msg, missing)
    return refusals


def busy(dev: FwProcess, target: str, cmd: str, request: dict[str, Any], rep: dict[str, Any]) -> bool:
    """Mid-pass, a request the board does not answer while a pass runs is
    refused busy before its fields are read (protocol.mid_pass_ok)."""
    if target != protocol.ST_DEALING or protocol.mid_pass_ok(cmd, request):
        return False
    if rep.get("err") == protocol.E_BUSY:
        assert set(rep) <= {"re", "id", "ok", "err"}, rep
        return True
    assert state(dev) != protocol.ST_DEALING, (cmd, request, rep)  # the pass had just ended
    return False


def probe_all(dev: FwProcess, target: str) -> int:
    checked = 0
    for cmd, fields in device_messages.COMMANDS.items():
        base = {name: VALID[(cmd, name)] for name in fields.required}
        for name in fields.required:
            request = {k: v for k, v in base.items() if k != name}
            rep = dev.call(cmd, **request)
            rule = fields.rules[name]
            why = protocol.WHY_RANGE if rule.kind == "int" else protocol.WHY_CHOICE
            assert busy(dev, target, cmd, request, rep) or (
                rep["ok"] is False and refusal_of(rep)[:3] == (protocol.E_BAD_FIELD, why, name)), (target, cmd, rep)
            checked += 1
        for name, rule in fields.rules.items():
            for value, expected in probes(cmd, name, rule):
                request = {**base, name: value}
                rep = dev.call(cmd, **request)
                if busy(dev, target, cmd, request, rep):
                    pass
                elif expected is None:
                    refused_for_it = rep["ok"] is False and rep.get("field") in (name, *rule_fields(rule))
                    assert not refused_for_it, (target, cmd, name, value, rep)
                else:
                    assert rep["ok"] is False and refusal_of(rep) == expected, (target, cmd, name, value, rep)
                checked += 1
                put_back(dev, target)
    return checked


@pytest.mark.parametrize("target", [protocol.ST_IDLE, protocol.ST_DEALING, protocol.ST_PAUSED, protocol.ST_ALARM])
def test_every_request_in_every_state_is_answered_as_declared(
        start_fw_process: Callable[..., FwProcess], target: str) -> None:
    # Mid-pass at a card every few milliseconds: a pass lasts while the probes run.
    dev = start_fw_process(speed=2.0 if target == protocol.ST_DEALING else 50.0)
    assert dev.hello()["capacity"] == LIMITS["capacity"]
    ENTER[target](dev)
    assert state(dev) == target
    checked = probe_all(dev, target)
    assert checked > 100
    assert check_every_answer(dev) >= checked // 2
    dev.call("abort")
    dev.world.fix()  # type: ignore[union-attr]
    dev.call("clear")
    assert until(dev, lambda s: s == protocol.ST_IDLE) == protocol.ST_IDLE  # still the board it was


@pytest.mark.parametrize("fields, why", [({}, protocol.WHY_NO_PART), ({"parent": True}, protocol.WHY_NO_PARENT)],
                         ids=["part", "parent"])
def test_a_repair_on_a_board_that_has_held_no_routine_is_refused_as_no_part(
        fw_process: FwProcess, fields: dict[str, Any], why: int) -> None:
    rep = fw_process.call("exact", repair=True, **fields)
    assert (rep["ok"], rep["err"], rep.get("why")) == (False, protocol.E_STATE, why), rep
    assert fw_process.call("status")["state"] == protocol.ST_IDLE


@pytest.mark.parametrize("key", ["k" * 200, "\u00e9t\u00e9" * 14, "x" * protocol.FIELD_ECHO_MAX])
def test_an_unknown_config_key_too_long_to_echo_is_named_shortened(fw_process: FwProcess, key: str) -> None:
    rep = fw_process.call("config", set={key: 1})
    assert (rep["ok"], rep["err"], rep["why"]) == (False, protocol.E_BAD_FIELD, protocol.WHY_CHOICE), rep
    field = rep["field"]
    assert len(field) <= protocol.FIELD_ECHO_MAX and field.isascii()
    if len(key) <= protocol.FIELD_ECHO_MAX and key.isascii():
        assert field == key
    else:
        assert field.endswith("...") or "?" in field
        assert field[:3] == "".join(c if c.isascii() else "?" for c in key[:3])
    assert device_words.why_words(rep).startswith(field + ":")
