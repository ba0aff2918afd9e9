"""The guide's options, as one typed record: what `shuffler guide` was given.

`shuffler guide` makes it once from its command line (`from_command_line`,
then `checked`) and hands it whole to the guide's machine
(host/guide/core.py), the console and the page; the tests build it the same
way and vary it with `vary`. Each field that is a command-line option names
its flag (`flag(name)`); the machine's own waits are fields with no flag, set
only by tests. The command that goes on after a stop (`command`, and the
machine's `--resume` hint) is built from it here, and only here.
"""
from __future__ import annotations

import dataclasses
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from host import plan as planlib
from host.guide import stop_words
from host.guide.stop_reasons import (EXACT_NEEDS_SHUFFLER, ONE_DEVICE, RECORD_NEEDS_UNATTENDED, RESUME_NEEDS_PORT,
                                     ROUNDS_GO_WITH_RANDOM, ROUTINE_GOES_WITH_EXACT, UNATTENDED_NEEDS_VIRTUAL,
                                     OptionsRefused)

# Seconds. The machine's waits are short; the person's have no limit unless one is given.
STALL_S = 8.0  # no event while dealing: ask the device how it is doing
RECONNECT_S = 60.0  # how long an unplugged device may take to come back
SETTLE_S = 1.0  # a tray count unchanged this long is the load as it is
READ_S = 1.0  # a step must be on screen this long before an answer counts for it
SIM_TIME_SCALE = 0.0  # the virtual shuffler's motor: 0 = as fast as the computer goes
DEFAULT_BIND = "127.0.0.1:8765"  # the page: this machine only


def _option(flag: str | None, default: Any = None) -> Any:
    """A field; `flag` is its command-line option (None: not on the command line)."""
    return field(default=default, metadata={"flag": flag})


class BadOptions(ValueError):
    """Options that do not go together: their record (`record`,
    stop_reasons.OptionsRefused), said in one line."""

    def __init__(self, why: str, chosen: tuple[str, ...] = ()) -> None:
        self.record = OptionsRefused(why, chosen)
        super().__init__(stop_words.words(self.record))


