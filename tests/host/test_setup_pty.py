"""From a blank board to a shuffle, as a builder does it, on the unix-port
virtual shuffler: `shuffler sim-device` with nothing on its flash, `shuffler
flash`, `shuffler setup` in a pseudo-terminal with a person at the machine
(tests/setup_person.py: reads the screen, acts at the table at a human
pace), `shuffler check` exiting 0, then a guided routine. And boards wired
wrong (the simulated world's wiring options): `setup` and `check` each name
the part in one line with its wiring table row; a motor wired the other way
round is set right by the stored flip, and exact mode then deals correctly."""
from __future__ import annotations

import json
import os
import random
import re
import subprocess
import sys
from pathlib import Path

import pytest

from firmware import protocol
from host import card_table_words, port_records, port_words
from host.card_table_records import HowToGoOn
from host.parts import FAIL, OK
from pty_screen import Screen, SimDevice, StepFeed
from setup_person import PACK, SetupPerson, follow
from simulator.virtual.board.sim_world import STACK_PER_CARD, TOUCH_BASE, TOUCH_NOISE
from simulator.virtual.world_client import WorldClient
from test_guide_person_pty import DELAYS, check_finished, ended_exact, guided
from suite import shuffler

pytestmark = [pytest.mark.micropython, pytest.mark.slow]

HUMAN = (0.1, 0.4)
ROW = re.compile(r"check hardware/wiring-esp32\.md, rows? ")




def set_up(dev: SimDevice, tmp_path: Path, seed: int, delays: tuple[float, float] = HUMAN,
           repeat: set[str] | None = None, extra: tuple[str, ...] = ()) -> tuple[int, str, SetupPerson]:
    """`shuffler setup` on a pty with a person at the machine holding a pack
    of 104: its exit code, the screen, and the person (the steps done, the
    records told)."""
    with WorldClient.connect(dev.control, timeout=10) as world:
        world.clear_table()
        world.new(104, PACK)
        steps = tmp_path / f"setup-steps-{seed}.jsonl"
        screen = Screen([sys.executable, "-m", "host.cli", "setup", "--port", dev.port, "--steps-file", str(steps),
                         *extra], dict(os.environ, TERM="xterm-256color", COLUMNS="200"))
        person = SetupPerson(world, random.Random(seed), delays, repeat=set(repeat or ()))
        try:
            follow(screen, StepFeed(steps), person, timeout=300)
        finally:
            code = screen.close()
        return code, screen.text(), person


def found(person: SetupPerson, part: str) -> list[dict]:
    """What the set-up found about `part` (a key of host/parts.py's PARTS), in order: its steps', then the end's."""
    return person.told("found", part=part)


def blamed_the_wiring(person: SetupPerson) -> list[dict]:
    return person.told("found", wiring=True)


