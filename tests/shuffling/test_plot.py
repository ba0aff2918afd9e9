"""The report's picture, read from the figure's own artists: curves, bound regions, marks, ticks."""
from dataclasses import replace

import numpy as np
import pytest
from matplotlib.collections import PolyCollection
from matplotlib.lines import Line2D

from shuffling.packs import custom_pack, get_pack
from shuffling.quality.estimate import Estimate
from shuffling.quality.results import PassesNeeded, UpperBound
from shuffling.quality.plot import PlotNameError, bound_edge, draw_report, plot_file, plot_report
from shuffling.quality.report import Settings, build_report
from shuffling.quality.routines import Machine
from shuffling.report_catalogue import default_routines, report_routines


@pytest.fixture(scope="module")
def report():
    # Two loads of 30: stack-trade has lower bounds only, pile-trade and exact mode exact distances;
    # exact mode as the shuffler runs it (the split) and whole-pack radix beside it.
    settings = Settings(pack=custom_pack(60), n_cards=60, capacity=30, rounds=8, samples=400, seed=2,
                        start="new", routines=default_routines(60, 30, Machine()))
    return build_report(settings, workers=1)


def _by_gid(fig, prefix):
    ax = fig.axes[0]
    return {a.get_gid().split(":", 1)[1]: a for a in (*ax.lines, *ax.collections)
            if a.get_gid() and a.get_gid().startswith(prefix + ":")}


def _region(collection):
    """(x, lower edge, upper edge) of a fill_between region, from its polygon."""
    xy = collection.get_paths()[0].vertices
    xs = sorted(set(np.round(xy[:, 0], 9)))
    low = [xy[np.isclose(xy[:, 0], x), 1].min() for x in xs]
    high = [xy[np.isclose(xy[:, 0], x), 1].max() for x in xs]
    return xs, low, high


def _marks(fig, gid):
    """Every threshold mark of one kind and routine ("reached:pile-trade"), from all its collections."""
    ax = fig.axes[0]
    found = [c for c in ax.collections if c.get_gid() == gid]
    return sorted(tuple(xy) for c in found for xy in c.get_offsets().tolist())


def test_exact_distances_are_a_marker_per_round_with_dashed_joins(report):
    # Between rounds no pack is gathered: no solid line may read as a value at an odd pass.
    fig = draw_report(report)
    curves = _by_gid(fig, "exact")
    assert set(curves) == {"pile-trade", "exact", "exact-radix"}
    for name, line in curves.items():
        routine = report.routine(name)
        assert isinstance(line, Line2D) and line.get_linestyle() == "--" and line.get_marker() == "o"
        assert list(line.get_ydata()) == [r.distance.value for r in routine.rounds]
        assert list(line.get_xdata()) == [r.passes for r in routine.rounds]
    solid = [ln for ln in fig.axes[0].lines if ln.get_linestyle() == "-" and len(ln.get_xdata()) > 2]
    assert solid == []
    texts = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert "exact: a marker at the end of each round; joins only guide the eye" in texts
    # Exact mode's two routines, each labelled: the shuffler's at its own passes, the other beside it.
    assert curves["exact"].get_label() == "exact mode, the split (the shuffler's): exact distance"
    assert curves["exact-radix"].get_label() == "exact mode, whole-pack radix (the other routine): exact distance"
    split = report.routine("exact")
    assert [r.passes for r in split.rounds] == [2, 3, 4, 5, 6, 7, 8, 9]  # a split round, then a part's passes


def test_a_lower_bound_is_a_shaded_band_from_a_dashed_edge_up_to_the_upper_bound(report):
    fig = draw_report(report)
    stack = report.routine("stack-trade")
    assert not stack.exact
    assert "stack-trade" not in _by_gid(fig, "exact")  # no curve to read against an exact one
    region = _by_gid(fig, "bound")["stack-trade"]
    assert isinstance(region, PolyCollection) and 0 < region.get_alpha() < 0.5
    xs, low, high = _region(region)
    edges = [bound_edge(r.distance.value, r.distance.stderr) for r in stack.rounds]
    uppers = [r.upper_bound.value for r in stack.rounds]
    assert xs == [r.passes for r in stack.rounds]
    assert low == pytest.approx(edges) and high == pytest.approx(uppers)
    edge = _by_gid(fig, "bound-edge")["stack-trade"]
    assert edge.get_linestyle() == "--" and edge.get_marker() in ("None", None, "")
    assert list(edge.get_ydata()) == pytest.approx(edges)


