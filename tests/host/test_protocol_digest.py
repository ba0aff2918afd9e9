"""A device whose declaration table (firmware/protocol.py) differs from this
tool's is refused at connect, in one line: by the link's handshake, and by
`shuffler guide --port` and `shuffler check --port`."""
from __future__ import annotations

import contextlib
import io
from typing import Any, Iterator

import pytest

from firmware import protocol
from host import device_messages, port_words
from host import port_records as said
from host.cli import main
from host.device_link import Link, ProtocolMismatch
from hosttest_support import FakeDevice


def other_table(d: FakeDevice, req: dict[str, Any]) -> None:
    """A shuffler of this protocol version built from another table."""
    if req["cmd"] == "hello":
        d.reply(req, fw="0.2.0", proto=protocol.PROTOCOL_VERSION, board="fake", capacity=104, state="idle",
                uid="5eed", digest=(device_messages.DIGEST + 1) % 4194301)
    else:
        d.idle_shuffler(req)


@pytest.fixture
def other_table_device() -> Iterator[FakeDevice]:
    dev = FakeDevice(other_table)
    yield dev
    dev.close()


def run(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(args))
    return code, out.getvalue(), err.getvalue()


def test_the_host_digest_is_the_table_s() -> None:
    assert device_messages.DIGEST == protocol.digest()


def test_a_device_with_another_table_is_refused_in_one_line(other_table_device: FakeDevice) -> None:
    link = Link.open(other_table_device.port)
    try:
        with pytest.raises(ProtocolMismatch) as caught:
            link.handshake(timeout=2)
    finally:
        link.close()
    assert caught.value.record == said.OtherDeclaration(other_table_device.port, (device_messages.DIGEST + 1) % 4194301,
                                                        device_messages.DIGEST)
    assert link.hello is None  # nothing of what it said is kept


def test_a_device_with_this_table_is_accepted() -> None:
    dev = FakeDevice()
    link = Link.open(dev.port)
    try:
        assert link.handshake(timeout=2)[protocol.F_DIGEST] == protocol.digest()
    finally:
        link.close()
        dev.close()


@pytest.mark.parametrize("command", [("guide", "--port"), ("check", "--port")])
def test_guide_and_check_refuse_it_with_one_line_and_a_non_zero_exit(other_table_device: FakeDevice,
                                                                    command: tuple[str, str]) -> None:
    code, out, err = run(*command, other_table_device.port)
    assert code != 0
    assert "Traceback" not in err
    assert len(err.strip().splitlines()) == 1, err
    assert port_words.words(said.OtherDeclaration(other_table_device.port, (device_messages.DIGEST + 1) % 4194301,
                                                  device_messages.DIGEST)) in err
