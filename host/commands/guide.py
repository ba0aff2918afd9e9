"""`shuffler guide`: walk a card table through the routine, step by step."""
from __future__ import annotations

import contextlib
import io
import json
import signal
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import IO, Any, Callable

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

from firmware import protocol
from host import device_messages
from host import guide as guide_machine
from host import plan as planlib
from host import ports
from host import terminal
from host.guide import game_words
from host.guide import stop_words as reason_words
from host.guide import stop_reasons
from host.guide import notices as notice_kinds
from host.guide.notices import duration
from host.guide.options import DEFAULT_BIND, READ_S, SIM_TIME_SCALE, BadOptions, GuideOptions
from host.device_link import Link, LinkError
from host.person import ConsolePerson, ScriptedPerson
from host.commands.plan import build_plan, pack_options
from host.step_feed import StepFeed, StepFeedError, stop_line
from shuffling import steps

SIM_IDLE_SPEED = 4.0  # its clock while the motor sleeps: simulated ms per real ms (benchmarks/idle_guide_cpu.py)
STYLE = {notice_kinds.HEADING: "[bold]{}[/bold]", notice_kinds.HINT: "   [dim]{}[/dim]", notice_kinds.INFO: "{}",
         notice_kinds.PROBLEM: "[bold red]![/bold red] {}"}
# The virtual shuffler runs on this computer: on a busy one its interpreter
# takes a while to start and answer. Each wait ends as soon as it answers.
SIM_ANSWER_S = 60.0


class RichVoice(guide_machine.Voice):
    """The console: a live progress bar on a terminal, one line per pass otherwise."""

    def __init__(self, console: Console) -> None:
        self.console = console
        self.progress: Progress | None = None
        self.task: Any = None
        self.bar: dict[str, Any] | None = None
        self.show_piles = True  # exact mode: the device sends no pile counts

    def say(self, text: str) -> None:
        target = self.progress.console if self.progress is not None else self.console
        for line in terminal.lines(target, text):
            target.print(line)

    def notice(self, notice: notice_kinds.Notice) -> None:
        self.say(STYLE[notice_kinds.level(notice)].format(_escape(notice_kinds.words(notice))))

    def step(self, shown: guide_machine.Shown) -> None:
        self.say(f"[bold]{shown.number}.[/bold] {_escape(steps.words(shown.step))}")
        if shown.answer == "done" and self.keyboard:
            self.say("   [dim]press Enter when done[/dim]")

    def bar_start(self, label: str, total: int, done: int = 0, left: int | None = 0,
                  right: int | None = 0) -> None:
        self.bar_end()
        self.bar = {"label": label, "done": done, "total": total, "left": left, "right": right}
        if terminal.live(self.console):
            piles = [TextColumn("{task.fields[piles]}")] if self.show_piles else []
            self.progress = Progress(TextColumn("   dealing {task.description}"), BarColumn(), MofNCompleteColumn(),
                                     *piles, console=self.console)
            self.task = self.progress.add_task(label, total=total, completed=done, piles=pile_counts(left, right))
            self.progress.start()

    def bar_update(self, done: int, total: int, left: int | None, right: int | None) -> None:
        if self.bar is not None:
            self.bar.update(done=done, total=total, left=left, right=right)
        if self.progress is not None:
            self.progress.update(self.task, completed=done, total=total, piles=pile_counts(left, right))

    def bar_end(self) -> None:
        if self.progress is not None:
            self.progress.stop()  # leaves the bar on its own line
            self.progress = None
        elif self.bar is not None:
            b = self.bar
            # Exact mode reports no pile counts (they would tell the codes).
            piles = (f": left {b['left']}, right {b['right']}" if self.show_piles and b["left"] is not None
                     and b["right"] is not None and b["left"] + b["right"] else "")
            self.say(f"   dealt {b['done']} of {b['total']} ({_escape(b['label'])}){piles}")
        self.bar = None


def _escape(text: str) -> str:
    return text.replace("[", "\\[")


def pile_counts(left: int | None, right: int | None) -> str:
    """The bar's pile counts: only where the device's counts say them (after
    a restart mid-pass nobody knows the split, and nothing is shown)."""
    if left is None or right is None:
        return ""
    return f"left {left:>3}  right {right:>3}"