def test_the_band_ends_at_the_simulated_upper_bound_labelled_with_its_confidence(report):
    assert all(r.upper_bound is not None and r.upper_bound.confidence == 0.975
               for r in report.routine("stack-trade").rounds)
    # Bounds that move, so the test sees the edge follow them (60 cards rarely meet within 8 rounds).
    def halfway(x):  # between the lower edge and 1
        return (1 + bound_edge(x.distance.value, x.distance.stderr)) / 2

    moved = replace(report, routines=tuple(
        replace(r, rounds=tuple(replace(x, upper_bound=UpperBound(halfway(x), 0.975, 1, 1, "coupling"))
                                for x in r.rounds)) if r.name == "stack-trade" else r for r in report.routines))
    stack = moved.routine("stack-trade")
    assert min(r.upper_bound.value for r in stack.rounds) < 0.9
    fig = draw_report(moved)
    _, _, high = _region(_by_gid(fig, "bound")["stack-trade"])
    assert high == pytest.approx([halfway(r) for r in stack.rounds])
    top = _by_gid(fig, "upper-edge")["stack-trade"]
    assert list(top.get_xdata()) == [r.passes for r in stack.rounds]
    assert list(top.get_ydata()) == pytest.approx([r.upper_bound.value for r in stack.rounds])
    assert top.get_linestyle() != "-" and top.get_marker() in ("None", None, "")
    assert top.get_label() == "stack-trade: at most this far, simulated by coupling (97.5% confidence)"
    # Without an upper bound the band reaches 1, and nothing claims an upper edge.
    bare = replace(report, routines=tuple(
        replace(r, rounds=tuple(replace(x, upper_bound=None) for x in r.rounds)) for r in report.routines))
    fig = draw_report(bare)
    assert _by_gid(fig, "upper-edge") == {}
    _, _, high = _region(_by_gid(fig, "bound")["stack-trade"])
    assert high == pytest.approx([1.0] * len(stack.rounds))
    assert "from its lower edge up to 1;" in fig.axes[0].get_legend().get_title().get_text()


def test_the_legend_says_the_truth_lies_anywhere_in_the_band(report):
    title = " ".join(draw_report(report).axes[0].get_legend().get_title().get_text().split())
    assert title == ("stack-trade: the true distance lies anywhere in its band, from its lower edge up to its "
                     "upper edge; where the lower edge runs below the markers of pile-trade, the split or "
                     "whole-pack radix, stack-trade is not shown to be closer to random.")
    exact_only = replace(report, routines=tuple(r for r in report.routines if r.exact))
    assert draw_report(exact_only).axes[0].get_legend().get_title().get_text() == ""


