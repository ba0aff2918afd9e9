"""The report's figures: exact where known, honest lower bounds elsewhere."""
import json
import math
from collections import Counter
from fractions import Fraction

import pytest

from firmware import exact_routes
from shuffling import time_model
from shuffling.exact_mode.onlooker import onlooker_bits
from shuffling.exact_mode.physical import device_steps
from shuffling.limits import MAX_EXACT_DISTANCE_CARDS, MAX_PACK_CARDS
from shuffling.packs import custom_pack, get_pack
from shuffling.quality.riffle_distance import tv_riffle
from shuffling.quality.guessing import harmonic
from shuffling.quality.position_guessing import GUESSING_GAME, PICKED
from shuffling.quality.estimate import Estimate, shown_lower_bound
from shuffling.quality.report import Settings, build_report, default_rounds, passes_needed
from shuffling.quality.results import Report
from shuffling.report_catalogue import default_routines, report_routines
from shuffling.quality.routines import Machine

# Bayer and Diaconis (1992), table for 52 cards after k riffles, k = 1..10.
BAYER_DIACONIS_52 = [1.000, 1.000, 1.000, 1.000, 0.924, 0.614, 0.334, 0.167, 0.085, 0.043]


@pytest.fixture(scope="module")
def samba():
    # The default set: exact mode as the shuffler runs it for Samba (the split), whole-pack radix beside it.
    settings = Settings(pack=get_pack("samba"), n_cards=162, rounds=16, samples=3000, seed=4,
                        routines=default_routines(162, 104, Machine()))
    return build_report(settings)


@pytest.fixture(scope="module")
def bridge():
    settings = Settings(pack=get_pack("bridge"), n_cards=52, rounds=8, samples=2000, seed=1, start="new",
                        routines=report_routines())
    return build_report(settings)


def test_report_is_json(samba):
    again = json.loads(json.dumps(samba.to_dict()))
    assert again["pack"]["cards"] == 162
    assert again["settings"]["loads"] == [81, 81]
    assert again["settings"]["routines"] == ["stack-trade", "pile-trade", "exact", "exact-radix"]
    assert again["routines"][2]["exact_rounds"] == 14 and "exact_rounds" not in again["routines"][0]
    assert again["routines"][3]["exact_rounds"] == 8
    assert again["routines"][0]["rounds"][0]["deal"]["3"] == samba.routines[0].rounds[0].deal[3].to_dict()


def test_typed_results_round_trip_through_json(samba, bridge):
    # The JSON holds every figure: read back, it is the same report, attribute for attribute.
    for report in (samba, bridge):
        text = json.dumps(report.to_dict())
        again = Report.from_dict(json.loads(text))
        assert again == report
        assert json.dumps(again.to_dict()) == text
    with_plot = Report.from_dict({**bridge.to_dict(), "plot": "q.png"})
    assert with_plot.plot == "q.png" and with_plot.to_dict()["plot"] == "q.png"


def test_attributes_read_as_the_json_says(samba):
    d = samba.to_dict()
    for routine, rd in zip(samba.routines, d["routines"]):
        assert routine.name == rd["name"] and routine.exact == rd["exact"]
        for row, rowd in zip(routine.rounds, rd["rounds"]):
            assert row.distance.value == rowd["distance"]["value"]
            assert row.guessing.stderr == rowd["guessing"]["stderr"]
        for t, td in zip(routine.thresholds, rd["thresholds"]):
            assert t.kind == td["kind"] and t.threshold == td["threshold"]
    assert samba.routine("pile-trade") is samba.routines[1]


def test_single_deck_matches_bayer_diaconis(bridge):
    for routine in bridge.routines:
        if routine.name == "exact":
            continue  # exact mode is not a riffle: see the exact-mode tests below
        assert routine.exact and routine.passes_per_round == 1
        for r in routine.rounds:
            assert r.distance.kind == "exact"
            assert r.distance.value == pytest.approx(BAYER_DIACONIS_52[r.round - 1], abs=6e-4)
        by_threshold = {row.threshold: row for row in routine.thresholds}
        # 0.614 after six riffles, 0.334 after seven; 0.085 after nine, 0.043 after ten.
        assert by_threshold[0.5].passes == 7
        assert by_threshold[0.25].passes == 8
        assert by_threshold[0.1].passes == 9
        assert by_threshold[0.05].passes == 10  # found beyond the simulated rounds
    seven = bridge.reference.single_deck_seven_passes
    assert seven.distance == pytest.approx(0.334, abs=6e-4)


