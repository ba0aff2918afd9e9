"""`shuffler guide` on the command line: bad input is one line, non-zero, no traceback."""
from __future__ import annotations

import contextlib
import io
import os
import json
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from host.cli import main


def run(*args: str) -> subprocess.CompletedProcess[str]:
    """The command in this process, through the real entry point (host.cli.main)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["guide", *args])
    return subprocess.CompletedProcess(["shuffler", "guide", *args], code, out.getvalue(), err.getvalue())


@pytest.mark.parametrize("args,word", [
    ((), "choose one of --port PORT, --sim or --manual"),
    (("--sim", "--manual"), "got --sim and --manual"),
    (("--manual", "--unattended"), "--unattended needs the virtual shuffler"),
    (("--manual", "--record", "x.jsonl"), "--record goes with --unattended"),
    (("--port", "/dev/no-such-shuffler"), "no such port: /dev/no-such-shuffler"),
    (("--manual", "--pack", "nosuchgame"), "unknown pack"),
    (("--manual", "--cards", "1"), "--cards"),
    (("--manual", "--cards", "lots"), "lots"),
    (("--manual", "--capacity", "1"), "--capacity"),
    (("--manual", "--capacity", "0"), "--capacity"),
    (("--manual", "--quality", "perfect"), "unknown quality"),
    (("--manual", "--from-round", "99"), "--from-round"),
    (("--port", "/dev/null"), "/dev/null is not a serial port"),
    (("--manual", "--steps-file", "/no-such-folder/steps.jsonl"), "--steps-file"),
])
def test_bad_input_is_one_line_and_nonzero(args: tuple[str, ...], word: str) -> None:
    out = run(*args)
    assert out.returncode != 0
    assert "Traceback" not in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1, out.stderr
    assert word in out.stderr


def test_manual_mode_without_a_person_stops_at_its_place(tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "steps.jsonl"
    out = subprocess.run([sys.executable, "-m", "host.cli", "guide", "--manual", "--pack", "canasta", "--wait", "1",
                          "--steps-file", str(path)], capture_output=True, text=True, timeout=60,
                         stdin=subprocess.DEVNULL)
    assert out.returncode != 0
    shown = [r for r in records(path) if r["record"] == "step"]
    assert [(s["kind"], s["source"], s["first"]) for s in shown] == [("cut", "pack", True)]  # stopped at the first step
    assert not [r for r in records(path) if r["record"] == "summary"]  # no summary: the run did not end
    assert out.stderr.startswith("shuffler: stopped: the input ended, so no step can be answered; to go on")
    assert "--from-round" not in out.stderr  # before the first pass: from the start
    assert len(out.stderr.strip().splitlines()) == 1


def test_bad_input_has_the_exit_code_of_every_command() -> None:
    """plan, guide and quality answer bad input alike: one line, exit code 2."""
    from host.cli import main as entry

    for argv in (["guide", "--manual", "--quality", "perfect"], ["plan", "--quality", "perfect"],
                 ["quality", "--cards", "1"], ["guide"], ["guide", "--manual", "--mode", "exact"]):
        err = io.StringIO()
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
            code = entry(argv)
        assert code == 2, (argv, err.getvalue())
        assert len(err.getvalue().strip().splitlines()) == 1


@pytest.mark.parametrize("command", [("plan", "--rounds", "1000"), ("guide", "--manual", "--rounds", "100000")])
def test_rounds_past_the_limit_are_refused_at_once(command: tuple[str, ...]) -> None:
    from shuffling.limits import MAX_ROUNDS

    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        code = main(list(command))
    assert code == 2
    assert err.getvalue().strip() == (f"shuffler: --rounds must be between 1 and {MAX_ROUNDS}, "
                                      f"not {int(command[-1]):,}")


def records(path: Path) -> list[dict[str, Any]]:
    """The guide's records in its steps file (host/step_feed.py), in order."""
    return [json.loads(line) for line in path.read_text().splitlines()]


