"""Which serial ports may be a shuffler: USB ids of the supported boards, as
data, matched against pyserial's port list, plus running virtual shufflers."""
from __future__ import annotations

import os
import stat
import time
from dataclasses import dataclass
from typing import Any, Iterable

from serial.tools import list_ports

from host import device_link, port_words
from host import port_records as said
from host.device_link import Link, LinkError, LinkTimeout
from simulator.virtual import registry


@dataclass(frozen=True)
class UsbId:
    vid: int
    pid: int | None  # None: any product of this vendor
    board: str  # the `shuffler flash --board` name
    what: str


# Boards the firmware supports, by the USB device the host sees.
USB_IDS: tuple[UsbId, ...] = (
    UsbId(0x303A, None, "esp32", "Espressif native USB"),
    UsbId(0x10C4, 0xEA60, "esp32", "CP210x USB-serial bridge (ESP32 boards)"),
    UsbId(0x1A86, 0x7523, "esp32", "CH340 USB-serial bridge (ESP32 boards)"),
    UsbId(0x1A86, 0x55D4, "esp32", "CH9102 USB-serial bridge (current ESP32 DevKitC boards)"),
    UsbId(0x2E8A, 0x0005, "rp2", "Raspberry Pi Pico running MicroPython"),
)


@dataclass(frozen=True)
class Candidate:
    port: str
    board: str  # esp32, rp2 or sim
    what: str
    serial_number: str | None = None
    virtual: said.VirtualListed | None = None  # a running virtual shuffler or emulated Pico, which `what` words


def match_usb(vid: int | None, pid: int | None, ids: Iterable[UsbId] = USB_IDS) -> UsbId | None:
    """The first entry that matches; exact product ids win over vendor-wide ones."""
    if vid is None:
        return None
    exact = [u for u in ids if u.vid == vid and u.pid is not None and u.pid == pid]
    if exact:
        return exact[0]
    wide = [u for u in ids if u.vid == vid and u.pid is None]
    return wide[0] if wide else None


def usb_candidates(ports: Iterable[object] | None = None) -> list[Candidate]:
    """Ports whose USB ids belong to a supported board (pyserial's list by default)."""
    found = []
    for info in ports if ports is not None else list_ports.comports():
        hit = match_usb(getattr(info, "vid", None), getattr(info, "pid", None))
        if hit is not None:
            found.append(
                Candidate(
                    port=str(getattr(info, "device")),
                    board=hit.board,
                    what=hit.what,
                    serial_number=getattr(info, "serial_number", None),
                )
            )
    return sorted(found, key=lambda c: c.port)


def virtual_candidates() -> list[Candidate]:
    listed = [(a.port, said.VirtualListed(a.board, a.pid, str(a.flash_dir))) for a in registry.running()]
    return [Candidate(port=port, board="rp2" if v.board == "pico" else "sim", what=port_words.words(v), virtual=v)
            for port, v in listed]


def candidates() -> list[Candidate]:
    return usb_candidates() + virtual_candidates()


def not_a_port(port: str) -> said.NotASerialPort | None:
    """Why `port` cannot be a serial port (a folder, a plain file); None
    when it may be one (or is not there: opening says so)."""
    if os.path.isdir(port):
        return said.NotASerialPort(port, said.FOLDER)
    if os.path.exists(port) and not stat.S_ISCHR(os.stat(port).st_mode):
        return said.NotASerialPort(port, said.FILE)
    return None


def holders(port: str) -> list[said.Holder]:
    """The other programs that have `port` open, by pid (read from /proc
    where there is one; elsewhere none are known)."""
    try:
        real = os.path.realpath(port)
        pids = sorted((p for p in os.listdir("/proc") if p.isdigit() and int(p) != os.getpid()), key=int)
    except OSError:
        return []
    found = []
    for pid in pids:
        try:
            fds = os.listdir(f"/proc/{pid}/fd")
            if any(os.path.realpath(f"/proc/{pid}/fd/{fd}") == real for fd in fds):
                with open(f"/proc/{pid}/comm") as f:
                    found.append(said.Holder(f.read().strip(), int(pid)))
        except OSError:
            continue  # gone, or not ours to look at
    return found


def held(port: str) -> said.HeldByOthers | None:
    """Why a board on `port` may not answer: another program has the port
    open and takes what the board sends; None when no other program is seen."""
    others = holders(port)
    return said.HeldByOthers(port, tuple(others)) if others else None


def held_words(port: str) -> str | None:
    """held(port) in its words."""
    record = held(port)
    return port_words.words(record) if record else None


class NoFirmware(LinkTimeout):
    """MicroPython's REPL answers on the port: the board runs no shuffler firmware."""


class NotTheBoard(LinkError):
    """Something answers on the port, and it is not a shuffler's board: what it sent says what."""


REPL_SIGNS = (b">>> ", b"MicroPython v", b"Type \"help()\" for more information")
GREET_SLICE_S = 3.0  # seconds (on the clock, whatever the device) between looks at what the port sent


def greet(link: Link) -> dict[str, Any]:
    """The handshake, or why the port does not answer it: NoFirmware as soon
    as the REPL of a board without the firmware is seen answering (a blank
    board echoes the hello and prompts again, where waiting out the
    handshake would take a slow device long), at once too for a port that
    sends back what it is sent, and at the end what else came instead."""
    deadline = time.monotonic() + link.wait_s(device_link.HANDSHAKE_S)
    while True:
        left = deadline - time.monotonic()
        try:
            return link.handshake(timeout=max(0.01, min(left, GREET_SLICE_S)))
        except LinkTimeout:
            lines = heard(link)
            if any(sign in line for line in lines for sign in REPL_SIGNS):
                raise NoFirmware(said.MicroPythonOnly(link.name)) from None
            if any(line.startswith(b'{"cmd"') for line in lines):
                raise NotTheBoard(said.EchoesBack(link.name)) from None
            if time.monotonic() < deadline:
                continue
            if lines:
                raise NotTheBoard(said.OtherLines(link.name, lines[-1].decode("ascii", "replace")[:60])) from None
            raise LinkTimeout(said.NoHello(link.name, link.wait_s(device_link.HANDSHAKE_S))) from None


def heard(link: Link) -> list[bytes]:
    """What the port sent that was not the protocol's: its lines as they came."""
    bad = [item.line for item in list(link.events.queue) if isinstance(item, device_link.BadMessage)]
    return [line.strip() for line in list(link.garbage) + bad if line.strip()]


def link_trouble(port: str, exc: LinkError) -> object:
    """What went wrong on the link, as its record: a request unanswered
    while another program has the port open is that program's doing. An
    error raised with words of its own (no record) is those words."""
    others = held(port) if isinstance(exc, LinkTimeout) and not isinstance(exc, NoFirmware) else None
    return others or exc.record or str(exc)


def link_words(port: str, exc: LinkError) -> str:
    """link_trouble(port, exc) in its words, one line."""
    trouble = link_trouble(port, exc)
    return trouble if isinstance(trouble, str) else port_words.words(trouble)


def open_link(port: str) -> Link:
    """The link on `port`, waiting as long as the device there needs: a
    virtual or emulated board is listed with its slowdown
    (simulator/virtual/registry.py); a real board's port never is, so its
    timeouts stay a real board's."""
    why = not_a_port(port)
    if why:
        raise LinkError(why)
    return Link.open(port, registry.slowdown(port))
