"""The host's side of the wire's lines: a request to send, a device's line
read, the uid a hello gives (the declaration is firmware/protocol.py; what
the board itself reads, firmware/request_check.py). Kept off the board's
image: the board never builds a request nor reads a reply."""
from __future__ import annotations

import json
from firmware.protocol import EV_FAULT, F_CMD, F_EV, F_ID, F_OK, F_RE
from firmware.request_check import check_line


def request(cmd, rid=None, **fields):
    """A request object for the host side."""
    obj = {F_CMD: cmd}
    if rid is not None:
        obj[F_ID] = rid
    for key in fields:
        obj[key] = fields[key]
    return obj


def reply(cmd, rid, **fields):
    obj = {F_RE: cmd, F_OK: True}
    if rid is not None:
        obj[F_ID] = rid
    for key in fields:
        obj[key] = fields[key]
    return obj


def fault_event(code, **fields):
    obj = {F_EV: EV_FAULT, "code": code}
    for key in fields:
        obj[key] = fields[key]
    return obj


def parse_message(line):
    """Host side: parse one line from the device into a dict, or raise
    ValueError. Accepts str or bytes."""
    if isinstance(line, str):
        line = line.encode()
    line = line.strip()
    if check_line(line):
        raise ValueError("line too long or not ascii")
    obj = json.loads(line)
    if not isinstance(obj, dict) or not (F_EV in obj or F_RE in obj):
        raise ValueError("not a protocol message")
    return obj
