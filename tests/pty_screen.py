"""A program on a pseudo-terminal as a person sees it, for the tests that
drive a command with a person model: the screen's text (escape codes
removed), a keyboard, the steps the program writes as JSON lines, and the
end of every process a test starts."""
from __future__ import annotations

import json
import os
import re
import select
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pty_device import open_pty
from simulator.virtual.world_client import WorldClient, WorldError

PORT_LINE = re.compile(r"^virtual shuffler on (\S+) \(flash (.+)\)$", re.M)
CONTROL_LINE = re.compile(r"^control endpoint (\S+) \(uid ([0-9a-f]+)\)$", re.M)
ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07]*\x07|\x1b[()][A-Za-z0-9]|\r")

# The program as a terminal starts it, where Ctrl-C interrupts: a shell that
# starts a job in the background (`&`, nohup) has it ignore SIGINT, a child
# keeps that, and Python then never raises KeyboardInterrupt; so the suite,
# however it was started, would see the program ignore the Ctrl-C a test
# sends. SIGINT is set back to its default before the program is run.
AS_AT_A_TERMINAL = [sys.executable, "-c",
                    "import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); "
                    "os.execvp(sys.argv[1], sys.argv[1:])"]


class Screen:
    """A program on a pseudo-terminal, as a person sees it: the text so far
    (escape codes removed), and a keyboard."""

    def __init__(self, argv: list[str], env: dict[str, str], cols: int = 160, rows: int = 50) -> None:
        master, slave = open_pty(cols=cols, rows=rows)
        self.proc = subprocess.Popen([*AS_AT_A_TERMINAL, *argv], stdin=slave, stdout=slave, stderr=slave, env=env,
                                     start_new_session=True, close_fds=True)
        os.close(slave)
        self.master = master
        self.raw = bytearray()
        self.lock = threading.Lock()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        while True:
            try:
                ready, _, _ = select.select([self.master], [], [], 0.1)
                if not ready:
                    if self.proc.poll() is not None:
                        # Drain what is left, then stop.
                        ready, _, _ = select.select([self.master], [], [], 0.2)
                        if not ready:
                            return
                    continue
                chunk = os.read(self.master, 65536)
            except OSError:
                return
            if not chunk:
                return
            with self.lock:
                self.raw += chunk

    def text(self) -> str:
        with self.lock:
            raw = bytes(self.raw)
        return ANSI.sub("", raw.decode("utf-8", "replace"))

    def find(self, words: str, start: int) -> int:
        """Where `words` end on the screen at or after `start`, or -1."""
        text = self.text()
        at = text.find(words, start)
        return -1 if at < 0 else at + len(words)

    def type(self, keys: bytes) -> None:
        os.write(self.master, keys)

    def close(self) -> int:
        code = end_process(self.proc)
        self.reader.join(timeout=5)
        os.close(self.master)
        return code


class StepFeed:
    """The program's steps as data, in order, from its --steps-file; the
    guide's notices, and its summary or its stop at the end, are kept as
    they go by (host/step_feed.py: each line's `record` says which it is;
    `shuffler setup` writes steps alone)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.done = 0
        self.notices: list[dict[str, Any]] = []
        self.summary: dict[str, Any] | None = None
        self.stop: dict[str, Any] | None = None
        self.unread: list[dict[str, Any]] = []  # steps read by drain(), never acted on
        self.back: list[dict[str, Any]] = []  # read, then put back unshown (put_back)

    def next(self) -> dict[str, Any] | None:
        """The next step, or None until one is written whole."""
        if self.back:
            return self.back.pop()
        while (record := self._read()) is not None:
            kind = record.pop("record", "step")
            if kind == "step":
                return record
            if kind == "notice":
                self.notices.append(record)
            else:  # the run's end: one of the two, once
                assert kind in ("summary", "stop") and self.summary is None and self.stop is None, record
                setattr(self, kind, record)
        return None

    def put_back(self, step: dict[str, Any]) -> None:
        """A step read but not acted on: next() gives it again."""
        self.back.append(step)

    def drain(self) -> None:
        """Read what is left once the program has ended."""
        while (step := self.next()) is not None:
            self.unread.append(step)

    def _read(self) -> dict[str, Any] | None:
        try:
            lines = self.path.read_text().splitlines()
        except FileNotFoundError:
            return None
        if len(lines) <= self.done or not lines[self.done].endswith("}"):
            return None
        self.done += 1
        return json.loads(lines[self.done - 1])


def end_process(proc: subprocess.Popen[bytes]) -> int:
    """SIGTERM (sim-device and the guide clean up on it), then SIGKILL if it lingers."""
    if proc.poll() is None:
        proc.terminate()
    try:
        return proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        return proc.wait(timeout=10)


def screen_lines(raw: bytes) -> list[str]:
    """The lines as a terminal leaves them: a line redrawn after a carriage
    return (the progress bar) shows only its last state."""
    text = ANSI.sub(lambda m: "\r" if m.group(0) == "\r" else "", raw.decode("utf-8", "replace"))
    return [line.rstrip("\r").split("\r")[-1].rstrip() for line in text.split("\n")]


@dataclass
class SimDevice:
    """A `shuffler sim-device` process: its port, its control endpoint, its
    board's uid, its flash folder and the lines it printed at start (the banner)."""

    proc: subprocess.Popen[bytes]
    port: str
    control: str
    uid: str = ""
    banner: list[str] = field(default_factory=list)
    flash: str = ""

    def world(self) -> WorldClient:
        return WorldClient.connect(self.control, timeout=10)


