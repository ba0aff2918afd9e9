"""`shuffler plan` shows exact mode next to random mode."""
from __future__ import annotations

import json

from click.testing import CliRunner

from host import plan as planlib
from host.plan_cmd import plan
from simulator.shuffling.exact_mode.codes import n_bits
from simulator.shuffling.quality.exact import tv_riffle


def test_samba_plan_shows_eight_exact_rounds_next_to_random_mode() -> None:
    out = CliRunner().invoke(plan, ["--pack", "samba"])
    assert out.exit_code == 0
    assert "Rounds: 10 (20 passes)" in out.output  # random mode, 'good'
    assert "Exact mode" in out.output
    assert "Rounds: 8 (16 passes); distance from random after them: exactly 0" in out.output
    data = json.loads(CliRunner().invoke(plan, ["--pack", "samba", "--json"]).output)
    ex = data["exact_mode"]
    assert (ex["rounds"], ex["passes"], ex["distance"]["value"]) == (8, 16, 0.0)
    # The same eight rounds at random leave the pack far from random.
    assert tv_riffle(162, 8) > 0.7


def test_exact_schedule_is_ceil_log2_rounds_and_has_limits() -> None:
    for cards, capacity in ((52, 104), (104, 104), (162, 104), (300, 104), (512, 104)):
        ex = planlib.exact_schedule(cards, capacity)
        assert ex is not None and ex.rounds == n_bits(cards) and 2 ** (ex.rounds - 1) < cards <= 2 ** ex.rounds
        assert ex.passes == ex.rounds * -(-cards // capacity)
    assert planlib.exact_schedule(513, 104) is None
    assert planlib.exact_schedule(100, 3) is None  # 34 loads: more than A to Z
    out = CliRunner().invoke(plan, ["--cards", "600"])
    assert "Exact mode: not available" in out.output


def test_shuffler_flash_deploys_exact_mode_for_every_board(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from host import flashing

    for board in ("esp32", "rp2", "sim"):
        image = flashing.build_image(board, tmp_path / board)
        remote = {f.remote for f in image}
        assert {"exact.mpy", "exact_codes.mpy", "controller.mpy"} <= remote, board