@dataclass(frozen=True)
class GuideOptions:
    # The shuffler: exactly one of port, sim and manual.
    port: str | None = _option("--port")  # serial port of a shuffler
    sim: bool = _option("--sim", False)  # a virtual shuffler of its own, started and flashed
    manual: bool = _option("--manual", False)  # no shuffler: the steps only, each confirmed by the person
    world: str | None = _option("--world")  # control endpoint of the virtual shuffler on port (for unattended)
    unattended: bool = _option("--unattended", False)  # a scripted person follows every step on a virtual shuffler
    # The routine.
    mode: str | None = _option("--mode")  # "exact" or "random"; None: exact with a shuffler, random without
    pack: str | None = _option("--pack")  # pack preset by name (None: planlib.DEFAULT_PACK, unless cards)
    cards: int | None = _option("--cards")  # any other pack size, instead of pack
    capacity: int = _option("--capacity", planlib.DEFAULT_CAPACITY)  # cards the tray holds
    quality: str = _option("--quality", planlib.DEFAULT_QUALITY)  # how random the pack must end (a level's name)
    rounds: int | None = _option("--rounds")  # random mode's rounds, instead of the quality's count
    from_round: int = _option("--from-round", 1)  # random mode: the round to start at (1-based)
    resume: bool = _option("--resume", False)  # go on with the exact routine the shuffler holds
    routine: str | None = _option("--routine")  # exact mode's routine by name (None: the least time at the table)
    on_loss: str = _option("--on-loss", "exact")  # exactness lost: a fresh "exact" routine, or "random" rounds
    # The person and the virtual shuffler.
    time_scale: float = _option("--time-scale", SIM_TIME_SCALE)  # with sim: simulated ms per real ms (0: flat out)
    record: Path | None = _option("--record")  # with unattended: every card handled, as JSON lines, here
    wait_s: float | None = _option("--wait")  # seconds a step may wait for the person (None: no limit)
    read_s: float = _option("--read-time", READ_S)  # seconds a step is up before the person's answer counts
    # What is shown, where.
    as_json: bool = _option("--json", False)  # the summary as JSON on stdout (the transcript to stderr)
    steps_file: Path | None = _option("--steps-file")  # each record shown also as a JSON line here, before it is shown
    web: bool = _option("--web", False)  # the guide on a local page
    no_browser: bool = _option("--no-browser", False)  # with web: print the page's address, open no browser
    bind: str = _option("--bind", DEFAULT_BIND)  # with web: HOST[:PORT] the page is served on
    # The machine's own waits, in seconds: not on the command line (tests shorten them).
    stall_s: float = _option(None, STALL_S)  # no event this long while dealing: ask the device
    reconnect_s: float = _option(None, RECONNECT_S)  # an unplugged device may take this long to come back
    settle_s: float = _option(None, SETTLE_S)  # a tray count unchanged this long is the load as it is

    @classmethod
    def from_command_line(cls, values: dict[str, Any]) -> GuideOptions:
        """click's values (named as the fields are), as given: not yet checked."""
        return cls(**values)

    def vary(self, **changes: Any) -> GuideOptions:
        """These options with some fields changed (dataclasses.replace)."""
        return dataclasses.replace(self, **changes)

    @property
    def routine_mode(self) -> str:
        """The mode asked for, or the default: exact with a shuffler, random
        without (nobody codes the sides without one)."""
        return self.mode or ("exact" if self.port or self.sim else "random")

    def checked(self) -> GuideOptions:
        """The options with the defaults other options decide filled in
        (mode, pack, unattended); BadOptions when they do not go together."""
        chosen = [name for name, on in (("--port", self.port), ("--sim", self.sim), ("--manual", self.manual)) if on]
        if len(chosen) != 1:
            raise BadOptions(ONE_DEVICE, tuple(chosen))
        # Nobody can put cards into a virtual tray by hand, except on the page.
        o = self.vary(mode=self.routine_mode, unattended=self.unattended or (self.sim and not self.web),
                      pack=self.pack if self.pack is not None or self.cards is not None else planlib.DEFAULT_PACK)
        o._check_device()
        o._check_routine()
        return o

    def _check_device(self) -> None:
        if self.unattended and not (self.sim or (self.port and self.world)):
            raise BadOptions(UNATTENDED_NEEDS_VIRTUAL)
        if self.record is not None and not self.unattended:
            raise BadOptions(RECORD_NEEDS_UNATTENDED)
        if self.mode == "exact" and self.manual:
            raise BadOptions(EXACT_NEEDS_SHUFFLER)

    def _check_routine(self) -> None:
        if self.mode == "exact" and (self.rounds is not None or self.from_round != 1):
            raise BadOptions(ROUNDS_GO_WITH_RANDOM)
        if self.routine is not None and self.mode != "exact":
            raise BadOptions(ROUTINE_GOES_WITH_EXACT)
        if self.resume and (self.mode != "exact" or not self.port):
            raise BadOptions(RESUME_NEEDS_PORT)

    def command(self, *extra: str) -> str:
        """`shuffler guide` on the same shuffler, pack and quality, then
        `extra`: the command a stop line gives to go on."""
        words = ["shuffler", "guide"]
        words += [flag("port"), self.port] if self.port else [flag("sim") if self.sim else flag("manual")]
        if self.cards is not None:
            words += [flag("cards"), str(self.cards)]
        else:
            words += [flag("pack"), self.pack or planlib.DEFAULT_PACK]
        if self.capacity != planlib.DEFAULT_CAPACITY:
            words += [flag("capacity"), str(self.capacity)]
        words += [flag("quality"), self.quality]
        if self.routine is not None and flag("mode") not in extra:  # random mode takes no routine
            words += [flag("routine"), self.routine]  # the routine asked for, not the shuffler's choice
        return shlex.join(words + list(extra))

    @property
    def resume_hint(self) -> str | None:
        """The command that goes on with the exact routine a shuffler holds
        (None without a port: a virtual shuffler of its own ends with the run)."""
        return self.command(flag("resume")) if self.port else None

    def random_command(self, from_round: int | None) -> str:
        """The command that goes on in random mode: the rounds the person
        gave by hand kept, from `from_round` if given."""
        extra = [flag("mode"), "random"]
        if self.rounds is not None:
            extra += [flag("rounds"), str(self.rounds)]
        if from_round is not None:
            extra += [flag("from_round"), str(from_round)]
        return self.command(*extra)


def flag(name: str) -> str:
    """The command-line option of the field `name` (KeyError: not a field;
    ValueError: a field not on the command line)."""
    found = FLAGS[name]
    if found is None:
        raise ValueError(f"{name} is not on the command line")
    return found


FLAGS: dict[str, str | None] = {f.name: f.metadata["flag"] for f in dataclasses.fields(GuideOptions)}
