"""A number with its standard error and what kind of number it is."""
from __future__ import annotations

import math
from dataclasses import dataclass

KINDS = ("exact", "lower-bound", "estimate")
# A lower bound within this many standard errors of 0 is unresolved: the
# tables read it "at least 0", since the statistics cannot tell the pack from random.
RESOLVED_ERRORS = 2.0


@dataclass(frozen=True)
class Estimate:
    """A distance (or other figure) with its provenance.

    kind is "exact" (stderr 0), "lower-bound" (the true value is at least
    `value`, up to the Monte Carlo error `stderr`) or "estimate" (an unbiased
    Monte Carlo figure with its standard error). `method` names how it was
    obtained, e.g. "descents" or "Bayer-Diaconis".
    """

    value: float
    stderr: float
    kind: str
    method: str

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"kind must be one of {KINDS}, not {self.kind!r}")
        if not self.stderr >= 0:  # also rejects NaN
            raise ValueError(f"stderr must be >= 0, not {self.stderr!r}")

    def __str__(self) -> str:
        digits = _digits(self.stderr)
        body = f"{self.value:.{digits}f}"
        if self.kind != "exact" and self.stderr > 0:
            body += f" ± {self.stderr:.{digits}f}"
        if self.kind == "lower-bound":
            body = "at least " + body
        tag = "exact" if self.kind == "exact" else self.method
        return f"{body} ({tag})"

    def to_dict(self) -> dict[str, float | str]:
        return {"value": self.value, "stderr": self.stderr, "kind": self.kind, "method": self.method}

    @classmethod
    def from_dict(cls, d: dict[str, float | str]) -> Estimate:
        return cls(float(d["value"]), float(d["stderr"]), str(d["kind"]), str(d["method"]))


def shown_lower_bound(e: Estimate) -> float:
    """What a lower bound shows in the tables: its value, or 0 where it is unresolved."""
    return e.value if e.value - RESOLVED_ERRORS * e.stderr > 0 else 0.0


def _digits(stderr: float) -> int:
    """Decimals enough to show the first significant digit of the error, at least 3."""
    if stderr <= 0 or not math.isfinite(stderr):
        return 3
    return max(3, min(8, 1 - math.floor(math.log10(stderr))))
