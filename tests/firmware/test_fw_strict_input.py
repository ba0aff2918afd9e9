"""Strict input on the MicroPython unix port: a line that strict JSON
rejects is bad_json (MicroPython's own json.loads would take it), an
unreadable command name is unknown_cmd with the id kept, a bad id names
the field, CR, LF and CRLF each end a line, and a sensor that reads
implausibly at run time is a fault, never a touch."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fwtest_support import FIRMWARE, MICROPYTHON, FwProcess, require_micropython
from firmware import protocol
from firmware import request_check

pytestmark = [pytest.mark.micropython, pytest.mark.serial_garbage]


def strict_verdict(raw: bytes) -> bool:
    """CPython's json, made strict: no NaN or Infinity."""
    def refuse(_name: str) -> None:
        raise ValueError("not JSON")
    try:
        json.loads(raw.decode("ascii"), parse_constant=refuse)
    except (ValueError, RecursionError):
        return False
    return True


def last_error(dev: FwProcess) -> dict:
    return dev.wait(lambda m: m.get("re") is not None and m.get("ok") is False)


LENIENT = [
    b'{"cmd":"status",}',  # trailing comma
    b'{1:2,"cmd":"status"}',  # a key that is not a string
    b'{"cmd" "status"}',  # no colon
    b'{"cmd":"status" "id":3}',  # no comma
    b'{"cmd":"status"]',  # an object closed as a list
    b'{"cmd":"st\\x61tus"}',  # an escape JSON does not have
    b'{"cmd":"status","x":"a\x01b"}',  # a raw control byte in a string
    b'{"cmd":"status","x":"a\tb"}',  # a raw tab in a string
    b'{"cmd":"status","x":01}',  # a leading zero
    b'{"cmd":"status","x":1.}',  # a fraction with no digits
    b'{"cmd":"status"}\x00trailing',  # a NUL ends MicroPython's parse
]


@pytest.mark.parametrize("raw", LENIENT)
def test_micropython_json_takes_these_lines_but_the_device_does_not(fw_process: FwProcess, raw: bytes) -> None:
    require_micropython()
    assert not strict_verdict(raw)
    fw_process.write(raw + b"\n")
    err = last_error(fw_process)
    assert err["err"] == protocol.E_BAD_JSON and err["re"] == ""
    assert fw_process.call("status")["ok"] is True


def test_a_nul_after_a_start_does_not_start_a_pass(fw_process: FwProcess) -> None:
    w = fw_process.world
    assert w is not None
    w.load(list(range(6)))
    fw_process.write(b'{"cmd":"start","id":1}\x00anything\n')
    assert last_error(fw_process)["err"] == protocol.E_BAD_JSON
    assert fw_process.call("status")["state"] == "idle"
    assert not [m for m in fw_process.seen if m.get("ev") == "loaded"]
    assert w.query()["counts"]["fed"] == 0


@pytest.mark.parametrize("name", ["\u00e9t\u00e9", "x" * 200, "\ud800", "status\u0000"])
def test_an_unreadable_command_name_is_unknown_and_keeps_the_id(fw_process: FwProcess, name: str) -> None:
    line = json.dumps({"cmd": name, "id": 41}).encode()  # ASCII: escapes for the rest
    assert len(line) < protocol.MAX_LINE
    fw_process.write(line + b"\n")
    err = last_error(fw_process)
    assert (err["err"], err["id"], err["re"]) == (protocol.E_UNKNOWN_CMD, 41, "")
    assert fw_process.call("status")["ok"] is True


@pytest.mark.parametrize("rid", ["seven", -1, protocol.MAX_ID + 1, 1.5, True, [1]])
def test_a_bad_id_names_the_command_and_the_field(fw_process: FwProcess, rid: object) -> None:
    fw_process.write(json.dumps({"cmd": "status", "id": rid}).encode() + b"\n")
    err = last_error(fw_process)
    assert (err["re"], err["err"]) == ("status", protocol.E_BAD_FIELD)
    assert "id" not in err and (err["why"], err["field"], err["lo"], err["hi"]) == (
        protocol.WHY_RANGE, "id", 0, protocol.MAX_ID)


@pytest.mark.parametrize("ending", [b"\n", b"\r", b"\r\n"])
def test_cr_lf_and_crlf_each_end_a_line(fw_process: FwProcess, ending: bytes) -> None:
    lines = b"".join(json.dumps({"cmd": "status", "id": i}).encode() + ending for i in (1, 2, 3))
    fw_process.write(lines)
    got = [fw_process.reply(i)["ok"] for i in (1, 2, 3)]
    assert got == [True, True, True]
    fw_process.write(b'{"cmd":"hello","id":4}\n')
    fw_process.reply(4)
    assert not [m for m in fw_process.seen if m.get("ok") is False]


# ----- the device's verdict against CPython's strict json ---------------------

