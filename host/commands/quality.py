"""`shuffler quality`: how random is the pack after each pass of each routine."""
from __future__ import annotations

import json
import math
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

import click

from shuffling.limits import MAX_SEARCH_ROUNDS
from shuffling.time_model import duration

if TYPE_CHECKING:
    from shuffling.packs import Pack
    from shuffling.quality.estimate import Estimate
    from shuffling.quality.report import Settings
    from rich.console import Console

    from shuffling.quality.results import PassesNeeded, Report, RoutineResult
    from shuffling.quality.routines import Machine


def _fail(message: str) -> NoReturn:
    raise click.UsageError(message)


def _refuse(problem: str | None) -> None:
    if problem is not None:
        _fail(problem)


def _check_unit(name: str, value: float, *, open_ends: bool) -> None:
    ok = 0.0 < value < 1.0 if open_ends else 0.0 <= value <= 1.0
    if not (math.isfinite(value) and ok):
        where = "strictly between 0 and 1" if open_ends else "between 0 and 1"
        _fail(f"{name} must be {where}, not {value:g}")


@click.command("quality")
@click.option("--pack", "pack_name", default=None,
              help="Pack preset (samba, canasta, hand-and-foot, bridge, ...); default samba.")
@click.option("--cards", type=int, default=None, help="Any other number of cards, instead of --pack.")
@click.option("--capacity", type=int, default=104, show_default=True, help="Cards the machine holds.")
@click.option("--rounds", type=int, default=None,
              help="Rounds to simulate (every load once per round; for the split, a split round or one pass "
                   "of a part); default: enough to converge, up to 16.")
@click.option("--samples", type=int, default=100_000, show_default=True, help="Shuffles simulated per point.")
@click.option("--seed", type=int, default=0, show_default=True, help="Random seed.")
@click.option("--routine", "routines", multiple=True,
              help="Routine to report: stack-trade, pile-trade, exact (the exact routine the shuffler runs), "
                   "exact-radix, exact-split (repeatable; default the first three and the other exact routine).")
@click.option("--threshold", "thresholds", type=float, multiple=True,
              help="Distance threshold (repeatable; default 0.5 0.25 0.1 0.05).")
@click.option("--bias", type=float, default=0.5, show_default=True, help="Chance a card goes to the left pile.")
@click.option("--clump", type=float, default=0.0, show_default=True, help="Chance a card follows the previous card's pile.")
@click.option("--double-feed", type=float, default=0.0, show_default=True, help="Chance a card is dragged along with the one before.")
@click.option("--trade-sd", type=float, default=0.0, show_default=True, help="Spread (cards) of the person's 'half' in stack-trade.")
@click.option("--start", type=click.Choice(["new", "samba", "random"]), default=None,
              help="Order before shuffling; default samba for multi-deck packs, else new.")
@click.option("--plot", "plot_path", type=click.Path(dir_okay=False), default=None,
              help="Picture to write: .png, .svg or .pdf (default quality-<pack>.png, "
                   "or quality-<N>-cards.png, here).")
@click.option("--no-plot", is_flag=True, help="Write no picture.")
@click.option("--json", "as_json", is_flag=True, help="Print the figures as JSON instead of tables.")
def quality(
    pack_name: str | None, cards: int | None, capacity: int, rounds: int | None, samples: int, seed: int,
    routines: tuple[str, ...], thresholds: tuple[float, ...], bias: float, clump: float,
    double_feed: float, trade_sd: float, start: str | None, plot_path: str | None, no_plot: bool,
    as_json: bool,
) -> None:
    """Distance from random after each pass, passes needed, the guessing game and the deal."""
    # Light imports first: every setting is checked before numpy loads.
    pack = _pack_asked(pack_name, cards)
    _check_numbers(capacity, samples, rounds, seed)
    path = None if no_plot else _plot_path(plot_path, pack)
    _check_machine(thresholds, bias, clump, double_feed, trade_sd)
    start = _start_order(start, pack)

    # Heavy imports here, so the rest of `shuffler` starts quickly.
    from shuffling.quality.report import DEFAULT_THRESHOLDS, Settings, default_rounds
    from shuffling.quality.routines import Machine

    machine = Machine(p=bias, clump=clump, double_feed=double_feed, trade_sd=trade_sd)
    thresholds = tuple(sorted(set(thresholds), reverse=True)) or DEFAULT_THRESHOLDS
    settings = Settings(
        pack=pack, n_cards=pack.cards, capacity=capacity,
        rounds=rounds if rounds is not None else default_rounds(pack.cards, thresholds),
        samples=samples, seed=seed,
        routines=_routines_asked(routines, machine, pack.cards, capacity),
        thresholds=thresholds,
        machine=machine,
        start=start,
    )
    report = _run(settings)
    if path is not None:
        report = _with_plot(report, path)
    if as_json:
        click.echo(json.dumps(report.to_dict()))
    else:
        _print_tables(report)


