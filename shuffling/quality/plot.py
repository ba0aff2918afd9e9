"""The report's picture: distance from random against machine passes.

A distance is drawn as what it is, and only where a pack is gathered: after
each round. An exact distance is a filled marker per round; thin dashed
joins link them only to guide the eye, since between rounds (at the odd
passes of two loads) no gathered pack exists. A lower bound only says "at
least": it is a shaded region above a thin dashed edge, never a curve that
could be read against an exact one. A rigorous bound from an exact law
(stack-trade's exact position laws, stack_trade_laws.py) has no simulation
error: it is a hatched region above a dotted edge at its value. The edge
sits two standard errors below the bound (where the true distance lies
above it with about 97.5% confidence; a bound with no simulation error sits
at its value), clipped at 0, since no distance is negative. The regions
reach up to 1, or to the routine's simulated upper bound where it has one
(stack-trade's coupling, coupling.py), drawn as a dash-dot edge labelled
with its confidence: together they are the band the true distance lies in,
anywhere, and the legend's title says so. Thresholds are dotted lines; on
each, a filled triangle marks the pass where an exact curve first reaches
it, and a hollow one the pass a lower bound says it is not reached before;
marks that fall on one place sit side by side. Pass ticks are whole passes.
The home game's three passes of each load is a dashed vertical line, and
one 52-card deck after seven riffles a dash-dot line.

`plot_file` checks a file name before any work: a picture is PNG, SVG or
PDF, named so; a name without an extension gets ".png".
"""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from .words import loads_phrase

if TYPE_CHECKING:
    from matplotlib.artist import Artist
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from .results import Report, RoutineResult

__all__ = ["PLOT_SUFFIXES", "PlotNameError", "plot_file", "bound_edge", "band_note", "draw_report", "plot_report"]

PLOT_SUFFIXES = (".png", ".svg", ".pdf")
_COLOURS = ("tab:blue", "tab:orange", "tab:green", "tab:red", "tab:purple", "tab:brown")
# Tick every pass up to this many ticks; beyond, whole numbers chosen by matplotlib.
_MAX_TICKS = 20


class PlotNameError(ValueError):
    """A plot file name the picture cannot be written under."""


def plot_file(path: str | Path) -> Path:
    """The file the picture goes to: `path`, or `path` + '.png' when it has no extension."""
    kinds = f"{', '.join(PLOT_SUFFIXES[:-1])} or {PLOT_SUFFIXES[-1]}"
    text = str(path)
    if text.endswith(("/", "\\")) or Path(text).name in ("", ".", ".."):
        raise PlotNameError(f"cannot write the plot to {text!r}: give a file name ending in {kinds}")
    path = Path(text)
    if path.name.lower() in PLOT_SUFFIXES:
        raise PlotNameError(f"cannot write the plot to {path}: give a name before the {path.name}")
    if path.suffix == "":
        return path.with_name(path.name + ".png")
    if path.suffix.lower() not in PLOT_SUFFIXES:
        raise PlotNameError(f"cannot write the plot to {path}: a plot is a {kinds} file")
    return path


def bound_edge(value: float, stderr: float) -> float:
    """Where a lower bound's region starts: two errors below it, and never below 0."""
    return max(0.0, value - 2.0 * stderr)


def _upper_edge(routine: RoutineResult) -> list[float]:
    """Where a routine's band ends above: its simulated upper bound, or 1 where it has none."""
    return [1.0 if r.upper_bound is None else r.upper_bound.value for r in routine.rounds]