@click.command("guide")
@click.option("--port", "port", metavar="PORT", help="Serial port of the shuffler (see `shuffler devices`).")
@click.option("--sim", is_flag=True,
              help="Start a virtual shuffler, flash it, and guide a scripted person on it (implies --unattended).")
@click.option("--manual", is_flag=True, help="No device: instructions only, confirm each step with Enter.")
@click.option("--mode", type=click.Choice(["exact", "random"]), default=None,
              help="exact: the shuffler codes every card's side and the pack ends exactly random "
                   "(default with --port or --sim); random: random sides for the quality's rounds "
                   "(the only mode with --manual).")
@pack_options
@click.option("--unattended", is_flag=True,
              help="A scripted person follows every step on the virtual shuffler (with --sim, or --port and --world).")
@click.option("--world", metavar="ADDRESS", help="Control endpoint of a virtual shuffler on --port, for --unattended.")
@click.option("--rounds", type=int, default=None, help="Use this many rounds instead of the quality's count.")
@click.option("--from-round", "from_round", type=int, default=1, show_default=True,
              help="Start at this round (to go on after the guide stopped).")
@click.option("--resume", is_flag=True,
              help="Go on with the exact routine the shuffler still holds (after a stop), cards as they lie.")
@click.option("--routine", type=click.Choice(["radix", "split", "pipelined"]), default=None,
              help="Exact mode's routine (default: the one with the least time at the table, as `shuffler plan` "
                   "shows); the plan says what counting each one's piles tells of the order.")
@click.option("--on-loss", "on_loss", type=click.Choice(["exact", "random"]), default="exact", show_default=True,
              help="Should exactness be lost: a fresh exact routine, or random rounds for the quality.")
@click.option("--time-scale", type=click.FloatRange(min=0), default=SIM_TIME_SCALE, show_default=True,
              help="With --sim: simulated ms per real ms (0: as fast as possible).")
@click.option("--record", type=click.Path(dir_okay=False, path_type=Path),
              help="With --unattended: write every card the scripted person handled here (JSON lines).")
@click.option("--wait", "wait_s", type=click.FloatRange(min=1), default=None,
              help="Stop when the person has done nothing at a step for this many seconds (default: wait as long "
                   "as it takes, keeping the shuffler awake).")
@click.option("--read-time", "read_s", type=click.FloatRange(min=0), default=READ_S, show_default=True,
              help="Seconds a step must be on screen before Enter counts for it (a quick second Enter is ignored).")
@click.option("--json", "as_json", is_flag=True,
              help="Print the summary as JSON at the end (or, when the guide stops, the stop's record).")
@click.option("--steps-file", "steps_file", metavar="PATH", type=click.Path(dir_okay=False, path_type=Path),
              help="Also write each step, notice and the summary (or the stop) as a JSON line here (a file or a "
                   "named pipe), just before it is shown.")
@click.option("--web", is_flag=True, help="Show the guide on a local page (with --sim: the virtual table, played there).")
@click.option("--no-browser", "no_browser", is_flag=True, help="With --web: print the page's address, open no browser.")
@click.option("--bind", "--host", "bind", metavar="HOST[:PORT]", default=DEFAULT_BIND, show_default=True,
              help="With --web: where the page is served (this machine only unless you choose otherwise).")
def guide(**values: Any) -> None:
    """Guide the shuffle step by step: loads, passes, trades, faults, and a summary."""
    a, p, exact = _checked(values)
    steps_file = _open_steps_file(a.steps_file) if a.steps_file is not None else None
    # With --json, stdout carries the JSON alone; the transcript goes to stderr.
    voice = RichVoice(terminal.console(stderr=a.as_json))
    voice.show_piles = exact is None
    feed = StepFeed(voice, steps_file) if steps_file is not None else None  # written before the console shows
    try:
        (feed or voice).notice(_header(p, exact, a.on_loss))
    except StepFeedError as exc:
        raise click.ClickException(str(exc)) from None
    session = _web_session(a, voice, p) if a.web else None
    summary = _guarded(a, p, voice, session, feed)
    _print_summary(voice, p, summary, exact, first_run=a.sim)
    if a.as_json:
        click.echo(json.dumps(summary.to_dict()))
    if session is not None:
        restore = _terminate_as_interrupt()  # SIGTERM while the summary lingers ends it as Ctrl-C does
        try:
            session.linger()
        finally:
            restore()
        session.stop()


