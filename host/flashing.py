"""Build the firmware image and put it on a board with mpremote.

Order on the board: main.py is removed first and written last, so a copy
that stops half way leaves a board that boots to the REPL (never half a
firmware), and running the same command again finishes the job.
"""
from __future__ import annotations

import errno
import json
import os
import stat
import sys
import threading
import time
from typing import Callable

import serial

from firmware.build import ImageError, ImageFile, shadowing
from host import port_records as said
from host import port_words

# sys.platform on each board, to tell a wrong board from the right one.
PLATFORMS = {"esp32": "esp32", "rp2": "rp2", "linux": "sim"}
# What the board stores for itself (firmware/controller.py); an image never
# holds them, so flashing leaves them where they are.
SETTINGS = ("cal.json", "config.json")  # the calibration, the configuration


class FlashError(ImageError):
    """Why flashing stopped, as its record (host/port_records.py), said in
    its words: one line for the user; the command exits non-zero."""

    def __init__(self, record: object) -> None:
        self.record = record
        super().__init__(port_words.words(record))


# -- talking to the board ---------------------------------------------------

def check_port(port: str) -> None:
    """Fail early, in one line, on a missing or busy port."""
    if not os.path.exists(port):
        raise FlashError(said.NoSuchPort(port))
    if not stat.S_ISCHR(os.stat(port).st_mode):
        raise FlashError(said.NotASerialPort(port, said.FOLDER if os.path.isdir(port) else said.FILE))
    try:
        probe = serial.Serial(port, baudrate=115200, timeout=0, exclusive=True)
    except serial.SerialException as exc:
        raise FlashError(_refused(port, exc)) from None
    probe.close()


def _refused(port: str, exc: serial.SerialException) -> object:
    """Why the port would not open, as its record."""
    text = str(exc)
    if _not_a_tty(exc):
        return said.NotASerialPort(port)
    if "exclusively lock" in text or "Resource temporarily unavailable" in text or "busy" in text.lower():
        return said.PortBusy(port)
    if "Permission denied" in text:
        return said.NoPermission(port)
    return said.CannotOpen(port, _one_line(exc))


def _not_a_tty(exc: BaseException) -> bool:
    """pyserial reports a device without terminal settings (/dev/null, a
    disk) as a failed configure whose cause is ENOTTY."""
    cause = exc.__cause__ or exc.__context__
    if getattr(cause, "errno", None) == errno.ENOTTY:
        return True
    args = getattr(cause, "args", ())
    if args and args[0] == errno.ENOTTY:
        return True  # termios.error carries (errno, text) without .errno
    return f"({errno.ENOTTY}," in str(exc) or "Inappropriate ioctl" in str(exc)


class Deadline:
    """Closes the serial port when time is up, so no read can block forever."""

    def __init__(self, seconds: float, close: Callable[[], None]) -> None:
        self.expired = False

        def fire() -> None:
            self.expired = True
            try:
                close()
            except Exception:
                pass

        self._timer = threading.Timer(seconds, fire)
        self._timer.daemon = True
        self._timer.start()

    def cancel(self) -> None:
        self._timer.cancel()


def open_transport(port: str):  # -> mpremote's SerialTransport
    from mpremote.transport import TransportError
    from mpremote.transport_serial import SerialTransport

    try:
        transport = SerialTransport(port, baudrate=115200, timeout=1)
    except TransportError as exc:
        raise FlashError(said.CannotOpen(port, _one_line(exc))) from None
    return transport


def enter_raw_repl(transport, port: str, timeout: float = 4.0) -> None:
    from mpremote.transport import TransportError

    quiet = _Silence()
    # mpremote empties the input before it asks, for as long as bytes keep
    # coming: a port that never stops sending would hold it for ever. The
    # port is closed once the time given is up, which ends any read.
    limit = Deadline(timeout + 0.5, transport.serial.close)
    try:
        with quiet:
            transport.enter_raw_repl(soft_reset=True, timeout_overall=timeout)
    except (TransportError, OSError, serial.SerialException, TypeError, AttributeError):
        if limit.expired:
            raise FlashError(said.SendsWithoutStopping(port, timeout)) from None
        raise FlashError(said.NotMicroPython(port)) from None
    finally:
        limit.cancel()


def board_of(transport) -> str:
    platform = transport.eval("__import__('sys').platform")
    return PLATFORMS.get(str(platform), str(platform))