def test_no_deal_question_without_melds(bridge):
    assert bridge.settings.deal is None
    assert all(r.deal is None for r in bridge.routines[0].rounds)


def test_lower_bounds_never_exceed_the_exact_distance(samba):
    pile = next(r for r in samba.routines if r.name == "pile-trade")
    assert pile.exact
    for r in pile.rounds:
        lower, exact = r.lower_bound, r.distance.value
        assert lower.kind == "lower-bound"
        assert lower.value <= exact + 3 * lower.stderr + 1e-12


def test_stack_trade_has_only_lower_bounds(samba):
    stack = next(r for r in samba.routines if r.name == "stack-trade")
    assert not stack.exact
    assert all(r.distance.kind == "lower-bound" for r in stack.rounds)
    assert all(row.kind == "lower-bound" for row in stack.thresholds)
    # Early rounds are far from random, so the bound rules out the first passes.
    assert stack.rounds[0].distance.value > 0.9
    assert stack.thresholds[0].not_before_pass > 2


def test_passes_count_every_load(samba):
    for routine in samba.routines:
        if routine.name == "exact":  # the split: a round of two loads, then one pass a round, then random rounds
            assert routine.passes_per_round is None
            assert [r.passes for r in routine.rounds] == [*range(2, 16), 17, 19]
            continue
        assert routine.passes_per_round == 2
        assert [r.passes for r in routine.rounds] == [2 * k for k in range(1, 17)]


def test_home_game_landmark_is_three_passes_of_each_load(samba):
    for routine in samba.routines:
        home = routine.landmarks.home_game
        assert home.passes == 6
        at = next(r for r in routine.rounds if r.passes == 6)  # round 3, or the split's round 5
        assert at.round == (5 if routine.name == "exact" else 3)
        assert home.distance == at.distance and home.distance.method == at.distance.method


def test_guessing_falls_towards_the_random_figure(samba):
    n = 162
    ref = samba.reference
    assert ref.guessing_random == pytest.approx(harmonic(n))
    sim = ref.guessing_simulated
    assert abs(sim.value - harmonic(n)) < 4 * sim.stderr
    for routine in samba.routines:
        scores = [r.guessing.value for r in routine.rounds]
        assert scores[0] > 10 * harmonic(n)  # one round leaves long runs to read
        assert scores[-1] < scores[0]


def test_random_deal_simulated_agrees_with_exact(samba):
    for m, v in samba.reference.deal_random.items():
        sim = v.simulated
        assert abs(sim.value - v.exact) < 4 * sim.stderr, m


def test_figures_do_not_depend_on_the_number_of_workers():
    settings = Settings(pack=get_pack("canasta"), n_cards=108, rounds=3, samples=600, seed=9,
                        routines=report_routines())
    one = build_report(settings, workers=1)
    two = build_report(settings, workers=2)
    assert one == two


def test_progress_comes_in_the_calling_thread_while_jobs_run_in_others():
    import threading

    settings = Settings(pack=get_pack("canasta"), n_cards=108, rounds=2, samples=300, seed=3,
                        routines=report_routines())
    callers = set()
    build_report(settings, progress=lambda units: callers.add(threading.get_ident()), workers=4)
    assert callers == {threading.get_ident()}