def test_threshold_marks_never_hide_each_other(report):
    """Marks of different routines on one threshold at one pass sit side by side, each still at its pass."""
    stack, pile, exact = (report.routine(n) for n in ("stack-trade", "pile-trade", "exact"))
    # All three at pass 12 on the first threshold: not before it, reached there, reached there.
    t = report.settings.thresholds[0]
    thresholds = {
        "stack-trade": (PassesNeeded(t, "lower-bound", not_before_round=6, not_before_pass=12, simulated_rounds=8),),
        "pile-trade": (PassesNeeded(t, "exact", round=6, passes=12, distance=0.4),),
        "exact": (PassesNeeded(t, "exact", round=6, passes=12, distance=0.0),),
    }
    crowded = replace(report, routines=tuple(replace(r, thresholds=thresholds[r.name]) for r in (stack, pile, exact)))
    fig = draw_report(crowded)
    ax = fig.axes[0]
    fig.canvas.draw()
    marks = [c for c in ax.collections if (c.get_gid() or "").split(":")[0] in ("reached", "not-before")]
    assert sorted(_marks(fig, f"{kind}:{name}")[0] for kind, name in
                  (("not-before", "stack-trade"), ("reached", "pile-trade"), ("reached", "exact"))) == [(12.0, t)] * 3
    centres = [tuple(c.get_offset_transform().transform(xy)) for c in marks for xy in c.get_offsets()]
    size = np.sqrt(marks[0].get_sizes()[0]) * fig.dpi / 72  # a mark's width in pixels
    assert len(centres) == 3
    for i, a in enumerate(centres):
        for b in centres[i + 1:]:
            assert np.hypot(a[0] - b[0], a[1] - b[1]) >= size
    # Side by side, and none further from its pass than half the gap to the next pass.
    x12, x10 = (ax.transData.transform((x, t))[0] for x in (12, 10))
    assert all(abs(c[0] - x12) < (x12 - x10) / 2 for c in centres)


def test_a_bound_region_is_clipped_at_zero(report):
    stack = report.routine("stack-trade")
    values = [(0.9, 0.01), (0.4, 0.05), (0.03, 0.02), (-0.04, 0.02)] + [(-0.01, 0.03)] * (len(stack.rounds) - 4)
    rounds = tuple(replace(r, distance=Estimate(v, e, "lower-bound", "test"))
                   for r, (v, e) in zip(stack.rounds, values))
    clipped = replace(report, routines=(replace(stack, rounds=rounds),))
    fig = draw_report(clipped)
    _, low, _ = _region(_by_gid(fig, "bound")["stack-trade"])
    edge = list(_by_gid(fig, "bound-edge")["stack-trade"].get_ydata())
    assert low == pytest.approx(edge)
    assert edge[:2] == pytest.approx([0.88, 0.3])
    assert min(edge) == 0.0 and edge[2:] == [0.0] * (len(edge) - 2)  # 0.03 - 2 x 0.02 < 0: clipped
    assert fig.axes[0].get_ylim()[0] == 0.0


def test_an_exact_law_bound_is_a_hatched_region_at_its_value(report):
    # Stack-trade's exact position laws give rigorous bounds with no simulation error.
    stack = report.routine("stack-trade")
    law = [r.exact_lower_bound for r in stack.rounds]
    assert all(e is not None and e.kind == "lower-bound" and e.stderr == 0 for e in law)
    fig = draw_report(report)
    region = _by_gid(fig, "law")["stack-trade"]
    assert region.get_hatch() and len(region.get_facecolor()) == 0  # hatched, not filled
    xs, low, high = _region(region)
    assert xs == [r.passes for r in stack.rounds]
    assert low == pytest.approx([max(0.0, e.value) for e in law])
    assert high == pytest.approx([r.upper_bound.value for r in stack.rounds])  # up to the band's top
    edge = _by_gid(fig, "law-edge")["stack-trade"]
    assert edge.get_linestyle() != "-" and list(edge.get_ydata()) == pytest.approx(low)
    texts = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert "stack-trade: at least this far, proven by an exact law (hatched)" in texts
    assert "edge of a hatched region: the exact-law bound, with no simulation error" in texts
    # Without exact laws there is no hatched region and no word of one.
    plain = replace(report, routines=tuple(
        replace(r, rounds=tuple(replace(x, exact_lower_bound=None) for x in r.rounds)) for r in report.routines))
    fig = draw_report(plain)
    assert _by_gid(fig, "law") == {}
    assert not any("hatched" in t.get_text() for t in fig.axes[0].get_legend().get_texts())


def test_a_bound_with_no_simulation_error_starts_at_its_value():
    assert bound_edge(0.61, 0.0) == 0.61
    assert bound_edge(0.61, 0.1) == pytest.approx(0.41)
    assert bound_edge(0.05, 0.1) == 0.0


