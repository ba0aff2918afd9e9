"""`shuffler flash` against the virtual shuffler and against ports that are
not a shuffler: success, and one clear line with a non-zero exit otherwise."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Iterator

import pytest
import serial

from firmware import protocol
from host import wire
from firmware import request_check
from firmware import build
from host import flashing, port_words
from host import port_records as said
from host.commands import flash as flash_command
from pty_device import FakePort
from simulator.virtual import VirtualShuffler

pytestmark = pytest.mark.micropython


def flash_cmd(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "host.cli", "flash", *args], capture_output=True, text=True, timeout=90
    )


def one_line_error(out: subprocess.CompletedProcess[str]) -> str:
    assert out.returncode != 0
    assert "Traceback" not in out.stderr
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1, out.stderr
    return lines[0]


def refusal(record: object) -> str:
    """The one line the command line prints for a refusal, from its record."""
    return f"shuffler: {port_words.words(record)}"


def reported(out: subprocess.CompletedProcess[str], record: object) -> bool:
    """Whether the command printed `record`, as a line of its own."""
    return port_words.words(record) in out.stdout.splitlines()


def flashed(port: str) -> said.Flashed:
    """What a flash that took says: this tool's firmware answers on `port`, on the sim board."""
    return said.Flashed(protocol.FIRMWARE_VERSION, port, "sim", protocol.PROTOCOL_VERSION)



@pytest.fixture
def blank_virtual_shuffler(tmp_path: Path) -> Iterator[VirtualShuffler]:
    """A virtual board with MicroPython and an empty filesystem."""
    dev = VirtualShuffler(tmp_path / "flash", time_scale=0).start()
    yield dev
    dev.stop()


# -- success ---------------------------------------------------------------------

def test_flash_installs_compiled_firmware_and_it_answers_hello(blank_virtual_shuffler: VirtualShuffler) -> None:
    out = flash_cmd("--port", blank_virtual_shuffler.port, "--board", "sim")
    assert out.returncode == 0, out.stderr
    assert reported(out, flashed(blank_virtual_shuffler.port)), out.stdout
    names = {p.name for p in blank_virtual_shuffler.flash_dir.iterdir()}
    sources = {p.stem for p in build.firmware_modules()}
    assert "main.py" in names
    assert {n for n in names if n.endswith(".py")} == {"main.py"}  # the rest is precompiled
    assert "protocol.mpy" in names and "profile_sim.mpy" in names
    assert "profile_esp32.mpy" not in names and "board_rp2.mpy" not in names
    assert "profile_common.mpy" in names  # the shared profile goes on every board
    assert {n[:-4] for n in names if n.endswith(".mpy")} <= sources


def test_board_is_detected_when_not_given_and_stale_sources_are_removed(blank_virtual_shuffler: VirtualShuffler) -> None:
    # An older copy as source would be imported in place of the new .mpy.
    (blank_virtual_shuffler.flash_dir / "protocol.py").write_text("FIRMWARE_VERSION = 'old'\n")
    out = flash_cmd("--port", blank_virtual_shuffler.port)
    assert out.returncode == 0, out.stderr
    assert reported(out, flashed(blank_virtual_shuffler.port)), out.stdout
    assert not (blank_virtual_shuffler.flash_dir / "protocol.py").exists()


def test_flashing_keeps_the_calibration_and_the_configuration_and_says_so(blank_virtual_shuffler: VirtualShuffler) -> None:
    cal = '{"tare": 84100, "per_card": 758, "flip": 1, "touch_seen": 1}'
    config = '{"idle_sleep_s": 120}'
    (blank_virtual_shuffler.flash_dir / "cal.json").write_text(cal)
    (blank_virtual_shuffler.flash_dir / "config.json").write_text(config)
    out = flash_cmd("--port", blank_virtual_shuffler.port)
    assert out.returncode == 0, out.stderr
    assert reported(out, said.SettingsKept(("cal.json", "config.json"), ())), out.stdout
    assert (blank_virtual_shuffler.flash_dir / "cal.json").read_text() == cal
    assert (blank_virtual_shuffler.flash_dir / "config.json").read_text() == config
    # The new firmware reads them: the stack is calibrated, not the sim's factory figures.
    from host.device_link import Link

    link = Link.open(blank_virtual_shuffler.port)
    try:
        assert link.handshake()["cal"]["stack"] == "calibrated"
        assert link.request("read", what="cal")["cal"]["flip"] == 1
        assert link.request("config")["config"]["idle_sleep_s"] == 120
    finally:
        link.close()


# -- failures --------------------------------------------------------------------

def test_no_port_given() -> None:
    assert one_line_error(flash_cmd()) == refusal(said.NoPortGiven())


