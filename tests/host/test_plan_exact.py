"""`shuffler plan` shows exact mode next to random mode: whole-pack radix and
the split, with their passes and modelled times, the shuffler's choice first."""
from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from host import plan as planlib
from host.commands.plan import plan
from shuffling import time_model
from shuffling.exact_mode.codes import n_bits
from shuffling.exact_mode.physical import exact_steps, split_steps
from shuffling.quality.riffle_distance import tv_riffle
from firmware import exact_routes

pytestmark = [pytest.mark.exact_mode]


def test_samba_plan_offers_the_split_in_15_passes_beside_whole_pack_radix_in_16() -> None:
    split = time_model.timing(x.step for x in split_steps(exact_routes.split_route(162, 104))).total_s
    radix = time_model.timing(x.step for x in exact_steps(162, 104, uneven=True)).total_s
    assert split < radix
    data = json.loads(CliRunner().invoke(plan, ["--pack", "samba", "--json"]).output)
    assert (data["rounds"], data["passes"]) == (10, 20)  # random mode, 'good'
    ex = data["exact_mode"]
    assert (ex["routine"], ex["passes"], ex["distance"]["value"]) == ("split", 15, 0.0)
    assert (ex["device_choice"], ex["asked"], data["guide_runs"]["routine"]) == ("split", None, "split")
    assert ex["time"]["total_s"] == round(split, 3)
    assert [(r["routine"], r["passes"], r["time"]["total_s"]) for r in ex["routines"]] == \
        [("radix", 16, round(radix, 3)), ("split", 15, round(split, 3))]
    assert ex["parts"] == [{"load": "P", "cards": 98}, {"load": "Q", "cards": 64}]
    # The same eight rounds at random leave the pack far from random.
    assert tv_riffle(162, 8) > 0.7


def test_canasta_takes_10_passes_pipelined_and_a_pack_that_fits_keeps_ceil_log2_n() -> None:
    data = json.loads(CliRunner().invoke(plan, ["--pack", "canasta", "--json"]).output)["exact_mode"]
    assert (data["routine"], data["passes"]) == ("pipelined", 10)
    assert {r["routine"]: r["passes"] for r in data["routines"]} == {"radix": 14, "split": 11, "pipelined": 10}
    assert f'{data["onlooker"]["bits"]:.2f}' == "0.93" and [r["round"] for r in data["onlooker"]["rounds"]][0] == 2
    for cards in (52, 100, 104):
        data = json.loads(CliRunner().invoke(plan, ["--cards", str(cards), "--json"]).output)["exact_mode"]
        assert (data["routine"], data["passes"], len(data["routines"])) == ("radix", n_bits(cards), 1)


def test_exact_schedule_is_the_device_routine_and_has_limits() -> None:
    for cards, capacity in ((52, 104), (104, 104), (162, 104), (300, 104), (512, 104), (300, 60)):
        ex = planlib.exact_schedule(cards, capacity)
        route = exact_routes.route(cards, capacity)
        assert ex is not None and (ex.routine, ex.rounds, ex.passes) == (route.kind, route.rounds, route.passes())
        assert ex.timing.total_s == min(x.timing.total_s for x in planlib.exact_schedules(cards, capacity))
        radix = [x for x in planlib.exact_schedules(cards, capacity) if x.routine == "radix"][0]
        assert radix.rounds == n_bits(cards) and 2 ** (radix.rounds - 1) < cards <= 2 ** radix.rounds
        assert radix.passes == radix.rounds * -(-cards // capacity)
    assert planlib.exact_schedule(513, 104) is None
    assert planlib.exact_schedule(100, 3) is None  # 34 loads: more than A to Z
    beyond = json.loads(CliRunner().invoke(plan, ["--cards", "600", "--json"]).output)
    assert beyond["exact_mode"] is None and beyond["guide_runs"]["mode"] == "random"


def test_shuffler_flash_deploys_exact_mode_for_every_board(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from firmware import build

    for board in ("esp32", "rp2", "sim"):
        image = build.build_image(board, tmp_path / board)
        remote = {f.remote for f in image}
        assert {"exact.mpy", "exact_codes.mpy", "controller.mpy"} <= remote, board


def test_the_plan_says_what_counting_the_piles_tells_from_each_routines_own_code_set() -> None:
    from shuffling.exact_mode.onlooker import onlooker

    data = json.loads(CliRunner().invoke(plan, ["--pack", "samba", "--json"]).output)["exact_mode"]
    for entry in data["routines"]:
        seen = onlooker(exact_routes.route(162, 104, entry["routine"]))
        assert entry["onlooker"] == seen.to_dict() and entry["onlooker"]["fixed"] is False
        assert [r["round"] for r in entry["onlooker"]["rounds"]] == [1]  # the first round's piles, nothing after
        # In words, to the precision docs/exact-mode.md states: 3.7 bits of the 960.3 of a random order.
        assert f"{seen.bits:.1f}" == "3.7" and f"{seen.order_bits:.1f}" == "960.3"
    # A pack that fits the tray is dealt as one load: every count fixed, nothing told.
    one = json.loads(CliRunner().invoke(plan, ["--pack", "bridge", "--json"]).output)["exact_mode"]
    assert one["onlooker"] == {"bits": 0.0, "order_bits": pytest.approx(225.58, abs=0.01), "fixed": True,
                               "rounds": []}


def test_routine_chooses_which_exact_routine_the_plan_describes() -> None:
    data = json.loads(CliRunner().invoke(plan, ["--pack", "samba", "--routine", "radix", "--json"]).output)
    ex = data["exact_mode"]
    assert (ex["routine"], ex["passes"], ex["asked"], ex["device_choice"]) == ("radix", 16, "radix", "split")
    default = json.loads(CliRunner().invoke(plan, ["--pack", "samba", "--json"]).output)["exact_mode"]
    assert (default["routine"], default["asked"], default["device_choice"]) == ("split", None, "split")
    assert ex["routines"] == default["routines"]  # both routines beside it, whichever is described
    split = json.loads(CliRunner().invoke(plan, ["--pack", "canasta", "--routine", "split", "--json"]).output)
    assert (split["exact_mode"]["routine"], split["exact_mode"]["passes"]) == ("split", 11)
    # The exact routine does not change random mode's plan.
    assert {k: v for k, v in data.items() if k not in ("exact_mode", "guide_runs")} == {
        k: v for k, v in json.loads(CliRunner().invoke(plan, ["--pack", "samba", "--json"]).output).items()
        if k not in ("exact_mode", "guide_runs")}
    assert (data["guide_runs"]["mode"], data["guide_runs"]["routine"]) == ("exact", "radix")  # what the guide runs
    # What the guide will take: the schedule of the routine asked for.
    assert planlib.exact_schedule(162, 104, "radix").routine == "radix"
    assert planlib.exact_schedule(162, 104).routine == "split"
    with pytest.raises(planlib.PlanError, match="no split"):
        planlib.exact_schedule(52, 104, "split")
