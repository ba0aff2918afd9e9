"""`shuffler sim-device --board pico` on a par with the virtual board for a
builder: a blank Pico says so and prints the same how-to lines, `shuffler
check` on it is answered at once (MicroPython's prompt, no firmware),
`shuffler table unplug` restarts it, --heap-kib is refused in one line,
and the emulator's own noise never reaches the console."""
from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from host import card_table_records as said
from host import card_table_words, port_records, port_words
from suite import shuffler
from picotest_support import WAIT_S

pytestmark = [pytest.mark.slow, pytest.mark.pico]


def banner(proc: subprocess.Popen[bytes], deadline: float) -> list[str]:
    """The lines sim-device prints at start, up to its how-to's last line."""
    assert proc.stdout is not None
    out = b""
    while b"  (add --control" not in out or not out.endswith(b"\n"):
        assert time.monotonic() < deadline, out
        ready, _, _ = select.select([proc.stdout], [], [], 1.0)
        chunk = os.read(proc.stdout.fileno(), 4096) if ready else b""
        assert chunk or not ready, out + (proc.stderr.read() if proc.stderr else b"")
        out += chunk
    return out.decode().splitlines()


def test_a_blank_emulated_pico_is_said_blank_checked_at_once_and_unplugged(tmp_path: Path) -> None:
    from picotest_support import require_emulator

    require_emulator()
    refused = shuffler("sim-device", "--board", "pico", "--heap-kib", "128")
    assert refused.returncode == 2 and refused.stderr.count("\n") == 1, refused.stderr
    assert card_table_words.words(said.PicoHeapIsItsOwn()) in refused.stderr
    proc = subprocess.Popen([sys.executable, "-m", "host.cli", "sim-device", "--board", "pico", "--no-install",
                             "--time-scale", "0", "--flash", str(tmp_path / "pico")],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=dict(os.environ))
    try:
        lines = banner(proc, time.monotonic() + WAIT_S)
        port = lines[0].split()[3]
        control = lines[1].split()[2]
        # The virtual board's how-to for a blank board, word for word but for what the Pico keeps.
        how_to = card_table_words.words(said.HowToGoOn(control, "", port, blank=True)).splitlines()
        assert lines[1:3] + lines[4:] == how_to[:2] + how_to[3:], lines
        for _ in range(2):
            began = time.monotonic()
            checked = shuffler("check", "--port", port)
            took = time.monotonic() - began
            assert checked.returncode == 1 and checked.stderr.count("\n") == 1, checked.stdout + checked.stderr
            assert port_words.words(port_records.MicroPythonOnly(port)) in checked.stderr, checked.stderr
            assert took < 60, took  # answered once the prompt is seen, not after the 150 s handshake
            unplugged = shuffler("table", "--control", control, "unplug")
            assert unplugged.returncode == 0, unplugged.stdout + unplugged.stderr
            assert card_table_words.words(said.PowerCycled()) in unplugged.stdout.splitlines(), unplugged.stdout
    finally:
        proc.send_signal(signal.SIGTERM)
        rc = proc.wait(timeout=60)
    console = ((proc.stdout.read() if proc.stdout else b"") + (proc.stderr.read() if proc.stderr else b"")).decode()
    assert rc == 0 and "invalid SIO address" not in console, console
