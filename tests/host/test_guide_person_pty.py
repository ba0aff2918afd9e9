"""A person at the screen and the card table: `shuffler guide --port` runs in a
pseudo-terminal against a real `shuffler sim-device`, and a person model
reads the screen, acts only after each instruction has appeared, at human
delays (random, a parameter), on the virtual shuffler's table through the
control endpoint `shuffler table` uses, and presses Enter only once the
guide asks for it.

What the instruction asks comes from the step data, never from the English:
the guide runs with `--steps-file`, which writes each record it shows as a
JSON line (host/step_feed.py) before the console shows it; the person follows
that file as any outside program would, and waits until a step's words are
on the screen before touching a card. The tests judge by the records there:
at the end every card must be on the table once, in one pack, and the guide
must have given its summary and no problem notice; or, where something
happens at the table besides the person's steps (a jam, a power cut in the
middle of a pass), the problem's notice and the table put right."""
from __future__ import annotations

import contextlib
import io
import os
import random
import re
import shlex
import signal
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import pytest

from firmware import build, protocol
from host.cli import main
from host.guide import READ_S
from pty_screen import (Screen, SimDevice, StepFeed, end_process, launch_sim_device,
                        next_shown, reconnect, screen_lines)
from shuffling import steps as step_kinds
from shuffling.exact_mode import codes as exact_codes
from simulator.virtual.table_person import TablePerson, commands, from_dict
from simulator.virtual.world_client import WorldClient

pytestmark = [pytest.mark.micropython, pytest.mark.slow]

@dataclass
class Run:
    code: int
    screen: str
    steps: list[dict[str, Any]] = field(default_factory=list)
    table: dict[str, Any] = field(default_factory=dict)
    lines: list[str] = field(default_factory=list)  # the screen as a terminal leaves it
    notices: list[dict[str, Any]] = field(default_factory=list)  # the guide's notices, as its steps file has them
    summary: dict[str, Any] | None = None  # the summary's record, the steps file's last line (None: no summary)
    stop: dict[str, Any] | None = None  # or the stop's, when the guide stopped


def told(run: Run, kind: str, **values: Any) -> list[dict[str, Any]]:
    """The notices of `kind` the guide gave, with these values."""
    return [n for n in run.notices if n["kind"] == kind and all(n[k] == v for k, v in values.items())]


def problems(run: Run) -> list[dict[str, Any]]:
    """The notices the console marks as problems ("!")."""
    return [n for n in run.notices if n["level"] == "problem"]


def ended_exact(run: Run) -> bool:
    """The summary claims the pack exactly random, as exact mode does."""
    s = run.summary or {"mode": None, "distance": {}}
    return (s["mode"], s["distance"].get("kind"), s["distance"].get("value")) == ("exact", "exact", 0.0)


# Something that happens at the table besides the person's steps (a fault, a
# power cut, a slip): called with each step before and after the person does
# it. After it, it may say how the person answers: NO_ENTER (they go on
# without pressing Enter) or a number of Enters pressed in a quick burst.
Mischief = Callable[[dict[str, Any], TablePerson, str], Any]
NO_ENTER = "no enter"


def sizes(person: TablePerson) -> dict[str, int]:
    return {name: len(cards) for name, cards in person.stacks().items()}


def numbers_before(step: dict[str, Any], before: dict[str, int]) -> None:
    """A count the guide gives for cards about to be handled is what the table holds."""
    if step["kind"] == "putintray" and step["cards"] is not None and not step["about"] \
            and not step.get("rest") and step["load"] in before:
        assert before[step["load"]] == step["cards"], (step["words"], before)


def numbers_after(step: dict[str, Any], after: dict[str, int]) -> None:
    """Every count the guide printed in a step is what the table holds once it is done."""
    kind = step["kind"]
    if kind == "lift" and step["left"] is not None:
        assert (after[f"{step['load']}.left"], after[f"{step['load']}.right"]) == (step["left"], step["right"]), \
            (step["words"], after)
    elif kind == "stack" and step["cards"] is not None:
        assert after[step["result"]] == step["cards"], (step["words"], after)
    elif kind == "cut":
        assert [after.get(n, 0) for n in step["names"]] == list(step["sizes"]), (step["words"], after)
    elif kind == "move" and step["sizes"] is not None:
        assert (after[step["upper"]], after[step["lower"]]) == tuple(step["sizes"]), (step["words"], after)
    elif kind == "draw":
        for name, parts in step["loads"]:
            assert after[name] == sum(count for _stack, count, _rest in parts), (step["words"], after)


