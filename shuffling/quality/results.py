"""The quality report's figures as typed results.

`build_report` (report.py) returns a `Report`; the tables, the plot and the
words read its attributes. `to_dict()` gives the JSON the command prints
(`shuffler quality --json`), and `from_dict()` reads it back, field for
field. Deal chances are keyed by the number of cards from one meld (3, 4);
in JSON those keys are strings.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from shuffling.packs import DECK_SIZE, Pack

from .estimate import Estimate
from .routines import Machine

__all__ = [
    "PassesNeeded", "RoundResult", "HomeGame", "ExactRoutineResult", "Landmarks", "RoutineResult", "DealRules", "Section",
    "MeldSummary", "StartSummary", "RandomDeal", "Landmark", "Reference", "ReportSettings", "Report", "PairBound",
    "UpperBound",
    "pack_to_dict", "pack_from_dict",
]

# How a threshold's passes are known: from an exact distance, only from a
# lower bound ("not before pass X"), or never (a machine with no randomness).
PASSES_KINDS = ("exact", "lower-bound", "never")


@dataclass(frozen=True)
class PassesNeeded:
    """When the distance first falls to `threshold`.

    exact: `round` (None when not within the rounds searched), `passes` and
    the exact `distance` there. lower-bound: only rounds up to
    `not_before_round` - 1 are ruled out (their lower bound clears the
    threshold by two errors). never: every round leaves the pack in one
    fixed order, so no threshold below 1 is ever reached.
    """

    threshold: float
    kind: str
    round: int | None = None
    passes: int | None = None
    distance: float | None = None
    not_before_round: int | None = None
    not_before_pass: int | None = None
    simulated_rounds: int | None = None
    seconds: float | None = None  # exact: the modelled time at the table to that pass

    def __post_init__(self) -> None:
        if self.kind not in PASSES_KINDS:
            raise ValueError(f"kind must be one of {PASSES_KINDS}, not {self.kind!r}")

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"threshold": self.threshold, "kind": self.kind}
        if self.kind == "exact":
            out.update(round=self.round, passes=self.passes)
            if self.round is not None:
                out["distance"] = self.distance
                out["seconds"] = self.seconds
        elif self.kind == "lower-bound":
            out.update(not_before_round=self.not_before_round, not_before_pass=self.not_before_pass,
                       simulated_rounds=self.simulated_rounds)
        return out

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> PassesNeeded:
        return cls(**d)


def _estimates(d: dict[str, dict[str, Any]]) -> dict[str, Estimate]:
    return {k: Estimate.from_dict(v) for k, v in d.items()}


@dataclass(frozen=True)
class PairBound:
    """The strongest pair of positions an exact law was searched over, after one round.

    value: the exact distance from random of which two cards lie at
    `positions`, a rigorous lower bound on the pack's distance with no
    simulation error (stack_trade_laws.py).
    """

    value: float
    positions: tuple[int, int]

    def to_dict(self) -> dict[str, Any]:
        return {"value": self.value, "positions": list(self.positions), "kind": "lower-bound"}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> PairBound:
        a, b = d["positions"]
        return cls(float(d["value"]), (int(a), int(b)))


@dataclass(frozen=True)
class UpperBound:
    """A simulated upper bound on the distance from random, with its confidence.

    The distance is at most `value` with probability `confidence` over the
    simulation: value is the one-sided Clopper-Pearson limit for `apart` of
    `samples` coupled pairs of packs still apart (coupling.py).
    """

    value: float
    confidence: float
    apart: int
    samples: int
    method: str

    def to_dict(self) -> dict[str, Any]:
        return {"value": self.value, "confidence": self.confidence, "apart": self.apart, "samples": self.samples,
                "kind": "upper-bound", "method": self.method}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> UpperBound:
        return cls(float(d["value"]), float(d["confidence"]), int(d["apart"]), int(d["samples"]), str(d["method"]))


@dataclass(frozen=True)
class RoundResult:
    """One round of one routine: the figures at the end of the round."""

    round: int
    passes: int
    distance: Estimate  # exact where known, else the best lower bound
    lower_bound: Estimate  # the statistics' lower bound, every routine
    statistics: dict[str, Estimate]
    guessing: Estimate
    deal: dict[int, Estimate] | None  # at least m cards of one meld -> chance
    # A rigorous lower bound with no simulation error, from exact laws of a
    # statistic (stack-trade: stack_trade_laws.py); None where none is computed.
    exact_lower_bound: Estimate | None = None
    # The strongest pair of positions searched, with its bound, where pairs were followed.
    pair_bound: PairBound | None = None
    # A simulated upper bound with its confidence (stack-trade: coupling.py); None where none is simulated.
    upper_bound: UpperBound | None = None
    seconds: float = 0.0  # the modelled time at the table to the end of the round (time_model.py)

    def to_dict(self) -> dict[str, Any]:
        return {
            "round": self.round,
            "passes": self.passes,
            "seconds": self.seconds,
            "distance": self.distance.to_dict(),
            "lower_bound": self.lower_bound.to_dict(),
            "exact_lower_bound": None if self.exact_lower_bound is None else self.exact_lower_bound.to_dict(),
            "pair_bound": None if self.pair_bound is None else self.pair_bound.to_dict(),
            "upper_bound": None if self.upper_bound is None else self.upper_bound.to_dict(),
            "statistics": {k: v.to_dict() for k, v in self.statistics.items()},
            "guessing": self.guessing.to_dict(),
            "deal": None if self.deal is None else {str(m): e.to_dict() for m, e in self.deal.items()},
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> RoundResult:
        return cls(
            round=d["round"], passes=d["passes"], distance=Estimate.from_dict(d["distance"]),
            lower_bound=Estimate.from_dict(d["lower_bound"]), statistics=_estimates(d["statistics"]),
            guessing=Estimate.from_dict(d["guessing"]),
            deal=None if d["deal"] is None else {int(m): Estimate.from_dict(e) for m, e in d["deal"].items()},
            exact_lower_bound=None if d.get("exact_lower_bound") is None
            else Estimate.from_dict(d["exact_lower_bound"]),
            pair_bound=None if d.get("pair_bound") is None else PairBound.from_dict(d["pair_bound"]),
            upper_bound=None if d.get("upper_bound") is None else UpperBound.from_dict(d["upper_bound"]),
            seconds=d["seconds"],
        )


@dataclass(frozen=True)
class ExactRoutineResult:
    """The exact routine a routine's rounds are (exact mode: whole-pack radix or the
    split, firmware/exact_routes.py): its passes and modelled time at the table,
    after which the pack is exactly uniform; whether the device chooses it for
    this pack (`chosen`); and what an onlooker who counts its piles learns of
    the order, in bits (shuffling/exact_mode/onlooker.py), of the `order_bits`
    a uniform order holds."""

    kind: str  # "radix" or "split"
    name: str  # "whole-pack radix" or "the split"
    chosen: bool
    passes: int
    seconds: float
    onlooker_bits: float
    order_bits: float

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "name": self.name, "chosen": self.chosen, "passes": self.passes,
                "seconds": self.seconds, "distance": 0.0, "onlooker_bits": self.onlooker_bits,
                "order_bits": self.order_bits}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> ExactRoutineResult:
        return cls(d["kind"], d["name"], d["chosen"], d["passes"], d["seconds"], d["onlooker_bits"],
                   d["order_bits"])


@dataclass(frozen=True)
class HomeGame:
    """'Three passes suit a home game': three rounds, and the distance then."""

    rounds: int
    passes: int
    distance: Estimate

    def to_dict(self) -> dict[str, Any]:
        return {"rounds": self.rounds, "passes": self.passes, "distance": self.distance.to_dict()}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> HomeGame:
        return cls(d["rounds"], d["passes"], Estimate.from_dict(d["distance"]))


@dataclass(frozen=True)
class Landmarks:
    home_game: HomeGame | None  # None when fewer rounds were simulated
    single_deck_seven: PassesNeeded  # where the routine is as close as one deck after seven riffles

    def to_dict(self) -> dict[str, Any]:
        return {"home_game": None if self.home_game is None else self.home_game.to_dict(),
                "single_deck_seven": self.single_deck_seven.to_dict()}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Landmarks:
        home = d["home_game"]
        return cls(None if home is None else HomeGame.from_dict(home),
                   PassesNeeded.from_dict(d["single_deck_seven"]))


@dataclass(frozen=True)
class RoutineResult:
    """A routine's part of the report.

    exact: every round's distance is exact. shuffles: False for a machine
    whose rounds have no randomness at all (a coin that always says the same
    side): the pack then only ever takes one order. exact_rounds: the round
    from which the pack is exactly uniform, for a routine that gets there
    (exact mode), else None; exact_routine: which exact routine the rounds
    are. passes_per_round: None where rounds take different numbers of
    passes (the split: a split round deals every load of its stack, a part's
    round one pass); every round carries its passes.
    """

    name: str
    title: str
    description: str
    passes_per_round: int | None
    exact: bool
    rounds: tuple[RoundResult, ...]
    thresholds: tuple[PassesNeeded, ...]
    landmarks: Landmarks
    shuffles: bool = True
    exact_rounds: int | None = None
    exact_routine: ExactRoutineResult | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "name": self.name,
            "title": self.title,
            "description": self.description,
            "passes_per_round": self.passes_per_round,
            "exact": self.exact,
            "shuffles": self.shuffles,
        }
        if self.exact_rounds is not None:
            out["exact_rounds"] = self.exact_rounds
        if self.exact_routine is not None:
            out["exact_routine"] = self.exact_routine.to_dict()
        out.update(
            rounds=[r.to_dict() for r in self.rounds],
            thresholds=[t.to_dict() for t in self.thresholds],
            landmarks=self.landmarks.to_dict(),
        )
        return out

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> RoutineResult:
        return cls(
            name=d["name"], title=d["title"], description=d["description"], passes_per_round=d["passes_per_round"],
            exact=d["exact"], rounds=tuple(RoundResult.from_dict(r) for r in d["rounds"]),
            thresholds=tuple(PassesNeeded.from_dict(t) for t in d["thresholds"]),
            landmarks=Landmarks.from_dict(d["landmarks"]), shuffles=d["shuffles"],
            exact_rounds=d.get("exact_rounds"),
            exact_routine=None if d.get("exact_routine") is None else ExactRoutineResult.from_dict(d["exact_routine"]),
        )


@dataclass(frozen=True)
class DealRules:
    """The next deal: `hand` cards to each of `players`, round the table."""

    players: int
    hand: int
    at_least: tuple[int, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"players": self.players, "hand": self.hand, "at_least": list(self.at_least)}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> DealRules:
        return cls(d["players"], d["hand"], tuple(d["at_least"]))


@dataclass(frozen=True)
class Section:
    name: str
    first: int
    end: int


@dataclass(frozen=True)
class MeldSummary:
    kind: str
    team: int
    cards: int


@dataclass(frozen=True)
class StartSummary:
    """The starting order the deal question uses: its sections and melds."""

    name: str
    sections: tuple[Section, ...]
    melds: tuple[MeldSummary, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "sections": [{"name": s.name, "first": s.first, "end": s.end} for s in self.sections],
            "melds": [{"kind": m.kind, "team": m.team, "cards": m.cards} for m in self.melds],
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> StartSummary:
        return cls(d["name"], tuple(Section(**s) for s in d["sections"]),
                   tuple(MeldSummary(**m) for m in d["melds"]))


@dataclass(frozen=True)
class RandomDeal:
    """A truly random pack's chance, exactly and as simulated."""

    exact: float
    simulated: Estimate

    def to_dict(self) -> dict[str, Any]:
        return {"exact": self.exact, "simulated": self.simulated.to_dict()}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> RandomDeal:
        return cls(d["exact"], Estimate.from_dict(d["simulated"]))


