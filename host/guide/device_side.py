"""What the guide's state machine needs of a shuffler, as one typed seam.

The serial device (host/guide/device.py, over a Link), the in-memory device
the tests walk the machine with (tests/guide_in_memory.py) and any fake of
the suite implement it; tests/host/test_device_side.py holds each to it,
method by method, so a change made to one and not the others fails there
rather than as an AttributeError part way through a run."""
from __future__ import annotations

from typing import Protocol

from host.device_messages import Event, Reply


class ShufflerSide(Protocol):
    name: str  # the port, as the person names it
    capacity: int | None  # cards the tray takes, from the hello
    garbage: int  # lines that were not protocol, counted

    def wait_s(self, seconds: float) -> float:
        """A wait stretched for a slow device (the emulated chip)."""
        ...

    def next_event(self, timeout: float) -> Event | None | str:
        """The next event, None after `timeout`, or "garbage"."""
        ...

    def drain(self) -> None: ...

    def status(self, timeout: float | None = None) -> Reply: ...

    def count(self) -> int | None:
        """The tray's count, or None when the device cannot count now."""
        ...

    def waiting(self) -> int:
        """How many events have come in and wait to be read."""
        ...

    def events_waiting(self) -> bool: ...

    def clear(self) -> bool: ...

    def exact_begin(self, cards: int, kind: str | None = None) -> Reply: ...

    def start(self) -> bool: ...

    def exact_held(self) -> Reply | None: ...

    def exact_repair(self, parent: bool = False) -> Reply: ...

    def exact_cancel(self) -> None: ...

    def keep_awake(self) -> None: ...

    def reconnect(self, within_s: float, why: str) -> Reply: ...

    def check_uid(self, uid: str | None) -> None:
        """Stop when another shuffler answers than the one the session began with."""
        ...

    def check_firmware(self, fw: object, proto: object, digest: object, partial: bool = False) -> None:
        """Stop when the shuffler was reflashed under the session (its version, protocol or digest changed)."""
        ...

    def close(self) -> None: ...