def follow(screen: Screen, feed: StepFeed, person: TablePerson, delays: tuple[float, float],
           rng: random.Random, timeout: float, confirms_tray: bool = True,
           log: list[str] | None = None, mischief: Mischief | None = None,
           read_s: float = READ_S, done_before: set[tuple[Any, str]] | None = None) -> list[dict[str, Any]]:
    """Act as the person until the guide ends: each step only after its words
    are on the screen, after a human pause; Enter only when asked for, and
    never sooner than read_s after the step appeared (a person reads it
    first); unless `confirms_tray`, not for cards put in the tray (the guide
    must see them by itself). With a `log`, the steps are typed as
    `shuffler table` command lines, and the log keeps what was typed and what
    it printed. done_before: the (round, words) of steps done in an earlier
    run that stopped: shown again, they are only answered."""
    seen = 0  # how far the screen has been read
    done: list[dict[str, Any]] = []
    deadline = time.monotonic() + timeout
    pending: dict[str, Any] | None = None
    while True:
        shown, seen = next_shown(screen, feed, seen, pending, deadline, "the guide")
        if shown is None:
            break
        appeared = time.monotonic()
        step, pending = shown, None
        time.sleep(rng.uniform(*delays))
        numbers_before(step, sizes(person))
        if mischief is not None:
            mischief(step, person, "before")
        if done_before and (step["round"], step["words"]) in done_before and step["kind"] not in ("touch",):
            pass  # done before the stop
        elif log is None:
            person.do(from_dict(step))
        else:
            log.append(f"# step {step['number']}")
            log += typed_at_the_command_line(person, from_dict(step))
        numbers_after(step, sizes(person))
        how = mischief(step, person, "after") if mischief is not None else None
        done.append(step)
        wants_enter = (confirms_tray or step["kind"] != "putintray") and how != NO_ENTER
        burst = how if isinstance(how, int) else 1
        # Enter, only if the guide asks for it before it moves on to the next step.
        while screen.proc.poll() is None:
            assert time.monotonic() < deadline, f"stuck after step {step['number']}:\n{screen.text()[-3000:]}"
            # The screen first, then the steps file: the guide writes a step
            # to the file before its words reach the screen, so a "press
            # Enter" read here that belongs to a later step has that step in
            # the file by now, and is left for it (read the other way round,
            # a person on a busy machine answers the next step unread).
            asked = screen.find("press Enter", seen)
            pending = feed.next()
            if pending is not None:
                break
            if asked >= 0 and wants_enter:
                time.sleep(max(rng.uniform(*delays), appeared + read_s - time.monotonic()))
                if log is not None:
                    log.append("# Enter, in the guide's terminal")
                for i in range(burst):  # more than one: the extras come at machine speed
                    screen.type(b"\r")
                    time.sleep(0.05 if i + 1 < burst else 0)
                seen = asked
                break
            time.sleep(0.01)
    return done


def typed_at_the_command_line(person: TablePerson, step: Any) -> list[str]:
    """Carry out a step with `shuffler table` command lines (in this process);
    returns them with what they printed."""
    out: list[str] = []
    control = person.world.sock.getpeername()
    for command in commands(step, person.world.show()):
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            code = main(["table", "--control", control, *command])
        assert code == 0, (command, printed.getvalue())
        out.append("$ shuffler table " + " ".join(shlex.quote(c) for c in command))
        out += printed.getvalue().splitlines()
    return out


# -- the virtual shuffler, as a person starts it ----------------------------------------


@pytest.fixture
def sim_device_process(sim_devices: Callable[..., SimDevice]) -> SimDevice:
    """A virtual shuffler that deals as fast as it can."""
    return sim_devices(time_scale=0)


