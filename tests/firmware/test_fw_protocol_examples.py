"""docs/protocol.md's Examples: every line the device sends in them keeps to
the declaration, and the refusal with its reason is what the firmware
answers, worded by the host as the page says."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from fwtest_support import FwProcess
from firmware import protocol
from host import device_messages

DOC = (Path(__file__).resolve().parents[2] / "docs" / "protocol.md").read_text()
EXAMPLES = DOC.split("## Examples", 1)[1].split("\n## ", 1)[0]


def device_lines() -> list[dict]:
    """The device's lines of the examples: those after "< ", and the bare
    lines of a block that shows only the device's."""
    out = []
    for block in re.findall(r"```\n(.*?)```", EXAMPLES, re.S):
        for line in block.splitlines():
            text = line[2:] if line.startswith("< ") else line if line.startswith("{") else None
            if text is not None:
                out.append(json.loads(text))
    return out


def test_every_device_line_of_the_examples_keeps_to_the_declaration() -> None:
    lines = device_lines()
    assert len(lines) > 20
    for msg in lines:
        assert device_messages.problem(msg) is None, msg


@pytest.mark.micropython
def test_the_refusal_with_its_reason_is_the_firmwares(fw_process: FwProcess) -> None:
    shown = next(m for m in device_lines() if m.get("re") == "feed" and m["ok"] is False)
    got = fw_process.call("feed", n=500, side="left")
    assert {k: v for k, v in got.items() if k != "id"} == {k: v for k, v in shown.items() if k != "id"}
    assert (got["why"], got["field"], got["lo"], got["hi"]) == (protocol.WHY_RANGE, "n", 1, 104)