def deploy(
    transport,
    image: list[ImageFile],
    progress: Callable[[int, int, str], None] | None = None,
) -> None:
    """Write the image; on failure raise FlashError saying what the board holds now."""
    from mpremote.transport import TransportError

    done = 0
    current = "main.py"
    try:
        transport.exec("import os\ntry:\n os.remove('main.py')\nexcept OSError:\n pass")
        for f in image:
            current = f.remote
            if progress:
                progress(done, len(image), f.remote)
            stale = shadowing(f.remote)
            if stale:
                transport.exec(
                    "import os\nfor n in %r:\n try:\n  os.remove(n)\n except OSError:\n  pass" % (stale,)
                )
            transport.fs_writefile(f.remote, f.local.read_bytes())
            done += 1
    except (TransportError, OSError, serial.SerialException, KeyboardInterrupt) as exc:
        stopped = isinstance(exc, KeyboardInterrupt)
        raise FlashError(said.CopyFailed(current, done, len(image), "" if stopped else _one_line(exc), stopped)) from None


def settings_on_board(transport) -> list[str]:
    """The settings files on the board (calibration, configuration), in the raw REPL."""
    from mpremote.transport import TransportError

    try:
        names = transport.eval("[n for n in __import__('os').listdir() if n in %r]" % (SETTINGS,))
    except (TransportError, OSError, serial.SerialException):
        return []  # the firmware is written; what else the board holds is not known
    return [n for n in SETTINGS if n in names]


def unusable_settings(transport, names: list[str]) -> int:
    """The settings files among `names` the firmware will not use (the
    hello's `bad` bits: protocol.BAD_*): not readable JSON, or values no such
    file holds. Read as the firmware reads them at start."""
    from mpremote.transport import TransportError

    from firmware import protocol, request_check

    bad = 0
    for name, damaged, obj_name in (("cal.json", protocol.BAD_CAL_DAMAGED, "cal"),
                                    ("config.json", protocol.BAD_CONFIG_DAMAGED, "config")):
        if name not in names:
            continue
        try:
            data = transport.fs_readfile(name)
        except (TransportError, OSError, serial.SerialException):
            continue  # not read: the firmware's hello says it once it runs
        try:
            obj = json.loads(data.decode("ascii"))
        except (UnicodeDecodeError, ValueError):
            bad |= damaged
            continue
        if not isinstance(obj, dict) or request_check.stored_problem(obj_name, obj, None) is not None:
            bad |= damaged * 2
    return bad


def soft_reset_to_firmware(transport) -> None:
    """Leave the raw REPL and soft-reset in the friendly REPL, so main.py runs."""
    transport.exit_raw_repl()
    time.sleep(0.05)
    transport.serial.write(b"\x04")


def await_hello(
    ser, expected_version: str, expected_board: str, timeout: float = 10.0
) -> dict:
    """Ask hello until the firmware answers; check its version and board."""
    from firmware import protocol
    from host import wire

    deadline = time.monotonic() + timeout
    rid = 1
    buf = b""
    next_ask = 0.0
    if hasattr(ser, "timeout"):
        ser.timeout = 0.05  # keep asking while the board boots
    while time.monotonic() < deadline:
        now = time.monotonic()
        if now >= next_ask:
            # Asked again until answered: a request sent during the reset is lost.
            ser.write(protocol.encode(wire.request(protocol.CMD_HELLO, rid)).encode())
            next_ask = now + 0.25
        buf += ser.read(ser.in_waiting or 1)
        while b"\n" in buf:
            line, buf = buf.split(b"\n", 1)
            hello = _hello_in(line, rid)
            if hello is not None:
                return _checked(hello, expected_version, expected_board)
    raise FlashError(said.NoHelloAfterFlash(timeout))


def _hello_in(line: bytes, rid: int) -> dict | None:
    """The reply to hello `rid` that `line` is, or None: the banner, boot
    messages, anything else the board prints are passed over."""
    from firmware import protocol
    from host import wire

    try:
        msg = wire.parse_message(line)
    except ValueError:
        return None
    return msg if msg.get(protocol.F_RE) == protocol.CMD_HELLO and msg.get(protocol.F_ID) == rid else None


def _checked(msg: dict, expected_version: str, expected_board: str) -> dict:
    """The hello, once its firmware and board are the ones just written."""
    from host import device_messages

    hello = device_messages.hello_view(msg)
    if hello.fw != expected_version:
        raise FlashError(said.OtherFirmwareAnswers(str(hello.fw), expected_version))
    if hello.board != expected_board:
        raise FlashError(said.OtherProfile(str(hello.board), expected_board))
    return msg


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return text[:160] or type(exc).__name__


class _Silence:
    """mpremote prints what it received when entering the raw REPL fails."""

    def __enter__(self) -> None:
        self._stdout = sys.stdout
        sys.stdout = open(os.devnull, "w")

    def __exit__(self, *exc: object) -> None:
        sys.stdout.close()
        sys.stdout = self._stdout