def _checked(values: dict[str, Any]) -> tuple[GuideOptions, planlib.Plan, planlib.ExactSchedule | None]:
    """The options, the plan and exact mode's schedule, or a usage error."""
    try:
        a = GuideOptions.from_command_line(values).checked()
    except BadOptions as exc:
        raise click.UsageError(str(exc)) from None
    p = build_plan(a.pack, a.cards, a.capacity, a.quality, a.rounds)
    if not 1 <= a.from_round <= p.rounds:
        raise click.UsageError(f"--from-round must be between 1 and {p.rounds}, not {a.from_round}")
    try:
        exact = planlib.exact_schedule(p.cards, p.capacity, a.routine) if a.mode == "exact" else None
    except planlib.PlanError as exc:
        raise click.UsageError(str(exc)) from None
    if a.mode == "exact" and exact is None:
        raise click.UsageError(f"exact mode takes at most {planlib.EXACT_MAX_CARDS} cards in at most "
                               f"{planlib.EXACT_MAX_LOADS} loads; use --mode random")
    return a, p, exact


def _guarded(a: GuideOptions, p: planlib.Plan, voice: RichVoice, session: Any,
             feed: StepFeed | None) -> guide_machine.Summary:
    """The run, with what it started ended and its stop said on every front-end."""
    with ExitStack() as stack:
        stack.callback(_terminate_as_interrupt())
        if feed is not None:
            stack.callback(feed.out.close)
        if session is not None:
            stack.callback(session.stop_unless_summary)  # the summary stays on the page
        try:
            return _guide(a, p, voice, session, feed, stack)
        except click.ClickException as exc:
            # The page ends with the console's line (Ctrl-C and SIGTERM too),
            # put in its state before stop_unless_summary closes its sockets.
            if session is not None:
                session.show_stop(exc.format_message(), getattr(exc, "stop", None))
            raise
        except KeyboardInterrupt as exc:  # before the guide began (starting the virtual shuffler)
            stop = Resume(a).interrupted(None)
            line = _said_stop(stop, feed, a.as_json)
            if session is not None:
                session.show_stop(line, stop)
            raise _interrupted(line, exc, stop) from None


def _header(p: planlib.Plan, exact: planlib.ExactSchedule | None, on_loss: str) -> notice_kinds.RoutineHeader:
    if exact is not None:
        return notice_kinds.RoutineHeader(p.pack.title, p.cards, True, exact.rounds, exact.passes, p.loads, p.quality.name,
                               p.quality.threshold, 0.0, exact.timing.total_s, on_loss)
    return notice_kinds.RoutineHeader(p.pack.title, p.cards, False, p.rounds, p.passes, p.loads, p.quality.name,
                           p.quality.threshold, p.distance, p.timing.total_s)


def _guide(a: GuideOptions, p: planlib.Plan, voice: RichVoice, session: Any, feed: StepFeed | None,
           stack: ExitStack) -> guide_machine.Summary:
    """Open the device (or start the virtual one), build the person, run the
    guide; the summary's record ends the steps file."""
    how = Resume(a)
    try:
        link, world_client, simulated = _open(a, feed or voice, stack)
    except (LinkError, StepFeedError) as exc:
        raise click.ClickException(str(exc)) from None
    gvoice: guide_machine.Voice = session.make_voice(voice) if session is not None else voice
    person = _person(a, p, voice, session, world_client)
    if feed is not None:
        gvoice = feed.around(gvoice)
    port = link.name if link is not None else None
    guide_obj = guide_machine.Guide(p, person, gvoice, a, link=link,
                                    reopen=(lambda: Link.open(port, link.slowdown)) if port else None,
                                    simulated=simulated)
    if link is not None:
        stack.callback(lambda: _close(link, guide_obj))
    try:
        if session is not None:
            summary = session.run(guide_obj, lambda exc: _stop_shown(how.of(exc, guide_obj)))
        else:
            summary = guide_obj.run()
        if feed is not None:
            feed.summary(summary)
    except (guide_machine.GuideStopped, StepFeedError, LinkError) as exc:
        voice.bar_end()
        stop = how.of(exc, guide_obj)
        raise StopSaid(_said_stop(stop, feed, a.as_json), stop) from None
    except KeyboardInterrupt as exc:
        voice.bar_end()  # the message starts on a line of its own
        voice.console.print()
        stop = how.interrupted(guide_obj)
        raise _interrupted(_said_stop(stop, feed, a.as_json), exc, stop) from None
    return summary