def _draw_routine(ax: Axes, routine: RoutineResult, colour: str) -> None:
    passes = [r.passes for r in routine.rounds]
    name = routine.name
    title = routine.title
    if routine.exact:
        values = [r.distance.value for r in routine.rounds]
        what = "never shuffles (exact)" if not routine.shuffles else "exact distance"
        device = routine.exact_routine
        if device is not None:  # exact mode: which routine, and whether the shuffler runs it
            whose = "the shuffler's" if device.chosen else "the other routine"
            title = f"exact mode, {title} ({whose})"
        # A marker per round; the thin dashed joins only link them: between rounds no pack is gathered.
        (line,) = ax.plot(passes, values, linestyle=_JOIN, marker="o", color=colour, linewidth=1.0, markersize=5,
                          label=f"{title}: {what}", zorder=3)
        line.set_gid(f"exact:{name}")
        return
    top = _upper_edge(routine)
    edge = [bound_edge(r.distance.value, r.distance.stderr) for r in routine.rounds]
    region = ax.fill_between(passes, edge, top, color=colour, alpha=0.13, linewidth=0,
                             label=f"{title}: at least this far from random, simulated (shaded)", zorder=1)
    region.set_gid(f"bound:{name}")
    (line,) = ax.plot(passes, edge, linestyle="--", color=colour, linewidth=0.9, alpha=0.8, zorder=2)
    line.set_gid(f"bound-edge:{name}")
    law = [(r.passes, r.exact_lower_bound, t) for r, t in zip(routine.rounds, top) if r.exact_lower_bound is not None]
    if law:
        # A rigorous bound from an exact law: no simulation error, so its edge is its value.
        xs = [x for x, _, _ in law]
        law_edge = [bound_edge(e.value, e.stderr) for _, e, _ in law]
        hatched = ax.fill_between(xs, law_edge, [t for _, _, t in law], facecolor="none", edgecolor=colour,
                                  hatch="//", linewidth=0, alpha=0.3, zorder=1,
                                  label=f"{title}: at least this far, proven by an exact law (hatched)")
        hatched.set_gid(f"law:{name}")
        (line,) = ax.plot(xs, law_edge, linestyle=(0, (1, 1.5)), color=colour, linewidth=1.2, zorder=2)
        line.set_gid(f"law-edge:{name}")
    upper = [r.upper_bound for r in routine.rounds]
    if all(u is not None for u in upper):
        confidence = min(u.confidence for u in upper if u is not None)
        (line,) = ax.plot(passes, top, linestyle=_UPPER, color=colour, linewidth=1.2, zorder=2,
                          label=f"{title}: at most this far, simulated by coupling ({confidence:.1%} confidence)")
        line.set_gid(f"upper-edge:{name}")


# An exact curve's joins between rounds, and a band's simulated upper edge.
_JOIN = (0, (5, 4))
_UPPER = (0, (6, 2, 1, 2))
# Threshold marks: their area in points squared, and the gap between the centres of marks
# that fall on one place, spread side by side so none hides another.
_MARK_AREA = 60
_MARK_SPACING = 11.0


def _threshold_marks(report: Report, last_pass: int) -> list[tuple[str, str, int, float]]:
    """(routine, kind, pass, threshold) of every mark: where a routine reaches a threshold
    (kind "reached", exact) or is not before (kind "not-before", from a lower bound)."""
    marks = []
    for routine in report.routines:
        for t in routine.thresholds:
            if t.kind == "exact" and t.passes is not None and t.passes <= last_pass:
                marks.append((routine.name, "reached", t.passes, t.threshold))
            elif t.kind == "lower-bound" and t.not_before_pass is not None and t.not_before_pass <= last_pass:
                marks.append((routine.name, "not-before", t.not_before_pass, t.threshold))
    return marks


def _draw_marks(fig: Figure, ax: Axes, report: Report, colours: dict[str, str], last_pass: int) -> None:
    """The threshold marks, each at its pass and threshold; marks that fall on one place are
    spread side by side (in points, so the data they mark stays where it is)."""
    from matplotlib.transforms import ScaledTranslation

    marks = _threshold_marks(report, last_pass)
    place: dict[tuple[int, float], list[int]] = {}
    for i, (_, _, x, y) in enumerate(marks):
        place.setdefault((x, y), []).append(i)
    shift = [0.0] * len(marks)
    for group in place.values():
        for k, i in enumerate(group):
            shift[i] = (k - (len(group) - 1) / 2) * _MARK_SPACING
    drawn: dict[tuple[str, str, float], list[tuple[int, float]]] = {}
    for (name, kind, x, y), dx in zip(marks, shift):
        drawn.setdefault((name, kind, dx), []).append((x, y))
    for (name, kind, dx), points in drawn.items():
        xs, ys = zip(*points)
        colour = colours[name]
        dots = ax.scatter(xs, ys, marker="v" if kind == "reached" else ">", s=_MARK_AREA,
                          facecolors=colour if kind == "reached" else "white", edgecolors=colour,
                          linewidths=1.2, zorder=4,
                          transform=ax.transData + ScaledTranslation(dx / 72, 0, fig.dpi_scale_trans))
        dots.set_gid(f"{kind}:{name}")


def _either(names: list[str]) -> str:
    """'a', 'a or b', 'a, b or c'."""
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " or " + names[-1]


def band_note(report: Report) -> str | None:
    """What a band means, for the routines drawn as one: the legend's title."""
    banded = [r for r in report.routines if not r.exact]
    if not banded:
        return None
    others = [r.title for r in report.routines if r.exact]
    lines = []
    for r in banded:
        top = "its upper edge" if all(x.upper_bound is not None for x in r.rounds) else "1"
        below = f" below the markers of {_either(others)}" if others else ""
        lines.append(f"{r.title}: the true distance lies anywhere in its band, from its lower edge up to {top};\n"
                     f"where the lower edge runs{below}, {r.title} is not shown to be closer to random.")
    return "\n".join(lines)


