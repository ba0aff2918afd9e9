"""`shuffler guide` on the command line: bad input is one line, non-zero, no traceback."""
from __future__ import annotations

import contextlib
import io
import os
import json
import shlex
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from host import port_words
from host.cli import main
from host.port_records import MicroPythonOnly


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
    stop = records(path)[-1]
    assert stop["record"] == "stop" and stop["where"] is None, stop  # no summary: stopped before the first pass
    assert out.stderr == f"shuffler: {stop['words']}\n"  # its one line
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
    from shuffling.limits import MAX_ROUNDS, MIN_ROUNDS, out_of_range

    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        code = main(list(command))
    assert code == 2
    refusal = out_of_range("--rounds", int(command[-1]), MIN_ROUNDS, MAX_ROUNDS)  # the limits' one wording
    assert refusal is not None and err.getvalue().strip() == f"shuffler: {refusal}", err.getvalue()


def records(path: Path) -> list[dict[str, Any]]:
    """The guide's records in its steps file (host/step_feed.py), in order (a line still being written: not yet)."""
    return [json.loads(line) for line in path.read_text().splitlines() if line.endswith("}")]


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


def test_the_stop_line_names_a_command_that_goes_on(tmp_path: Path) -> None:
    """The resume command a stop suggests is accepted: run as told, it starts
    again (and stops at the same place for want of a person), never a usage error."""
    def guide(*args: str) -> tuple[subprocess.CompletedProcess[str], dict[str, Any]]:
        path = tmp_path / f"steps{len(list(tmp_path.glob('steps*.jsonl')))}.jsonl"
        out = subprocess.run([sys.executable, "-m", "host.cli", *args, "--wait", "1", "--steps-file", str(path)],
                             capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
        return out, records(path)[-1]

    out, stop = guide("guide", "--manual", "--pack", "canasta")
    assert (out.returncode, stop["record"], stop["way"]) == (1, "stop", "gathered"), stop
    argv = stop["command"].split()
    assert argv[:3] == ["shuffler", "guide", "--manual"] and argv[argv.index("--mode") + 1] == "random", argv
    again, stopped = guide(*argv[1:])
    assert again.returncode == 1 and stopped == stop, stopped  # the same stop, for want of a person


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
    held = how.record("interrupted", Stopped(True))  # type: ignore[arg-type]
    gone = how.record("interrupted", Stopped(False))  # type: ignore[arg-type]
    assert held.where == gone.where == guide_machine.Place(2, 8, "A", 3, 16)
    assert held.way == "as_they_lie" and shlex.split(held.command) == [
        "shuffler", "guide", "--port", "/dev/no-such-shuffler", "--pack", "samba", "--quality", "casino", "--resume"]
    assert (gone.way, shlex.split(gone.command)) == ("fresh", shlex.split(held.command)[:-1])
    for command in (held.command, gone.command):  # accepted: they fail only for want of the device
        out = run(*command.split()[2:])
        assert out.returncode == 1 and len(out.stderr.splitlines()) == 1 and "/dev/no-such-shuffler" in out.stderr


def test_ctrl_c_ends_on_its_own_line_with_the_round_and_how_to_go_on(monkeypatch: pytest.MonkeyPatch,
                                                                    tmp_path: Path) -> None:
    from host import guide as guide_machine

    def interrupted(self: guide_machine.Guide) -> guide_machine.Summary:
        self.machine.place = guide_machine.Place(3, 10, "B", 6, 20)
        raise KeyboardInterrupt

    monkeypatch.setattr(guide_machine.Guide, "run", interrupted)
    path = tmp_path / "steps.jsonl"
    out = run("--manual", "--pack", "samba", "--steps-file", str(path))
    assert out.returncode == 130  # as a shell reports a program Ctrl-C ended
    assert out.stdout.endswith("\n")
    stop = records(path)[-1]
    assert out.stderr == f"shuffler: {stop['words']}\n"  # on its own line, the one line
    assert (stop["record"], stop["why"], stop["way"]) == ("stop", "interrupted", "gathered")
    assert stop["where"] == {"kind": "Where", "round": 3, "of_rounds": 10, "load": "B", "pass_number": 6,
                             "of_passes": 20, "after": False}
    assert shlex.split(stop["command"]) == ["shuffler", "guide", "--manual", "--pack", "samba", "--quality", "good",
                                            "--mode", "random", "--from-round", "3"]


def test_a_stop_with_rounds_given_by_hand_goes_on_with_those_rounds(tmp_path: Path) -> None:
    """The resume command keeps --rounds as the person gave it; run as told
    (twelve steps confirmed, then the input ends), it goes on in that round
    of the same number of rounds."""
    def guide(*args: str) -> tuple[subprocess.CompletedProcess[str], list[dict[str, Any]]]:
        path = tmp_path / f"steps{len(list(tmp_path.glob('steps*.jsonl')))}.jsonl"
        out = subprocess.run([sys.executable, "-m", "host.cli", *args, "--wait", "1", "--steps-file", str(path)],
                             capture_output=True, text=True, timeout=60, input="\n" * 12)
        return out, records(path)

    first, said = guide("guide", "--manual", "--pack", "samba", "--rounds", "3")
    stop = said[-1]
    assert first.returncode == 1 and stop["record"] == "stop" and stop["where"]["round"] == 2, stop
    argv = stop["command"].split()
    assert (argv[argv.index("--rounds") + 1], argv[argv.index("--from-round") + 1]) == ("3", "2"), argv
    again, said = guide(*argv[1:])
    header, *rest = said
    assert (header["kind"], header["rounds"], header["passes"]) == ("RoutineHeader", 3, 6), header
    assert [(n["round"], n["of_rounds"]) for n in rest if n.get("kind") == "RoundStart"] == [(2, 3), (3, 3)]
    assert again.returncode == 1 and (rest[-1]["where"]["round"], rest[-1]["where"]["of_rounds"]) == (3, 3), rest[-1]


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
    path = tmp_path / "steps.jsonl"
    proc = subprocess.Popen([sys.executable, "-m", "host.cli", "guide", "--sim", "--mode", "random", "--pack",
                             "samba", "--time-scale", "1", "--steps-file", str(path)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=dict(os.environ, SHUFFLER_RUNTIME_DIR=str(tmp_path)))
    started: set[int] = set()
    try:
        deadline = time.monotonic() + 120  # the virtual shuffler started and flashed, on a busy machine
        while not (path.exists() and any(r.get("kind") == "RoundStart" for r in records(path))):
            assert proc.poll() is None and time.monotonic() < deadline, "round 1 did not begin"
            time.sleep(0.05)
        started = _children(proc.pid)
        assert started, "the guide started no virtual shuffler"
        proc.terminate()
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=10)
    assert proc.returncode == 143  # SIGTERM's status, as a shell reports it
    stop = records(path)[-1]
    assert err == f"shuffler: {stop['words']}\n" and (stop["record"], stop["why"]) == ("stop", "interrupted"), err
    argv = stop["command"].split()
    assert "--from-round" not in argv or argv[-2:] == ["--from-round", "1"]  # from the start: round 1 was under way
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
    assert last == f"shuffler: {port_words.words(MicroPythonOnly(dev.port))}", done.stderr  # the port's record, said


def test_a_stop_with_json_prints_its_record_as_the_steps_file_has_it(tmp_path: Path) -> None:
    """--json: stdout is JSON alone, at a stop too: the stop's record (where,
    why as a record, the way on), the same line the steps file ends with."""
    path = tmp_path / "steps.jsonl"
    done = subprocess.run([sys.executable, "-m", "host.cli", "guide", "--manual", "--pack", "bridge", "--rounds", "1",
                           "--wait", "60", "--json", "--steps-file", str(path)],
                          capture_output=True, text=True, timeout=180, input="\n",
                          env=dict(os.environ, SHUFFLER_RUNTIME_DIR=str(tmp_path)))
    assert done.returncode == 1, done.stderr
    [line] = done.stdout.splitlines()
    stop = json.loads(line)
    assert stop == records(path)[-1], (stop, records(path)[-1])
    assert stop["record"] == "stop" and stop["reason"] == {"kind": "InputEnded"}, stop
    assert stop["where"]["round"] == 1 and shlex.split(stop["command"])[:2] == ["shuffler", "guide"]
    assert done.stderr.strip().splitlines()[-1] == f"shuffler: {stop['words']}"