@dataclass(frozen=True)
class Landmark:
    """One 52-card deck after seven riffles (the rules' 'about seven'), exactly."""

    cards: int
    passes: int
    distance: float

    def to_dict(self) -> dict[str, Any]:
        return {"cards": self.cards, "passes": self.passes, "distance": self.distance, "kind": "exact"}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Landmark:
        return cls(d["cards"], d["passes"], d["distance"])


@dataclass(frozen=True)
class Reference:
    """The truly random pack: what every figure is compared with."""

    guessing_random: float  # H_N, exact
    guessing_simulated: Estimate
    deal_random: dict[int, RandomDeal] | None
    single_deck_seven_passes: Landmark

    def to_dict(self) -> dict[str, Any]:
        return {
            "guessing_random": self.guessing_random,
            "guessing_simulated": self.guessing_simulated.to_dict(),
            "deal_random": None if self.deal_random is None
            else {str(m): v.to_dict() for m, v in self.deal_random.items()},
            "single_deck_seven_passes": self.single_deck_seven_passes.to_dict(),
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Reference:
        deal = d["deal_random"]
        return cls(d["guessing_random"], Estimate.from_dict(d["guessing_simulated"]),
                   None if deal is None else {int(m): RandomDeal.from_dict(v) for m, v in deal.items()},
                   Landmark.from_dict(d["single_deck_seven_passes"]))


def _machine_to_dict(m: Machine) -> dict[str, float]:
    return {"bias": m.p, "clump": m.clump, "double_feed": m.double_feed, "trade_sd": m.trade_sd}


@dataclass(frozen=True)
class ReportSettings:
    """What the report was built from, as it reads in the output (routines by name)."""

    cards: int
    capacity: int
    loads: tuple[int, ...]
    rounds: int
    samples: int
    seed: int
    start: str
    routines: tuple[str, ...]
    thresholds: tuple[float, ...]
    machine: Machine
    deal: DealRules | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "cards": self.cards, "capacity": self.capacity, "loads": list(self.loads), "rounds": self.rounds,
            "samples": self.samples, "seed": self.seed, "start": self.start, "routines": list(self.routines),
            "thresholds": list(self.thresholds), "machine": _machine_to_dict(self.machine),
            "deal": None if self.deal is None else self.deal.to_dict(),
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> ReportSettings:
        m = d["machine"]
        return cls(
            cards=d["cards"], capacity=d["capacity"], loads=tuple(d["loads"]), rounds=d["rounds"],
            samples=d["samples"], seed=d["seed"], start=d["start"], routines=tuple(d["routines"]),
            thresholds=tuple(d["thresholds"]),
            machine=Machine(p=m["bias"], clump=m["clump"], double_feed=m["double_feed"], trade_sd=m["trade_sd"]),
            deal=None if d["deal"] is None else DealRules.from_dict(d["deal"]),
        )


def pack_to_dict(p: Pack) -> dict[str, Any]:
    return {"name": p.name, "title": p.title, "decks": p.decks, "jokers": p.jokers, "cards": p.cards,
            "notes": p.notes}


def pack_from_dict(d: dict[str, Any]) -> Pack:
    loose = d["cards"] - d["decks"] * DECK_SIZE - d["jokers"]
    return Pack(name=d["name"], title=d["title"], decks=d["decks"], jokers=d["jokers"], notes=d["notes"],
                loose=loose)


@dataclass(frozen=True)
class Report:
    """Every figure of `shuffler quality` (see report.py)."""

    pack: Pack
    settings: ReportSettings
    start: StartSummary | None
    routines: tuple[RoutineResult, ...]
    reference: Reference
    plot: str | None = None  # where the picture was written, if it was

    def routine(self, name: str) -> RoutineResult:
        for r in self.routines:
            if r.name == name:
                return r
        raise KeyError(name)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "pack": pack_to_dict(self.pack),
            "settings": self.settings.to_dict(),
            "start": None if self.start is None else self.start.to_dict(),
            "routines": [r.to_dict() for r in self.routines],
            "reference": self.reference.to_dict(),
        }
        if self.plot is not None:
            out["plot"] = self.plot
        return out

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Report:
        return cls(
            pack=pack_from_dict(d["pack"]), settings=ReportSettings.from_dict(d["settings"]),
            start=None if d["start"] is None else StartSummary.from_dict(d["start"]),
            routines=tuple(RoutineResult.from_dict(r) for r in d["routines"]),
            reference=Reference.from_dict(d["reference"]), plot=d.get("plot"),
        )
