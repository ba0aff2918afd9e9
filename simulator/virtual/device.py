"""VirtualShuffler: the firmware on the MicroPython unix port, over the
simulated board, on a pseudo-terminal.

    with VirtualShuffler(time_scale=20) as dev:   # empty flash in a temp dir
        print(dev.port)                           # /dev/pts/N: open it like /dev/ttyUSB0
        dev.load(range(52)); dev.touch()          # the simulated world

The flash directory is the board's filesystem (the interpreter's cwd, where
the firmware also keeps its settings); boot.py and main.py in it run at every
boot. The world (cards, motor, sensors) lives in the interpreter, so it starts
afresh at each reset, unless keep_cards (as `shuffler sim-device` does): then
the cards stay where they lie. Standing faults are applied again at every boot.
"""
from __future__ import annotations

import hashlib
import shutil
import tempfile
import threading
import time
from pathlib import Path
from types import TracebackType
from typing import Any, Iterable

from simulator.virtual import faults as faultlib
from simulator.virtual import registry
from simulator.virtual.interpreter import MicroPythonProcess
from simulator.virtual.pty_port import PtyPort
from simulator.virtual.serial_bridge import SerialBridge
from simulator.virtual.world_client import BOARD_PATH, WorldClient, WorldError

MP_LIB_DIR = Path(__file__).resolve().parent / "mp_lib"
STANDING_S = 60.0  # the longest a booting board may take to take its standing faults (a busy machine)
# The board's interpreter shares this computer's processors with the host
# tool and everything else: on a busy computer it answers a request later
# than a real board would (2 s was seen run out in setup). It is advertised
# with this slowdown, so a link on its port waits this many times longer
# (host/device_link.py); a real board's port keeps a real board's timeouts.
SHARED_CPU_SLOWDOWN = 4.0


def flash_uid(flash_dir: Path) -> str:
    """8 bytes of hex, as an RP2040's unique_id, from the flash folder's path."""
    return hashlib.sha256(str(Path(flash_dir).resolve()).encode()).hexdigest()[:16]


def _flash_folder(flash_dir: str | Path | None) -> Path:
    """The board's flash: the folder given, or a new temporary one; made if
    missing, as an absolute path (the board's unique id is derived from it)."""
    folder = Path(flash_dir) if flash_dir else Path(tempfile.mkdtemp(prefix="shuffler-flash-"))
    folder.mkdir(parents=True, exist_ok=True)
    return folder.resolve()


