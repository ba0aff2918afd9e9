"""The hello `uid`: how a board's unique_id() is written on the wire, and the
virtual shuffler's own id (the device test checks it end to end)."""
from __future__ import annotations

from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from firmware import protocol
from simulator.virtual.device import flash_uid


@given(st.binary(max_size=protocol.UID_MAX // 2))
def test_a_unique_id_is_written_as_lowercase_hex_and_read_back(raw: bytes) -> None:
    uid = protocol.uid_hex(raw)
    assert protocol.is_uid(uid)
    assert bytes.fromhex(uid) == raw


@given(st.one_of(st.integers(), st.none(), st.binary(), st.text()))
def test_only_short_lowercase_hex_strings_are_uids(value: object) -> None:
    ok = isinstance(value, str) and len(value) <= protocol.UID_MAX and all(c in "0123456789abcdef" for c in value)
    assert protocol.is_uid(value) is ok


def test_the_virtual_uid_follows_the_flash_folder(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    assert flash_uid(a) == flash_uid(tmp_path / "x" / ".." / "a")
    assert flash_uid(a) != flash_uid(b)
    assert protocol.is_uid(flash_uid(a)) and len(flash_uid(a)) == 16