def _check_machine(thresholds: tuple[float, ...], bias: float, clump: float, double_feed: float,
                   trade_sd: float) -> None:
    """Refuse a threshold or a machine's figure out of its range, in one line, before any work."""
    for t in thresholds:
        _check_unit("--threshold", t, open_ends=True)
    for opt, value in (("--bias", bias), ("--clump", clump), ("--double-feed", double_feed)):
        _check_unit(opt, value, open_ends=False)
    if not (math.isfinite(trade_sd) and trade_sd >= 0):
        _fail(f"--trade-sd must be a number of cards >= 0, not {trade_sd:g}")


def _with_plot(report: Report, path: Path) -> Report:
    """The report's picture written to `path`, and the report saying where
    (a path that cannot be written is one clear line, not a traceback)."""
    from shuffling.quality.plot import plot_report

    try:
        plot_report(report, path)
    except OSError as exc:
        _fail(f"cannot write the plot to {path}: {exc.strerror or exc}")
    return replace(report, plot=str(path))


def _pack_asked(pack_name: str | None, cards: int | None) -> Pack:
    """The pack of --pack or --cards (Samba when neither is given)."""
    from shuffling.limits import MAX_PACK_CARDS, MIN_PACK_CARDS, out_of_range
    from shuffling.packs import UnknownPackError, custom_pack, get_pack

    if pack_name is not None and cards is not None:
        _fail("give --pack or --cards, not both")
    if cards is not None:
        _refuse(out_of_range("--cards", cards, MIN_PACK_CARDS, MAX_PACK_CARDS))
        return custom_pack(cards)
    try:
        return get_pack("samba" if pack_name is None else pack_name)
    except UnknownPackError as exc:
        _fail(str(exc))


def _check_numbers(capacity: int, samples: int, rounds: int | None, seed: int) -> None:
    from shuffling.limits import (
        MAX_CAPACITY,
        MAX_ROUNDS,
        MAX_SAMPLES,
        MIN_CAPACITY,
        MIN_ROUNDS,
        MIN_SAMPLES,
        out_of_range,
    )

    _refuse(out_of_range("--capacity", capacity, MIN_CAPACITY, MAX_CAPACITY, "cards"))
    _refuse(out_of_range("--samples", samples, MIN_SAMPLES, MAX_SAMPLES))
    if rounds is not None:
        _refuse(out_of_range("--rounds", rounds, MIN_ROUNDS, MAX_ROUNDS))
    if seed < 0:
        _fail(f"--seed must be a whole number >= 0, not {seed}")


def _start_order(start: str | None, pack: Pack) -> str:
    """The order before shuffling: as asked, else Samba's gathered hand for multi-deck packs."""
    if start is None:
        return "samba" if pack.decks >= 2 else "new"
    if start == "samba" and pack.decks < 2:
        what = f"--cards {pack.cards} has no decks" if pack.loose else f"{pack.name} has {pack.decks}"
        _fail(f"--start samba needs a pack of at least two decks; {what}")
    return start


def _routines_asked(names: tuple[str, ...], machine: Machine, n: int, capacity: int) -> tuple:
    """The routines of --routine, each checked against the machine and the pack; by default every
    routine the machine's settings apply to, exact mode as the shuffler runs it and its other routine."""
    from shuffling.report_catalogue import REPORT_ROUTINES, default_routines

    for name in names:
        if name not in REPORT_ROUTINES:
            _fail(f"unknown routine {name!r}; valid routines: {', '.join(REPORT_ROUTINES)}")
    if not names:
        return default_routines(n, capacity, machine)
    chosen = tuple(REPORT_ROUTINES[name] for name in dict.fromkeys(names))
    for routine in chosen:
        why = routine.refuses(machine)
        if why is not None:
            _fail(f"--routine {routine.name} cannot be combined with these settings: {why}")
        why = routine.refuses_pack(n, capacity)
        if why is not None:
            _fail(f"--routine {routine.name}: {why}")
    return chosen


def _plot_path(given: str | None, pack: Pack) -> Path:
    """Where the picture goes, checked before any simulation: a known extension, an existing folder."""
    from shuffling.quality.plot import PlotNameError, plot_file

    try:
        path = plot_file(f"quality-{f'{pack.cards}-cards' if pack.loose else pack.name}.png" if given is None
                         else given)
    except PlotNameError as exc:
        _fail(str(exc))
    if not path.resolve().parent.is_dir():
        _fail(f"cannot write the plot to {path}: its folder does not exist")
    return path


