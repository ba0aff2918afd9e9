"""Every request is checked on the board from the one declaration
(firmware/protocol.py COMMAND_FIELDS): each field of each command, at each
end of its declared range and one beyond, of the wrong kind, and missing
where it is required, gets the answer the declaration gives, from the real
firmware on the MicroPython unix port. A bound the declaration names
(protocol.BOUNDS) is the board's own figure, and the refusal says it. So
the declaration and the firmware cannot disagree on a range: there is no
second one to disagree with."""

from __future__ import annotations

from typing import Any, Iterator

import pytest

from firmware import profile_sim
from firmware import protocol
from shuffling.limits import MAX_EXACT_MODE_CARDS as MAX_CARDS  # firmware/exact.py MAX_CARDS (held equal by tests/shuffling/test_limits.py)
from fwtest_support import FwProcess
from host import device_messages

pytestmark = pytest.mark.micropython

P = profile_sim.PROFILE
# The simulated board's figures for the bounds the declaration names, as
# its profile gives them (the board works them out for itself).
LIMITS = {"capacity": P["capacity"], "exact_max": MAX_CARDS, "battery_min": P["battery_min_mv"],
          "meter_max": P["battery_max_mv"] + 2000, "wait_max": P["wdt_ms"] // 2}
# A valid value for each required field, so that a probe of one field is
# the only thing wrong with its request.
VALID: dict[tuple[str, str], Any] = {("calibrate", "what"): "touch", ("feed", "n"): 1, ("feed", "side"): "left"}


def test_every_bound_a_request_names_is_one_the_board_sets() -> None:
    names = {r.lo_name for f in device_messages.COMMANDS.values() for r in f.rules.values()} | \
            {r.hi_name for f in device_messages.COMMANDS.values() for r in f.rules.values()} | \
            {r.hi_name for r in device_messages.OBJECTS["config"].rules.values()}
    assert names - {""} <= set(LIMITS) == set(device_messages.BOUNDS)
    for name, value in LIMITS.items():
        assert value <= device_messages.BOUNDS[name], (name, value)


def probes(cmd: str, name: str, rule: device_messages.Rule) -> Iterator[tuple[Any, Any]]:
    """(value, expected refusal or None) for one declared field: None where
    the declaration takes the value (the request may still be refused for
    another reason, never for this field)."""
    if rule.kind == "int":
        lo = LIMITS[rule.lo_name] if rule.lo_name else rule.lo
        hi = LIMITS[rule.hi_name] if rule.hi_name else rule.hi
        yield lo, None
        yield hi, None
        yield lo - 1, (protocol.E_BAD_VALUE, protocol.WHY_RANGE, name, lo, hi)
        yield hi + 1, (protocol.E_BAD_VALUE, protocol.WHY_RANGE, name, lo, hi)
        yield str(lo), (protocol.E_BAD_FIELD, protocol.WHY_RANGE, name, lo, hi)
        yield True, (protocol.E_BAD_FIELD, protocol.WHY_RANGE, name, lo, hi)
    elif rule.kind == "set":
        for v in rule.values:
            yield v, None
        ints = isinstance(rule.values[0], int)
        yield (max(rule.values) + 1 if ints else "nonesuch"), (protocol.E_BAD_VALUE, protocol.WHY_CHOICE, name, None, None)
        yield ("0" if ints else 1), (protocol.E_BAD_FIELD, protocol.WHY_CHOICE, name, None, None)
    elif rule.kind == "bool":
        yield True, None
        yield False, None
        yield 1, (protocol.E_BAD_FIELD, protocol.WHY_CHOICE, name, None, None)
    elif rule.kind == "obj":
        assert rule.fields is not None
        yield {}, None
        yield [], (protocol.E_BAD_FIELD, protocol.WHY_CHOICE, name, None, None)
        yield {"nonesuch": 1}, (protocol.E_BAD_FIELD, protocol.WHY_CHOICE, "nonesuch", None, None)
        for inner, inner_rule in rule.fields.rules.items():
            for v, expected in probes(cmd, inner, inner_rule):
                yield {inner: v}, expected
    else:
        raise AssertionError(f"{cmd}.{name}: a request field of kind {rule.kind} has no probes here")


def refusal_of(rep: dict[str, Any]) -> tuple[Any, ...]:
    return (rep["err"], rep.get("why"), rep.get("field"), rep.get("lo"), rep.get("hi"))


def settle(dev: FwProcess) -> None:
    """Put back what a taken probe may have changed: a routine begun, a
    setting made, a fault latched."""
    if dev.call("exact", held=True).get("mode") == protocol.MODE_EXACT:
        dev.call("exact", cancel=True)
    dev.call("config", set=dict(P["defaults"]))
    dev.call("clear")


def test_every_field_of_every_command_gets_the_answer_its_declaration_gives(fw_process: FwProcess) -> None:
    dev = fw_process
    assert dev.hello()["capacity"] == LIMITS["capacity"]
    checked = 0
    for cmd, fields in device_messages.COMMANDS.items():
        base = {name: VALID[(cmd, name)] for name in fields.required}
        for name in fields.required:
            rep = dev.call(cmd, **{k: v for k, v in base.items() if k != name})
            assert rep["ok"] is False, (cmd, name, rep)
            rule = fields.rules[name]
            lo_hi = ((LIMITS.get(rule.lo_name, rule.lo), LIMITS.get(rule.hi_name, rule.hi)) if rule.kind == "int"
                     else (None, None))
            why = protocol.WHY_RANGE if rule.kind == "int" else protocol.WHY_CHOICE
            assert refusal_of(rep) == (protocol.E_BAD_FIELD, why, name, *lo_hi), (cmd, name, rep)
            checked += 1
        for name, rule in fields.rules.items():
            for value, expected in probes(cmd, name, rule):
                rep = dev.call(cmd, **{**base, name: value})
                if expected is None:
                    refused_for_it = rep["ok"] is False and rep.get("field") in (name, *rule_fields(rule))
                    assert not refused_for_it, (cmd, name, value, rep)
                else:
                    assert rep["ok"] is False and refusal_of(rep) == expected, (cmd, name, value, rep)
                checked += 1
                settle(dev)
    assert checked > 100
    # Still the board it was: it answers, idle, with its calibration.
    assert dev.call("status")["state"] == protocol.ST_IDLE


def rule_fields(rule: device_messages.Rule) -> tuple[str, ...]:
    return rule.fields.names if rule.kind == "obj" and rule.fields is not None else ()


def test_a_field_a_request_needs_only_with_some_values_is_refused_as_declared(fw_process: FwProcess) -> None:
    """calibrate's n (the stack), flip (the motor), mv (the battery) and
    exact's n (to begin a routine) are required by what the request asks,
    and refused missing with the range the declaration gives them."""
    dev = fw_process
    for cmd, fields, name in (("calibrate", {"what": "stack"}, "n"), ("calibrate", {"what": "motor"}, "flip"),
                              ("calibrate", {"what": "battery"}, "mv"), ("exact", {}, "n")):
        rule = device_messages.COMMANDS[cmd].rules[name]
        rep = dev.call(cmd, **fields)
        if rule.kind == "int":
            expected = (protocol.E_BAD_FIELD, protocol.WHY_RANGE, name, LIMITS.get(rule.lo_name, rule.lo),
                        LIMITS.get(rule.hi_name, rule.hi))
        else:
            expected = (protocol.E_BAD_FIELD, protocol.WHY_CHOICE, name, None, None)
        assert rep["ok"] is False and refusal_of(rep) == expected, (cmd, fields, rep)
