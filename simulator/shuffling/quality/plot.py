"""The report's picture: distance from random against machine passes.

A distance is drawn as what it is. An exact distance is a solid curve with
filled markers. A lower bound only says "at least": it is a shaded region
reaching up to 1 above a thin dashed edge, never a curve that could be read
against an exact one. A rigorous bound from an exact law (stack-trade's
exact position laws, stack_exact.py) has no simulation error: it is a
hatched region above a dotted edge at its value. The edge sits two standard errors below the bound
(where the true distance lies above it with about 97.5% confidence; a bound
with no simulation error sits at its value), clipped at 0, since no distance
is negative. Thresholds are dotted lines; on each, a filled triangle marks
the pass where an exact curve first reaches it, and a hollow one the pass a
lower bound says it is not reached before. Pass ticks are whole passes. The
home game's three passes of each load is a dashed vertical line, and one
52-card deck after seven riffles a dash-dot line.

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

__all__ = ["PLOT_SUFFIXES", "PlotNameError", "plot_file", "bound_edge", "draw_report", "plot_report"]

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


def _draw_routine(ax: Axes, routine: RoutineResult, colour: str) -> None:
    passes = [r.passes for r in routine.rounds]
    name = routine.name
    title = routine.title
    if routine.exact:
        values = [r.distance.value for r in routine.rounds]
        what = "never shuffles (exact)" if not routine.shuffles else "exact distance"
        (line,) = ax.plot(passes, values, "-o", color=colour, linewidth=2, markersize=4,
                          label=f"{title}: {what}", zorder=3)
        line.set_gid(f"exact:{name}")
    else:
        edge = [bound_edge(r.distance.value, r.distance.stderr) for r in routine.rounds]
        region = ax.fill_between(passes, edge, [1.0] * len(edge), color=colour, alpha=0.13, linewidth=0,
                                 label=f"{title}: at least this far from random, simulated (shaded)", zorder=1)
        region.set_gid(f"bound:{name}")
        (line,) = ax.plot(passes, edge, linestyle="--", color=colour, linewidth=0.9, alpha=0.8, zorder=2)
        line.set_gid(f"bound-edge:{name}")
    law = [(r.passes, r.exact_lower_bound) for r in routine.rounds if r.exact_lower_bound is not None]
    if law and not routine.exact:
        # A rigorous bound from an exact law: no simulation error, so its edge is its value.
        xs = [x for x, _ in law]
        law_edge = [bound_edge(e.value, e.stderr) for _, e in law]
        hatched = ax.fill_between(xs, law_edge, [1.0] * len(xs), facecolor="none", edgecolor=colour, hatch="//",
                                  linewidth=0, alpha=0.3, zorder=1,
                                  label=f"{title}: at least this far, proven by an exact law (hatched)")
        hatched.set_gid(f"law:{name}")
        (line,) = ax.plot(xs, law_edge, linestyle=(0, (1, 1.5)), color=colour, linewidth=1.2, zorder=2)
        line.set_gid(f"law-edge:{name}")
    # Where this routine reaches each threshold (exact), or is not before (lower bound).
    reached = [(t.passes, t.threshold) for t in routine.thresholds if t.kind == "exact" and t.passes is not None
               and t.passes <= passes[-1]]
    ruled_out = [(t.not_before_pass, t.threshold) for t in routine.thresholds
                 if t.kind == "lower-bound" and t.not_before_pass is not None and t.not_before_pass <= passes[-1]]
    for points, marker, face, gid in ((reached, "v", colour, "reached"), (ruled_out, ">", "white", "not-before")):
        if points:
            xs, ys = zip(*points)
            dots = ax.scatter(xs, ys, marker=marker, s=60, facecolors=face, edgecolors=colour, linewidths=1.2,
                              zorder=4)
            dots.set_gid(f"{gid}:{name}")


def _legend_extras(report: Report) -> list[Artist]:
    """Legend entries for what the routines' own entries do not explain."""
    from matplotlib.lines import Line2D

    kinds = {t.kind for r in report.routines for t in r.thresholds}
    extras: list[Artist] = []
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
    from matplotlib.ticker import MaxNLocator

    fig = Figure(figsize=(9, 7), dpi=100)
    ax = fig.subplots()
    for colour, routine in zip(_COLOURS * 4, report.routines):
        _draw_routine(ax, routine, colour)
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
    handles, _ = ax.get_legend_handles_labels()
    # Below the axes, so it never hides a curve or a region.
    ax.legend(handles=handles + _legend_extras(report), fontsize=7.5, loc="upper center",
              bbox_to_anchor=(0.5, -0.12), ncol=2, frameon=False)
    fig.tight_layout()
    return fig


def plot_report(report: Report, path: str | Path) -> Path:
    """Write the figure of `report` to `path` (see plot_file) and return where it went."""
    path = plot_file(path)
    fig = draw_report(report)
    fig.savefig(path, format=path.suffix[1:].lower())
    return path