def header_of(tmp_path: Path, *args: str, stdin: str = "") -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """`shuffler guide *args --steps-file` with `stdin` typed (then the input
    ends): the header's record, and every record after it."""
    path = tmp_path / f"steps{len(list(tmp_path.glob('steps*.jsonl')))}.jsonl"
    subprocess.run([sys.executable, "-m", "host.cli", "guide", *args, "--steps-file", str(path)],
                   capture_output=True, text=True, timeout=180, input=stdin,
                   env=dict(os.environ, SHUFFLER_RUNTIME_DIR=str(tmp_path)))
    first, *rest = records(path)
    assert (first["record"], first["kind"]) == ("notice", "RoutineHeader"), first  # said first
    return first, rest


def test_one_round_is_one_round_and_one_pass(tmp_path: Path) -> None:
    header, _ = header_of(tmp_path, "--manual", "--pack", "bridge", "--rounds", "1", "--wait", "1")
    assert (header["rounds"], header["passes"]) == (1, 1)


def test_the_header_says_what_rounds_given_by_hand_reach(tmp_path: Path) -> None:
    from host import plan as planlib

    two = planlib.make_plan(planlib.choose_pack("samba", None), 104, "good", rounds=2)
    assert two.distance > 0.25
    header, _ = header_of(tmp_path, "--manual", "--pack", "samba", "--rounds", "2", "--wait", "1")
    assert (header["rounds"], header["quality"], header["threshold"]) == (2, "good", 0.25)
    assert header["distance"] == pytest.approx(two.distance)  # short of it: the words say so (test_notice_words.py)
    enough = planlib.make_plan(planlib.choose_pack("samba", None), 104, "good")
    header, _ = header_of(tmp_path, "--manual", "--pack", "samba", "--wait", "1")
    assert (header["rounds"], header["distance"]) == (enough.rounds, pytest.approx(enough.distance))


