"""VirtualShuffler: a MicroPython board on a pseudo-terminal.

    with VirtualShuffler() as dev:        # empty flash in a temp dir
        print(dev.port)                   # /dev/pts/N, open it like /dev/ttyUSB0

The flash directory is the board's filesystem (cwd of the interpreter);
boot.py and main.py in it run at every boot.
"""
from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from types import TracebackType

from simulator.virtual import registry
from simulator.virtual.interpreter import MicroPythonProcess
from simulator.virtual.pty_port import PtyPort
from simulator.virtual.serial_bridge import SerialBridge


class VirtualShuffler:
    def __init__(
        self,
        flash_dir: str | Path | None = None,
        *,
        module_path: list[str] | None = None,
        env: dict[str, str] | None = None,
        heap_kib: int | None = None,
        advertise: bool = True,
    ) -> None:
        self._own_flash = flash_dir is None
        self.flash_dir = Path(flash_dir) if flash_dir else Path(tempfile.mkdtemp(prefix="shuffler-flash-"))
        self.flash_dir.mkdir(parents=True, exist_ok=True)
        self.flash_dir = self.flash_dir.resolve()
        self.module_path = [str(self.flash_dir / "lib"), *(module_path or [])]
        self.env = dict(env or {})
        self.heap_kib = heap_kib
        self._advertise = advertise
        self._advert: Path | None = None
        self._port: PtyPort | None = None
        self._bridge: SerialBridge | None = None

    # -- life cycle -----------------------------------------------------------
    def start(self) -> "VirtualShuffler":
        if self._bridge is not None:
            return self
        self._port = PtyPort()
        self._bridge = SerialBridge(self._port, self._spawn)
        try:
            self._bridge.start()
        except BaseException:
            self.stop()
            raise
        if self._advertise:
            self._advert = registry.advertise(self._port.path, self.flash_dir)
        return self

    def stop(self, remove_flash: bool | None = None) -> None:
        """Stop the board; a temporary flash dir is removed unless asked to keep it."""
        if self._advert is not None:
            registry.withdraw(self._advert)
            self._advert = None
        if self._bridge is not None:
            self._bridge.stop()
            self._bridge = None
        if self._port is not None:
            self._port.close()
            self._port = None
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
        return MicroPythonProcess(
            self.flash_dir,
            raw_mode=raw,
            module_path=self.module_path,
            env=self.env,
            heap_kib=self.heap_kib,
        )

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
        """How many times the board has started (power-on and resets)."""
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
