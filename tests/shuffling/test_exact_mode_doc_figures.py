"""docs/exact-mode.md's audited figures are what the code gives: the
repair enumeration's cases, the pack sizes where the split takes one or two
passes more than whole-pack radix, what dealing Samba's parts again costs,
the distance before the last round with either code set, and the pipelined
routine's quoted steps and figures."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from firmware import exact_routes
from shuffling import steps as step_kinds
from shuffling import time_model
from shuffling.exact_mode import repair
from shuffling.exact_mode.codes import code_set, n_bits
from shuffling.exact_mode.onlooker import onlooker_bits
from shuffling.exact_mode.physical import route_steps
from shuffling.exact_mode.quality import exact_mode_log2_gap

pytestmark = pytest.mark.exact_mode

DOC_TEXT = (Path(__file__).resolve().parents[2] / "docs" / "exact-mode.md").read_text()
DOC = " ".join(DOC_TEXT.split())


def _cases(smallest: int, largest: int) -> int:
    return sum(len(repair.part_passes(rt)) * len(repair.SLIPS)
               for n in range(smallest, largest + 1) for rt in repair.split_routes(n, n))


def test_the_repair_enumeration_counts_its_cases_as_the_doc_says() -> None:
    found = re.search(r"exact_mode_repair\.py` 4 to 8; (\d+) cases", DOC)
    assert found is not None
    assert int(found.group(1)) == _cases(4, 8) == 396
    assert f"of the {_cases(4, 7)} cases of 4 to 7 cards" in DOC


def _ranges(sizes: list[int]) -> str:
    runs: list[list[int]] = []
    for n in sizes:
        if runs and runs[-1][1] == n - 1:
            runs[-1][1] = n
        else:
            runs.append([n, n])
    return " and ".join(f"{a} to {b}" for a, b in runs)


def test_where_the_split_takes_more_passes_than_whole_pack_radix() -> None:
    extra: dict[int, list[int]] = {}
    for n in range(105, 513):
        split = exact_routes.split_route(n, 104)
        more = split.passes() - exact_routes.radix_route(n, 104).passes()
        if more > 0:
            extra.setdefault(more, []).append(n)
    assert sorted(extra) == [1, 2]
    assert (f"even where it takes a pass more ({_ranges(extra[1])} cards on a 104-card tray) "
            f"or two passes more ({_ranges(extra[2])} cards)") in DOC


def test_dealing_a_part_of_samba_again_costs_its_passes_without_the_gather() -> None:
    samba = exact_routes.split_route(162, 104)
    (p, q) = samba.part_size
    said = (f"Samba's P: {n_bits(p)} passes, about {time_model.duration(exact_routes.part_ms(p) / 1000)} at the "
            f"table; Q: {n_bits(q)}, about {time_model.duration(exact_routes.part_ms(q) / 1000)};")
    assert said in DOC
    assert "1 min 11 s" not in DOC  # Q's passes with the routine's gather, which comes once either way


@pytest.mark.parametrize("rounds", [6, 7])
def test_the_rounds_table_gives_both_code_sets(rounds: int) -> None:
    row = re.search(rf"\| {rounds} \| ([^|]+) \|", DOC)
    assert row is not None
    balanced = exact_mode_log2_gap(code_set(162, 104), rounds)
    uneven = exact_mode_log2_gap(code_set(162, 104, uneven=True), rounds)
    assert n_bits(162) == 8 > rounds
    words = [f"{-g:.1f}".removesuffix(".0") for g in (balanced, uneven)]
    assert row.group(1).strip() == f"1 - 2^-{words[0]} (balanced set; 1 - 2^-{words[1]} with the device's uneven set)"


def test_the_pipelined_routine_s_section_quotes_its_steps_and_figures() -> None:
    section = DOC_TEXT.split("## The pipelined routine", 1)[1].split("\n## ", 1)[0]
    said = {step_kinds.words(es.step) for es in route_steps(exact_routes.route(108, 104))}
    quoted = [ln[2:] for ln in section.splitlines() if ln.startswith("> ")]
    assert len(quoted) == 5 and all(q in said for q in quoted)
    pipe, split = exact_routes.route(108, 104), exact_routes.split_route(108, 104)
    assert f"10 passes, about {time_model.duration(pipe.ms / 1000)}, against the split's 11 " \
           f"({time_model.duration(split.ms / 1000)})" in " ".join(section.split())
    assert f"{onlooker_bits(pipe):.2f} bits of the 578.4" in " ".join(section.split())