def test_port_that_does_not_exist(tmp_path: Path) -> None:
    line = one_line_error(flash_cmd("--port", str(tmp_path / "ttyUSB9")))
    assert line == refusal(said.NoSuchPort(str(tmp_path / "ttyUSB9")))


def test_a_device_that_is_not_a_serial_port_is_named_plainly() -> None:
    # /dev/null is a character device without terminal settings: pyserial's
    # "Inappropriate ioctl" becomes one plain line.
    line = one_line_error(flash_cmd("--port", os.devnull))
    assert line == refusal(said.NotASerialPort(os.devnull))


def test_a_plain_file_is_not_a_serial_port(tmp_path: Path) -> None:
    f = tmp_path / "notes.txt"
    f.write_text("x")
    assert one_line_error(flash_cmd("--port", str(f))) == refusal(said.NotASerialPort(str(f), said.FILE))
    assert one_line_error(flash_cmd("--port", str(tmp_path))) == refusal(said.NotASerialPort(str(tmp_path), said.FOLDER))


def test_port_held_open_exclusively_is_busy(blank_virtual_shuffler: VirtualShuffler) -> None:
    with serial.Serial(blank_virtual_shuffler.port, exclusive=True):
        line = one_line_error(flash_cmd("--port", blank_virtual_shuffler.port))
    assert line == refusal(said.PortBusy(blank_virtual_shuffler.port))
    assert not (blank_virtual_shuffler.flash_dir / "main.py").exists()


@pytest.fixture
def fake_port() -> Iterator[tuple[str, list[bytes]]]:
    """A pty whose other end answers every write with the given replies (garbage)."""
    replies: list[bytes] = []

    def answer(port: FakePort, _chunk: bytes) -> None:
        for r in replies:
            port.emit(r)

    port = FakePort(answer)
    yield port.port, replies
    port.close()


@pytest.mark.serial_garbage
def test_a_port_that_answers_garbage_is_not_a_micropython_board(fake_port) -> None:
    path, replies = fake_port
    replies.append(b"\x00\xffAT+OK\r\nERROR>>\r\n")
    line = one_line_error(flash_cmd("--port", path, "--connect-timeout", "1"))
    assert line == refusal(said.NotMicroPython(path))


def test_a_silent_port_is_not_a_micropython_board(fake_port) -> None:
    path, _replies = fake_port
    line = one_line_error(flash_cmd("--port", path, "--connect-timeout", "1"))
    assert line == refusal(said.NotMicroPython(path))


def test_wrong_board_writes_nothing(blank_virtual_shuffler: VirtualShuffler) -> None:
    line = one_line_error(flash_cmd("--port", blank_virtual_shuffler.port, "--board", "esp32"))
    assert line == refusal(said.WrongBoard(blank_virtual_shuffler.port, "sim", "esp32"))
    assert list(blank_virtual_shuffler.flash_dir.iterdir()) == []


def test_a_refused_board_keeps_its_firmware_running(tmp_path: Path) -> None:
    """Refusing --board esp32 for a sim board must not leave the board in the
    raw REPL: the next command still gets the firmware's hello."""
    from host.device_link import Link

    dev = VirtualShuffler(tmp_path / "flash", time_scale=0)
    build.install_to_dir(build.build_image("sim", tmp_path / "image"), dev.flash_dir)
    dev.start()
    try:
        line = one_line_error(flash_cmd("--port", dev.port, "--board", "esp32"))
        assert line == refusal(said.WrongBoard(dev.port, "sim", "esp32"))
        link = Link.open(dev.port)
        try:
            assert link.handshake(timeout=10)["proto"] == protocol.PROTOCOL_VERSION
        finally:
            link.close()
    finally:
        dev.stop()


def test_copy_failing_half_way_says_what_is_on_the_board_and_retry_works(blank_virtual_shuffler: VirtualShuffler) -> None:
    # An old firmware is on the board; a directory where a module must go
    # makes the copy fail part way through.
    (blank_virtual_shuffler.flash_dir / "main.py").write_text("print('old firmware')\n")
    (blank_virtual_shuffler.flash_dir / "protocol.mpy").mkdir()
    with pytest.raises(flashing.FlashError) as info:
        flash_command._flash(blank_virtual_shuffler.port, "sim", 5.0, 10.0, protocol.FIRMWARE_VERSION)
    failed = info.value.record
    assert isinstance(failed, said.CopyFailed) and failed.file == "protocol.mpy" and not failed.interrupted
    assert not (blank_virtual_shuffler.flash_dir / "main.py").exists()  # as the record says
    assert (blank_virtual_shuffler.flash_dir / "app.mpy").exists()  # files before it were written
    written = {p.name for p in blank_virtual_shuffler.flash_dir.iterdir()} - {"protocol.mpy"}
    assert failed.written == len(written) and 0 < failed.written < failed.of
    (blank_virtual_shuffler.flash_dir / "protocol.mpy").rmdir()
    out = flash_cmd("--port", blank_virtual_shuffler.port, "--board", "sim")
    assert out.returncode == 0, out.stderr


