"""What a person reads about a serial port and the board on it, as records:
a kind and its fields, nothing worded. The port's troubles (opening it,
what answers there), what `shuffler flash` reports and refuses, and what
`shuffler devices` lists. host/port_words.py words each, once; a LinkError
or a FlashError carries its record (`.record`) and says its words."""
from __future__ import annotations

from dataclasses import dataclass

# -- opening the port -------------------------------------------------------------------------

DEVICE, FOLDER, FILE = "device", "folder", "file"  # what a path that is no serial port is


@dataclass(frozen=True)
class NoSuchPort:
    port: str


@dataclass(frozen=True)
class NotASerialPort:
    port: str
    is_a: str = DEVICE  # DEVICE (no terminal settings: /dev/null, a disk), FOLDER or FILE


@dataclass(frozen=True)
class PortBusy:
    """Another program has the port open exclusively."""

    port: str


@dataclass(frozen=True)
class NoPermission:
    port: str


@dataclass(frozen=True)
class CannotOpen:
    port: str
    detail: str  # what the system said, in one line


# -- what answers on it -----------------------------------------------------------------------

@dataclass(frozen=True)
class NoAnswer:
    """A request the device did not answer in time."""

    name: str
    request: str
    seconds: float


@dataclass(frozen=True)
class NoHello:
    """Nothing answered the handshake: perhaps no shuffler firmware."""

    name: str
    seconds: float


@dataclass(frozen=True)
class MicroPythonOnly:
    """MicroPython's prompt answers: a board without the shuffler firmware."""

    name: str


@dataclass(frozen=True)
class EchoesBack:
    """The port sends back what it is sent: a loopback, or a program that echoes."""

    name: str


@dataclass(frozen=True)
class OtherLines:
    """The port sends lines that are not the shuffler's; `sample` is the last."""

    name: str
    sample: str


@dataclass(frozen=True)
class Holder:
    """A program that has a port open."""

    program: str
    pid: int


@dataclass(frozen=True)
class HeldByOthers:
    """Other programs have the port open and take the board's answers."""

    port: str
    holders: tuple[Holder, ...]


@dataclass(frozen=True)
class LinkLost:
    """The port went away: unplugged, reset with a new port, or closed."""

    name: str
    detail: str  # what the system said, in one line


@dataclass(frozen=True)
class ProtocolBroken:
    """A line that breaks the protocol: as it came (its start), and why."""

    name: str
    sent: str
    why: str


@dataclass(frozen=True)
class OtherProtocol:
    """The device speaks another protocol version (`theirs` None: it did not say which)."""

    name: str
    theirs: object
    ours: int


@dataclass(frozen=True)
class OtherDeclaration:
    """The device declares its messages by another table (its digest)."""

    name: str
    digest: object
    ours: int


# -- flashing ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class NoPortGiven:
    pass


@dataclass(frozen=True)
class NotMicroPython:
    """No raw REPL answered: not a MicroPython board (or none at all)."""

    port: str


@dataclass(frozen=True)
class SendsWithoutStopping:
    """The port kept sending for the whole time given to enter the raw REPL."""

    port: str
    seconds: float


@dataclass(frozen=True)
class StoppedAnswering:
    """The board stopped answering before anything was written."""

    port: str


@dataclass(frozen=True)
class UnsupportedBoard:
    """A MicroPython port (sys.platform) the firmware does not support."""

    port: str
    platform: str


@dataclass(frozen=True)
class WrongBoard:
    port: str
    actual: str
    asked: str


@dataclass(frozen=True)
class CopyFailed:
    """The copy stopped part way: the board has no main.py, so it starts to the REPL."""

    file: str
    written: int
    of: int
    reason: str  # what stopped it, in one line
    interrupted: bool = False  # Ctrl-C stopped it


@dataclass(frozen=True)
class OtherFirmwareAnswers:
    """After the copy, a firmware of another version answers: the copy did not take."""

    fw: str
    expected: str


@dataclass(frozen=True)
class OtherProfile:
    """The new firmware runs with another board profile than the board's."""

    board: str
    expected: str


@dataclass(frozen=True)
class NoHelloAfterFlash:
    seconds: float


@dataclass(frozen=True)
class FlashGaveUp:
    """The whole flashing's time ran out."""

    port: str
    seconds: float


@dataclass(frozen=True)
class Flashing:
    version: str
    files: int
    board: str
    port: str


@dataclass(frozen=True)
class Flashed:
    fw: str
    port: str
    board: str
    proto: object


@dataclass(frozen=True)
class SettingsKept:
    """What flashing left on the board: the settings files it kept (by
    name), and the ones the board did not have."""

    kept: tuple[str, ...]
    missing: tuple[str, ...]


@dataclass(frozen=True)
class SettingsUnusable:
    """Settings files the board found unusable at start (`bad`: their bits of
    the hello's `bad`): it runs without them until `shuffler setup` stores new ones."""

    bad: int


# -- the devices listed -----------------------------------------------------------------------

@dataclass(frozen=True)
class NoShufflerFound:
    pass


@dataclass(frozen=True)
class VirtualListed:
    """A running virtual shuffler (board "sim") or emulated Pico ("pico")."""

    board: str
    pid: int
    flash: str


__all__ = ["NoSuchPort", "NotASerialPort", "PortBusy", "NoPermission", "CannotOpen", "NoAnswer", "NoHello",
           "MicroPythonOnly", "EchoesBack", "OtherLines", "Holder", "HeldByOthers", "LinkLost", "ProtocolBroken",
           "OtherProtocol", "OtherDeclaration", "NoPortGiven", "NotMicroPython", "SendsWithoutStopping",
           "StoppedAnswering", "UnsupportedBoard", "WrongBoard", "CopyFailed", "OtherFirmwareAnswers", "OtherProfile",
           "NoHelloAfterFlash", "FlashGaveUp", "Flashing", "Flashed", "SettingsKept", "SettingsUnusable",
           "NoShufflerFound",
           "VirtualListed", "DEVICE", "FOLDER", "FILE"]