def _run(settings: Settings) -> Report:
    """build_report with a progress bar on stderr when it is a terminal."""
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    from shuffling.quality.report import build_report, total_work

    from host import terminal

    console = Console(stderr=True)
    if not console.is_terminal or terminal.no_color():  # NO_COLOR: no escape codes, so no live bar
        return build_report(settings)
    with Progress(TextColumn("[progress.description]{task.description}"), BarColumn(),
                  TextColumn("{task.percentage:>3.0f}%"), TimeElapsedColumn(),
                  console=console, transient=True) as bar:
        task = bar.add_task("simulating shuffles", total=total_work(settings))
        return build_report(settings, progress=lambda units: bar.advance(task, units))


def _pm(e: Estimate | None, digits: int = 3) -> str:
    if e is None:
        return "-"
    if e.stderr > 0:
        # Enough decimals to show the error's first significant digit.
        digits = max(digits, min(8, 1 - math.floor(math.log10(e.stderr))))
    body = f"{e.value:.{digits}f}"
    if e.kind != "exact" and e.stderr > 0:
        body += f" ± {e.stderr:.{digits}f}"
    return ("at least " + body) if e.kind == "lower-bound" else body


def _distance(e: Estimate, shuffles: bool = True) -> str:
    from shuffling.quality.estimate import shown_lower_bound
    from shuffling.quality.words import bound_figure

    if not shuffles:
        return f"{e.value:.3f} (exact: never shuffled)"
    if e.kind == "exact" and e.value == 0:
        return "0 (exact)"  # exactly uniform, not a rounded figure
    if e.kind == "lower-bound" and shown_lower_bound(e) == 0:
        # Within noise of zero: the statistics cannot tell this pack from random.
        return "at least 0 (unresolved)"
    if e.kind == "lower-bound" and e.stderr == 0:
        # A bound with no simulation error: say which, with two significant digits when small.
        return f"at least {bound_figure(e.value)} ({e.method})"
    return _pm(e) + (" (exact)" if e.kind == "exact" else "")


def _gap(e: Estimate | None, random_chance: float) -> str:
    """A deal chance as its gap to a random pack's, so 0 is best, as in every column."""
    if e is None:
        return "-"
    gap = e.value - random_chance
    # Four decimals, five for an error that needs them; an error below that is left out.
    digits = 4 if e.stderr <= 0 else max(4, min(5, 1 - math.floor(math.log10(e.stderr))))
    error = f" ± {e.stderr:.{digits}f}" if e.stderr >= 0.5 * 10**-digits else ""
    side = "" if gap == 0 else (" fewer" if gap < 0 else " more")
    return f"{abs(gap):.{digits}f}{error}{side}"


def _reached(row: PassesNeeded) -> str:
    if row.kind == "never":
        return "never (the machine does not shuffle)"
    if row.kind == "exact":
        if row.passes is None:
            return f"not within {MAX_SEARCH_ROUNDS} rounds (exact)"
        exact = "0" if row.distance == 0 else f"{row.distance:.3f}"
        time = "" if row.seconds is None else f", about {duration(row.seconds)}"
        return f"pass {row.passes} (round {row.round}, exact {exact}){time}"
    return f"not before pass {row.not_before_pass} (lower bound)"


_START_WORDS = {"new": "new decks", "samba": "as gathered after a hand of Samba", "random": "random"}


def _print_tables(report: Report) -> None:
    from rich.console import Console

    from shuffling.quality import words

    from host import terminal

    console = Console(width=None if Console().is_terminal else 140,
                      color_system=None if terminal.no_color() else "auto")  # NO_COLOR: not even bold
    s = report.settings
    pack = report.pack
    console.print(f"[bold]{pack.title}[/bold]: {s.cards} cards ({pack.notes}).")
    start = "" if report.start is None else f" Starting order: {_START_WORDS[s.start]}."
    console.print(
        f"The machine holds {s.capacity} cards: {words.loads_phrase(list(s.loads))}.{start} "
        f"{s.samples:,} shuffles per point, seed {s.seed}."
    )
    for routine in report.routines:
        _print_routine(console, report, routine)
    _print_column_notes(console, report)
    _print_passes_needed(console, report)
    _print_reference(console, report)