def _open(a: GuideOptions, voice: guide_machine.Voice, stack: ExitStack) -> tuple[Link | None, Any, bool]:
    """The link (None: --manual), the virtual world's client if any, and
    whether the shuffler is a simulated one faster than real time."""
    from simulator.virtual import registry

    world_client: Any = None
    port = a.port
    if a.sim:
        port, dev = _start_sim(a.time_scale, voice, stack)
        if a.unattended or a.web:
            world_client = dev.world(timeout=SIM_ANSWER_S)
            stack.callback(world_client.close)
    elif a.world:
        from simulator.virtual.world_client import WorldClient
        try:
            world_client = WorldClient.connect(a.world, timeout=5.0)
        except OSError as exc:
            raise click.ClickException(f"cannot reach the virtual shuffler's world at {a.world}: {exc}") from None
        stack.callback(world_client.close)
    if not port:
        return None, world_client, False
    link = _open_device(port, voice)
    scale = a.time_scale if a.sim else registry.time_scale(port)
    return link, world_client, scale is not None and scale != 1.0


def _person(a: GuideOptions, p: planlib.Plan, voice: RichVoice, session: Any, world_client: Any) -> Any:
    if world_client is not None and a.unattended:
        person: Any = ScriptedPerson(world_client, p.cards, record=a.record)
    else:
        person = ConsolePerson()
        voice.keyboard = session is None
    if session is not None:
        if world_client is not None and not a.unattended:
            session.attach_world(world_client)
        person = session.make_person(p.cards, inner=person if a.unattended else None)
    return person


def _open_device(port: str, voice: guide_machine.Voice) -> Link:
    link = ports.open_link(port)
    try:
        # A blank board (MicroPython alone) or a port that is no board is
        # said as such as soon as it shows, not after the whole handshake.
        hello = ports.greet(link)
    except LinkError:
        link.close()
        raise
    h = device_messages.hello_view(hello)
    voice.notice(notice_kinds.DeviceFound(port, str(h.fw), str(h.board), int(h.proto or 0), int(h.capacity or 0)))
    return link


def _start_sim(time_scale: float, voice: guide_machine.Voice, stack: ExitStack) -> tuple[str, Any]:
    """A fresh virtual shuffler, flashed through the same code as `shuffler flash`."""
    from firmware.build import ImageError
    from host.commands import flash as flash_cmd
    from simulator.virtual import VirtualShuffler

    # While nothing on the machine moves, the board keeps the table's pace rather than spin a core.
    dev = VirtualShuffler(time_scale=time_scale, env={"SHUFFLER_SIM_IDLE_SPEED": repr(SIM_IDLE_SPEED)})
    stack.callback(dev.stop)
    dev.start()
    voice.notice(notice_kinds.VirtualStarted(dev.port))
    try:
        # The flashing report joins the transcript (on stderr with --json),
        # wrapped as the guide's own lines are.
        with contextlib.redirect_stdout(_SaidLines(voice)):
            flash_cmd._flash(dev.port, "sim", SIM_ANSWER_S, SIM_ANSWER_S, protocol.FIRMWARE_VERSION)
    except ImageError as exc:
        raise click.ClickException(f"could not flash the virtual shuffler: {exc}") from None
    return dev.port, dev


class _SaidLines(io.TextIOBase):
    """A text stream whose every line the voice says."""

    def __init__(self, voice: guide_machine.Voice) -> None:
        self.voice = voice
        self.partial = ""

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        *done, self.partial = (self.partial + text).split("\n")
        for line in done:
            self.voice.say(_escape(line))
        return len(text)


class Terminated(KeyboardInterrupt):
    """SIGTERM, taken as Ctrl-C is (its exit status is the shell's for SIGTERM)."""


class StopSaid(click.ClickException):
    """The guide's stop in its one line, its record (StopRecord) beside for the page."""

    def __init__(self, message: str, stop: StopRecord | None = None) -> None:
        super().__init__(message)
        self.stop = stop