class VirtualShuffler:
    def __init__(
        self,
        flash_dir: str | Path | None = None,
        *,
        time_scale: float = 1.0,
        seed: int = 1,
        faults: Iterable[faultlib.Fault | str] = (),
        heap_kib: int | None = None,
        env: dict[str, str] | None = None,
        advertise: bool = True,
        uid: str | None = None,
        table_file: str | Path | None = None,
        keep_cards: bool = False,
    ) -> None:
        self._own_flash = flash_dir is None
        self.flash_dir = _flash_folder(flash_dir)
        self.faults = [f if isinstance(f, faultlib.Fault) else faultlib.parse_fault(f) for f in faults]
        self._runtime = Path(tempfile.mkdtemp(prefix="shuffler-vdev-"))
        self.control_address = str(self._runtime / "world.sock")
        self.table_file = self._table_path(table_file, keep_cards)
        # The board's machine.unique_id() (hex): derived from the flash folder,
        # so a restart on the same flash is the same machine, another flash
        # another one.
        self.uid = uid if uid is not None else flash_uid(self.flash_dir)
        self.module_path = [str(self.flash_dir / "lib"), *BOARD_PATH, str(MP_LIB_DIR)]
        self.env = self._board_env(time_scale, seed, env)
        self.heap_kib = heap_kib
        self.time_scale = float(time_scale)
        self._advertise = advertise
        self._advert: Path | None = None
        self._port: PtyPort | None = None
        self._bridge: SerialBridge | None = None
        self._stopping = threading.Event()
        self._standing = threading.Event()  # the machine's standing faults are in (none: at once)
        self._standing.set()

    def _table_path(self, table_file: str | Path | None, keep_cards: bool) -> Path | None:
        """Where the cards on the table and in the machine are kept. With
        keep_cards they stay where they lie across resets, as real cards
        would; in a given file also across restarts. Without, each boot
        starts with a bare world."""
        if table_file:
            return Path(table_file).resolve()
        if keep_cards:
            return self._runtime / "table.json"
        return None

    def _board_env(self, time_scale: float, seed: int, env: dict[str, str] | None) -> dict[str, str]:
        """The simulated board's settings, as the environment its process starts with."""
        return {
            "SHUFFLER_BOARD": "sim",
            "SHUFFLER_SIM_CONTROL": self.control_address,
            "SHUFFLER_SIM_SPEED": repr(float(time_scale)),
            "SHUFFLER_SIM_SEED": str(seed),
            "SHUFFLER_DATA_DIR": str(self.flash_dir),
            "SHUFFLER_SIM_UID": self.uid,
            **({"SHUFFLER_SIM_TABLE": str(self.table_file)} if self.table_file else {}),
            **faultlib.boot_env(self.faults),
            **(env or {}),
        }

    # -- life cycle -----------------------------------------------------------
    def start(self) -> "VirtualShuffler":
        if self._bridge is not None:
            return self
        self._stopping.clear()
        self._port = PtyPort()
        self._bridge = SerialBridge(self._port, self._spawn, on_boot=self._after_boot)
        try:
            self._bridge.start()
        except BaseException:
            self.stop()
            raise
        if self._advertise:
            self._advert = registry.advertise(self._port.path, self.flash_dir, self.control_address, self.uid,
                                              time_scale=self.time_scale, slowdown=SHARED_CPU_SLOWDOWN)
        return self

    def stop(self, remove_flash: bool | None = None) -> None:
        """Stop the board; a temporary flash dir is removed unless asked to keep it."""
        self._stopping.set()
        if self._advert is not None:
            registry.withdraw(self._advert)
            self._advert = None
        if self._bridge is not None:
            self._bridge.stop()
            self._bridge = None
        if self._port is not None:
            self._port.close()
            self._port = None
        shutil.rmtree(self._runtime, ignore_errors=True)
        if remove_flash if remove_flash is not None else self._own_flash:
            shutil.rmtree(self.flash_dir, ignore_errors=True)

    def __enter__(self) -> "VirtualShuffler":
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    def _spawn(self, raw: bool) -> MicroPythonProcess:
        self._runtime.mkdir(parents=True, exist_ok=True)
        return MicroPythonProcess(
            self.flash_dir,
            raw_mode=raw,
            module_path=self.module_path,
            env=self.env,
            heap_kib=self.heap_kib,
        )

    def _after_boot(self) -> None:
        live = [f for f in self.faults if not f.at_boot]
        if live:
            self._standing.clear()
            threading.Thread(target=self._inject_standing, args=(live,), daemon=True).start()

    def _inject_standing(self, live: list[faultlib.Fault]) -> None:
        # The endpoint comes up once the firmware has opened the board (on a
        # busy machine that may take a while); after a raw-REPL reset main.py
        # does not run, so nothing answers: give up at the deadline. Until
        # then the world waits (world()): a card loaded or a touch made
        # before the machine's standing faults are in would meet a machine
        # without them.
        try:
            try:
                client = WorldClient.connect(self.control_address, timeout=STANDING_S)
            except OSError:
                return
            with client:
                for f in live:
                    if self._stopping.is_set():
                        return
                    try:
                        client.inject(f.name, f.k, mode=f.mode if f.name == "double_feed" else "")
                    except (OSError, WorldError, ValueError):
                        return
        finally:
            self._standing.set()

    # -- what a user sees -----------------------------------------------------
    @property
    def port(self) -> str:
        if self._port is None:
            raise RuntimeError("the virtual shuffler is not running")
        return self._port.path

    @property
    def running(self) -> bool:
        return self._bridge is not None and self._bridge.running

    @property
    def boots(self) -> int:
        """How many times the board has started (power-on and every reset)."""
        return self._bridge.boots if self._bridge else 0

    @property
    def interpreter_pid(self) -> int | None:
        return self._bridge.child_pid if self._bridge else None

    def output(self) -> bytes:
        """The serial output so far (recent part), whether or not a host listened."""
        return self._bridge.output() if self._bridge else b""

    def hard_reset(self) -> None:
        """Press the reset button: a fresh interpreter, boot.py and main.py run."""
        if self._bridge is not None:
            self._bridge.request_reset("hard")

    def unplug(self) -> None:
        """The power goes and comes back mid-whatever: the board restarts (the
        cards stay where they lie with keep_cards). Without firmware, a hard reset."""
        boots = self.boots
        try:
            client = self.world(timeout=1.0)
        except OSError:
            self.hard_reset()
        else:
            with client:
                client.unplug()
        # Back once the bridge has started the next interpreter: the old one,
        # and its endpoint, are gone by then.
        deadline = time.monotonic() + 10
        while self.boots == boots and self.running and time.monotonic() < deadline:
            time.sleep(0.01)

    def soft_reset(self) -> None:
        """As Ctrl-D: "MPY: soft reboot", then a fresh interpreter in the same REPL mode."""
        if self._bridge is not None:
            self._bridge.request_reset("soft")

    # -- the simulated world (needs the firmware running) ------------------------
    def world(self, timeout: float = 5.0) -> WorldClient:
        """A fresh connection to the world's control endpoint, once the
        machine's standing faults are in; close it after use."""
        self._standing.wait(STANDING_S)
        return WorldClient.connect(self.control_address, timeout=timeout)

    def _world_call(self, method: str, *args: Any, **kwargs: Any) -> Any:
        with self.world() as client:
            return getattr(client, method)(*args, **kwargs)

    def load(self, ids: Iterable[Any]) -> int:
        """Put cards (top to bottom) on top of the tray; returns the tray count."""
        return int(self._world_call("load", list(ids)))

    def take(self, pile: str) -> list[Any]:
        return list(self._world_call("take", pile))

    def touch(self, ms: int = 100) -> None:
        self._world_call("touch", ms)

    def inject(self, fault: faultlib.Fault | str) -> None:
        """Inject one fault now (it lasts until fixed or until the next reset)."""
        f = fault if isinstance(fault, faultlib.Fault) else faultlib.parse_fault(fault)
        if f.name == "sensor_missing":
            self._world_call("inject", f.name, 0, sensor=f.mode)
        else:
            self._world_call("inject", f.name, f.k, mode=f.mode if f.name == "double_feed" else "")

    def fix(self) -> None:
        self._world_call("fix")

    def query(self) -> dict[str, Any]:
        return dict(self._world_call("query"))