def test_a_blank_board_is_flashed_set_up_checked_and_shuffles_samba(sim_devices, tmp_path: Path) -> None:
    dev = sim_devices("--no-install", time_scale=0, image=False, firmware=False)
    # Blank: only MicroPython, so the firmware and the bring-up come first.
    flash = Path(dev.flash).resolve()
    table_file = str(flash.parent / f"{flash.name}-table.json")  # beside the flash, as sim-device keeps it
    told = HowToGoOn(dev.control, dev.uid, dev.port, blank=True, table_file=table_file)
    assert dev.banner[1:] == card_table_words.words(told).splitlines()
    flashed = shuffler("flash", "--port", dev.port)
    assert flashed.returncode == 0, flashed.stdout + flashed.stderr
    # It answers; a blank board has nothing to keep.
    assert flashed.stdout.splitlines()[1:] == [port_words.words(answers(dev))], flashed.stdout
    # Nor any calibration, as a Pico fresh from its download page has none.
    unset = json.loads(shuffler("check", "--port", dev.port, "--json").stdout)
    assert [p["verdict"] for p in unset["parts"] if p["part"] == "stack"] == ["fail"], unset
    # The person repeats two steps, as one does when unsure.
    code, text, person = set_up(dev, tmp_path, seed=1, repeat={"secondcount", "meter"})
    assert code == 0, text[-3000:]
    assert person.told("verdict", ready=True) and not person.told("verdict", ready=False)
    kinds = [s["kind"] for s in person.done]
    assert kinds.count("secondcount") == 2 and kinds.count("meter") == 2  # each done again
    assert kinds.count("feedcards") == 1 and kinds.count("wherelanded") == 1  # the motor turned the right way
    for part in ("stack", "touch", "exit", "motor", "battery"):
        assert found(person, part) and {f["verdict"] for f in found(person, part)} == {OK}, part
    checked = shuffler("check", "--port", dev.port, "--json")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    report = json.loads(checked.stdout)
    assert report["ready"] is True and {p["verdict"] for p in report["parts"]} == {"ok"}
    # A reflash keeps the calibration, and says which settings file it kept and which the board had not.
    cal = (Path(dev.flash) / "cal.json").read_text()
    again = shuffler("flash", "--port", dev.port)
    kept = port_records.SettingsKept(("cal.json",), ("config.json",))
    assert again.returncode == 0, again.stdout + again.stderr
    assert again.stdout.splitlines()[1:] == [port_words.words(r) for r in (answers(dev), kept)], again.stdout
    assert (Path(dev.flash) / "cal.json").read_text() == cal
    run = guided(dev, tmp_path, ["--pack", "samba"], 162, DELAYS, seed=2)
    check_finished(run, 162)
    assert ended_exact(run), run.summary


@pytest.mark.parametrize("option, part, verdict_words", [
    ("--wiring=load_cell_reversed", "stack", "A+ and A- swapped"),
    ("--wiring=touch_dead", "touch", "does not answer a touch"),
    ("--wiring=beam_receiver_missing", "exit", "unseen"),
    ("--fault=sensor_missing:stack", "stack", "does not answer"),  # no load cell at all
])
def test_a_board_wired_wrong_is_named_by_setup_and_check(sim_devices, tmp_path: Path, option: str, part: str,
                                                         verdict_words: str) -> None:
    dev = sim_devices("--no-install", option, time_scale=0)
    code, text, person = set_up(dev, tmp_path, seed=3, delays=DELAYS, extra=("--touch-wait", "3"))
    assert code == 1, text[-3000:]
    # The part named as failed, and its wiring (the words are the finding's, host/check.py's or setup's own)
    named = [f for f in found(person, part) if f["verdict"] == FAIL and verdict_words in f["words"]]
    assert named and named[0]["wiring"], text[-3000:]
    assert ROW.search(named[0]["words"]) and named[0]["words"] in text, named[0]  # the wiring table's row to check
    assert person.told("verdict", ready=False) and "Traceback" not in text
    checked = shuffler("check", "--port", dev.port, "--json")
    assert checked.returncode == 1, checked.stdout + checked.stderr
    report = json.loads(checked.stdout)
    failed = [p for p in report["parts"] if p["part"] == part and p["verdict"] == FAIL]
    assert len(failed) == 1 and ROW.search(failed[0]["diagnosis"]) and report["ready"] is False, checked.stdout


