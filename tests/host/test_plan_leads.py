"""`shuffler plan` leads with what `shuffler guide` runs: with the shuffler
connected, the exact routine the firmware takes (for Samba the split: its
passes in order and its time at a real table); random mode follows as the
alternative. Judged by its JSON, the plan's record (the printed lines' words:
tests/host/test_plan_cli.py)."""
from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from firmware import exact_routes
from host.commands.plan import plan
from shuffling import time_model
from shuffling.exact_mode.physical import device_steps

pytestmark = [pytest.mark.exact_mode]


def _run(*args: str) -> str:
    out = CliRunner().invoke(plan, list(args))
    assert out.exit_code == 0, out.output
    return out.output


def _dealt(route: exact_routes.Route) -> list[str]:
    """Every pass of the firmware's route, by the load it deals, in order."""
    return [route.name(r, j) for r in range(route.rounds) for j in range(route.loads[r])]


def test_samba_leads_with_the_split_the_guide_runs() -> None:
    route = exact_routes.route(162, 104)  # what the firmware takes when the guide asks for no routine
    assert route.kind == exact_routes.SPLIT
    assert _dealt(route) == ["A", "B"] + ["P"] * 7 + ["Q"] * 6
    data = json.loads(_run("--pack", "samba", "--json"))
    runs = data["guide_runs"]
    assert (runs["mode"], runs["routine"], runs["passes"]) == ("exact", route.kind, route.passes())
    # Its passes in order, as the plan gives them, are the firmware's, pass by pass.
    assert [x for seg in runs["passes_in_order"] for x in seg["loads"] * seg["each"]] == _dealt(route)
    # Every exact routine, and random mode as the alternative.
    assert {r["routine"] for r in data["exact_mode"]["routines"]} >= {exact_routes.SPLIT, exact_routes.RADIX}
    assert (data["rounds"], data["passes"]) == (10, 20)


def test_the_json_leads_with_what_the_guide_runs() -> None:
    data = json.loads(_run("--pack", "samba", "--json"))
    assert next(iter(data)) == "guide_runs"
    runs = data["guide_runs"]
    route = exact_routes.route(162, 104)
    seconds = time_model.timing(x.step for x in device_steps(route)).total_s
    assert (runs["mode"], runs["routine"], runs["passes"], runs["distance"]["value"]) == ("exact", "split", 15, 0.0)
    assert runs["time"]["total_s"] == round(seconds, 3)
    assert runs["passes_in_order"] == [{"loads": ["A", "B"], "each": 1}, {"loads": ["P"], "each": 7},
                                       {"loads": ["Q"], "each": 6}]
    assert data["passes"] == 20  # random mode's, the alternative, as before


@pytest.mark.parametrize("pack", ["hand-and-foot", "carolina", "bridge"])
def test_every_preset_leads_with_the_firmware_s_routine_and_its_passes_add_up(pack: str) -> None:
    data = json.loads(_run("--pack", pack, "--json"))
    runs = data["guide_runs"]
    route = exact_routes.route(data["pack"]["cards"], 104)
    assert (runs["routine"], runs["passes"]) == (route.kind, route.passes())
    assert sum(len(seg["loads"]) * seg["each"] for seg in runs["passes_in_order"]) == route.passes()


def test_a_pack_past_exact_mode_leads_with_random_mode() -> None:
    data = json.loads(_run("--cards", "600", "--json"))
    assert data["exact_mode"] is None
    assert data["guide_runs"]["mode"] == "random"
    assert (data["guide_runs"]["rounds"], data["guide_runs"]["passes"]) == (data["rounds"], data["passes"])
