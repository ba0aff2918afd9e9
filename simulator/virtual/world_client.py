"""CPython client of the simulated board's control endpoint, and the command
line that runs the firmware on the simulated board.

    argv, env = sim_command(firmware_dir, control="/tmp/w.sock", speed=20)
    proc = subprocess.Popen(argv, env=env, stdin=PIPE, stdout=PIPE)
    world = WorldClient.connect("/tmp/w.sock")
    world.load(list(range(52))); world.touch(); ...
"""

from __future__ import annotations

import json
import os
import socket
import time
from pathlib import Path
from typing import Any, Sequence

BOARD_DIR = Path(__file__).resolve().parent / "board"
REPO_DIR = Path(__file__).resolve().parents[2]
FIRMWARE_DIR = REPO_DIR / "firmware"
# Where the simulated board's MicroPython modules are found: the board's
# own, and the repository for the hardware package (hardware.mechanism).
BOARD_PATH = (str(BOARD_DIR), str(REPO_DIR))


class WorldError(RuntimeError):
    """The simulated world refused a request."""


class EndpointClosed(WorldError):
    """The endpoint closed before it answered: the board went down (a reset)."""


def sim_command(
    firmware_dir: str | os.PathLike[str] = FIRMWARE_DIR,
    control: str | None = None,
    speed: float = 1.0,
    data_dir: str | os.PathLike[str] | None = None,
    seed: int = 1,
    missing: Sequence[str] = (),
    battery_mv: int | None = None,
    micropython: str = "micropython",
    script: str = "main.py",
    heap_kb: int | None = None,
) -> tuple[list[str], dict[str, str]]:
    """argv and environment that run `script` from firmware_dir on the
    simulated board. Run it with cwd=firmware_dir."""
    env = dict(os.environ)
    env["MICROPYPATH"] = os.pathsep.join([str(firmware_dir), *BOARD_PATH, ".frozen"])
    env["SHUFFLER_BOARD"] = "sim"
    env["SHUFFLER_SIM_SPEED"] = repr(float(speed))
    env["SHUFFLER_SIM_SEED"] = str(seed)
    env["SHUFFLER_DATA_DIR"] = str(data_dir if data_dir is not None else firmware_dir)
    if control:
        env["SHUFFLER_SIM_CONTROL"] = control
    if missing:
        env["SHUFFLER_SIM_MISSING"] = ",".join(missing)
    if battery_mv is not None:
        env["SHUFFLER_SIM_BATTERY_MV"] = str(battery_mv)
    argv = [micropython]
    if heap_kb:
        argv += ["-X", f"heapsize={heap_kb}K"]
    argv.append(str(Path(firmware_dir) / script))
    return argv, env


class WorldClient:
    """One connection to the control endpoint; each call is one JSON line
    out and one back."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.buf = b""

    @classmethod
    def connect(cls, address: str, timeout: float = 5.0) -> "WorldClient":
        """Connect, retrying until the endpoint is up or timeout passes."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                if address.startswith("tcp:"):
                    s = socket.create_connection(("127.0.0.1", int(address[4:])), timeout=timeout)
                else:
                    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                    s.settimeout(timeout)
                    s.connect(address)
                return cls(s)
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.02)

    def close(self) -> None:
        self.sock.close()

    def __enter__(self) -> "WorldClient":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def request(self, **req: Any) -> dict[str, Any]:
        self.sock.sendall(json.dumps(req).encode() + b"\n")
        while b"\n" not in self.buf:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise EndpointClosed("control endpoint closed")
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        rep = json.loads(line)
        if not rep.get("ok"):
            raise WorldError(str(rep.get("error", "request refused")))
        return rep

    def load(self, ids: Sequence[Any]) -> int:
        """Put cards (top to bottom) on top of the tray; returns the tray count."""
        return int(self.request(op="load", ids=list(ids))["tray"])

    def take(self, pile: str) -> list[Any]:
        """Remove a pile ("left", "right", "tray", "throat", "removed");
        returns its ids top to bottom."""
        return list(self.request(op="take", pile=pile)["ids"])

    def touch(self, ms: int = 100) -> None:
        """Hold the touch pad for ms simulated milliseconds."""
        self.request(op="touch", ms=ms)

    def inject(self, fault: str, k: int = 0, mode: str = "", sensor: str = "") -> None:
        """fault: jam, double_feed (mode "long" or "overlap"), empty_at,
        battery_low, sensor_missing (sensor=...), hang, save_fail.
        k: the card (0-based, counted in feed order) it strikes."""
        req: dict[str, Any] = {"op": "inject", "fault": fault, "k": k}
        if mode:
            req["mode"] = mode
        if sensor:
            req["sensor"] = sensor
        self.request(**req)

    def fix(self) -> None:
        """Clear injected mechanical and sensor faults."""
        self.request(op="fix")

    def set_battery(self, mv: int) -> None:
        self.request(op="battery", mv=mv)

    # -- the card table around the machine (board/sim_table.py) ------------
    def new(self, n: int, name: str = "pack") -> int:
        """Bring n fresh cards (the next ids) onto stack `name`; returns its count."""
        return int(self.request(op="new", n=n, name=name)["count"])

    def put(self, stack: str, n: int | None = None, end: str = "top") -> int:
        """The top n cards of a stack (all by default) into the tray, on top of
        what is there (end "bottom": under it); returns the tray count."""
        req: dict[str, Any] = {"op": "put", "from": stack, "end": end}
        if n is not None:
            req["n"] = n
        return int(self.request(**req)["tray"])

    def lift(self, pile: str, onto: str, end: str = "top", n: int | None = None) -> int:
        """Lift left, right, tray, throat or removed (only its top n cards, for
        the tray and the piles) onto a stack; returns the cards lifted."""
        req: dict[str, Any] = {"op": "lift", "pile": pile, "onto": onto, "end": end}
        if n is not None:
            req["n"] = n
        return int(self.request(**req)["lifted"])

    def put_stack(self, what: str, onto: str, end: str = "top") -> int:
        """A whole stack onto another; returns the new count."""
        return int(self.request(op="put_stack", what=what, onto=onto, end=end)["count"])

    def move(self, n: int, src: str, dst: str, from_end: str = "top", to_end: str = "top") -> None:
        self.request(op="move", n=n, **{"from": src, "to": dst}, from_end=from_end, to_end=to_end)

    def cut(self, stack: str, n: int | None = None) -> None:
        req: dict[str, Any] = {"op": "cut", "stack": stack}
        if n is not None:
            req["n"] = n
        self.request(**req)

    def clear_table(self) -> None:
        """Every card off the table and out of the machine."""
        self.request(op="clear_table")

    def show(self) -> dict[str, Any]:
        """stacks (name -> ids top first), places (tray, left, right, throat,
        removed -> ids top first) and check (made, missing, twice, stray, ok)."""
        return self.request(op="show")

    def unplug(self) -> None:
        """The power goes and comes back: the board restarts, the cards stay."""
        try:
            self.request(op="unplug")
        except (EndpointClosed, OSError):
            return  # the endpoint went down with the board, as it should
        raise WorldError("the board did not restart")

    def query(self) -> dict[str, Any]:
        """tray/left/right/throat ids (top to bottom), motor, counts, mv,
        time_ms, sleeping, sleeps, faults, led."""
        return self.request(op="query")