@pytest.fixture
def sim_device_process_factory_env(sim_devices: Callable[..., SimDevice],
                                   monkeypatch: pytest.MonkeyPatch) -> Callable[..., SimDevice]:
    """A virtual shuffler that deals as fast as it can, started with these
    variables in its environment (the board's random bytes, say)."""
    def start(**env: str) -> SimDevice:
        for name, value in env.items():
            monkeypatch.setenv(name, value)
        return sim_devices(time_scale=0)
    return start


def guided(dev: SimDevice, tmp_path: Path, args: list[str], cards: int, delays: tuple[float, float],
           seed: int, timeout: float = 240.0, confirms_tray: bool = True,
           log: list[str] | None = None, mischief: Mischief | None = None, fresh_table: bool = True,
           done_before: set[tuple[Any, str]] | None = None) -> Run:
    """`shuffler guide --port` on a pty with the person model at the table.
    A quick person (short delays) gets a quick guide (a short --read-time);
    at a human pace the guide keeps its own. fresh_table: a new pack in hand
    (else the cards lie where an earlier run left them)."""
    read_s = READ_S if delays[0] >= HUMAN[0] else QUICK_READ_S
    if read_s != READ_S:
        args = [*args, "--read-time", str(read_s)]
    with WorldClient.connect(dev.control, timeout=10) as world:
        if fresh_table:
            world.clear_table()
            world.new(cards, "pack")  # the pack in hand, top card first
        steps_file = tmp_path / f"steps{len(list(tmp_path.glob('steps*.jsonl')))}.jsonl"
        # A terminal wide enough that no line of the guide's wraps: the
        # session is compared line by line with docs/table.md's, and a step
        # is found on the screen by its words (test_guide_console.py wraps).
        env = dict(os.environ, TERM="xterm-256color", COLUMNS="1000")
        screen = Screen([sys.executable, "-m", "host.cli", "guide", "--port", dev.port, "--wait", "120",
                         "--steps-file", str(steps_file), *args], env)
        person = TablePerson(world)
        person.screen = screen  # type: ignore[attr-defined]  # a slip may type at it (Ctrl-C)
        feed = StepFeed(steps_file)
        try:
            done = follow(screen, feed, person, delays, random.Random(seed), timeout,
                          confirms_tray, log, mischief, read_s, done_before)
        finally:
            code = screen.close()
        feed.drain()
        assert feed.unread == [], feed.unread  # every step was on the screen and done
        run = Run(code, screen.text(), done, person.world.show(), notices=feed.notices, summary=feed.summary,
                  stop=feed.stop)
        if person.world is not world:
            person.world.close()
        run.lines = [line for line in screen_lines(bytes(screen.raw)) if line.strip()]
        return run


def check_finished(run: Run, cards: int) -> None:
    assert run.code == 0, run.screen[-3000:]
    assert problems(run) == [], problems(run)
    assert run.summary is not None
    assert run.steps[-1]["kind"] == "gather"
    assert run.table["check"]["ok"], run.table["check"]
    assert set(run.table["stacks"]) == {"pack"}  # one pack, nothing left in or on the machine
    assert sorted(run.table["stacks"]["pack"]) == list(range(cards))
    assert all(not v for v in run.table["places"].values())


# Human pauses in the suite: short, so it stays quick; the person model takes any,
# and one scenario runs at a person's pace.
DELAYS = (0.02, 0.12)
HUMAN = (0.1, 0.4)
QUICK_READ_S = 0.15


@pytest.mark.exact_mode
def test_a_samba_routine_in_exact_mode_by_a_person_at_the_table(sim_device_process, tmp_path):
    run = guided(sim_device_process, tmp_path, ["--pack", "samba"], 162, DELAYS, seed=1)
    check_finished(run, 162)
    assert ended_exact(run), run.summary
    assert sum(1 for s in run.steps if s["kind"] == "touch") >= 15  # the split: 15 passes at least


def test_a_samba_routine_in_random_mode_by_a_person_who_never_says_the_cards_are_in(sim_device_process, tmp_path):
    # Loading takes a person a moment: the guide must wait for the tray's count to hold still.
    # Two rounds: each has both loads to be seen in the tray; more repeat them.
    args = ["--pack", "samba", "--mode", "random", "--quality", "casual", "--rounds", "2"]
    run = guided(sim_device_process, tmp_path, args, 162, DELAYS, seed=2, confirms_tray=False)
    check_finished(run, 162)
    assert [s["kind"] for s in run.steps].count("putintray") >= 2 * 2


