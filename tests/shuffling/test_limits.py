"""One home for each limit: the modules that apply a limit take it from shuffling.limits."""
import ast
import math
import re
from pathlib import Path

import numpy as np
import pytest

from shuffling import limits
from shuffling.limits import (
    MAX_ENUMERATION_CARDS,
    MAX_EXACT_DISTANCE_CARDS,
    MAX_EXACT_MODE_CARDS,
    MAX_EXACT_MODE_LOADS,
    MAX_PACK_CARDS,
    MIN_SAMPLES,
    out_of_range,
)
from shuffling.packs import PACKS, custom_pack

ROOT = Path(__file__).resolve().parents[2]


def _firmware_constant(name: str) -> int:
    """A constant of firmware/exact.py, read from its source (it runs on MicroPython)."""
    tree = ast.parse((ROOT / "firmware" / "exact.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == name for t in node.targets):
            value = node.value
            if isinstance(value, ast.Call) and getattr(value.func, "id", None) == "const":
                value = value.args[0]  # micropython.const(literal)
            return ast.literal_eval(value)
    raise AssertionError(f"firmware/exact.py has no {name}")


def test_exact_mode_limits_are_the_firmware_s():
    assert MAX_EXACT_MODE_CARDS == _firmware_constant("MAX_CARDS")
    assert MAX_EXACT_MODE_LOADS == _firmware_constant("MAX_LOADS")
    # Codes of ceil(log2 N) bits fit the firmware's 16-bit array.
    assert math.ceil(math.log2(MAX_EXACT_MODE_CARDS)) <= 16


def test_every_accepted_pack_gets_exact_distances():
    assert max(p.cards for p in PACKS.values()) <= MAX_PACK_CARDS <= MAX_EXACT_DISTANCE_CARDS
    assert custom_pack(MAX_PACK_CARDS).cards == MAX_PACK_CARDS
    with pytest.raises(ValueError, match=f"{MAX_PACK_CARDS}"):
        custom_pack(MAX_PACK_CARDS + 1)


def test_enumeration_refuses_a_pack_past_its_limit():
    from shuffling.exact_mode.mistakes import all_arrangements
    from shuffling.quality.enumerate import round_law

    with pytest.raises(ValueError, match=f"{MAX_ENUMERATION_CARDS}"):
        all_arrangements(list(range(MAX_ENUMERATION_CARDS + 1)))
    with pytest.raises(ValueError, match=f"{MAX_ENUMERATION_CARDS}"):
        round_law("pile-trade", MAX_ENUMERATION_CARDS + 1, 104)


def test_lower_bounds_need_the_fewest_samples():
    from shuffling.quality.bounds import StatAccumulator

    acc = StatAccumulator(5)
    acc.update(np.tile(np.arange(5), (MIN_SAMPLES - 1, 1)))
    with pytest.raises(ValueError, match=f"at least {MIN_SAMPLES}"):
        acc.finish()


def test_no_module_keeps_its_own_copy_of_a_limit():
    # The old name meant five different limits; none of the Python the host runs defines it now.
    offenders = []
    for folder in ("simulator", "host"):
        for path in (ROOT / folder).rglob("*.py"):
            if "virtual" in path.parts:  # the virtual board runs on MicroPython, apart
                continue
            if re.search(r"^\s*MAX_CARDS\s*=", path.read_text(), re.MULTILINE):
                offenders.append(str(path.relative_to(ROOT)))
    assert offenders == []


@pytest.mark.parametrize("value, ok", [(1, True), (100, True), (0, False), (101, False), (True, False),
                                       (2.0, False)])
def test_out_of_range_refuses_all_but_a_whole_number_in_range(value, ok):
    # (its one line's words: tests/host/test_cli_errors.py)
    assert (out_of_range("--rounds", value, 1, 100) is None) == ok


def test_the_report_s_default_rounds_stay_within_what_it_accepts():
    assert limits.MAX_ROUNDS >= 16