@pytest.mark.micropython
@pytest.mark.exact_mode
def test_exact_mode_says_what_follows_should_exactness_be_lost(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """A fresh exact routine by default; --quality is what random rounds reach when those are asked for."""
    for extra, on_loss in (((), "exact"), (("--on-loss", "random"), "random")):
        header, rest = header_of(tmp_path, "--sim", "--unattended", "--pack", "samba", "--quality", "casino", *extra)
        assert rest[-1]["record"] == "summary", rest[-1]  # the run ended
        assert (header["exact"], header["on_loss"], header["quality"]) == (True, on_loss, "casino")


def test_manual_mode_invents_no_numbers() -> None:
    import io as _io

    from host import guide as guide_machine
    from host import person as persons
    from host import plan as planlib
    from hosttest_support import TextVoice

    voice = TextVoice()
    p = planlib.make_plan(planlib.choose_pack("samba", None), 104, "good", rounds=1)
    person = persons.ConsolePerson(stream=_io.StringIO("\n" * 50))
    summary = guide_machine.Guide(p, person, voice, guide_machine.GuideOptions(manual=True, wait_s=1)).run()
    from shuffling import steps

    cuts = voice.showed(steps.Cut)
    assert cuts and not voice.showed(steps.Cut, counted=True)  # nothing counts the loads
    lifts = voice.showed(steps.Lift)
    assert lifts and all(s.left is None and s.right is None for s in lifts)  # no pile sizes made up
    assert steps.PutInTray("A", 81, about=True) in voice.steps_shown
    assert summary.loads == []  # nothing counted the loads


def test_the_stop_line_names_a_command_that_goes_on() -> None:
    """The resume command a stop suggests is accepted: run as told, it starts
    again (and stops at the same place for want of a person), never a usage error."""
    out = subprocess.run([sys.executable, "-m", "host.cli", "guide", "--manual", "--pack", "canasta", "--wait", "1"],
                         capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    line = out.stderr.strip()
    resume = line.split("`")[1]
    argv = resume.split()
    assert argv[:3] == ["shuffler", "guide", "--manual"] and argv[argv.index("--mode") + 1] == "random", resume
    again = subprocess.run([sys.executable, "-m", "host.cli", *resume.split()[1:], "--wait", "1"],
                           capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert again.returncode == 1 and "the input ended" in again.stderr and "Usage" not in again.stderr


@pytest.mark.exact_mode
def test_an_exact_run_that_stops_suggests_resume_or_a_fresh_exact_run() -> None:
    """While the shuffler holds its exact routine, the way on is --resume with
    the cards where they lie; once it does not, a fresh exact routine."""
    from host import guide as guide_machine
    from host.commands.guide import Resume

    class Stopped:
        def __init__(self, resumable: bool) -> None:
            self.place = guide_machine.Place(2, 8, "A", 3, 16)
            self.machine = type("M", (), {"resumable": resumable})()

    how = Resume(guide_machine.GuideOptions(port="/dev/no-such-shuffler", mode="exact", pack="samba", quality="casino"))
    held = how.stopped("no pass started within 30 s", Stopped(True))  # type: ignore[arg-type]
    gone = how.stopped("interrupted", Stopped(False))  # type: ignore[arg-type]
    assert held.startswith("stopped at round 2 of 8, load A (pass 3 of 16): no pass started within 30 s; to go on, "
                           "leave the cards as they lie and run")
    assert held.split("`")[1::2] == ["shuffler guide --port /dev/no-such-shuffler --pack samba --quality casino "
                                     "--resume"]
    assert "put every card together face down into one pack (any order)" in gone
    assert gone.split("`")[1::2] == ["shuffler guide --port /dev/no-such-shuffler --pack samba --quality casino"]
    for command in held.split("`")[1::2] + gone.split("`")[1::2]:  # accepted: they fail only for want of the device
        out = run(*command.split()[2:])
        assert out.returncode == 1 and "no such port" in out.stderr


def test_ctrl_c_ends_on_its_own_line_with_the_round_and_how_to_go_on(monkeypatch: pytest.MonkeyPatch) -> None:
    from host import guide as guide_machine

    def interrupted(self: guide_machine.Guide) -> guide_machine.Summary:
        self.machine.place = guide_machine.Place(3, 10, "B", 6, 20)
        raise KeyboardInterrupt

    monkeypatch.setattr(guide_machine.Guide, "run", interrupted)
    out = run("--manual", "--pack", "samba")
    assert out.returncode == 130  # as a shell reports a program Ctrl-C ended
    assert out.stdout.endswith("\n")
    line = out.stderr.strip()
    assert len(line.splitlines()) == 1
    assert line.startswith("shuffler: stopped at round 3 of 10, load B (pass 6 of 20): interrupted; to go on")
    assert line.split("`")[1::2] == [shlex.join(["shuffler", "guide", "--manual", "--pack", "samba", "--quality", "good",
                                                 "--mode", "random", "--from-round", "3"])]


def test_a_stop_with_rounds_given_by_hand_goes_on_with_those_rounds(tmp_path: Path) -> None:
    """The resume command keeps --rounds as the person gave it; run as told
    (twelve steps confirmed, then the input ends), it goes on in that round
    of the same number of rounds."""
    def guide(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "host.cli", *args, "--wait", "1"], capture_output=True,
                              text=True, timeout=60, input="\n" * 12)

    first = guide("guide", "--manual", "--pack", "samba", "--rounds", "3")
    line = first.stderr.strip()
    assert first.returncode == 1 and line.startswith("shuffler: stopped at round 2 of 3"), line
    resume = line.split("`")[1]
    assert "--rounds 3" in resume and "--from-round 2" in resume, resume
    path = tmp_path / "steps.jsonl"
    again = guide(*resume.split()[1:], "--steps-file", str(path))
    header, *rest = records(path)
    assert (header["kind"], header["rounds"], header["passes"]) == ("RoutineHeader", 3, 6), header
    assert [(n["round"], n["of_rounds"]) for n in rest if n.get("kind") == "RoundStart"] == [(2, 3), (3, 3)]
    assert again.returncode == 1 and again.stderr.startswith("shuffler: stopped at round 3 of 3"), again.stderr


def test_the_steps_file_has_each_step_as_data_before_its_words_are_shown(tmp_path) -> None:
    """--steps-file: one JSON line per step, in order, each written before
    the step is on the screen and with the words the screen then shows."""
    from pty_device import open_pty

    from shuffling import steps as step_kinds
    from simulator.virtual.table_person import from_dict

    path = tmp_path / "steps.jsonl"
    master, slave = open_pty()
    proc = subprocess.Popen([sys.executable, "-m", "host.cli", "guide", "--manual", "--pack", "samba", "--rounds",
                             "1", "--wait", "20", "--read-time", "0", "--steps-file", str(path)], stdin=slave,
                            stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    os.close(slave)
    shown: list[str] = []
    assert proc.stdout is not None
    try:
        for line in proc.stdout:
            if "press Enter when done" in line:
                # The step on the screen is the last one in the file, and every one before it came first.
                steps = [r for r in records(path) if r["record"] == "step"]
                assert [s["number"] for s in steps] == list(range(1, len(steps) + 1))
                assert shown[-1].endswith(steps[-1]["words"]), (shown[-1], steps[-1])
                assert len(steps) == sum(1 for x in shown if x.split(".", 1)[0].strip().isdigit())
                os.write(master, b"\n")
            else:
                shown.append(line.rstrip("\n"))
    finally:
        proc.wait(timeout=30)
        os.close(master)
    assert proc.returncode == 0, proc.stderr.read() if proc.stderr else ""
    said = records(path)
    assert said[-1]["record"] == "summary" and said[-1]["rounds"] == 1  # the last line: the run's summary
    steps = [r for r in said if r["record"] == "step"]
    assert steps[-1]["kind"] == "gather" and {s["round"] for s in steps} == {1}
    for step in steps:  # the data is the step: read back, it has the same words
        assert step_kinds.words(from_dict(step)) == step["words"]


def _children(pid: int) -> set[int]:
    out: set[int] = set()
    for task in os.listdir(f"/proc/{pid}/task"):
        with open(f"/proc/{pid}/task/{task}/children") as f:
            out |= {int(x) for x in f.read().split()}
    return out


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.micropython
def test_a_terminated_guide_says_how_to_go_on_and_leaves_no_virtual_shuffler_running(tmp_path) -> None:
    proc = subprocess.Popen([sys.executable, "-m", "host.cli", "guide", "--sim", "--mode", "random", "--pack",
                             "samba", "--time-scale", "1"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=dict(os.environ, SHUFFLER_RUNTIME_DIR=str(tmp_path)))
    started: set[int] = set()
    try:
        assert proc.stdout is not None
        for line in proc.stdout:
            if line.startswith("Round 1 of"):
                break
        started = _children(proc.pid)
        assert started, "the guide started no virtual shuffler"
        proc.terminate()
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=10)
    assert proc.returncode == 143  # SIGTERM's status, as a shell reports it
    line = err.strip()
    assert len(line.splitlines()) == 1 and ": interrupted; to go on" in line, err
    assert "--from-round" not in line or "--from-round 1`" in line  # from the start: round 1 was under way
    for pid in started:  # it stopped what it started on the way out
        assert not _alive(pid), f"process {pid} of the virtual shuffler outlived the guide"


@pytest.mark.micropython
def test_the_guide_on_a_board_with_micropython_alone_says_so_and_what_to_run(sim_devices) -> None:  # type: ignore[no-untyped-def]
    """A blank board answers hello with MicroPython's prompt: the guide says
    so and names `shuffler flash` as soon as it sees the prompt, instead of
    waiting out the handshake and asking whether firmware is on it."""
    dev = sim_devices("--no-install", time_scale=0, image=False, firmware=False)
    done = run("--port", dev.port, "--pack", "samba")
    assert done.returncode == 1, done.stdout + done.stderr
    last = done.stderr.strip().splitlines()[-1]
    assert last == (f"shuffler: {dev.port} answers with MicroPython's prompt and no shuffler firmware: "
                    f"run `shuffler flash --port {dev.port}`"), done.stderr
