"""A blank Raspberry Pi Pico to a whole shuffle, as a builder gets one and
does it, on the emulated Pico (MicroPython's stock rp2 image, nothing on its
flash): `shuffler flash` over its USB port, `shuffler setup` in a
pseudo-terminal with a person at the machine (tests/setup_person.py: reads
the screen, acts at the table through the control endpoint at a human
pace), `shuffler check` exiting 0, then `shuffler guide` in exact mode for a
whole split of a 108-card Canasta pack with the scripted person at the
table (the world on the fast mechanism profile). The split of a pack just
over the tray is the least one with every kind of work the split has (a
round of two loads, then parts sorted alone and gathered); a Samba's 162
cards take the same kinds of round with half again as many cards, and the
unix port deals them whole (tests/host/test_setup_pty.py). The port is
advertised with the emulator's slowdown, as `shuffler sim-device --board
pico` advertises it, so the link waits as long as the emulated firmware
needs while a real board keeps its short timeouts."""
from __future__ import annotations

import json
import os
import random
import sys
import time
from pathlib import Path

import pytest

from firmware import protocol
from firmware import exact_routes
from host import port_records, port_words
from pty_screen import Screen, StepFeed
from route_record import check_route_record
from setup_person import PACK, SetupPerson, follow
from simulator.pico.control import ControlServer
from simulator.pico.emulator import SLOWDOWN
from simulator.virtual import registry
from simulator.virtual.world_client import WorldClient
from suite import shuffler

pytestmark = [pytest.mark.slow, pytest.mark.pico]

BIN = Path(sys.executable).parent
CARDS = 108  # Canasta: two decks and four jokers


@pytest.mark.timeout(2400)
@pytest.mark.exact_mode
def test_a_blank_pico_is_flashed_set_up_checked_and_deals_a_whole_exact_split(start_emulated_pico, tmp_path: Path,
                                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(registry.ENV_DIR, str(tmp_path / "run"))
    pico = start_emulated_pico()  # MicroPython only, an empty filesystem: a Pico fresh from the downloads page
    control = ControlServer(pico).start()
    advert = registry.advertise(pico.port, tmp_path, control.address, board="pico", slowdown=SLOWDOWN)
    t0 = time.monotonic()
    try:
        flashed = shuffler("flash", "--port", pico.port, "--board", "rp2", "--connect-timeout", "60",
                           "--hello-timeout", "120", timeout=900)
        assert flashed.returncode == 0, flashed.stdout + flashed.stderr
        answers = port_records.Flashed(protocol.FIRMWARE_VERSION, pico.port, "rp2", protocol.PROTOCOL_VERSION)
        assert port_words.words(answers) in flashed.stdout.splitlines(), flashed.stdout
        assert pico.boots == 1  # flash soft-resets; nothing reset the chip
        t_flash = time.monotonic() - t0

        # The bring-up: a Pico has no factory calibration; the person at it does every step.
        with WorldClient.connect(control.address) as world:
            world.new(104, PACK)
            steps = tmp_path / "setup-steps.jsonl"
            screen = Screen([str(BIN / "shuffler"), "setup", "--port", pico.port, "--steps-file", str(steps)],
                            dict(os.environ, TERM="xterm-256color", COLUMNS="200"))
            person = SetupPerson(world, random.Random(8), (0.1, 0.4))
            try:
                done = follow(screen, StepFeed(steps), person, timeout=900)
            finally:
                code = screen.close()
            text = screen.text()
            assert code == 0, text[-3000:]
            assert person.told("verdict", ready=True) and not person.told("verdict", ready=False), text[-3000:]
            assert {s["kind"] for s in done} >= {"emptytray", "loadcards", "secondcount", "handsoff", "touchpad",
                                                 "feedcards", "wherelanded", "meter"}
            world.clear_table()
        t_setup = time.monotonic() - t0 - t_flash

        checked = shuffler("check", "--port", pico.port, "--json", timeout=900)
        assert checked.returncode == 0, checked.stdout + checked.stderr
        report = json.loads(checked.stdout)
        assert report["ready"] is True and report["board"] == "rp2"
        assert {p["part"]: p["verdict"] for p in report["parts"]}["stack"] == "ok"

        record = tmp_path / "record.jsonl"
        guided = shuffler("guide", "--port", pico.port, "--world", control.address, "--unattended", "--pack",
                          "canasta", "--mode", "exact", "--routine", "split", "--json", "--record", str(record), timeout=1700)
    finally:
        registry.withdraw(advert)
        control.stop()
    wall_s = time.monotonic() - t0
    assert guided.returncode == 0, guided.stdout[-2000:] + guided.stderr[-3000:]
    summary = json.loads(guided.stdout.strip().splitlines()[-1])
    problems = [line for line in guided.stderr.splitlines() if "!" in line or "lost" in line]
    route = exact_routes.route(CARDS, 104, exact_routes.SPLIT)  # 10 rounds, 11 passes
    # Exactness kept to the end: every round exact, no note of a loss.
    assert (summary["mode"], summary["cards"], summary["rounds"], summary["passes"]) == \
        ("exact", CARDS, route.rounds, route.passes()) == ("exact", CARDS, 10, 11), problems
    assert route.loads[0] == 2 and len(route.part_size) == 2  # a round of two loads, two parts
    assert summary["distance"]["value"] == 0.0 and summary["notes"] == [], problems
    # Every card of each round's stack dealt once in the round, the piles in their loads' order.
    final = check_route_record([json.loads(line) for line in record.read_text().splitlines()], route)
    assert final != list(range(CARDS))
    q = pico.query()
    assert q["counts"]["tray"] == 0 and q["throat"] == []
    print(f"blank Pico to a shuffled Canasta: flash {t_flash:.0f} s, setup {t_setup:.0f} s, {wall_s:.0f} s wall in all, "
          f"{pico.emulated_ms() / 1000:.0f} s emulated")