class Interrupted(StopSaid):
    """The guide stopped by Ctrl-C (exit status 130, as a shell reports it)
    or SIGTERM (143): one line, with the way on."""

    def __init__(self, message: str, signum: int = signal.SIGINT, stop: StopRecord | None = None) -> None:
        super().__init__(message, stop)
        self.exit_code = 128 + int(signum)


def _interrupted(message: str, exc: KeyboardInterrupt, stop: StopRecord | None = None) -> Interrupted:
    return Interrupted(message, signal.SIGTERM if isinstance(exc, Terminated) else signal.SIGINT, stop)


def _terminate_as_interrupt() -> Callable[[], None]:
    """SIGTERM stops the guide as Ctrl-C does: its stop line with the way on,
    and what it started (a virtual shuffler) ended. Returns the undo."""
    def interrupt(signum: int, frame: FrameType | None) -> None:
        raise Terminated

    try:
        old = signal.signal(signal.SIGTERM, interrupt)
    except ValueError:  # not the main thread (an embedding program): leave its signals alone
        return lambda: None

    def undo() -> None:
        signal.signal(signal.SIGTERM, old)
    return undo


def _open_steps_file(path: Path) -> IO[str]:
    try:
        return path.open("w", encoding="utf-8")
    except OSError as exc:
        raise click.BadParameter(f"cannot write {path}: {exc.strerror or exc}", param_hint="--steps-file") from None


def _web_session(a: GuideOptions, voice: RichVoice, p: planlib.Plan) -> Any:
    """The page's server, started before anything else so a busy address fails at once."""
    from host.web.run import WebSession
    from host.web.server import AddressBusy

    try:
        session = WebSession(a, say=voice.say)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--bind") from None
    try:
        session.start(f"{p.pack.title}: {steps.cards(p.cards)}")
    except AddressBusy as exc:
        raise click.ClickException(str(exc)) from None
    return session


# How a stop's way on goes (StopRecord.way).
AS_THEY_LIE = "as_they_lie"  # --resume with the cards where they lie: the shuffler holds the routine
FRESH = "fresh"  # every card gathered into one pack: a fresh exact routine
GATHERED = "gathered"  # every card gathered into one pack: random rounds from the round it stopped in


@dataclass(frozen=True)
class StopRecord:
    """A stop as data: where it stopped, why (its words, and `reason`'s
    record where it has one), and the command that goes on from there."""

    where: guide_machine.Where | None
    why: str
    way: str  # AS_THEY_LIE, FRESH or GATHERED
    command: str
    fault: Any = None  # GuideStopped.record: a fault of the device, as a note
    reason: Any = None  # why, as a record (host/guide/stop_reasons.py, or the port's): stop_reason() below


class Resume:
    """The stop line: where the guide stopped, why, and the command that goes
    on from there (built by the options, host/guide/options.py)."""

    def __init__(self, a: GuideOptions) -> None:
        self.options = a

    def record(self, why: str, guide_obj: guide_machine.Guide | None, fault: Any = None,
               reason: Any = None) -> StopRecord:
        a = self.options
        place = guide_obj.place if guide_obj is not None else None
        if a.routine_mode == "exact":
            if a.resume_hint is not None and guide_obj is not None and guide_obj.machine.resumable:
                return StopRecord(place, why, AS_THEY_LIE, a.resume_hint, fault, reason)
            return StopRecord(place, why, FRESH, a.command(), fault, reason)
        return StopRecord(place, why, GATHERED, a.random_command(place.round if place is not None else None), fault,
                          reason)

    def of(self, exc: BaseException, guide_obj: guide_machine.Guide | None) -> StopRecord:
        """The stop an exception of the run calls for: where, why, and a command that goes on from there."""
        return self.record(str(exc), guide_obj, getattr(exc, "record", None), stop_reason(exc))

    def interrupted(self, guide_obj: guide_machine.Guide | None) -> StopRecord:
        """The stop of Ctrl-C (or SIGTERM)."""
        why = stop_reasons.Interrupted()
        return self.record(reason_words.words(why), guide_obj, reason=why)

    def stopped(self, why: str, guide_obj: guide_machine.Guide | None) -> str:
        """One line: where it stopped, why, and a command that goes on from there."""
        return stop_words(self.record(why, guide_obj))


