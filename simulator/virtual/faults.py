"""Standing faults of a virtual shuffler, written as "name[:arg[:mode]]".

    jam:K               card K (feed order, from 0) sticks until fixed
    double_feed:K       cards K and K+1 feed together (":overlap": they pass as one, once)
    empty_at:K          the rest of the tray is lifted out before card K
    battery_low         the battery reads 6.5 V from power-on (too low for a pass);
                        put in while it runs (`shuffler table fault`), 6.2 V,
                        below the cut-off: a pass in hand stops
    sensor_missing:S    sensor S (stack, exit, touch, battery) does not answer
    hang                a driver call never returns (the watchdog resets the board)
    save_fail           the power fails between writing a settings file and renaming it

A standing fault is part of the machine: it is there at every boot. Sensor
and battery faults go in through the board's environment (present from the
first instruction); the others through the control endpoint once the
firmware has started.
"""
from __future__ import annotations

from dataclasses import dataclass

SENSORS = ("stack", "exit", "touch", "battery")
# How a board can be wired wrong, from power-on (board/sim_world.py's WIRING,
# which the MicroPython side keeps; tests/virtual checks they agree).
WIRING = ("motor_reversed", "load_cell_reversed", "touch_dead", "beam_receiver_missing")
WITH_CARD = ("jam", "double_feed", "empty_at")
PLAIN = ("battery_low", "hang", "save_fail")
NAMES = WITH_CARD + PLAIN + ("sensor_missing",)
LOW_BATTERY_MV = 6500
FRESH_BATTERY_MV = 9000  # the simulated board's battery at boot


@dataclass(frozen=True)
class Fault:
    name: str
    k: int = 0
    mode: str = ""  # double_feed: "overlap" or ""; sensor_missing: the sensor

    @property
    def at_boot(self) -> bool:
        """Given to the board in its environment rather than over the endpoint."""
        return self.name in ("sensor_missing", "battery_low")


def parse_fault(text: str) -> Fault:
    """Parse one fault; ValueError with a readable message on bad input."""
    parts = text.strip().split(":")
    name = parts[0]
    if name not in NAMES:
        raise ValueError(f"unknown fault {name!r}; known: {', '.join(NAMES)}")
    if name == "sensor_missing":
        if len(parts) != 2 or parts[1] not in SENSORS:
            raise ValueError(f"sensor_missing needs a sensor: sensor_missing:{'|'.join(SENSORS)}")
        return Fault(name, 0, parts[1])
    if name in PLAIN:
        if len(parts) != 1:
            raise ValueError(f"{name} takes no argument")
        return Fault(name)
    if len(parts) > (3 if name == "double_feed" else 2):
        raise ValueError(f"too many fields in {text!r}")
    k = 0
    if len(parts) >= 2:
        try:
            k = int(parts[1])
        except ValueError:
            raise ValueError(f"{name} needs a card number: {name}:K") from None
        if k < 0:
            raise ValueError(f"{name}: the card number must be 0 or more")
    mode = parts[2] if len(parts) == 3 else ""
    if mode not in ("", "overlap", "long"):
        raise ValueError("double_feed mode is overlap or long")
    return Fault(name, k, mode)


def boot_env(faults: list[Fault]) -> dict[str, str]:
    """The board environment for faults present from power-on."""
    env: dict[str, str] = {}
    missing = [f.mode for f in faults if f.name == "sensor_missing"]
    if missing:
        env["SHUFFLER_SIM_MISSING"] = ",".join(dict.fromkeys(missing))
    if any(f.name == "battery_low" for f in faults):
        env["SHUFFLER_SIM_BATTERY_MV"] = str(LOW_BATTERY_MV)
    return env
