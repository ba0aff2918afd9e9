"""Exact mode for a whole 162-card routine on the emulated Pico: `shuffler
guide` in exact mode over its USB port, with the scripted person at its
table (the control endpoint), the world on the fast mechanism profile. The
port is advertised with the emulator's slowdown, as `shuffler sim-device
--board pico` advertises it, so the link waits as long as the emulated
firmware needs while a real board keeps its short timeouts."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from picotest_support import flashed_fs
from simulator.pico.control import ControlServer
from simulator.pico.emulator import SLOWDOWN
from simulator.shuffling.exact_mode.codes import n_bits
from simulator.virtual import registry

pytestmark = [pytest.mark.slow, pytest.mark.pico]

BIN = Path(sys.executable).parent
CARDS = 162  # Samba: three decks with jokers
LOADS = 2


@pytest.mark.timeout(1800)
def test_shuffler_guide_runs_a_whole_162_card_exact_routine(start_pico, tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(registry.ENV_DIR, str(tmp_path / "run"))
    pico = start_pico(fs=flashed_fs())
    control = ControlServer(pico).start()
    advert = registry.advertise(pico.port, tmp_path, control.address, board="pico", slowdown=SLOWDOWN)
    record = tmp_path / "record.jsonl"
    t0 = time.monotonic()
    try:
        proc = subprocess.run(
            [str(BIN / "shuffler"), "guide", "--port", pico.port, "--world", control.address, "--unattended",
             "--pack", "samba", "--mode", "exact", "--json", "--record", str(record)],
            capture_output=True, text=True, timeout=1700, env=dict(os.environ),
        )
    finally:
        registry.withdraw(advert)
        control.stop()
    wall_s = time.monotonic() - t0
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-3000:]
    summary = json.loads(proc.stdout.strip().splitlines()[-1])
    problems = [line for line in proc.stderr.splitlines() if "!" in line or "lost" in line]
    rounds = n_bits(CARDS)
    # Exactness kept to the end: every round exact, no note of a loss.
    assert (summary["mode"], summary["cards"], summary["rounds"], summary["passes"]) == \
        ("exact", CARDS, rounds, rounds * LOADS), problems
    assert summary["distance"]["value"] == 0.0 and summary["notes"] == [], problems
    log = [json.loads(line) for line in record.read_text().splitlines()]
    pack = list(range(CARDS))
    takes = [e for e in log if e["op"] == "take"]
    assert len(takes) == rounds * LOADS
    for r in range(1, rounds + 1):
        dealt = [c for e in takes if e["round"] == r for c in e["left"] + e["right"]]
        assert sorted(dealt) == pack, f"round {r}: not every card dealt exactly once"
    final = [e for e in log if e["op"] == "final"]
    assert len(final) == 1
    assert sorted(final[0]["pack"]) == pack  # every card there, once
    assert final[0]["pack"] != pack
    q = pico.query()
    assert q["counts"]["tray"] == 0 and q["throat"] == []
    print(f"exact routine: {wall_s:.0f} s wall, {pico.emulated_ms() / 1000:.0f} s emulated")
