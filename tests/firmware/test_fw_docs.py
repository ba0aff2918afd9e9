"""docs/protocol.md lists every code of firmware/protocol.py with the same
name and sentence, and every command, event and configuration key."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from firmware import protocol
from host import device_messages
from host import device_words

DOC = (Path(__file__).resolve().parents[2] / "docs" / "protocol.md").read_text()


def table(section: str) -> dict[int, tuple[str, str]]:
    body = DOC.split(f"## {section}", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| (\d+) \| `(\w+)` \| ([^|]+?) \|", body, re.M)
    return {int(c): (n, s.strip()) for c, n, s in rows}


def test_error_table_matches_the_code() -> None:
    assert table("Error codes") == {c: (n, s) for c, (n, s) in device_words.ERRORS.items()}


def test_fault_table_matches_the_code() -> None:
    assert table("Fault codes") == {c: (n, s) for c, (n, s) in device_words.FAULTS.items()}


def test_reasons_table_matches_the_code() -> None:
    assert table("Reasons") == {c: (n, w) for c, (n, w) in device_words.WHYS.items()}
    assert set(device_words.WHYS) == set(protocol.WHY_CODES)
    bits = re.findall(r"^\| (\d+) \| ([^|]+?) \|", DOC.split("`found`, the start-up check", 1)[1].split("\n## ", 1)[0], re.M)
    assert {int(b): w for b, w in bits} == device_words.SELF_TEST
    assert set(device_words.SELF_TEST) == set(protocol.SELF_BITS)


@pytest.mark.exact_mode
def test_exactness_lost_table_matches_the_code() -> None:
    assert table("Exact mode") == {c: (n, s) for c, (n, s) in device_words.LOST.items()}


def test_every_command_event_and_config_key_is_documented() -> None:
    for name in protocol.COMMANDS:
        assert f"| `{name}` |" in DOC
    for name in protocol.EVENTS:
        assert f"| `{name}` |" in DOC
    for key, rule in device_messages.OBJECTS["config"].rules.items():
        hi = f"`{rule.hi_name}`" if rule.hi_name else rule.hi
        assert f"| `{key}` | {rule.lo}-{hi} |" in DOC
    assert f"At most {protocol.MAX_LINE} bytes" in DOC
    assert f"protocol version {protocol.PROTOCOL_VERSION}" in DOC
    # The handshake example speaks this version.
    assert re.findall(r'"cmd":"hello","id":\d+,"proto":(\d+)', DOC) == [str(protocol.PROTOCOL_VERSION)]


def test_tests_named_in_the_docs_exist() -> None:
    root = Path(__file__).resolve().parents[2]
    text = DOC + (root / "docs" / "firmware.md").read_text()
    refs = re.findall(r"`?(test_fw_\w+\.py)(?:::(\w+))?", text)
    assert refs
    for fname, name in refs:
        path = root / "tests" / "firmware" / fname
        assert path.exists(), fname
        if name:
            assert f"def {name}(" in path.read_text(), f"{fname}::{name}"
