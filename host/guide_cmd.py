"""`shuffler guide`: walk a card table through the routine, step by step."""
from __future__ import annotations

import contextlib
import json
import shlex
import signal
import sys
from contextlib import ExitStack
from pathlib import Path
from types import FrameType
from typing import IO, Any, Callable

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

from firmware import protocol as P
from host import guide as G
from host import guide_exact as GX
from host import plan as planlib
from host.link import Link, LinkError
from host.person import ConsolePerson, ScriptedPerson
from host.plan_cmd import build_plan, count, minutes, pack_options
from host.step_feed import StepFeed, StepFeedError

SIM_TIME_SCALE = 0.0  # the virtual shuffler's motor: 0 = as fast as the computer goes


class RichVoice(G.Voice):
    """Rich output: a live progress bar on a terminal, one line per pass otherwise."""

    def __init__(self, console: Console) -> None:
        self.console = console
        self.progress: Progress | None = None
        self.task: Any = None
        self.bar: dict[str, Any] | None = None
        self.show_piles = True  # exact mode: the device sends no pile counts

    def say(self, text: str) -> None:
        if self.progress is not None:
            self.progress.console.print(text)
        else:
            self.console.print(text)

    def bar_start(self, label: str, total: int, done: int = 0, left: int | None = 0,
                  right: int | None = 0) -> None:
        self.bar_end()
        self.bar = {"label": label, "done": done, "total": total, "left": left, "right": right}
        if self.console.is_terminal:
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
            self.console.print(f"   dealt {b['done']} of {b['total']} ({b['label']}){piles}")
        self.bar = None


def pile_counts(left: int | None, right: int | None) -> str:
    """The bar's pile counts: only where the device's counts say them (after
    a restart mid-pass nobody knows the split, and nothing is shown)."""
    if left is None or right is None:
        return ""
    return f"left {left:>3}  right {right:>3}"


def _open_device(port: str, voice: RichVoice) -> Link:
    link = Link.open(port)
    try:
        hello = link.handshake()
    except LinkError:
        link.close()
        raise
    voice.say(f"Shuffler on {port}: firmware {hello.get('fw')}, board {hello.get('board')}, "
              f"protocol {hello.get('proto')}, tray holds {hello.get('capacity')} cards.")
    return link


def _start_sim(time_scale: float, voice: RichVoice, stack: ExitStack, quiet_stdout: bool = False) -> tuple[str, Any]:
    """A fresh virtual shuffler, flashed through the same code as `shuffler flash`."""
    from host import flash_cmd, flashing
    from simulator.virtual import VirtualShuffler

    dev = VirtualShuffler(time_scale=time_scale)
    stack.callback(dev.stop)
    dev.start()
    voice.say(f"Started a virtual shuffler on {dev.port}; flashing it:")
    try:
        # With --json the flashing report joins the transcript on stderr.
        with contextlib.redirect_stdout(sys.stderr) if quiet_stdout else contextlib.nullcontext():
            flash_cmd._flash(dev.port, "sim", 5.0, 10.0, P.FIRMWARE_VERSION)
    except flashing.FlashError as exc:
        raise click.ClickException(f"could not flash the virtual shuffler: {exc}") from None
    return dev.port, dev


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
@click.option("--time-scale", type=click.FloatRange(min=0), default=SIM_TIME_SCALE, show_default=True,
              help="With --sim: simulated ms per real ms (0: as fast as possible).")
@click.option("--record", type=click.Path(dir_okay=False, path_type=Path),
              help="With --unattended: write every card the scripted person handled here (JSON lines).")
@click.option("--wait", "wait_s", type=click.FloatRange(min=1), default=G.PERSON_WAIT_S, show_default=True,
              help="Seconds to wait for the person at any step before stopping.")
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON at the end.")
@click.option("--steps-file", "steps_file", metavar="PATH", type=click.Path(dir_okay=False, path_type=Path),
              help="Also write each step as a JSON line here (a file or a named pipe), just before it is shown.")
@click.option("--web", is_flag=True, help="Show the guide on a local page (with --sim: the virtual table, played there).")
@click.option("--no-browser", "no_browser", is_flag=True, help="With --web: print the page's address, open no browser.")
@click.option("--bind", "--host", "bind", metavar="HOST[:PORT]", default="127.0.0.1:8765", show_default=True,
              help="With --web: where the page is served (this machine only unless you choose otherwise).")
