"""Where running virtual shufflers announce themselves, so `shuffler devices`
can list them: one small JSON file per device in a per-user runtime folder.
Entries whose process is gone or whose port has vanished are stale: they are
skipped and removed.
"""
from __future__ import annotations

import json
import os
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

ENV_DIR = "SHUFFLER_RUNTIME_DIR"


@dataclass(frozen=True)
class Advert:
    pid: int
    port: str
    flash_dir: str
    started: float
    control: str = ""  # the world's control endpoint (`shuffler table` talks to it)
    uid: str = ""  # the board's hello uid
    board: str = "sim"  # sim: the virtual shuffler; pico: the emulated Raspberry Pi Pico
    # How many times longer than a real board it may take to answer: the
    # emulated Pico runs its firmware several times slower than real time.
    # A Link opened on this port waits that much longer (host/device_link.py).
    slowdown: float = 1.0
    # Simulated ms per real ms of the board's world (0: as fast as the computer
    # goes); a summary's time is labelled as simulated when this is not 1.
    time_scale: float = 1.0


def registry_dir() -> Path:
    base = os.environ.get(ENV_DIR)
    if base:
        root = Path(base)
    elif os.environ.get("XDG_RUNTIME_DIR"):
        root = Path(os.environ["XDG_RUNTIME_DIR"]) / "lotus-shuffler"
    else:
        root = Path(tempfile.gettempdir()) / f"lotus-shuffler-{os.getuid()}"
    return root / "virtual"


def advertise(port: str, flash_dir: Path, control: str = "", uid: str = "", board: str = "sim",
              slowdown: float = 1.0, time_scale: float = 1.0) -> Path:
    folder = registry_dir()
    folder.mkdir(parents=True, exist_ok=True)
    advert = Advert(pid=os.getpid(), port=port, flash_dir=str(flash_dir), started=time.time(),
                    control=control, uid=uid, board=board, slowdown=slowdown, time_scale=time_scale)
    path = folder / f"{advert.pid}-{Path(port).name}.json"
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(asdict(advert)))
    os.replace(tmp, path)
    return path


def withdraw(path: Path) -> None:
    try:
        path.unlink()
    except FileNotFoundError:
        pass


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def running() -> list[Advert]:
    """Live virtual shufflers, oldest first; stale entries are removed."""
    folder = registry_dir()
    found: list[Advert] = []
    if not folder.is_dir():
        return found
    for path in sorted(folder.glob("*.json")):
        try:
            advert = Advert(**json.loads(path.read_text()))
        except (OSError, ValueError, TypeError):
            withdraw(path)
            continue
        if _alive(advert.pid) and os.path.exists(advert.port):
            found.append(advert)
        else:
            withdraw(path)
    return sorted(found, key=lambda a: a.started)


def slowdown(port: str) -> float:
    """The slowdown a running virtual device advertises with `port`; 1 for
    any other port, which is a real board's."""
    for advert in running():
        if advert.port == port:
            return max(1.0, float(advert.slowdown))
    return 1.0


def time_scale(port: str) -> float | None:
    """The time scale a running virtual device advertises with `port`; None
    for any other port, which is a real board's."""
    for advert in running():
        if advert.port == port:
            return float(advert.time_scale)
    return None
