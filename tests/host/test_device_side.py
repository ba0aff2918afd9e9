"""The guide's one seam to a shuffler (host/guide/device_side.py): the
serial device and the in-memory device of the tests implement every member
of it with the same parameters, so the machine meets the same shuffler in
the suite as on a port."""
from __future__ import annotations

import inspect
import types
import typing

import pytest

from guide_in_memory import MemoryDevice
from host.guide.device import Device
from host.guide.device_side import ShufflerSide

MEMBERS = [name for name, value in vars(ShufflerSide).items() if inspect.isfunction(value) and not name.startswith("_")]
FIELDS = list(typing.get_type_hints(ShufflerSide))


def _parameters(fn: typing.Callable[..., object]) -> list[tuple[str, object]]:
    return [(p.name, p.default) for p in inspect.signature(fn).parameters.values()]


@pytest.mark.parametrize("side", [Device, MemoryDevice])
@pytest.mark.parametrize("member", MEMBERS)
def test_each_shuffler_side_has_every_member_with_the_same_parameters(side: type, member: str) -> None:
    assert hasattr(side, member), f"{side.__name__} has no {member}"
    assert _parameters(getattr(side, member)) == _parameters(getattr(ShufflerSide, member))


def test_the_seam_is_the_whole_of_what_the_serial_device_offers_the_machine() -> None:
    """Every public method of the serial device is in the seam: nothing the
    machine could reach for is left off it."""
    public = {name for name, value in vars(Device).items() if inspect.isfunction(value) and not name.startswith("_")}
    assert public == set(MEMBERS)


def test_each_side_keeps_the_seam_s_fields() -> None:
    assert set(FIELDS) == {"name", "capacity", "garbage"}
    serial = Device(types.SimpleNamespace(name="/dev/ttyACM0", hello=None))  # type: ignore[arg-type]
    for side in (serial, MemoryDevice()):
        for field in FIELDS:
            assert hasattr(side, field), f"{type(side).__name__} has no {field}"