BANNER_END = b"  (add --control"  # the banner's last line


def launch_sim_device(flash: Path | None, time_scale: float | None, *args: str, firmware: bool = True) -> SimDevice:
    """`shuffler sim-device` on a flash folder (None: the command's own
    temporary one), as a person starts it in a terminal (time_scale None:
    the command's own default); with `firmware`, once its firmware has
    opened the board. The caller ends the process (end_process). The
    suite's one launcher of the command."""
    where = [] if flash is None else ["--flash", str(flash)]
    scale = [] if time_scale is None else ["--time-scale", str(time_scale)]
    proc = subprocess.Popen([sys.executable, "-m", "host.cli", "sim-device", *where, *scale, *args],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=dict(os.environ))
    assert proc.stdout is not None
    out = b""
    while BANNER_END not in out or not out.endswith(b"\n"):
        ready, _, _ = select.select([proc.stdout], [], [], 30)
        chunk = os.read(proc.stdout.fileno(), 4096) if ready else b""
        if not chunk:
            end_process(proc)
            raise AssertionError(f"sim-device printed only {out!r}")
        out += chunk
    text = out.decode()
    port = PORT_LINE.search(text)
    control = CONTROL_LINE.search(text)
    assert port and control, text
    if firmware:
        WorldClient.connect(control.group(1), timeout=10).close()  # its firmware is up
    return SimDevice(proc, port.group(1), control.group(1), control.group(2), text.splitlines(), port.group(2))


def next_shown(screen: Screen, feed: StepFeed, seen: int, pending: dict[str, Any] | None, deadline: float,
               what: str, keep: bool = False) -> tuple[dict[str, Any] | None, int]:
    """The next step of `feed` (or `pending`, one read already) once its
    words are on the screen after `seen`, and where they end; (None, seen)
    once the program has ended. With `keep`, a line read whose words the
    screen had not shown when the program ended (its last words, written to
    the file just before they are printed) is put back for feed.next()."""
    while screen.proc.poll() is None:
        assert time.monotonic() < deadline, f"{what} did not finish in time:\n{screen.text()[-3000:]}"
        if pending is None:
            pending = feed.next()
            if pending is None:
                time.sleep(0.01)
                continue
        at = screen.find(pending["words"], seen)
        if at < 0:
            time.sleep(0.01)
            continue  # not on the screen yet: a person cannot act on it
        return pending, at
    if keep and pending is not None:
        feed.put_back(pending)
    return None, seen


def reconnect(control: str, timeout: float = 20.0, what: str = "the board did not come back") -> WorldClient:
    """A connection to the board's table once the restarted board answers
    on it: the old endpoint may linger, or take a connection as it goes,
    while the old interpreter ends."""
    deadline = time.monotonic() + timeout
    while True:
        client = WorldClient.connect(control, timeout=timeout)
        try:
            client.query()
            return client
        except (OSError, WorldError):
            client.close()
            assert time.monotonic() < deadline, what
            time.sleep(0.05)