@pytest.mark.exact_mode
def test_a_reversed_motor_is_found_flipped_and_exact_mode_then_deals_right(sim_devices, tmp_path: Path) -> None:
    dev = sim_devices("--no-install", "--wiring", "motor_reversed", time_scale=0)
    code, text, person = set_up(dev, tmp_path, seed=4, delays=DELAYS)
    assert code == 0, text[-3000:]
    # Fed to the left, the cards landed on the right: the flip is stored, and
    # the cards fed again land on the left.
    assert [s["kind"] for s in person.done].count("wherelanded") == 2
    assert person.told("motorotherway", cards=2) and found(person, "motor")[-1]["verdict"] == OK
    assert json.loads((Path(dev.flash) / "cal.json").read_text())["flip"] == 1
    checked = shuffler("check", "--port", dev.port, "--json")
    assert checked.returncode == 0, checked.stdout
    motor = part_of(json.loads(checked.stdout), protocol.PART_MOTOR)
    assert motor["verdict"] == OK and (motor["why"]["kind"], motor["why"]["flip"]) == ("Direction", 1), motor
    # --feed: one card to the left, counted by the beam, on the person's left.
    with WorldClient.connect(dev.control) as world:
        beam = part_of(check_feeds_one_card_left(dev, world), protocol.PART_EXIT)
        assert beam["read"] == {"kind": "BeamSawFed", "cards": 1}, beam
        # --watch: a touch while it watches is seen (on an empty tray, so it deals nothing).
        world.lift("tray", PACK)
        watch = subprocess.Popen([sys.executable, "-m", "host.cli", "check", "--port", dev.port, "--watch",
                                  "--readings", "6", "--json"], stdout=subprocess.PIPE, text=True)
        # Touched once the watch is reading (its first reading printed), however
        # long the command took to start.
        assert watch.stdout is not None
        first = watch.stdout.readline()
        world.touch(150)
        rest, _ = watch.communicate(timeout=120)
        out = first + rest
    readings = [json.loads(line) for line in out.splitlines()]
    assert watch.returncode == 0 and len(readings) == 6, out
    assert any(part_of(r, protocol.PART_TOUCH)["why"] == {"kind": "TouchSeenNow"} for r in readings), out
    run = guided(dev, tmp_path, ["--pack", "canasta"], 108, DELAYS, seed=5)
    check_finished(run, 108)
    assert ended_exact(run), run.summary


def check_feeds_one_card_left(dev: SimDevice, world: WorldClient) -> dict:
    """`shuffler check --feed` with ten cards in the tray of a cleared table:
    it exits 0 and the one card it feeds lands on the person's left. Its
    report (--json)."""
    world.clear_table()
    world.new(10, PACK)
    world.put(PACK)
    fed = shuffler("check", "--port", dev.port, "--feed", "--json")
    assert fed.returncode == 0, fed.stdout
    assert world.query()["left"] == [9] and world.query()["right"] == []
    return json.loads(fed.stdout)


def part_of(report: dict, part: str) -> dict:
    """One part's finding in `shuffler check --json`'s report: its verdict and its records."""
    (found,) = [p for p in report["parts"] if p["part"] == part]
    return found


def answers(dev: SimDevice) -> port_records.Flashed:
    """What `shuffler flash` says last of the firmware it brought: it answers."""
    return port_records.Flashed(protocol.FIRMWARE_VERSION, dev.port, "sim", protocol.PROTOCOL_VERSION)


class Watched(SetupPerson):
    """The person, and what the board's flash held (cal.json) as each step came."""

    def __init__(self, *args, flash: Path, **kw) -> None:  # type: ignore[no-untyped-def]
        super().__init__(*args, **kw)
        self.flash = flash
        self.stored: list[tuple[str, dict]] = []

    def act(self, step: dict) -> str | None:
        cal = self.flash / "cal.json"
        self.stored.append((step["kind"], json.loads(cal.read_text()) if cal.exists() else {}))
        return super().act(step)


def set_up_slipping(dev: SimDevice, tmp_path: Path, slips: set[str], seed: int) -> tuple[int, str, list[dict], Watched]:
    with WorldClient.connect(dev.control, timeout=10) as world:
        world.clear_table()
        world.new(104, PACK)
        steps = tmp_path / f"setup-steps-{seed}.jsonl"
        screen = Screen([sys.executable, "-m", "host.cli", "setup", "--port", dev.port, "--steps-file", str(steps)],
                        dict(os.environ, TERM="xterm-256color", COLUMNS="200"))
        person = Watched(world, random.Random(seed), HUMAN, slips=set(slips), flash=Path(dev.flash))
        try:
            done = follow(screen, StepFeed(steps), person, timeout=300)
        finally:
            code = screen.close()
        return code, screen.text(), done, person


