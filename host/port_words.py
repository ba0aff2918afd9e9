"""The one English wording of each record of host/port_records.py: a
function of its fields. The command line prints these words (a refusal as
its one line); nothing parses them back."""
from __future__ import annotations

from typing import Any, Callable

from host import device_words
from host.port_records import *  # noqa: F403 - every record (its __all__) is worded here

DEVICES = "see `shuffler devices`"
# What the board stores for itself, by its file (firmware/controller.py),
# and what the new firmware does without each.
SETTINGS_NAMES = {"cal.json": "calibration", "config.json": "configuration"}
MISSING = {"cal.json": "`shuffler setup` calibrates it", "config.json": "the firmware's defaults"}


def _not_a_serial_port(r: NotASerialPort) -> str:
    what = "is not" if r.is_a == DEVICE else f"is a {r.is_a}, not"
    return f"{r.port} {what} a serial port ({DEVICES})"


def _held(r: HeldByOthers) -> str:
    others = ", ".join(f"{h.program} (pid {h.pid})" for h in r.holders)
    return (f"{r.port} is open in another program too ({others}), which takes the board's answers: "
            "close it, then run this command again")


def _other_protocol(r: OtherProtocol) -> str:
    theirs = "another protocol version" if r.theirs is None else f"protocol version {r.theirs}"
    return f"{r.name} speaks {theirs}, this tool speaks {r.ours}: flash the firmware that comes with it (`shuffler flash`)"


def _copy_failed(r: CopyFailed) -> str:
    reason = "stopped (Ctrl-C)" if r.interrupted else r.reason
    return (f"copy failed at {r.file} ({r.written} of {r.of} files written: {reason}); the board has no main.py now, "
            "so it starts to the REPL and runs no firmware; run the same command again to finish")


def _settings(n: str) -> str:
    return f"{SETTINGS_NAMES[n]} ({n})"


def _kept(r: SettingsKept) -> str:
    line = (f"kept the board's {' and '.join(_settings(n) for n in r.kept)}: the new firmware goes on with "
            f"{'them' if len(r.kept) > 1 else 'it'}")
    return line + "".join(f"; it had no {_settings(n)}: {MISSING[n]}" for n in r.missing)


def _virtual(r: VirtualListed) -> str:
    if r.board == "pico":
        return f"emulated Raspberry Pi Pico (pid {r.pid})"
    return f"virtual shuffler (pid {r.pid}, flash {r.flash})"


_WORDING: dict[type, Callable[[Any], str]] = {
    NoSuchPort: lambda r: f"no such port: {r.port} ({DEVICES})",
    NotASerialPort: _not_a_serial_port,
    PortBusy: lambda r: f"port {r.port} is busy: another program has it open (close it and retry)",
    NoPermission: lambda r: f"no permission to open {r.port} (on Linux, join the dialout group)",
    CannotOpen: lambda r: f"cannot open {r.port}: {r.detail}",
    NoAnswer: lambda r: f"{r.name} did not answer {r.request!r} within {r.seconds:g} s",
    NoHello: lambda r: (f"{r.name} did not answer hello within {r.seconds:g} s: is the shuffler firmware on it? "
                        "(see `shuffler flash`)"),
    MicroPythonOnly: lambda r: (f"{r.name} answers with MicroPython's prompt and no shuffler firmware: "
                                f"run `shuffler flash --port {r.name}`"),
    EchoesBack: lambda r: (f"{r.name} sends back what it is sent (a loopback, or a program that echoes): "
                           f"no board answers there; check the port (`shuffler devices`)"),
    OtherLines: lambda r: (f"{r.name} sends lines that are not the shuffler's (\"{r.sample}\"): another device, or a "
                           "board running other software; check the port (`shuffler devices`), or put the firmware "
                           f"on a MicroPython board: `shuffler flash --port {r.name}`"),
    HeldByOthers: _held,
    LinkLost: lambda r: f"lost the connection to {r.name} ({r.detail})",
    ProtocolBroken: lambda r: f"{r.name} broke the protocol: it sent {r.sent} ({r.why})",
    OtherProtocol: _other_protocol,
    OtherDeclaration: lambda r: (f"{r.name} declares its messages differently (table {r.digest}, this tool's "
                                 f"{r.ours}): flash the firmware that comes with this tool (`shuffler flash`)"),
    NoPortGiven: lambda r: f"no port given: use --port PORT ({DEVICES})",
    NotMicroPython: lambda r: (f"{r.port} does not answer like a MicroPython board (no raw REPL); "
                               "check the port, or install MicroPython on the board first"),
    SendsWithoutStopping: lambda r: (
        f"{r.port} did not answer like a MicroPython board within {r.seconds:g} s: it sends without stopping "
        "(a board busy printing, or another device); nothing was written. Check the port, press the "
        "board's reset button and run the same command again (--connect-timeout gives it longer)"),
    StoppedAnswering: lambda r: (f"the board on {r.port} stopped answering before anything was written; press its "
                                 "reset button (or plug it in again) and run the same command again"),
    UnsupportedBoard: lambda r: (f"the board on {r.port} is a {r.platform!r} MicroPython port, which the firmware "
                                 "does not support; nothing was written"),
    WrongBoard: lambda r: (f"wrong board: {r.port} is a {r.actual!r} board, not {r.asked!r}; nothing was written "
                           f"(use --board {r.actual})"),
    CopyFailed: _copy_failed,
    OtherFirmwareAnswers: lambda r: (f"the board answers with firmware {r.fw!r}, expected {r.expected!r}; "
                                     "the copy did not take, run the same command again"),
    OtherProfile: lambda r: f"the firmware runs with board profile {r.board!r}, expected {r.expected!r}",
    NoHelloAfterFlash: lambda r: (
        f"the firmware is written but did not answer hello within {r.seconds:.0f} s after the reset: press the "
        "board's reset button and run `shuffler check` on its port; if it still does not answer, run the same "
        "command again (or open the port in a terminal to see its start-up messages)"),
    FlashGaveUp: lambda r: (f"gave up after {r.seconds:.0f} s: the board on {r.port} stopped answering; "
                            "run the same command again"),
    Flashing: lambda r: f"flashing firmware {r.version} ({r.files} files) to the {r.board} board on {r.port}",
    Flashed: lambda r: f"ok: firmware {r.fw} answers on {r.port} (board {r.board}, protocol {r.proto})",
    SettingsKept: _kept,
    SettingsUnusable: lambda r: "warn: " + "; ".join(device_words.bad_file_words(r.bad)),
    NoShufflerFound: lambda r: "No shuffler found: plug one in, or start one with `shuffler sim-device`.",
    VirtualListed: _virtual,
}


def words(r: Any) -> str:
    """The one English wording of a port's record, in one line."""
    fn = _WORDING.get(type(r))
    if fn is None:
        raise TypeError(f"not a port record: {r!r}")
    return fn(r)


KINDS: frozenset[type] = frozenset(_WORDING)