class _FailingRoutine:
    """Pile-trade whose simulation fails after its first chunk."""

    def __init__(self) -> None:
        (self.inner,) = report_routines("pile-trade")

    def __getattr__(self, name):  # type: ignore[no-untyped-def]
        return getattr(self.inner, name)

    def simulate(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        stream = self.inner.simulate(*args, **kwargs)
        yield next(stream)
        raise RuntimeError("simulation failed")


def test_a_failing_job_raises_its_error_and_stops_the_others():
    import threading

    settings = Settings(pack=get_pack("canasta"), n_cards=108, rounds=3, samples=20_000, seed=3,
                        routines=(*report_routines("stack-trade"), _FailingRoutine()))
    from shuffling.quality.report import total_work

    ticks = []
    with pytest.raises(RuntimeError, match="simulation failed"):
        build_report(settings, progress=ticks.append, workers=3)
    assert not [t for t in threading.enumerate() if t.name.startswith("report-")]
    # Stack-trade stopped at its next chunk instead of running its 20,000 shuffles to the end.
    assert sum(ticks) < total_work(settings) / 2


def test_imperfect_machine_has_no_exact_figures():
    settings = Settings(pack=get_pack("canasta"), n_cards=108, rounds=3, samples=600, seed=2,
                        routines=report_routines("stack-trade", "pile-trade"), machine=Machine(p=0.5, clump=0.2))
    report = build_report(settings)
    for routine in report.routines:
        assert not routine.exact
        assert all(r.distance.kind == "lower-bound" for r in routine.rounds)


def test_threshold_rows_from_lower_bounds_say_not_before():
    def lower(value, err):
        return Estimate(value, err, "lower-bound", "test")

    distances = [lower(0.99, 0.01), lower(0.6, 0.01), lower(0.3, 0.01), lower(0.1, 0.03)]
    rows = passes_needed((0.5, 0.25, 0.05, 0.999), 2, distances, None)
    got = {row.threshold: row for row in rows}
    assert got[0.5].not_before_round == 3 and got[0.5].not_before_pass == 6
    assert got[0.25].not_before_round == 4
    # 0.1 - 2 x 0.03 = 0.04 does not clear 0.05: only rounds 1-3 are ruled out.
    assert got[0.05].not_before_round == 4
    assert got[0.999].not_before_round == 1  # nothing ruled out
    assert all(row.kind == "lower-bound" and row.simulated_rounds == 4 for row in rows)


def test_threshold_rows_of_a_machine_that_never_shuffles_say_never():
    rows = passes_needed((0.5, 0.05), 2, [], lambda r: 1.0, shuffles=False)
    assert [row.kind for row in rows] == ["never", "never"]
    assert rows[0].to_dict() == {"threshold": 0.5, "kind": "never"}


def test_default_rounds():
    # 52 cards: 0.085 after nine riffles, 0.043 after ten (Bayer and Diaconis).
    assert default_rounds(52) == 13
    assert default_rounds(162) == 16
    assert default_rounds(52, (0.5,)) == 10


def test_samba_start_needs_the_pack_cards():
    with pytest.raises(ValueError, match="162"):
        build_report(Settings(pack=get_pack("samba"), n_cards=150, rounds=1, samples=10,
                              routines=report_routines()))


def test_plot_is_a_png(bridge, tmp_path):
    from shuffling.quality.plot import plot_report

    path = plot_report(bridge, tmp_path / "bridge.png")
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 10_000


@pytest.mark.parametrize("workers", [1, 2])
def test_progress_adds_up_to_the_total_work(workers):
    from shuffling.quality.report import total_work

    settings = Settings(pack=get_pack("canasta"), n_cards=108, rounds=2, samples=500, seed=3,
                        routines=report_routines())
    ticks = []
    build_report(settings, progress=ticks.append, workers=workers)
    assert sum(ticks) == total_work(settings) == 500 * (3 * 2 + 1)  # three routines, the reference


def test_every_pack_the_tools_accept_gets_exact_figures():
    # The biggest pack `shuffler quality` and `shuffler plan` take has exact distances.
    assert MAX_EXACT_DISTANCE_CARDS >= MAX_PACK_CARDS >= 1000
    settings = Settings(pack=custom_pack(MAX_PACK_CARDS), n_cards=MAX_PACK_CARDS, rounds=1, samples=3, seed=1,
                        routines=report_routines("pile-trade"), start="new", thresholds=(0.25,))
    report = build_report(settings, workers=1)
    routine = report.routines[0]
    assert routine.exact and routine.rounds[0].distance.kind == "exact"
    row = routine.thresholds[0]
    assert row.kind == "exact"
    k = row.round
    assert tv_riffle(MAX_PACK_CARDS, k) <= 0.25 < tv_riffle(MAX_PACK_CARDS, k - 1)


def test_bigger_packs_get_lower_bounds_only():
    n = MAX_EXACT_DISTANCE_CARDS + 1
    settings = Settings(pack=get_pack("bridge"), n_cards=n, rounds=1, samples=50, seed=1,
                        routines=report_routines("pile-trade"), start="new")
    report = build_report(settings, workers=1)
    routine = report.routines[0]
    assert not routine.exact
    assert routine.rounds[0].distance.kind == "lower-bound"


# Exact mode beside the random-side routines.


def _exact_mode(report):
    return next(r for r in report.routines if r.name == "exact")


def test_exact_mode_distances_are_the_code_set_formula(samba, bridge):
    from collections import Counter
    from fractions import Fraction

    from shuffling.exact_mode.codes import device_code_set
    from shuffling.exact_mode.quality import exact_mode_tv

    # Whole-pack radix: beside the split for Samba, the shuffler's own routine for one deck.
    for report, n, name in ((samba, 162, "exact-radix"), (bridge, 52, "exact")):
        routine = report.routine(name)
        codes, _ = device_code_set(n, 104)
        b = math.ceil(math.log2(n))
        assert routine.exact and routine.exact_rounds == b
        for r in routine.rounds:
            k = r.round
            assert r.distance.kind == "exact" and r.distance.stderr == 0
            assert r.distance.value == float(exact_mode_tv(codes, min(k, b)))
            if k >= b:
                assert r.distance.value == 0.0
            else:
                assert r.distance.value > 0.5
        # Counted afresh: cards sharing their low k bits keep their order, so
        # the pack is uniform over N! / prod(m_j!) orders.
        for k in range(1, b):
            prod = math.prod(math.factorial(m) for m in Counter(c % 2**k for c in codes).values())
            assert routine.rounds[k - 1].distance.value == float(1 - Fraction(1, prod))
        # The time at the table to that pass: whole-pack radix's steps, by the one time model.
        radix = time_model.timing(es.step for es in device_steps(exact_routes.radix_route(n, 104))).total_s
        for row in routine.thresholds:
            assert row.to_dict() == {"threshold": row.threshold, "kind": "exact", "round": b,
                                     "passes": b * routine.passes_per_round, "distance": 0.0,
                                     "seconds": pytest.approx(radix)}
        assert routine.exact_routine.kind == "radix" and routine.exact_routine.passes == b * routine.passes_per_round
        assert routine.exact_routine.chosen == (name == "exact")
    assert [r.name for r in bridge.routines] == ["stack-trade", "pile-trade", "exact"]  # no split for one deck


def test_the_report_shows_the_split_the_shuffler_runs_for_samba(samba):
    """Exact mode's rows, thresholds and JSON are the routine the device chooses
    (firmware/exact_routes.route), with whole-pack radix beside it, labelled."""
    split, radix = samba.routine("exact"), samba.routine("exact-radix")
    route = exact_routes.route(162, 104)
    assert route.kind == "split" and (split.title, radix.title) == ("the split", "whole-pack radix")
    # Counted afresh from the parts: round 1 splits P (98) from Q (64); P's seven
    # passes then sort P by its codes' low bits, Q's six Q's, each class keeping its order.
    (p_lo, q_lo), (p_size, q_size) = route.part_lo, route.part_size
    assert (p_lo, p_size, q_lo, q_size) == (0, 98, 98, 64)

    def classes(k: int) -> list[int]:
        if k == 0:
            return [162]
        p = Counter(c % 2 ** min(k - 1, 7) for c in range(p_size))
        q = Counter(c % 2 ** max(0, k - 8) for c in range(q_size))
        return [*p.values(), *q.values()]

    for row in split.rounds:
        prod = math.prod(math.factorial(m) for m in classes(min(row.round, 14)))
        assert row.distance.kind == "exact" and row.distance.value == float(1 - Fraction(1, prod)), row.round
    assert split.rounds[13].distance.value == 0.0 and split.rounds[12].distance.value > 0.5
    assert split.exact_rounds == 14 and split.rounds[13].passes == 15
    # Passes needed and their time: the split's own steps.
    seconds = time_model.timing(es.step for es in device_steps(route)).total_s
    for row in split.thresholds:
        assert (row.kind, row.round, row.passes, row.distance) == ("exact", 14, 15, 0.0)
        assert row.seconds == pytest.approx(seconds)
    assert split.rounds[13].seconds == pytest.approx(seconds)
    # Which routine each is, in the JSON: the shuffler's, the other, with what counting the piles tells.
    d = json.loads(json.dumps(samba.to_dict()))["routines"]
    assert d[2]["exact_routine"] == {
        "kind": "split", "name": "the split", "chosen": True, "passes": 15, "seconds": pytest.approx(seconds),
        "distance": 0.0, "onlooker_bits": pytest.approx(onlooker_bits(route)),
        "order_bits": pytest.approx(math.lgamma(163) / math.log(2))}
    assert (d[3]["exact_routine"]["kind"], d[3]["exact_routine"]["chosen"], d[3]["exact_routine"]["passes"]) == (
        "radix", False, 16)
    assert d[3]["exact_routine"]["seconds"] > seconds
    assert d[2]["passes_per_round"] is None and [r["passes"] for r in d[2]["rounds"]][:3] == [2, 3, 4]


def test_every_round_carries_its_time_at_the_table_as_the_plan_times_it(bridge: Report) -> None:
    from shuffling.round_steps import round_steps

    for routine in bridge.routines:
        for r in routine.rounds:
            if routine.name == "pile-trade":  # one load: no cut, a round's steps again and again
                assert r.seconds == pytest.approx(time_model.timing(round_steps(["A"], [52]) * r.round).total_s)
            assert r.seconds > (routine.rounds[r.round - 2].seconds if r.round > 1 else 0)


def test_exact_mode_lower_bound_stays_below_the_exact_distance(samba):
    for r in _exact_mode(samba).rounds:
        lower = r.lower_bound
        assert lower.value <= r.distance.value + 3 * lower.stderr + 1e-12


def test_exact_mode_guessing_reaches_h_n_at_round_b_and_not_before(samba):
    n = 162
    for name, b in (("exact", 14), ("exact-radix", 8)):  # the split's rounds, then radix's
        rounds = samba.routine(name).rounds
        for r in rounds[b - 1:]:  # exactly uniform from round b on
            g = r.guessing
            assert abs(g.value - harmonic(n)) < 4 * g.stderr, (name, r.round)
        first = rounds[0].guessing
        # One round leaves two increasing runs, which the player reads off.
        assert first.value > 100 and first.value - harmonic(n) > 100 * first.stderr
        # One round short the old order still shows (the split: Q's last pass leaves pairs).
        assert rounds[b - 2].guessing.value - harmonic(n) > 10 * rounds[b - 2].guessing.stderr, name


def test_exact_mode_deal_after_the_last_round_is_the_random_deal(samba):
    for name in ("exact", "exact-radix"):
        last = samba.routine(name).rounds[-1].deal
        for m, v in samba.reference.deal_random.items():
            assert abs(last[m].value - v.exact) < 4 * last[m].stderr, (name, m)
        first = samba.routine(name).rounds[0].deal[3]
        assert first.value + 4 * first.stderr < samba.reference.deal_random[3].exact


def test_exact_mode_refuses_a_machine_it_does_not_run_on():
    for machine in (Machine(p=0.4), Machine(clump=0.1), Machine(double_feed=0.01)):
        with pytest.raises(ValueError, match="exact mode"):
            build_report(Settings(pack=get_pack("bridge"), n_cards=52, rounds=1, samples=10,
                                  routines=report_routines("exact"), machine=machine, start="new"))
    # The person's trade belongs to stack-trade: exact mode's figures are unchanged.
    reports = [build_report(Settings(pack=get_pack("bridge"), n_cards=52, rounds=6, samples=10,
                                     routines=report_routines("exact"), machine=Machine(trade_sd=sd), start="new"),
                            workers=1) for sd in (0.0, 3.0)]
    assert reports[0].routines == reports[1].routines
    assert reports[1].routines[0].rounds[-1].distance.value == 0.0


def test_exact_mode_alone_on_a_pack_of_many_loads():
    settings = Settings(pack=get_pack("hand-and-foot"), n_cards=270, rounds=27, samples=300, seed=5,
                        routines=report_routines("exact", "exact-radix"))
    report = build_report(settings, workers=1)
    split, radix = report.routines
    # Whole-pack radix: nine rounds of three loads.
    assert radix.passes_per_round == 3 and radix.exact_rounds == 9
    assert [r.passes for r in radix.rounds] == [3 * k for k in range(1, 28)]
    assert radix.rounds[8].distance.value == 0.0 and radix.rounds[7].distance.value > 0.99
    # The split: three parts after two split rounds (three loads, then two), 25 passes in all.
    route = exact_routes.route(270, 104)
    assert split.exact_routine.kind == "split" and split.exact_rounds == route.rounds
    assert [r.passes for r in split.rounds][:3] == [3, 5, 6]
    assert split.rounds[route.rounds - 1].passes == route.passes() == 25
    assert split.rounds[route.rounds - 1].distance.value == 0.0
    assert split.rounds[route.rounds - 2].distance.value > 0.99
    assert [r.passes for r in split.rounds][route.rounds:] == [25 + 3 * k for k in range(1, 28 - route.rounds)]


def test_a_machine_that_never_shuffles_never_reaches_a_threshold():
    # Bias 0: every card goes to the same side, so each round is one fixed
    # rearrangement and the pack only ever takes one order: 1 - 1/N! exactly.
    settings = Settings(pack=get_pack("bridge"), n_cards=52, rounds=4, samples=200, seed=3, start="new",
                        routines=report_routines("stack-trade", "pile-trade"), machine=Machine(p=0.0))
    report = build_report(settings, workers=1)
    for routine in report.routines:
        assert not routine.shuffles and routine.exact
        assert all(r.distance.kind == "exact" and r.distance.value == 1.0 for r in routine.rounds)
        assert [t.kind for t in routine.thresholds] == ["never"] * 4
        assert routine.landmarks.single_deck_seven.kind == "never"
    # One random coin a pass (every card follows the first) still shuffles, a little.
    clumped = build_report(Settings(pack=get_pack("bridge"), n_cards=52, rounds=2, samples=200, seed=3,
                                    start="new", routines=report_routines("pile-trade"),
                                    machine=Machine(clump=1.0)), workers=1)
    assert clumped.routines[0].shuffles and clumped.routines[0].thresholds[0].kind == "lower-bound"


def test_a_tiny_pack_that_never_shuffles_is_exactly_one_order_from_random():
    settings = Settings(pack=custom_pack(3), n_cards=3, rounds=2, samples=20, seed=1, start="new",
                        routines=report_routines("pile-trade"), machine=Machine(p=1.0), thresholds=(0.9, 0.5))
    routine = build_report(settings, workers=1).routines[0]
    assert [r.distance.value for r in routine.rounds] == [pytest.approx(5 / 6)] * 2
    # 5/6 is already at most 0.9 before any pass; 0.5 is never reached.
    assert routine.thresholds[0].kind == "exact" and routine.thresholds[0].round == 0
    assert routine.thresholds[1].kind == "never"


def test_stack_trade_carries_its_exact_law_bounds_and_fitted_guessing(samba):
    from shuffling.quality import stack_trade_laws

    stack = next(r for r in samba.routines if r.name == "stack-trade")
    pile = next(r for r in samba.routines if r.name == "pile-trade")
    expected = stack_trade_laws.exact_law_bounds("stack-trade", 162, 104, 16)
    for row, bound in zip(stack.rounds, expected):
        law = row.exact_lower_bound
        assert law == bound.estimate() and law.kind == "lower-bound" and law.stderr == 0
        # The strongest pair of positions, with the pair, while pairs are followed.
        assert row.pair_bound == bound.pair_bound()
        if row.pair_bound is not None:
            a, b = row.pair_bound.positions
            assert row.pair_bound.value <= law.value and (bound.method == stack_trade_laws.pair_method(a, b)) == (
                row.pair_bound.value == law.value)
        # The distance shown is the larger of the two bounds as the tables show them.
        lower = row.lower_bound
        assert row.distance == (law if law.value > shown_lower_bound(lower) else lower)
        assert row.guessing.method.endswith(f"{PICKED})")
    assert all(r.exact_lower_bound is None for r in pile.rounds)
    assert all(r.guessing.method == GUESSING_GAME for r in pile.rounds)
    assert [r.pair_bound is not None for r in stack.rounds] == [b.pair is not None for b in expected]
    assert stack.rounds[3].pair_bound.positions == (80, 161)
    # The JSON keeps the exact-law bound and the pair.
    back = Report.from_dict(json.loads(json.dumps(samba.to_dict())))
    back_stack = next(x for x in back.routines if x.name == "stack-trade")
    assert [r.exact_lower_bound for r in back_stack.rounds] == [r.exact_lower_bound for r in stack.rounds]
    assert [r.pair_bound for r in back_stack.rounds] == [r.pair_bound for r in stack.rounds]
    assert json.loads(json.dumps(samba.to_dict()))["routines"][0]["rounds"][3]["pair_bound"] == {
        "value": stack.rounds[3].pair_bound.value, "positions": [80, 161], "kind": "lower-bound"}


def test_fitted_guessing_is_not_below_the_inverse_riffle_strategy(samba):
    """Round 1 at 162 cards: the picked strategy names about two more cards (docs/mathematics.md)."""
    stack = next(r for r in samba.routines if r.name == "stack-trade")
    first = stack.rounds[0].guessing
    assert first.value > 119.5  # the inverse-riffle strategy scores 118.2 ± 0.1 with 3,000 packs


def test_stack_trade_carries_a_simulated_upper_bound_with_its_confidence(samba):
    from shuffling.quality.coupling import CONFIDENCE, COUPLING_SAMPLES

    stack, pile = samba.routine("stack-trade"), samba.routine("pile-trade")
    for row, pile_row in zip(stack.rounds, pile.rounds):
        upper = row.upper_bound
        assert upper is not None and upper.confidence == CONFIDENCE
        assert upper.samples == min(3000, COUPLING_SAMPLES) and 0 <= upper.apart <= upper.samples
        assert upper.value >= row.distance.value - 3 * row.distance.stderr  # above the lower bound
        assert upper.value >= pile_row.distance.value  # at 162 cards it never shows stack-trade closer
    assert all(r.upper_bound is None for routine in samba.routines if routine.exact for r in routine.rounds)
    first = json.loads(json.dumps(samba.to_dict()))["routines"][0]["rounds"][0]["upper_bound"]
    assert first == {"value": stack.rounds[0].upper_bound.value, "confidence": CONFIDENCE,
                     "apart": stack.rounds[0].upper_bound.apart, "samples": 3000, "kind": "upper-bound",
                     "method": "coupling: pairs of packs still apart"}


def test_the_distance_column_takes_the_rigorous_bound_wherever_it_is_the_larger():
    """Where the simulated bound is unresolved (it shows 0), a positive exact-law bound is shown instead."""
    settings = Settings(pack=get_pack("samba"), n_cards=162, rounds=16, samples=300, seed=2,
                        routines=report_routines("stack-trade"))
    stack = build_report(settings, workers=1).routines[0]
    unresolved = [r for r in stack.rounds if shown_lower_bound(r.lower_bound) == 0]
    assert unresolved, "300 shuffles leave the last rounds' simulated bounds unresolved"
    for row in stack.rounds:
        law, lower = row.exact_lower_bound, row.lower_bound
        assert law.value > 0  # every round proves something
        assert row.distance == (law if law.value > shown_lower_bound(lower) else lower)
    for row in unresolved:
        assert row.distance == row.exact_lower_bound and row.distance.stderr == 0