def _print_routine(console: Console, report: Report, routine: RoutineResult) -> None:
    """One routine's table, round by round, and the lines that qualify its figures."""
    from rich.table import Table

    from shuffling.quality import words

    ref = report.reference
    deal = ref.deal_random if report.settings.deal else None
    table = Table(title=f"{routine.name}: {routine.description}", title_justify="left")
    table.add_column("round", justify="right")
    table.add_column("passes", justify="right")
    table.add_column("distance from random")
    table.add_column(f"guessing game (random: {ref.guessing_random:.2f})", justify="right")
    for m in deal or ():
        table.add_column(f"≥{m} of one meld: gap to random", justify="right")
    for r in routine.rounds:
        cells = [str(r.round), str(r.passes), _distance(r.distance, routine.shuffles), _pm(r.guessing, 2)]
        cells += [_gap(r.deal[m] if r.deal else None, v.exact) for m, v in (deal or {}).items()]
        table.add_row(*cells)
    console.print(table)
    law = [r.exact_lower_bound for r in routine.rounds]
    if any(e is not None for e in law):
        console.print(words.law_bounds_line(routine.name, law))
    upper = [r.upper_bound for r in routine.rounds]
    if any(u is not None for u in upper):
        console.print(words.upper_bounds_line(routine.name, upper))
    if not routine.shuffles:
        console.print(words.never_note())
    if routine.exact_routine is not None:
        console.print(words.exact_routine_line(routine.name, routine.exact_routine,
                                               routine.exact_routine.kind == "split"))


def _print_column_notes(console: Console, report: Report) -> None:
    """What each column says, and which routine is closer to random."""
    from shuffling.quality import words
    from shuffling.quality.comparison import SMALL_PACK_NOTE, comparison_notes
    from shuffling.quality.position_guessing import PICKED

    s = report.settings
    ref = report.reference
    rounds = [r for routine in report.routines for r in routine.rounds]
    console.print("What the columns say (lower is better in every one):")
    fitted = [routine.name for routine in report.routines
              if any(r.guessing.method.endswith(f"{PICKED})") for r in routine.rounds)]
    notes = [words.distance_note(), words.guessing_note(s.cards, ref.guessing_random) + " "
             + words.strategy_note(fitted)]
    if ref.deal_random and s.deal:
        notes.append(words.deal_note({m: v.exact for m, v in ref.deal_random.items()}, s.deal.players, s.deal.hand))
    if any(r.exact_lower_bound is not None for r in rounds):
        notes.append(words.law_bound_note())
    if any(r.upper_bound is not None for r in rounds):
        notes.append(words.upper_bound_note())
    for note in notes:
        console.print(f"  {note}")
    comparison = comparison_notes(report.routines)
    if comparison:
        console.print("Which routine is closer to random:")
        for note in [*comparison, SMALL_PACK_NOTE]:
            console.print(f"  {note}")


def _print_passes_needed(console: Console, report: Report) -> None:
    from rich.table import Table

    from shuffling.quality import words

    s = report.settings
    table = Table(title="Passes needed to reach each distance", title_justify="left")
    table.add_column("distance ≤", justify="right")
    for routine in report.routines:
        table.add_column(routine.name)
    for i, t in enumerate(s.thresholds):
        table.add_row(f"{t:g}", *[_reached(r.thresholds[i]) for r in report.routines])
    seven = report.reference.single_deck_seven_passes
    table.add_row(f"{seven.distance:.3f}*", *[_reached(r.landmarks.single_deck_seven) for r in report.routines])
    console.print(table)
    console.print(f"* a single {seven.cards}-card deck after {seven.passes} riffles is "
                  f"{seven.distance:.3f} from random (exact).")
    console.print(words.passes_note({t.kind for r in report.routines for t in r.thresholds}))


def _print_reference(console: Console, report: Report) -> None:
    """The home game's figure, a truly random pack's and deal's, and where the plot went."""
    ref = report.reference
    for routine in report.routines:
        home = routine.landmarks.home_game
        if home is not None:
            console.print(f"Home game, three passes of each load ({home.passes} machine passes), "
                          f"{routine.name}: {_distance(home.distance, routine.shuffles)}.")
    console.print(f"Truly random pack: guessing game {ref.guessing_random:.2f} (H_N, exact); "
                  f"simulated {_pm(ref.guessing_simulated, 2)}.")
    if ref.deal_random:
        for m, v in ref.deal_random.items():
            console.print(f"Truly random deal: P(a player gets ≥{m} of one meld) = {v.exact:.4f} "
                          f"(exact); simulated {_pm(v.simulated)}.")
    if report.plot is not None:
        console.print(f"Plot written to {report.plot}.")