def _legend_extras(report: Report) -> list[Artist]:
    """Legend entries for what the routines' own entries do not explain."""
    from matplotlib.lines import Line2D

    kinds = {t.kind for r in report.routines for t in r.thresholds}
    extras: list[Artist] = []
    if any(r.exact for r in report.routines):
        extras.append(Line2D([], [], linestyle=_JOIN, marker="o", color="grey", linewidth=1.0, markersize=5,
                             label="exact: a marker at the end of each round; joins only guide the eye"))
    if any(not r.exact for r in report.routines):
        extras.append(Line2D([], [], linestyle="--", color="grey", linewidth=0.9,
                             label="edge of a shaded region: the lower bound less two errors, at least 0"))
    if any(r.exact_lower_bound is not None and not routine.exact for routine in report.routines
           for r in routine.rounds):
        extras.append(Line2D([], [], linestyle=(0, (1, 1.5)), color="grey", linewidth=1.2,
                             label="edge of a hatched region: the exact-law bound, with no simulation error"))
    if "exact" in kinds:
        extras.append(Line2D([], [], marker="v", linestyle="none", color="grey", markersize=8,
                             label="first pass at or below a threshold (exact)"))
    if "lower-bound" in kinds:
        extras.append(Line2D([], [], marker=">", linestyle="none", color="grey", markerfacecolor="white",
                             markersize=8, label="not before this pass (lower bound)"))
    return extras


def draw_report(report: Report) -> Figure:
    """The figure of `report` (from build_report), for plot_report to save or a test to inspect."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(9, 7.5), dpi=100)
    ax = fig.subplots()
    colours = {routine.name: colour for colour, routine in zip(_COLOURS * 4, report.routines)}
    for routine in report.routines:
        _draw_routine(ax, routine, colours[routine.name])
    _draw_references(ax, report)
    all_passes = _set_axes(ax, report)
    _draw_marks(fig, ax, report, colours, all_passes[-1] if all_passes else 0)
    handles, _ = ax.get_legend_handles_labels()
    # Below the axes, so it never hides a curve or a region; what a band means is its title.
    legend = ax.legend(handles=handles + _legend_extras(report), fontsize=7.5, loc="upper center",
                       bbox_to_anchor=(0.5, -0.12), ncol=2, frameon=False, title=band_note(report),
                       title_fontsize=8)
    legend.get_title().set_multialignment("left")
    fig.tight_layout()
    return fig


def _draw_references(ax: Axes, report: Report) -> None:
    """What the curves are read against: the thresholds, the home game's
    passes, and one 52-card deck after seven riffles."""
    for t in report.settings.thresholds:
        ax.axhline(t, color="grey", linestyle=":", linewidth=1, zorder=0)
        ax.annotate(f"{t:g}", xy=(1.0, t), xycoords=("axes fraction", "data"), xytext=(3, 0),
                    textcoords="offset points", va="center", fontsize=8, color="grey")
    homes = [r.landmarks.home_game for r in report.routines if r.landmarks.home_game]
    if homes:
        ax.axvline(homes[0].passes, color="grey", linestyle="--", linewidth=0.8,
                   label=f"home game: three passes of each load ({homes[0].passes} passes)")
    seven = report.reference.single_deck_seven_passes
    ax.axhline(seven.distance, color="black", linestyle="-.", linewidth=0.8,
               label=f"one 52-card deck after 7 riffles: {seven.distance:.3f} (exact)")


def _set_axes(ax: Axes, report: Report) -> list[int]:
    """The title, the labels and the scales (a tick at each pass a round
    ends on, while they are few); returns those passes, in order."""
    from matplotlib.ticker import MaxNLocator

    pack = report.pack
    settings = report.settings
    ax.set_title(f"{pack.title}: {settings.cards} cards in {loads_phrase(list(settings.loads))}, "
                 f"{settings.samples:,} shuffles per point", fontsize=10)
    ax.set_xlabel("machine passes")
    ax.set_ylabel("total variation distance from random")
    ax.set_ylim(0.0, 1.02)  # no distance is negative
    all_passes = sorted({r.passes for routine in report.routines for r in routine.rounds})
    if all_passes:
        ax.set_xlim(0, all_passes[-1] + all_passes[0] / 2)
    if len(all_passes) <= _MAX_TICKS:
        ax.set_xticks(all_passes)
    else:
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.grid(True, alpha=0.3)
    return all_passes


def plot_report(report: Report, path: str | Path) -> Path:
    """Write the figure of `report` to `path` (see plot_file) and return where it went."""
    path = plot_file(path)
    fig = draw_report(report)
    fig.savefig(path, format=path.suffix[1:].lower())
    return path
