"""The MicroPython unix-port process behind a virtual shuffler.

One process is one boot of the board: a soft or hard reset ends it and the
serial bridge starts a fresh one. Its stdin and stdout are pipes; the unix
port's REPL (friendly, raw and raw-paste) runs on them unchanged.
"""
from __future__ import annotations

import array
import fcntl
import os
import shutil
import signal
import subprocess
import sys
import termios
from pathlib import Path

STARTUP_SCRIPT = Path(__file__).with_name("mp_startup.py")
# Must match the constants in mp_startup.py.
# The start-up script ends with MARKER_START + b"ready" or b"exit=CODE" + MARKER_END.
MARKER_START = b"\x1e\x1evirtual-shuffler:"
MARKER_END = b"\x1e\x1e"
HARD_RESET_EXIT = 77
# Exit codes that mean the board reset itself: machine.reset() (77) and the
# sim board's watchdog (3, WDT_EXIT_CODE in board/board_sim.py).
HARD_RESET_EXITS = (HARD_RESET_EXIT, 3)

# The unix port runs with SIGINT ignored from exec on (so the hosting Python
# installs no handler of its own); the port installs its handler only while it
# executes code, so "SIGINT is caught" tells whether a Ctrl-C must become a
# KeyboardInterrupt or stay a byte for the REPL.
_IGNORE_SIGINT = ["/bin/sh", "-c", 'trap "" INT; exec "$0" "$@"']
_LAUNCH = "import sys,micropython_run;sys.exit(micropython_run.run_main(['micropython']+sys.argv[1:]))"


def interpreter_command() -> list[str]:
    """How to start the unix port: the in-venv module if present, else the executable."""
    try:
        import micropython_run  # noqa: F401
    except ImportError:
        exe = shutil.which("micropython")
        if exe is None:
            raise RuntimeError("the MicroPython unix port (micropython) is not installed")
        return _IGNORE_SIGINT + [exe]
    return _IGNORE_SIGINT + [sys.executable, "-c", _LAUNCH]


def sigint_caught(pid: int) -> bool:
    """True while the process has a SIGINT handler installed (Linux /proc)."""
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("SigCgt:"):
                    return bool(int(line.split()[1], 16) & (1 << (signal.SIGINT - 1)))
    except (OSError, ValueError):
        pass
    return False


class MicroPythonProcess:
    """One running interpreter: flash dir as cwd, boot.py/main.py run at start."""

    def __init__(
        self,
        flash_dir: Path,
        *,
        raw_mode: bool,
        module_path: list[str],
        env: dict[str, str],
        heap_kib: int | None = None,
    ) -> None:
        args = interpreter_command()
        if heap_kib:
            args += ["-X", f"heapsize={heap_kib}K"]
        args += ["-i", str(STARTUP_SCRIPT)]
        full_env = dict(os.environ)
        full_env.update(env)
        full_env["VIRTUAL_SHUFFLER_MODE"] = "raw" if raw_mode else "friendly"
        full_env["VIRTUAL_SHUFFLER_PATH"] = ":".join(module_path)
        self.raw_mode = raw_mode
        self.proc = subprocess.Popen(
            args,
            cwd=flash_dir,
            env=full_env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            bufsize=0,
            start_new_session=True,  # a terminal's Ctrl-C must not reach it directly
        )
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.stdin_fd = self.proc.stdin.fileno()
        self.stdout_fd = self.proc.stdout.fileno()
        os.set_blocking(self.stdin_fd, False)
        os.set_blocking(self.stdout_fd, False)

    @property
    def pid(self) -> int:
        return self.proc.pid

    def executing(self) -> bool:
        return self.proc.poll() is None and sigint_caught(self.proc.pid)

    def interrupt(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)

    def read(self) -> bytes | None:
        """Available output; None when there is none yet, b"" once the process ends."""
        try:
            return os.read(self.stdout_fd, 4096)
        except BlockingIOError:
            return None
        except OSError:
            return b""

    def write(self, data: bytes) -> int:
        """Write what the pipe takes now; the caller keeps the rest."""
        try:
            return os.write(self.stdin_fd, data)
        except BlockingIOError:
            return 0
        except OSError:  # the process is gone; drop the input as a reset board would
            return len(data)

    def unread_input(self) -> int:
        """Bytes written to the process's stdin that it has not read yet."""
        count = array.array("i", [0])
        try:
            fcntl.ioctl(self.stdin_fd, termios.FIONREAD, count)
        except OSError:
            return 0
        return count[0]

    def exit_status(self, timeout: float = 2.0) -> int:
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            return self.proc.wait(timeout=timeout)

    def kill(self) -> None:
        if self.proc.poll() is None:
            try:
                self.proc.kill()
            except ProcessLookupError:
                pass
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
        for stream in (self.proc.stdin, self.proc.stdout):
            try:
                if stream is not None:
                    stream.close()
            except OSError:
                pass

