"""What `shuffler table` (the person's hands at a virtual shuffler's card
table) and `shuffler sim-device` tell the person, as records: a kind and
its fields, nothing worded (host/card_table_words.py words each, once)."""
from __future__ import annotations

from dataclasses import dataclass

# The machine's places by the world's names (simulator/virtual/board/sim_table.py).
TRAY, LEFT, RIGHT, EXIT, OUT_OF_TRAY = "tray", "left", "right", "throat", "removed"


# -- finding the virtual shuffler -------------------------------------------------------------

@dataclass(frozen=True)
class NoneRunning:
    pass


@dataclass(frozen=True)
class NoneOnPort:
    port: str


@dataclass(frozen=True)
class SeveralRunning:
    ports: tuple[str, ...]


@dataclass(frozen=True)
class BadControl:
    """--control that is neither tcp:PORT nor a socket's path."""

    control: str


@dataclass(frozen=True)
class NothingAnswers:
    address: str


@dataclass(frozen=True)
class RestartedBeforeAnswer:
    address: str


@dataclass(frozen=True)
class LostShuffler:
    address: str
    detail: str


# -- what was done ----------------------------------------------------------------------------

@dataclass(frozen=True)
class StackHolds:
    """A stack after cards came onto it (a new pack, a whole stack put on it)."""

    stack: str
    cards: int


@dataclass(frozen=True)
class TrayHolds:
    cards: int


@dataclass(frozen=True)
class Touched:
    pass


@dataclass(frozen=True)
class Lifted:
    cards: int
    place: str  # TRAY, LEFT, RIGHT, EXIT or OUT_OF_TRAY
    stack: str
    holds: int  # the stack's cards after


@dataclass(frozen=True)
class StackCut:
    stack: str


@dataclass(frozen=True)
class Moved:
    src: str
    src_holds: int
    dst: str
    dst_holds: int


@dataclass(frozen=True)
class FaultInjected:
    spec: str


@dataclass(frozen=True)
class FaultsCleared:
    pass


@dataclass(frozen=True)
class PowerCycled:
    pass


@dataclass(frozen=True)
class Swept:
    pass


@dataclass(frozen=True)
class TableSeen:
    """The table at a look: each stack and machine place with its count
    (places by the world's names, in the order shown), and the check of
    every card: how many were made, and the ids missing, there twice, or
    not from this table."""

    stacks: tuple[tuple[str, int], ...]
    places: tuple[tuple[str, int], ...]
    made: int
    missing: int = 0
    twice: int = 0
    stray: int = 0


# -- a virtual shuffler started ----------------------------------------------------------------

@dataclass(frozen=True)
class HowToGoOn:
    """How to go on with a virtual shuffler just started: its control
    endpoint, what comes first (the guide, or on a blank board the flash
    and the bring-up), what stays when it stops (`table_file`: where its
    cards are kept; `kept`: said by the emulated Pico of itself), and the
    person's hands at its table."""

    control: str
    uid: str
    port: str
    blank: bool = False
    table_file: str | None = None
    kept: str = ""


@dataclass(frozen=True)
class SimStarted:
    port: str
    flash: str


@dataclass(frozen=True)
class SimStopped:
    unexpectedly: bool = False  # not by a signal: the board stopped by itself


@dataclass(frozen=True)
class NotAFolder:
    """--flash cannot be the board's folder: it is a file (`file` None), or under the file `file`."""

    flash: str
    file: str | None = None


@dataclass(frozen=True)
class Unwritable:
    """The runtime folder (SHUFFLER_RUNTIME_DIR) or the flash cannot be written."""

    path: str | None
    why: str


@dataclass(frozen=True)
class NoTableFolder:
    folder: str


@dataclass(frozen=True)
class PicoHeapIsItsOwn:
    """--heap-kib given with --board pico."""


__all__ = ["NoneRunning", "NoneOnPort", "SeveralRunning", "BadControl", "NothingAnswers", "RestartedBeforeAnswer",
           "LostShuffler", "StackHolds", "TrayHolds", "Touched", "Lifted", "StackCut", "Moved", "FaultInjected",
           "FaultsCleared", "PowerCycled", "Swept", "TableSeen", "HowToGoOn", "SimStarted", "SimStopped", "NotAFolder",
           "Unwritable", "NoTableFolder", "PicoHeapIsItsOwn", "TRAY", "LEFT", "RIGHT", "EXIT", "OUT_OF_TRAY"]
