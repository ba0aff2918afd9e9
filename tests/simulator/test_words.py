"""Counts in words for the report's titles and routine descriptions."""
import pytest

from simulator.quality.routines import load_sizes
from simulator.quality.words import loads_phrase, number


def test_numbers():
    assert [number(k) for k in (0, 1, 2, 10, 11, 1500)] == ["zero", "one", "two", "ten", "11", "1,500"]


@pytest.mark.parametrize(
    "n, capacity, text",
    [
        (52, 104, "one load of 52"),
        (162, 104, "two loads of 81"),
        (109, 104, "two loads of 55 and 54"),
        (271, 104, "three loads: one of 91 and two of 90"),
        (1000, 2, "500 loads of 2"),
    ],
)
def test_loads_read_as_prose(n, capacity, text):
    assert loads_phrase(load_sizes(n, capacity)) == text


@pytest.mark.parametrize("bad", [[], [81, 79], [80, 81]])
def test_loads_phrase_refuses_uneven_loads(bad):
    with pytest.raises(ValueError):
        loads_phrase(bad)
