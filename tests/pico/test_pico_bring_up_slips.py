"""A builder's slips at `shuffler setup` on the emulated Pico (MicroPython's
rp2 port, the firmware as `shuffler flash` leaves it, nothing calibrated):
a deck of 50 put in as the known 52, a hand left on the TTP223 when asked
to keep hands away (the module then reads 1, which a shorted output reads
too), and "right" said for two cards that landed on the left. Each is said
as the person's and asked again; no line blames the wiring, nothing wrong
is stored (the board's own calibration, read over its port afterwards), and
the board ends ready. The port is advertised with the emulator's slowdown,
as `shuffler sim-device --board pico` advertises it."""
from __future__ import annotations

import os
import random
import sys
import time
from pathlib import Path

import pytest

from picotest_support import flashed_fs
from pty_screen import Screen, StepFeed
from setup_person import PACK, SLIPS, SetupPerson, follow
from simulator.pico.control import ControlServer
from simulator.pico.emulator import SLOWDOWN
from simulator.virtual import registry
from simulator.virtual.board.sim_world import STACK_PER_CARD
from simulator.virtual.world_client import WorldClient

pytestmark = [pytest.mark.slow, pytest.mark.pico]

BIN = Path(sys.executable).parent


@pytest.mark.timeout(1800)
def test_a_builder_s_slips_on_a_pico_are_said_as_theirs_and_nothing_wrong_is_stored(
        start_emulated_pico, open_pico_client, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(registry.ENV_DIR, str(tmp_path / "run"))
    pico = start_emulated_pico(fs=flashed_fs(calibrated=False))
    control = ControlServer(pico).start()
    advert = registry.advertise(pico.port, tmp_path, control.address, board="pico", slowdown=SLOWDOWN)
    t0 = time.monotonic()
    try:
        with WorldClient.connect(control.address) as world:
            world.new(104, PACK)
            steps = tmp_path / "setup-steps.jsonl"
            screen = Screen([str(BIN / "shuffler"), "setup", "--port", pico.port, "--steps-file", str(steps)],
                            dict(os.environ, TERM="xterm-256color", COLUMNS="200"))
            person = SetupPerson(world, random.Random(9), (0.1, 0.4), slips=set(SLIPS))
            try:
                done = follow(screen, StepFeed(steps), person, timeout=1500)
            finally:
                code = screen.close()
    finally:
        registry.withdraw(advert)
        control.stop()
    took = time.monotonic() - t0
    text = screen.text()
    assert person.made == ["miscount", "hand_on_pad", "wrong_side"], (person.made, text[-3000:])
    assert code == 0 and person.told("verdict", ready=True), text[-4000:]
    assert not person.told("found", wiring=True), text[-4000:]  # the slips are the person's, not the wiring's
    assert person.told("countsdisagree", known=52), person.records
    assert [s["reading"] for s in done if s["kind"] == "handaway"] == [1], done  # the TTP223 under the hand
    assert person.told("sidescontradict"), person.records
    kinds = [s["kind"] for s in done]
    assert (kinds.count("loadcards"), kinds.count("handaway"), kinds.count("wherelanded")) == (2, 1, 3), kinds
    host = open_pico_client(pico)
    cal = host.call("read", what="cal")["cal"]
    assert abs(cal["per_card"] - STACK_PER_CARD) <= 0.005 * STACK_PER_CARD, cal  # not the deck of 50's
    assert (cal["touch_baseline"], cal["touch_seen"], cal["flip"]) == (0, 1, 0), cal
    print(f"set-up with three slips on the emulated Pico: {took:.0f} s, {pico.emulated_ms() / 1000:.0f} s emulated")
