"""The guide's options are one seam: `shuffler guide`'s command line is
GuideOptions field for field, and the command a stop line gives to go on is
read back by the same command line as the options of the same routine."""
from __future__ import annotations

import dataclasses
import shlex
from typing import Any

import click
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from host import plan as planlib
from host.commands.guide import Resume, guide
from host.guide import Place
from host.guide.options import FLAGS, BadOptions, GuideOptions, flag

# What picks the routine: the fields every command that goes on carries.
ROUTINE = ("port", "sim", "manual", "pack", "cards", "capacity", "quality", "mode")


def parsed(words: list[str]) -> GuideOptions:
    """What `shuffler guide WORDS` would run with (parsed, checked, not run)."""
    ctx = guide.make_context("guide", list(words))
    return GuideOptions.from_command_line(ctx.params).checked()


def test_every_option_of_the_command_is_one_field_and_every_field_with_a_flag_is_an_option() -> None:
    options = [p for p in guide.params if isinstance(p, click.Option)]
    assert len(options) == len(guide.params)  # no positional arguments beside them
    on_the_command = {(p.name, p.opts[0]) for p in options}
    declared = {(name, f) for name, f in FLAGS.items() if f is not None}
    assert on_the_command == declared
    assert len({name for name, _ in on_the_command}) == len(options)  # one field each, none shared
    # The fields no flag sets are the machine's own waits, and only they.
    assert {name for name, f in FLAGS.items() if f is None} == {"stall_s", "reconnect_s", "settle_s"}


def test_an_empty_command_line_gives_the_defaults_of_the_options() -> None:
    assert GuideOptions.from_command_line(guide.make_context("guide", []).params) == GuideOptions()


def test_a_flag_is_named_by_its_field_only() -> None:
    assert flag("from_round") == "--from-round" and flag("read_s") == "--read-time"
    with pytest.raises(ValueError):
        flag("stall_s")
    with pytest.raises(KeyError):
        flag("person_wait_s")


def test_options_are_frozen_and_varied_by_copy() -> None:
    base = GuideOptions()
    varied = base.vary(wait_s=5.0, mode="exact")
    assert (base.wait_s, base.mode) == (None, None) and (varied.wait_s, varied.mode) == (5.0, "exact")
    with pytest.raises(dataclasses.FrozenInstanceError):
        base.wait_s = 3.0  # type: ignore[misc]
    with pytest.raises(TypeError):
        base.vary(person_wait_s=5.0)


@pytest.mark.parametrize("words,line", [
    ([], "choose one of --port PORT, --sim or --manual"),
    (["--manual", "--mode", "exact"], "exact mode needs the shuffler"),
    (["--sim", "--from-round", "2"], "--rounds and --from-round go with --mode random"),
    (["--manual", "--routine", "split"], "--routine chooses exact mode's routine"),
    (["--sim", "--resume"], "--resume goes on with an exact routine on a shuffler"),
])
def test_options_that_do_not_go_together_are_refused_in_one_line(words: list[str], line: str) -> None:
    with pytest.raises(BadOptions) as info:
        parsed(words)
    assert str(info.value).startswith(line) and "\n" not in str(info.value)


def test_checked_fills_in_what_other_options_decide() -> None:
    assert parsed(["--manual"]).mode == "random" and parsed(["--port", "/dev/x"]).mode == "exact"
    assert parsed(["--sim"]).unattended and not parsed(["--sim", "--web"]).unattended
    assert parsed(["--manual"]).pack == planlib.DEFAULT_PACK and parsed(["--manual", "--cards", "60"]).pack is None


@st.composite
def command_lines(draw: Any) -> list[str]:
    """A command line of `shuffler guide` as a person might type it."""
    device = draw(st.sampled_from([["--port", "/dev/ttyUSB0"], ["--port", "/dev/my shuffler"], ["--sim"],
                                   ["--manual"]]))
    words = list(device)
    if draw(st.booleans()):
        words += ["--cards", str(draw(st.integers(2, 400)))]
    elif draw(st.booleans()):
        words += ["--pack", draw(st.sampled_from(planlib.preset_names()))]
    if draw(st.booleans()):
        words += ["--capacity", str(draw(st.integers(planlib.MIN_CAPACITY, 300)))]
    if draw(st.booleans()):
        words += ["--quality", draw(st.sampled_from([q.name for q in planlib.QUALITY_LEVELS]))]
    mode = draw(st.sampled_from([None, "exact", "random"]))
    if mode is not None:
        words += ["--mode", mode]
    if mode == "random" and draw(st.booleans()):
        rounds = draw(st.integers(1, 20))
        words += ["--rounds", str(rounds), "--from-round", str(draw(st.integers(1, rounds)))]
    # Options a going-on command leaves to the person: not part of the routine.
    if draw(st.booleans()):
        words += ["--wait", "30", "--read-time", "0.5", "--json"]
    return words


def routine_of(o: GuideOptions, **more: Any) -> GuideOptions:
    """The options of the same routine, every other field its default."""
    return GuideOptions(**{name: getattr(o, name) for name in ROUTINE}, **more).checked()


@settings(max_examples=150, deadline=None)
@given(command_lines(), st.integers(1, 20))
def test_the_command_a_stop_gives_reads_back_as_the_same_routine(words: list[str], stopped_in: int) -> None:
    try:
        o = parsed(words)
    except BadOptions:
        assume(False)
        return
    if o.routine_mode == "exact":
        fresh = shlex.split(o.command())
        assert fresh[:2] == ["shuffler", "guide"] and parsed(fresh[2:]) == routine_of(o)
        if o.port:
            assert o.resume_hint is not None
            assert parsed(shlex.split(o.resume_hint)[2:]) == routine_of(o, resume=True)
        else:
            assert o.resume_hint is None  # nothing holds the routine after the run
    else:
        going_on = shlex.split(o.random_command(stopped_in))
        assert parsed(going_on[2:]) == routine_of(o, rounds=o.rounds, from_round=stopped_in)


def test_the_stop_line_names_the_command_the_options_build() -> None:
    """The CLI's stop line quotes the options' own command: in random mode
    from the round the guide stopped in, the rounds given by hand kept."""
    class Stopped:
        place = Place(3, 5, "B", 6, 10)
        machine = None

    o = parsed(["--port", "/dev/ttyUSB0", "--cards", "60", "--mode", "random", "--rounds", "5", "--wait", "30"])
    line = Resume(o).stopped("interrupted", Stopped())  # type: ignore[arg-type]
    argv = shlex.split(line.split("`")[1])
    assert argv == ["shuffler", "guide", "--port", "/dev/ttyUSB0", "--cards", "60", "--quality", "good", "--mode",
                    "random", "--rounds", "5", "--from-round", "3"], argv
    assert parsed(argv[2:]) == routine_of(o, rounds=5, from_round=3)


def test_the_fresh_command_keeps_the_routine_asked_for_and_random_mode_takes_none() -> None:
    """A person who asked for a routine gets it again from the command a
    stop gives, not the shuffler's own choice; random mode has no routine
    (it would refuse one)."""
    o = GuideOptions(port="/dev/ttyUSB0", pack="canasta", routine="pipelined").checked()
    assert shlex.split(o.command())[-2:] == ["--routine", "pipelined"]
    assert "--routine" not in shlex.split(o.random_command(3))