@pytest.mark.parametrize("slip", ["miscount", "hand_on_pad", "wrong_side"])
def test_a_builder_s_slip_is_said_as_theirs_put_right_and_nothing_wrong_is_stored(sim_devices, tmp_path: Path,
                                                                                 slip: str) -> None:
    dev = sim_devices("--no-install", time_scale=0, image=False, firmware=False)
    assert shuffler("flash", "--port", dev.port).returncode == 0
    code, text, done, person = set_up_slipping(dev, tmp_path, {slip}, seed=11)
    assert person.made == [slip], (person.made, text[-3000:])
    # The board ends ready, and no line blames the wiring for the person's slip.
    assert code == 0 and person.told("verdict", ready=True), text[-4000:]
    assert not blamed_the_wiring(person), text[-4000:]
    kinds = [s["kind"] for s in done]
    cal = json.loads((Path(dev.flash) / "cal.json").read_text())
    if slip == "miscount":
        # 50 cards put in as 52: a second count shows it, both are counted again.
        disagreed = person.told("countsdisagree", known=52)
        assert len(disagreed) == 1 and abs(disagreed[0]["read"] - disagreed[0]["typed"]) >= 0.5, person.records
        assert kinds.count("loadcards") == 2 and kinds.count("secondcount") == 2
        # Nothing from the miscounted deck was stored: not at any step, nor at the end.
        for c in [c for _, c in person.stored] + [cal]:
            assert abs(c.get("per_card", STACK_PER_CARD) - STACK_PER_CARD) <= 0.005 * STACK_PER_CARD, person.stored
        assert "per_card" in cal
    elif slip == "hand_on_pad":
        assert "handaway" in kinds
        assert abs(cal["touch_baseline"] - TOUCH_BASE) <= 3 * TOUCH_NOISE and cal["touch_seen"] == 1, cal
    else:
        # Fed left, landed left, said "right": the next two go the other way and
        # land right, said truly; the answers contradict the physics, and a
        # third feed settles it. The stored direction is the true one.
        assert person.told("sidescontradict", cards=2) and person.told("sidesagree")
        assert kinds.count("wherelanded") == 3
        assert cal["flip"] == 0, cal
        with WorldClient.connect(dev.control) as world:
            check_feeds_one_card_left(dev, world)


@pytest.mark.parametrize("slip, said", [
    ("empty_tray", {"kind": "trayempty", "cards": 52}),  # a step asked again
    ("second_empty", {"kind": "secondempty"}),  # told
    ("empty_feed", {"kind": "toofewcards", "n": 0, "least": 10}),  # a step asked again
    ("meter_misread", {"kind": "meterapart"}),  # told
])
def test_a_tray_or_meter_slip_is_said_as_the_person_s_and_the_step_asked_again(sim_devices, tmp_path: Path,
                                                                               slip: str, said: dict) -> None:
    dev = sim_devices("--no-install", time_scale=0)
    code, text, done, person = set_up_slipping(dev, tmp_path, {slip}, seed=12)
    assert person.made == [slip], (person.made, text[-3000:])
    assert [r for r in done + person.records if said.items() <= r.items()], (said, person.records)
    # Said as the person's, then put right: no wiring, no impossible count, no "None" or "-0.0" shown, everything stored.
    assert code == 0 and person.told("verdict", ready=True), text[-4000:]
    assert not blamed_the_wiring(person) and not person.told("countimpossible"), person.records
    assert "None" not in text and "-0.0" not in text, text[-4000:]
    assert person.told("stored", config=False)
    cal = json.loads((Path(dev.flash) / "cal.json").read_text())
    assert abs(cal["per_card"] - STACK_PER_CARD) <= 0.005 * STACK_PER_CARD, cal
    if slip == "meter_misread":
        assert 990 <= cal["mv_trim"] <= 1010, cal  # the true reading trimmed to, not the misread one