def test_the_legend_explains_the_shading_and_the_marks(report):
    fig = draw_report(report)
    texts = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert "stack-trade: at least this far from random, simulated (shaded)" in texts
    assert any(t.startswith("edge of a shaded region: the lower bound less two errors") for t in texts)
    assert "pile-trade: exact distance" in texts and "exact mode, the split (the shuffler's): exact distance" in texts
    assert "first pass at or below a threshold (exact)" in texts
    assert "not before this pass (lower bound)" in texts


def test_the_passes_each_threshold_needs_are_marked(report):
    fig = draw_report(report)
    last = report.routines[0].rounds[-1].passes
    for routine in report.routines:
        reached = sorted((t.passes, t.threshold) for t in routine.thresholds
                         if t.kind == "exact" and t.passes is not None and t.passes <= last)
        ruled_out = sorted((t.not_before_pass, t.threshold) for t in routine.thresholds
                           if t.kind == "lower-bound" and t.not_before_pass <= last)
        for gid, points in (("reached", reached), ("not-before", ruled_out)):
            assert _marks(fig, f"{gid}:{routine.name}") == [(float(x), y) for x, y in points], (routine.name, gid)
    # Exact mode reaches every threshold at its routine's last pass: one mark per threshold there.
    for name in ("exact", "exact-radix"):
        exact = report.routine(name)
        assert exact.exact_routine is not None
        # (found beyond the rounds simulated where need be: the split of 60 cards has more than 8 rounds)
        assert {t.passes for t in exact.thresholds} == {exact.exact_routine.passes}
        assert sorted(x for x, _ in _marks(fig, f"reached:{name}")) == (
            [exact.exact_routine.passes] * len(report.settings.thresholds))


@pytest.mark.parametrize("rounds", [1, 3, 30])
def test_pass_ticks_are_whole_passes(rounds):
    settings = Settings(pack=get_pack("bridge"), n_cards=52, rounds=rounds, samples=3, seed=1, start="new",
                        routines=report_routines("pile-trade"))
    fig = draw_report(build_report(settings, workers=1))
    ax = fig.axes[0]
    ticks = [t for t in ax.get_xticks() if ax.get_xlim()[0] <= t <= ax.get_xlim()[1]]
    assert ticks and all(float(t).is_integer() for t in ticks)
    if rounds <= 20:
        assert ticks == list(range(1, rounds + 1))


def test_a_machine_that_never_shuffles_is_drawn_at_one():
    settings = Settings(pack=get_pack("bridge"), n_cards=52, rounds=4, samples=50, seed=1, start="new",
                        routines=report_routines("pile-trade"), machine=Machine(p=0.0))
    fig = draw_report(build_report(settings, workers=1))
    line = _by_gid(fig, "exact")["pile-trade"]
    assert list(line.get_ydata()) == [1.0] * 4 and line.get_label() == "pile-trade: never shuffles (exact)"
    assert "reached" not in {(a.get_gid() or "").split(":")[0] for a in fig.axes[0].collections}


@pytest.mark.parametrize("name, written", [("q.png", "q.png"), ("q", "q.png"), ("Q.SVG", "Q.SVG"),
                                           ("dir/q.pdf", "dir/q.pdf"), ("q.v2", None), ("x.txt", None),
                                           ("x.jpg", None), ("", None), ("foo/", None), (".png", None),
                                           ("..", None)])
def test_plot_file_names(name, written):
    if written is None:
        with pytest.raises(PlotNameError) as err:
            plot_file(name)
        message = str(err.value)
        assert "\n" not in message and name in message and message.startswith("cannot write the plot to ")
    else:
        assert str(plot_file(name)) == written


def test_a_plot_is_written_in_the_format_its_name_says(report, tmp_path):
    png = plot_report(report, tmp_path / "q")
    assert png == tmp_path / "q.png" and png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    svg = plot_report(report, tmp_path / "q.svg")
    assert b"<svg" in svg.read_bytes()[:400]
    pdf = plot_report(report, tmp_path / "q.pdf")
    assert pdf.read_bytes()[:5] == b"%PDF-"