def guide(port: str | None, sim: bool, manual: bool, mode: str | None, pack: str | None, cards: int | None,
          capacity: int, quality: str, unattended: bool, world: str | None, rounds: int | None, from_round: int,
          time_scale: float, record: Path | None, wait_s: float, as_json: bool, steps_file: Path | None = None,
          web: bool = False, no_browser: bool = False, bind: str = "127.0.0.1:8765") -> None:
    """Guide the shuffle step by step: loads, passes, trades, faults, and a summary."""
    chosen = [name for name, on in (("--port", port), ("--sim", sim), ("--manual", manual)) if on]
    if len(chosen) != 1:
        raise click.UsageError("choose one of --port PORT, --sim or --manual"
                               + (f" (got {' and '.join(chosen)})" if chosen else ""))
    if sim and not web:
        unattended = True  # nobody can put cards into a virtual tray by hand, except on the page
    if unattended and not (sim or (port and world)):
        raise click.UsageError("--unattended needs the virtual shuffler: --sim, or --port with --world")
    if record is not None and not unattended:
        raise click.UsageError("--record goes with --unattended")
    if mode is None:
        # Without a device nobody codes the sides, so --manual is random.
        mode = "random" if manual else "exact"
    if mode == "exact" and manual:
        raise click.UsageError("exact mode needs the shuffler (--port or --sim); --manual is random mode")
    if mode == "exact" and (rounds is not None or from_round != 1):
        raise click.UsageError("--rounds and --from-round go with --mode random "
                               "(exact mode always runs its whole routine with fresh codes)")
    p = build_plan(pack, cards, capacity, quality, rounds)
    if not 1 <= from_round <= p.rounds:
        raise click.UsageError(f"--from-round must be between 1 and {p.rounds}, not {from_round}")
    exact = planlib.exact_schedule(p.cards, p.capacity) if mode == "exact" else None
    if mode == "exact" and exact is None:
        raise click.UsageError(f"exact mode takes at most {planlib.EXACT_MAX_CARDS} cards in at most "
                               f"{planlib.EXACT_MAX_LOADS} loads; use --mode random")
    feed = _open_steps_file(steps_file) if steps_file is not None else None
    # With --json, stdout carries the JSON alone; the transcript goes to stderr.
    console = Console(highlight=False, soft_wrap=True, stderr=as_json)
    voice = RichVoice(console)
    voice.show_piles = exact is None
    if exact is not None:
        voice.say(f"[bold]{p.pack.title}[/bold]: {count(p.cards, 'card')}, exact mode: {count(exact.rounds, 'round')} "
                  f"({count(exact.passes, 'pass', 'passes')}), then every order equally likely (distance from random "
                  f"exactly 0). Should exactness be lost, random rounds finish the job for '{p.quality.name}'.")
    else:
        # Rounds given with --rounds may fall short of the quality level: say what they reach.
        reach = (f"for '{p.quality.name}' (distance from random {p.distance:.3f}, at most {p.quality.threshold:g})"
                 if p.distance <= p.quality.threshold else
                 f"then distance from random {p.distance:.3f}, short of '{p.quality.name}' "
                 f"(at most {p.quality.threshold:g})")
        voice.say(f"[bold]{p.pack.title}[/bold]: {count(p.cards, 'card')}, loads "
                  + " / ".join(str(s) for s in p.loads)
                  + f", {count(p.rounds, 'round')} ({count(p.passes, 'pass', 'passes')}) {reach}.")
    how = _Resume(port if not sim else None, sim, manual, pack, cards, capacity, quality, rounds)
    session = _web_session(bind, no_browser, voice, p) if web else None
    gvoice: G.Voice = session.make_voice(voice) if session is not None else voice
    with ExitStack() as stack:
        stack.callback(_terminate_as_interrupt())
        if feed is not None:
            stack.callback(feed.close)
        if session is not None:
            stack.callback(session.stop_unless_summary)  # the summary stays on the page
        link: Link | None = None
        guide_obj: G.Guide | None = None
        reopen = None
        world_client: Any = None
        try:
            if sim:
                port, dev = _start_sim(time_scale, voice, stack, quiet_stdout=as_json)
                if unattended or web:
                    world_client = dev.world(timeout=10.0)
                    stack.callback(world_client.close)
            elif world:
                from simulator.virtual.world_client import WorldClient
                try:
                    world_client = WorldClient.connect(world, timeout=5.0)
                except OSError as exc:
                    raise click.ClickException(f"cannot reach the virtual shuffler's world at {world}: {exc}") from None
                stack.callback(world_client.close)
            if port:
                link = _open_device(port, voice)
                stack.callback(lambda: _close(link, guide_obj))
                device_port = port

                def reopen() -> Link:
                    return Link.open(device_port)
        except LinkError as exc:
            raise click.ClickException(str(exc)) from None
        if world_client is not None and unattended:
            person: Any = ScriptedPerson(world_client, p.cards, record=record,
                                         say=voice.say if session is None else None)
        else:
            person = ConsolePerson(voice.say, manual=manual, wait_s=wait_s)
        if session is not None:
            if world_client is not None and not unattended:
                session.attach_world(world_client)
            person = session.make_person(p.cards, manual, wait_s, inner=person if unattended else None)
        if feed is not None:
            person = StepFeed(person, feed)
        guide_cls = GX.ExactGuide if mode == "exact" else G.Guide
        guide_obj = guide_cls(p, person, gvoice, link=link, reopen=reopen, from_round=from_round,
                              person_wait_s=wait_s)
        try:
            if session is not None:
                summary = session.run(guide_obj, lambda exc: _stopped(
                    str(exc), getattr(exc, "place", None) or guide_obj.place, mode, how))
            else:
                summary = guide_obj.run()
        except G.GuideStopped as exc:
            voice.bar_end()
            raise click.ClickException(_stopped(str(exc), exc.place or guide_obj.place, mode, how)) from None
        except StepFeedError as exc:
            voice.bar_end()
            raise click.ClickException(_stopped(str(exc), guide_obj.place, mode, how)) from None
        except LinkError as exc:
            voice.bar_end()
            raise click.ClickException(_stopped(str(exc), guide_obj.place, mode, how)) from None
        except KeyboardInterrupt:
            voice.bar_end()  # the message starts on a line of its own
            console.print()
            raise click.ClickException(_stopped("interrupted", guide_obj.place, mode, how)) from None
    _print_summary(voice, p, summary)
    if as_json:
        click.echo(json.dumps(summary.to_dict()))
    if session is not None:
        session.linger()
        session.stop()