def codes_where_load_a_keeps_no_q_card(path: Path) -> Path:
    """The board's random bytes for a canasta split in which load A (the top
    54 cards) sends no card to part Q (codes 104 to 107): A's right pile is
    empty, as in about one canasta routine in seventeen."""
    import hashlib

    for attempt in range(500):
        block, chunks = f"canasta, A keeps no card of Q, {attempt}".encode(), []
        for _ in range(256):
            block = hashlib.sha256(block).digest()
            chunks.append(block)
        data = b"".join(chunks)
        at = [0]

        def take(k: int) -> bytes:
            at[0] += k
            return data[at[0] - k:at[0]]
        if all(code < 104 for code in exact_codes.uniform_assignment(108, take)[:54]):
            path.write_bytes(data)
            return path
    raise AssertionError("no such bytes among the first 500")


@pytest.mark.exact_mode
def test_a_canasta_pack_of_108_cards_by_a_person_at_the_table(sim_device_process_factory_env, tmp_path):
    """Canasta's split with load A keeping none of part Q's 4 cards: the
    person, told that a right pile may have no card, stacks what there is."""
    dev = sim_device_process_factory_env(SHUFFLER_SIM_RANDOM_FILE=str(
        codes_where_load_a_keeps_no_q_card(tmp_path / "random.bin")))
    seen: list[list[str]] = []

    def look(step: dict[str, Any], person: TablePerson, when: str) -> None:
        if when == "before" and step["kind"] == "stack" and step["result"] == "Q":
            seen.append(sorted(person.stacks()))

    run = guided(dev, tmp_path, ["--pack", "canasta", "--routine", "split"], 108, HUMAN, seed=3, mischief=look)
    check_finished(run, 108)
    assert seen == [["B.right", "P"]]  # P made; the right pile A's pass left empty is not on the table
    assert [s["may_be_empty"] for s in run.steps if s["kind"] == "stack" and s["result"] == "Q"] == \
        [["A.right", "B.right"]]  # the person is told a right pile may have no card
    assert ended_exact(run), run.summary


def test_hand_and_foot_in_three_loads_by_a_person_at_the_table(sim_device_process, tmp_path):
    # Two rounds: three loads dealt, traded and dealt again; the other nine repeat them.
    run = guided(sim_device_process, tmp_path, ["--pack", "hand-and-foot", "--mode", "random", "--rounds", "2"], 270,
                 DELAYS, seed=4)
    check_finished(run, 270)
    loads = [s["load"] for s in run.steps if s["kind"] == "putintray"]
    assert sorted(loads) == ["A", "A", "B", "B", "C", "C"]


def finished_after_trouble(run: Run, cards: int) -> list[str]:
    """As check_finished, but the guide had something to report: the kinds of its problems."""
    said = [n["kind"] for n in problems(run)]
    assert said, "the guide reported nothing"
    assert run.code == 0, run.screen[-3000:]
    assert run.summary is not None and run.steps[-1]["kind"] == "gather"
    assert run.table["check"]["ok"], run.table["check"]
    assert sorted(run.table["stacks"].get("pack", [])) == list(range(cards)), run.table["stacks"].keys()
    assert all(not v for v in run.table["places"].values())
    return said


@pytest.mark.jam
def test_a_jam_mid_pass_is_put_right_at_the_table(sim_device_process, tmp_path):
    def jam(step: dict[str, Any], person: TablePerson, when: str) -> None:
        if when == "before" and step["kind"] == "touch" and step["number"] < 4:
            person.world.inject("jam", 20)  # the 21st card of the first load sticks

    run = guided(sim_device_process, tmp_path, ["--pack", "canasta", "--mode", "random", "--rounds", "1"], 108, DELAYS,
                 seed=6, mischief=jam)
    assert "PassPaused" in finished_after_trouble(run, 108) and told(run, "PassPaused", code=protocol.FAULT_JAM)
    kinds = [(s["kind"], s.get("what") or s.get("why")) for s in run.steps]
    at = kinds.index(("fix", "jam"))
    assert kinds[at + 1] == ("touch", "go_on")