VERDICT = r"""
import sys, binascii, request_check
while True:
    l = sys.stdin.readline()
    if not l:
        break
    code = request_check.parse_request(binascii.unhexlify(l.strip()))[0]
    sys.stdout.write("%d\n" % code)
"""


@pytest.fixture(scope="module")
def verdict(tmp_path_factory: pytest.TempPathFactory) -> Iterator[subprocess.Popen[str]]:
    """parse_request running on the unix port, one line in, one code out."""
    require_micropython()
    script = Path(tmp_path_factory.mktemp("verdict")) / "verdict.py"
    script.write_text(VERDICT)
    proc = subprocess.Popen([MICROPYTHON, str(script)], env={"MICROPYPATH": str(FIRMWARE)},
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
    yield proc
    assert proc.stdin is not None
    proc.stdin.close()
    proc.wait(timeout=10)


def device_code(proc: subprocess.Popen[str], raw: bytes) -> int:
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(raw.hex() + "\n")
    proc.stdin.flush()
    return int(proc.stdout.readline())


# Bytes a line can hold (ASCII, no line ends, no Ctrl-C), weighted to JSON's own.
JSONISH = st.sampled_from(list(b' \t{}[]:,"\\/+-.0123456789eEabfnrtulsx\x00\x01\x1f\x7f'))
ANY_LINE_BYTE = st.integers(0, 127).filter(lambda b: b not in (3, 10, 13))
VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-10**20, 10**20)
    | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4),
    max_leaves=10)


@st.composite
def mutated_json(draw: st.DrawFn) -> bytes:
    """Valid JSON (often a request) with a few bytes inserted, deleted or replaced."""
    if draw(st.booleans()):
        obj = {"cmd": draw(st.sampled_from(protocol.COMMANDS)), "id": draw(st.integers(0, protocol.MAX_ID))}
        obj.update(draw(st.dictionaries(st.text(max_size=5), VALUES, max_size=2)))
    else:
        obj = draw(VALUES)
    data = bytearray(json.dumps(obj, separators=draw(st.sampled_from([(",", ":"), (", ", ": ")]))).encode())
    for _ in range(draw(st.integers(0, 3))):
        i = draw(st.integers(0, len(data)))
        op = draw(st.sampled_from(["insert", "delete", "replace"]))
        b = draw(st.one_of(JSONISH, ANY_LINE_BYTE))
        if op == "insert":
            data.insert(i, b)
        elif i < len(data):
            if op == "delete":
                del data[i]
            else:
                data[i] = b
    return bytes(data)


LINES = st.one_of(mutated_json(), st.lists(JSONISH, min_size=1, max_size=40).map(bytes))


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(raw=LINES)
def test_the_device_rejects_exactly_what_strict_json_rejects(verdict: subprocess.Popen[str], raw: bytes) -> None:
    if len(raw) + 1 > protocol.MAX_LINE or not raw.strip(b" \t"):
        return  # too_long, or an empty line: framing, not JSON
    code = device_code(verdict, raw)
    assert (code == protocol.E_BAD_JSON) == (not strict_verdict(raw)), (raw, code)


def test_the_tables_on_the_device_are_the_grammar_written_out() -> None:
    import json_grammar
    assert request_check._CLS == json_grammar.classes()
    assert request_check._TAB == json_grammar.table()


# ----- sensors at run time -------------------------------------------------------

@pytest.mark.touch
@pytest.mark.sensor_loss
def test_a_touch_sensor_that_fails_at_run_time_is_a_fault_not_a_touch(fw_process: FwProcess) -> None:
    w = fw_process.world
    assert w is not None
    w.load(list(range(12)))
    w.inject("sensor_missing", sensor="touch")  # the pad now reads 0
    f = fw_process.event("fault")
    assert (f["code"], f["latched"], f["part"], f["why"]) == (protocol.FAULT_SENSOR, True, protocol.PART_TOUCH,
                                                               protocol.WHY_IMPLAUSIBLE)
    assert fw_process.call("status")["state"] == "alarm"
    q = w.query()
    assert q["counts"]["fed"] == 0 and q["motor"]["dir"] == 0
    assert not [m for m in fw_process.seen if m.get("ev") in ("touch", "loaded")]
    w.fix()
    assert fw_process.call("clear")["state"] == "idle"
    w.touch(100)
    assert fw_process.event("done")["k"] == 12


@pytest.mark.battery
@pytest.mark.sensor_loss
def test_a_battery_reading_implausible_at_start_is_a_sensor_fault(fw_process: FwProcess) -> None:
    w = fw_process.world
    assert w is not None
    w.load(list(range(5)))
    w.inject("sensor_missing", sensor="battery")  # the divider reads 0 V
    rep = fw_process.call("start")
    assert rep["ok"] is False and rep["err"] == protocol.E_REFUSED
    f = fw_process.event("fault")
    assert (f["code"], f["part"], f["why"]) == (protocol.FAULT_SENSOR, protocol.PART_BATTERY, protocol.WHY_IMPLAUSIBLE)
    assert w.query()["counts"]["fed"] == 0