def _terminate_as_interrupt() -> Callable[[], None]:
    """SIGTERM stops the guide as Ctrl-C does: its stop line with the way on,
    and what it started (a virtual shuffler) ended. Returns the undo."""
    def interrupt(signum: int, frame: FrameType | None) -> None:
        raise KeyboardInterrupt

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


def _web_session(bind: str, no_browser: bool, voice: RichVoice, p: planlib.Plan) -> Any:
    """The page's server, started before anything else so a busy address fails at once."""
    from host.web.run import WebSession
    from host.web.server import AddressBusy, parse_bind

    try:
        host, port = parse_bind(bind)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--bind") from None
    session = WebSession(host, port, open_browser=not no_browser, say=voice.say)
    try:
        session.start(f"{p.pack.title}: {count(p.cards, 'card')}")
    except AddressBusy as exc:
        raise click.ClickException(str(exc)) from None
    return session


class _Resume:
    """The command that goes on after a stop, from what this one was given."""

    def __init__(self, port: str | None, sim: bool, manual: bool, pack: str | None, cards: int | None,
                 capacity: int, quality: str, rounds: int | None = None) -> None:
        words = ["shuffler", "guide"]
        if port:
            words += ["--port", port]
        elif sim:
            words += ["--sim"]
        else:
            words += ["--manual"]
        if cards is not None:
            words += ["--cards", str(cards)]
        else:
            words += ["--pack", pack or planlib.DEFAULT_PACK]
        if capacity != planlib.DEFAULT_CAPACITY:
            words += ["--capacity", str(capacity)]
        words += ["--quality", quality]
        self.words = words
        # Rounds given by hand are what the person asked for: a random run goes on with them.
        self.rounds = ["--rounds", str(rounds)] if rounds is not None else []

    def command(self, *extra: str) -> str:
        return shlex.join(self.words + list(extra))

    def random_command(self, *extra: str) -> str:
        """Random mode, with the rounds given by hand if any."""
        return shlex.join(self.words + ["--mode", "random"] + self.rounds + list(extra))


def _stopped(why: str, place: G.Place | None, mode: str, how: _Resume) -> str:
    """One line: where it stopped, why, and a command that goes on from there."""
    where = f" at {place}" if place else ""
    if mode == "exact":
        go_on = (f"to go on, gather every card into one pack and run `{how.command()}` (a fresh exact routine) "
                 f"or `{how.random_command()}` (random rounds that reach the quality from any order)")
    elif place is not None:
        go_on = (f"to go on, gather every card into one pack and run "
                 f"`{how.random_command('--from-round', str(place.round))}`")
    else:
        go_on = f"to go on, gather every card into one pack and run `{how.random_command()}`"
    return f"stopped{where}: {why}; {go_on}"


def _close(link: Link | None, guide_obj: G.Guide | None) -> None:
    """Close the link the guide ended with (it may have reopened the port)."""
    for candidate in (link, guide_obj.link if guide_obj is not None else None):
        if candidate is not None:
            candidate.close()


def _print_summary(voice: RichVoice, p: planlib.Plan, s: G.Summary) -> None:
    voice.say("")
    voice.say("[bold]Summary[/bold]")
    voice.say(f"  mode: {s.mode}; rounds: {s.rounds}, passes: {s.passes}, time: {minutes(s.seconds)}")
    if s.mode == "exact":
        voice.say(f"  distance from random: exactly 0 ({s.method})")
    else:
        kind = "at most " if s.distance_kind == "at most" else ""
        voice.say(f"  distance from random: {kind}{s.distance:.4f} ({s.method}), "
                  f"'{p.quality.name}' asks for at most {p.quality.threshold:g}")
    if s.distance > p.quality.threshold:
        need = planlib.rounds_for(p.cards, p.capacity, p.quality.threshold)
        voice.say(f"  [bold red]short of '{p.quality.name}'[/bold red]: it needs {need} rounds")
    for n in s.notes:
        voice.say(f"  note: {n}")
    if s.notes:
        voice.say("  (the figure assumes every card went through a fair pass each round)")