@pytest.mark.restart
def test_a_power_cut_mid_pass_leaves_the_cards_where_they_lie_and_the_guide_deals_the_rest(sim_devices,
                                                                                           tmp_path):
    dev = sim_devices(time_scale=1)  # in real time, so the cut comes in the middle of the pass

    def unplug(step: dict[str, Any], person: TablePerson, when: str) -> None:
        if when == "after" and step["kind"] == "touch" and step["number"] < 4:
            deadline = time.monotonic() + 30
            while (q := person.world.query())["counts"]["left"] + q["counts"]["right"] < 20:
                assert time.monotonic() < deadline, q["counts"]
                time.sleep(0.02)
            control = person.world.sock.getpeername()
            person.world.unplug()
            person.world.close()
            person.world = reconnect(control)  # the endpoint comes back with the board

    run = guided(dev, tmp_path, ["--pack", "canasta", "--mode", "random", "--rounds", "1"], 108, DELAYS,
                 seed=7, mischief=unplug)
    problems = finished_after_trouble(run, 108)
    assert "Restarted" in problems, problems
    assert "UnknownFault" not in problems, problems  # a power cut says nothing the tool does not know
    kinds = [(s["kind"], s.get("why") or s.get("rest")) for s in run.steps]
    assert ("touch", "rest") in kinds  # the rest of the load, dealt onto the same piles


# -- the slips of a person, and a device's trouble, at the terminal ---------------------------

@pytest.mark.touch
def test_loading_and_touching_without_enter_at_each_table_step_goes_on(sim_device_process, tmp_path):
    """At every table step the person does the step and, instead of
    pressing Enter, goes straight on: the load into the tray and the touch
    where the next step is a load's, else the next table work (the steps
    after it are then shown and done). The guide takes each load and touch
    as the proof the steps before it were done."""
    def ahead(step: dict[str, Any], person: TablePerson, when: str) -> Any:
        if when != "after" or step["kind"] != "lift":
            return None
        nxt = {"A": "B"}.get(step["load"])
        if nxt is None or nxt not in sizes(person):
            return None
        person.do(step_kinds.PutInTray(nxt, None))
        time.sleep(0.3)  # a person's pause between loading and touching
        person.do(step_kinds.Touch())
        return NO_ENTER

    run = guided(sim_device_process, tmp_path, ["--pack", "canasta", "--mode", "random", "--rounds", "2"], 108, DELAYS,
                 seed=11, mischief=ahead)
    check_finished(run, 108)
    assert len(told(run, "StepsTakenAsDone", by="pass", load="B", steps=1)) == 2, run.notices  # once a round


def test_quick_extra_enters_at_a_human_pace_answer_nothing_they_should_not(sim_device_process, tmp_path):
    """Three Enters, 0.05 s apart, at every table step, at the guide's own
    read time: the first answers the step, the others come before the next
    step could be read and answer nothing; every step is done by the person."""
    run = guided(sim_device_process, tmp_path, ["--pack", "canasta", "--mode", "random", "--rounds", "1"], 108, HUMAN,
                 seed=12, mischief=lambda step, person, when: 3 if when == "after" else None)
    check_finished(run, 108)
    assert told(run, "TooSoon", via="Enter"), run.notices
    # No Enter taken for a load of no cards, nor for cards gone missing.
    assert not [n for n in run.notices if n.get("n") == 0 or n["kind"] in ("LoadShort", "TrayEmptied")], run.notices


@pytest.mark.double_feed
@pytest.mark.exact_mode
def test_a_double_feed_caught_and_put_back_keeps_exactness(sim_device_process, tmp_path):
    def double(step: dict[str, Any], person: TablePerson, when: str) -> None:
        if when == "before" and step["kind"] == "touch" and step["round"] == 2 and not getattr(person, "fed", 0):
            person.fed = 1  # type: ignore[attr-defined]
            person.world.inject("double_feed", 15)

    run = guided(sim_device_process, tmp_path, ["--pack", "canasta"], 108, DELAYS, seed=13, mischief=double)
    problems = finished_after_trouble(run, 108)
    assert "ExitBlocked" in problems, problems
    assert "ExactLost" not in problems and ended_exact(run), (problems, run.summary)