def stop_reason(exc: BaseException) -> Any:
    """Why the guide stopped, as a record: the stop's reason, or the port's
    record of a link that failed; None for a reason said in words alone."""
    if isinstance(exc, guide_machine.GuideStopped):
        return exc.reason
    return exc.record if isinstance(exc, LinkError) else None


def _stop_shown(stop: StopRecord) -> tuple[str, StopRecord]:
    """The stop as the page shows it: its line, and its record beside."""
    return stop_words(stop), stop


def stop_words(stop: StopRecord) -> str:
    """The stop's one line."""
    where = f" at {stop.where}" if stop.where else ""
    if stop.way == AS_THEY_LIE:
        way = f"to go on, leave the cards as they lie and run `{stop.command}`"
    else:
        fresh = " (a fresh exact routine)" if stop.way == FRESH else ""
        way = f"to go on, put every card together face down into one pack (any order) and run `{stop.command}`{fresh}"
    return f"stopped{where}: {stop.why}; {way}"


def _said_stop(stop: StopRecord, feed: StepFeed | None, as_json: bool) -> str:
    """The stop's line, its record written to the steps file first (and,
    with --json, as the JSON on stdout)."""
    line = stop_words(stop)
    if feed is not None:
        with contextlib.suppress(StepFeedError):  # the file may be what failed: the line says so
            feed.stop(stop, line)
    if as_json:
        click.echo(stop_line(stop, line))
    return line


def _close(link: Link | None, guide_obj: guide_machine.Guide | None) -> None:
    """Close the link the guide ended with (it may have reopened the port)."""
    for candidate in (link, guide_obj.link if guide_obj is not None else None):
        if candidate is not None:
            candidate.close()


def _print_summary(voice: RichVoice, p: planlib.Plan, s: guide_machine.Summary, exact: planlib.ExactSchedule | None,
                   first_run: bool = False) -> None:
    """The summary; after a run on a virtual shuffler of its own (`--sim`, README's first run), what to run next."""
    voice.say("")
    voice.say("[bold]Summary[/bold]")
    took = duration(s.seconds)
    if s.simulated:
        real = s.table_seconds if s.table_seconds is not None else (
            exact.timing.total_s if exact is not None else p.timing.total_s)
        took += f" (a simulated shuffler, faster than a real one: about {duration(real)} at a real table)"
    if s.resumed:
        took += " (this run's: it went on with a routine begun in an earlier one)"
    voice.say(f"  mode: {s.mode}; rounds: {s.rounds}, passes: {s.passes}, time: {took}")
    if s.distance_kind == "exact" and s.distance == 0.0:
        voice.say(f"  distance from random: exactly 0 ({s.method}), {s.condition}" if s.condition else
                  f"  distance from random: exactly 0 ({s.method})")
    else:
        kind = "at most " if s.distance_kind == "at most" else ""
        voice.say(f"  distance from random: {kind}{s.distance:.4f} ({s.method}), "
                  f"'{p.quality.name}' asks for at most {p.quality.threshold:g}")
    if s.distance > p.quality.threshold:
        need = planlib.rounds_for(p.cards, p.capacity, p.quality.threshold)
        voice.say(f"  [bold red]short of '{p.quality.name}'[/bold red]: it needs {need} rounds")
    for entry in s.exactness:
        voice.say(f"  exactness: {_escape(entry['words'])}")
    exact_end = s.distance_kind == "exact" and s.distance == 0.0
    on = ", on that condition" if exact_end and s.condition else ""
    voice.say(f"  for the deal{on}: {game_words.for_the_deal(s.cards, exact_end, s.distance)}")
    if s.onlooker is not None:
        voice.say(f"  secrecy: {game_words.secrecy(s.onlooker)}")
    for n in s.note_words():
        voice.say(f"  note: {_escape(n)}")
    if s.notes and s.distance > 0:  # a random routine's figure; exact mode's claim says its own condition
        voice.say("  (the figure assumes every card went through a fair pass each round)")
    if first_run:
        voice.say("")
        voice.say("[bold]What next[/bold]")
        for line in game_words.what_next(None if p.pack.name == "custom" else p.pack.name, p.cards):
            voice.say(f"  {_escape(line)}")
