"""The report's picture: distance from uniform against machine passes.

Exact mode is a thick black step line with square markers (exact:
1 - 1/prod(m_j!) until its last round, then 0). Other exact distances are
solid lines with filled markers; lower bounds are dashed lines with hollow
markers and error bars (two standard errors),
since the true distance lies somewhere above them. Thresholds are dotted
horizontal lines; the home game's three passes of each load a dashed
vertical line, and one 52-card deck after seven riffles a dash-dot line.
"""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import matplotlib

matplotlib.use("Agg")  # files only, never a window

import matplotlib.pyplot as plt  # noqa: E402

from .words import loads_phrase  # noqa: E402

if TYPE_CHECKING:
    from .results import Report

_COLOURS = ("tab:blue", "tab:orange", "tab:green", "tab:red", "tab:purple")


def plot_report(report: Report, path: str | Path) -> Path:
    """Write the distance-vs-passes figure of `report` (from build_report) as PNG."""
    path = Path(path)
    fig, ax = plt.subplots(figsize=(8, 5), dpi=100)
    try:
        for colour, routine in zip(_COLOURS * 4, report.routines):
            rounds = routine.rounds
            passes = [r.passes for r in rounds]
            values = [r.distance.value for r in rounds]
            if routine.name == "exact":
                # Exact mode: a step down to 0 at its last round, drawn apart from the riffles.
                ax.plot(passes, values, "-s", color="black", linewidth=2.2, markersize=5,
                        drawstyle="steps-post", label="exact mode (exact)")
            elif routine.exact:
                ax.plot(passes, values, "-o", color=colour, label=f"{routine.name} (exact)")
            else:
                errors = [2 * r.distance.stderr for r in rounds]
                ax.errorbar(passes, values, yerr=errors, fmt="--o", color=colour, mfc="white",
                            capsize=2, label=f"{routine.name} (lower bound: at least)")
        for t in report.settings.thresholds:
            ax.axhline(t, color="grey", linestyle=":", linewidth=1)
            ax.annotate(f"{t:g}", xy=(1.0, t), xycoords=("axes fraction", "data"),
                        xytext=(3, 0), textcoords="offset points", va="center", fontsize=8,
                        color="grey")
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
                     f"{settings.samples:,} shuffles per point")
        ax.set_xlabel("machine passes")
        ax.set_ylabel("total variation distance from uniform")
        ax.set_ylim(-0.02, 1.02)
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8, loc="upper right")
        fig.tight_layout()
        fig.savefig(path, format="png")
    finally:
        plt.close(fig)
    return path