@pytest.mark.exit_sensor
@pytest.mark.sensor_loss
def test_an_exit_sensor_lost_mid_pass_is_named_and_put_right(sim_device_process, tmp_path):
    def unplugged(step: dict[str, Any], person: TablePerson, when: str) -> None:
        if when == "before" and step["kind"] == "touch" and step["round"] == 3 and not getattr(person, "cut", 0):
            person.cut = 1  # type: ignore[attr-defined]
            person.world.inject("sensor_missing", 25, sensor="exit")

    run = guided(sim_device_process, tmp_path, ["--pack", "canasta"], 108, DELAYS, seed=14, mischief=unplugged)
    problems = finished_after_trouble(run, 108)
    lost = told(run, "SensorLost", part=protocol.PART_EXIT)
    assert lost and all(n["dealt"] is not None for n in lost), run.notices  # named, with the cards dealt
    assert "ExitBlocked" not in problems and not told(run, "DeviceFault", code=protocol.FAULT_INTERNAL), problems
    assert ended_exact(run), run.summary


@pytest.mark.exact_mode
def test_ctrl_c_then_the_command_it_suggests_goes_on_in_the_same_exact_run(sim_device_process, tmp_path):
    """Ctrl-C after the first stack (part P) of round 1 of canasta's
    pipelined routine; the stop line's command (--resume) run as told,
    with the cards where they lie: the same routine goes on, the steps
    since the last pass shown again and answered, and ends exact."""
    def interrupt(step: dict[str, Any], person: TablePerson, when: str) -> Any:
        if when == "after" and step["kind"] == "stack" and step["round"] == 1 and not getattr(person, "hit", 0):
            person.hit = 1  # type: ignore[attr-defined]
            # Ctrl-C at the terminal: the guide runs in a session of its own
            # here, so the key's signal is sent as the terminal would send it.
            person.screen.proc.send_signal(signal.SIGINT)  # type: ignore[attr-defined]
            return NO_ENTER
        return None

    first = guided(sim_device_process, tmp_path, ["--pack", "canasta"], 108, DELAYS, seed=15, mischief=interrupt)
    assert first.code == 130 and first.stop is not None, first.screen[-2000:]  # Ctrl-C: as a shell reports it
    assert [x for x in first.lines if x.startswith("shuffler: ")] == [f"shuffler: {first.stop['words']}"]
    assert (first.stop["why"], first.stop["way"]) == ("interrupted", "as_they_lie")  # the cards where they lie
    command = shlex.split(first.stop["command"])
    assert command[:4] == ["shuffler", "guide", "--port", sim_device_process.port] and command[-1] == "--resume"
    again = guided(sim_device_process, tmp_path, command[4:], 108, DELAYS, seed=16, fresh_table=False,
                   done_before={(s["round"], s["words"]) for s in first.steps})
    check_finished(again, 108)
    first_pass = next(s["round"] for s in again.steps if s["kind"] == "touch")
    assert [(n["round"], n["of_rounds"]) for n in told(again, "Resuming")] == [(first_pass, 10)], again.notices
    assert ended_exact(again), again.summary
    touches = [s for s in first.steps + again.steps if s["kind"] == "touch"]
    assert len(touches) == 10  # canasta's pipelined routine: 1 + 7 + 2 passes, the two runs together


@pytest.mark.exact_mode
@pytest.mark.restart
def test_a_restart_between_passes_keeps_the_exact_routine_at_the_terminal(sim_device_process, tmp_path):
    def restart(step: dict[str, Any], person: TablePerson, when: str) -> None:
        if when == "after" and step["kind"] == "lift" and step["round"] == 1 and not getattr(person, "cut", 0):
            person.cut = 1  # type: ignore[attr-defined]
            control = person.world.sock.getpeername()
            person.world.unplug()
            person.world.close()
            person.world = reconnect(control)

    run = guided(sim_device_process, tmp_path, ["--pack", "canasta"], 108, DELAYS, seed=17, mischief=restart)
    problems = finished_after_trouble(run, 108)
    assert "Restarted" in problems, problems
    assert "ExactLost" not in problems and ended_exact(run), (problems, run.summary)


