"""The device's reasons and the protocol's breaches in words
(host/device_words.py, host/device_messages.py): each sentence asserted once
here, from the fields a device line carries. Elsewhere the tests judge a
refusal by its fields (`why` and the values it names)."""
from __future__ import annotations

import pytest

from firmware import protocol
from host import device_messages, device_words

WORDED = [
    ({"why": protocol.WHY_METER, "mv": 9000, "meter_mv": 7000},
     "the board reads 9000 mV, the meter 7000 mV: more than 10 % apart"),
    ({"re": "feed", "why": protocol.WHY_RANGE, "field": "n", "lo": 1, "hi": 104}, "n: 1 to 104"),
    ({"why": protocol.WHY_FALLS, "by": -3000, "n": 52},
     "the reading falls by 3000 for 52 cards: the load cell's signal wires are swapped"),
]


@pytest.mark.parametrize("msg, words", WORDED)
def test_a_reason_is_worded_from_its_fields(msg: dict, words: str) -> None:
    assert device_words.why_words(msg) == words


def test_a_line_that_leaves_out_a_required_field_names_it() -> None:
    assert device_messages.problem({"ev": protocol.EV_DONE, "n": 1}) == "k is missing"
