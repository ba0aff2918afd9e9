"""The link to the shuffler: a restart, the cable out and back, a device
that does not answer. Kept apart from the faults: the device said nothing,
the guide saw the link change."""
from __future__ import annotations

from dataclasses import dataclass

from host.guide.notice_records._where import Where


@dataclass(frozen=True)
class Restarted:
    """The shuffler started again. `dealt` of `of` cards of the pass in hand
    lie on the piles (None: between passes). exact: None in random mode;
    True when the shuffler kept its exact routine; False when it is gone
    (then ExactLost follows: this notice says nothing of exactness)."""

    where: Where | None
    dealt: int | None = None
    of: int | None = None
    unplugged: bool = False  # it restarted while the cable was out


@dataclass(frozen=True)
class PassBeganUnplugged:
    held: int
    rest: int


@dataclass(frozen=True)
class ConnectionLost:
    where: Where | None
    dealt: int | None
    of: int | None
    wait_s: float


@dataclass(frozen=True)
class DeviceBack:
    pass


@dataclass(frozen=True)
class NotAnswering:
    pass


@dataclass(frozen=True)
class ClearUnanswered:
    pass