# -- the session in docs/table.md ---------------------------------------------------------
# Exact mode with the board's random bytes fixed: the same codes, so the same
# piles and the same screen every time.

DOC = Path(__file__).resolve().parents[2] / "docs" / "table.md"
ELIDED = "…"


def random_bytes(path: Path) -> Path:
    """The board's random bytes for a session that comes out the same every time."""
    import hashlib

    chunks, block = [], b"docs/table.md"
    for _ in range(4096):
        block = hashlib.sha256(block).digest()
        chunks.append(block)
    path.write_bytes(b"".join(chunks))
    return path


def doc_session(dev: SimDevice, tmp_path: Path) -> tuple[list[str], list[str]]:
    """The guide's terminal and the table's terminal of the session in docs/table.md."""
    log: list[str] = []
    run = guided(dev, tmp_path, ["--pack", "canasta"], 108, (0.0, 0.02), seed=5, log=log)
    check_finished(run, 108)

    def plain(line: str) -> str:
        return re.sub(r"time: [^;]*", "time: …", re.sub(r"/dev/pts/\d+", "/dev/pts/3", line))

    guide = ["$ shuffler guide --port /dev/pts/3 --pack canasta"] + [plain(line) for line in run.lines]
    shown = io.StringIO()
    with contextlib.redirect_stdout(shown):
        assert main(["table", "--control", dev.control, "show"]) == 0
    table = ["$ shuffler table new 108", "pack: 108 cards", *log, "$ shuffler table show",
             *shown.getvalue().splitlines()]
    return guide, table


def doc_blocks() -> tuple[list[str], list[str]]:
    text = DOC.read_text()
    blocks = []
    for mark in ("<!-- guide terminal -->", "<!-- table terminal -->"):
        body = text.split(mark, 1)[1].split("```", 2)[1]
        blocks.append(body.split("\n", 1)[1].rstrip("\n").splitlines())
    return blocks[0], blocks[1]


def contains_in_order(got: list[str], shown: list[str]) -> None:
    """Every run of lines between "…" lines appears in `got`, in order."""
    at = 0
    for run in "\n".join(shown).split(f"\n{ELIDED}\n"):
        lines = run.splitlines()
        for start in range(at, len(got) - len(lines) + 1):
            if got[start:start + len(lines)] == lines:
                at = start + len(lines)
                break
        else:
            raise AssertionError(f"not in the session, in this order: {lines[:3]} ...\n" + "\n".join(got[at:at + 40]))


@pytest.fixture
def exact_codes_fixed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SHUFFLER_SIM_RANDOM_FILE", str(random_bytes(tmp_path / "random.bin")))


def test_the_session_in_the_table_page_is_what_the_guide_and_the_commands_print(exact_codes_fixed, sim_device_process,
                                                                                   tmp_path):
    guide, table = doc_session(sim_device_process, tmp_path)
    shown_guide, shown_table = doc_blocks()
    # Said only when the cards are slow to come, which depends on how busy this machine is;
    # and then the person may answer it with Enter after putting the load in.
    guide = [line for line in guide if not line.startswith("   waiting for the cards of load")]
    table = [line for i, line in enumerate(table)
             if not (line == "# Enter, in the guide's terminal" and table[i - 1].startswith("tray: "))]
    contains_in_order(guide, shown_guide)
    contains_in_order(table, shown_table)


if __name__ == "__main__":
    # Print the session for docs/table.md: python tests/host/test_guide_person_pty.py
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        tmp = Path(folder)
        os.environ["SHUFFLER_SIM_RANDOM_FILE"] = str(random_bytes(tmp / "random.bin"))
        os.environ["SHUFFLER_RUNTIME_DIR"] = str(tmp / "runtime")
        flash = tmp / "flash"
        build.install_to_dir(build.build_image("sim", tmp / "image"), flash)
        dev = launch_sim_device(flash, 0)
        try:
            guide, table = doc_session(dev, tmp)
            print("\n".join(guide))
            print("=" * 40)
            print("\n".join(table))
        finally:
            end_process(dev.proc)