# -- pieces ----------------------------------------------------------------------

def test_image_puts_main_last_and_compiles_the_modules(tmp_path: Path) -> None:
    image = build.build_image("esp32", tmp_path)
    remotes = [f.remote for f in image]
    assert remotes[-1] == "main.py"
    assert "profile_esp32.mpy" in remotes and "profile_sim.mpy" not in remotes
    assert {"profile_common.mpy", "board_common.mpy", "board_esp32.mpy"} <= set(remotes)
    assert "board_rp2.mpy" not in remotes
    for f in image:
        if f.remote.endswith(".mpy"):
            assert f.local.read_bytes()[:2] == b"M\x06"  # .mpy header, format version 6


def test_image_of_a_small_firmware_tree(tmp_path: Path) -> None:
    src = tmp_path / "fw"
    src.mkdir()
    (src / "main.py").write_text("import app\n")
    (src / "boot.py").write_text("\n")
    (src / "app.py").write_text("X = 1\n")
    (src / "__init__.py").write_text("")
    (src / "defaults.json").write_text('{"a": 1}')
    image = build.build_image("sim", tmp_path / "out", firmware_dir=src)
    assert sorted(f.remote for f in image[:-1]) == ["app.mpy", "boot.py", "defaults.json"]
    assert image[-1].remote == "main.py"
    assert (tmp_path / "out" / "defaults.json").read_text() == '{"a": 1}'


def test_a_module_that_does_not_compile_is_reported(tmp_path: Path) -> None:
    src = tmp_path / "fw"
    src.mkdir()
    (src / "main.py").write_text("import broken\n")
    (src / "broken.py").write_text("def f(:\n")
    with pytest.raises(build.ImageError, match="mpy-cross failed on broken.py"):
        build.build_image("sim", tmp_path / "out", firmware_dir=src)


class FakeSerial:
    def __init__(self, reply: bytes) -> None:
        self.reply = reply
        self.written = b""

    @property
    def in_waiting(self) -> int:
        return len(self.reply)

    def write(self, data: bytes) -> None:
        self.written += data

    def read(self, n: int) -> bytes:
        out, self.reply = self.reply[:n], self.reply[n:]
        return out


def test_hello_from_another_firmware_version_is_an_error() -> None:
    reply = protocol.encode(wire.reply("hello", 1, fw="0.0.1", board="sim", proto=1)).encode()
    fake = FakeSerial(b"MicroPython banner\r\n" + reply)
    with pytest.raises(flashing.FlashError) as info:
        flashing.await_hello(fake, protocol.FIRMWARE_VERSION, "sim", timeout=2)
    assert info.value.record == said.OtherFirmwareAnswers("0.0.1", protocol.FIRMWARE_VERSION)
    assert request_check.parse_request(fake.written.splitlines()[0])[:2] == (0, "hello")  # asked properly


def test_hello_that_never_comes_times_out() -> None:
    with pytest.raises(flashing.FlashError) as info:
        flashing.await_hello(FakeSerial(b"noise\n"), protocol.FIRMWARE_VERSION, "sim", timeout=0.3)
    assert info.value.record == said.NoHelloAfterFlash(0.3)


def test_hello_from_another_board_profile_is_an_error() -> None:
    reply = protocol.encode(wire.reply("hello", 1, fw=protocol.FIRMWARE_VERSION, board="esp32", proto=1)).encode()
    with pytest.raises(flashing.FlashError) as info:
        flashing.await_hello(FakeSerial(b"boot\r\n" + reply), protocol.FIRMWARE_VERSION, "sim", timeout=2)
    assert info.value.record == said.OtherProfile("esp32", "sim")


def test_the_hello_that_answers_is_returned_past_the_boot_messages_and_other_replies() -> None:
    other = protocol.encode(wire.reply("status", 1, state="idle")).encode()
    hello = wire.reply("hello", 1, fw=protocol.FIRMWARE_VERSION, board="sim", proto=1)
    fake = FakeSerial(b"rst:0x1\r\n{not json\n" + other + protocol.encode(hello).encode())
    assert flashing.await_hello(fake, protocol.FIRMWARE_VERSION, "sim", timeout=2) == hello
