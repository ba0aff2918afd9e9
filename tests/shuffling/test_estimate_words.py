"""An Estimate's printed form (shuffling/quality/estimate.py): its figure to
the digits its error allows, the error, and its kind or method."""
from __future__ import annotations

from shuffling.quality.estimate import Estimate


def test_an_estimate_prints_its_kind() -> None:
    assert str(Estimate(0.4123, 0.0031, "lower-bound", "descents")) == "at least 0.4123 ± 0.0031 (descents)"
    assert str(Estimate(0.33406, 0.0, "exact", "Bayer-Diaconis")) == "0.334 (exact)"
    assert str(Estimate(3.1, 0.02, "estimate", "guessing")) == "3.100 ± 0.020 (guessing)"
