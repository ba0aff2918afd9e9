"""The shuffle-quality report for a pack: every figure, as typed results.

`build_report(settings)` simulates each routine round by round and returns a
`Report` (results.py; `to_dict()` is the JSON):

* per routine and round (a round is every load through the machine once, so
  round r ends at machine pass r x loads; the split's rounds are a split
  round's loads or one pass of a part, and each routine says where its
  rounds end, ReportRoutine.passes): the distance from uniform, exact
  where the routine knows it and otherwise the best lower bound ("at
  least"): Monte Carlo, or for stack-trade the rigorous bound of an exact
  position law (stack_trade_laws.py) wherever it is larger than the Monte Carlo
  bound as shown (0 where that is unresolved); for stack-trade
  also an upper bound simulated by coupling, with its confidence
  (coupling.py); the
  guessing-game score, with the better strategy for the routine
  (position_guessing.py); the deal question's chances;
* per routine and threshold: the pass at which the distance first falls to
  the threshold (exact), or, where only lower bounds are known, the honest
  statement "not before pass X": the distance after k identical, independent
  rounds never rises with k, so a lower bound above the threshold at round r
  (by more than two standard errors) rules out every round up to r; or
  "never", on a machine whose rounds have no randomness at all (a coin that
  always says the same side), where the pack only ever takes one order and
  its distance is exactly 1 - 1/N! in every round;
* landmarks from the rules: three passes of each load for a home game, and
  the exact distance of a single 52-card deck after seven riffles;
* the truly random references: H_N for the guessing game, and the deal
  question both exactly and by simulation of uniform decks.

Every routine is a ReportRoutine (report_routine.py) and is treated alike:
stack-trade and pile-trade, and exact mode, the device's default, as the
shuffler runs it for the pack and its other routine beside it, which live
with the rest of exact mode (shuffling/exact_mode/report_routine.py).
shuffling/report_catalogue.py names them all.
"""
from __future__ import annotations

import math
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from queue import Empty, SimpleQueue
from typing import Any

import numpy as np

from shuffling.limits import MAX_EXACT_DISTANCE_CARDS, MAX_SEARCH_ROUNDS
from shuffling.packs import Pack
from shuffling.start_orders import StartOrder, start_order

from .bounds import RoundStats, best_lower_bound
from .coupling import COUPLING_SAMPLES, coupling_upper_bounds
from .deal import HAND, PLAYERS, most_from_one_meld, random_deal_probability
from .estimate import Estimate, shown_lower_bound
from .riffle_distance import tv_riffle, tv_riffle_exact
from .guessing import harmonic
from .position_guessing import CrossFitGuessing, guessing_for
from .report_routine import ReportRoutine
from .results import (
    DealRules,
    HomeGame,
    Landmark,
    Landmarks,
    MeldSummary,
    PassesNeeded,
    RandomDeal,
    Reference,
    Report,
    ReportSettings,
    RoundResult,
    RoutineResult,
    Section,
    StartSummary,
    UpperBound,
)
from .routines import Machine, load_sizes
from .stack_trade_laws import ExactBound, exact_law_bounds

DEFAULT_THRESHOLDS = (0.5, 0.25, 0.1, 0.05)
DEFAULT_CAPACITY = 104
DEFAULT_SAMPLES = 100_000
# The default number of rounds stops here (--rounds may ask for more).
DEFAULT_MAX_ROUNDS = 16
DEAL_AT_LEAST = (3, 4)
HOME_GAME_PASSES = 3  # "three passes suit a home game": three passes of each load
SINGLE_DECK = 52
SINGLE_DECK_PASSES = 7  # "about seven bring a single 52-card deck to near-random"
# A lower bound rules a threshold out only when it clears it by this many errors.
SIGNIFICANCE = 2.0
CHUNK = 10_000
# Card-rows per simulated chunk, so memory stays bounded for big packs.
CHUNK_ELEMENTS = 2_000_000
NEVER_SHUFFLED = "one fixed order: the machine never shuffles"


def _chunk(n_cards: int) -> int:
    return max(1, min(CHUNK, CHUNK_ELEMENTS // n_cards))


@dataclass(frozen=True, kw_only=True)
class Settings:
    """Everything a report depends on. `routines` come from shuffling.report_catalogue."""

    pack: Pack
    n_cards: int
    routines: tuple[ReportRoutine, ...]
    capacity: int = DEFAULT_CAPACITY
    rounds: int = DEFAULT_MAX_ROUNDS
    samples: int = DEFAULT_SAMPLES
    seed: int = 0
    thresholds: tuple[float, ...] = DEFAULT_THRESHOLDS
    machine: Machine = field(default_factory=Machine)
    start: str = "samba"
    deal_at_least: tuple[int, ...] = DEAL_AT_LEAST


def default_rounds(n_cards: int, thresholds: tuple[float, ...] = DEFAULT_THRESHOLDS) -> int:
    """Rounds enough to show convergence: three past where one exact riffle per
    round reaches the smallest threshold, at most DEFAULT_MAX_ROUNDS."""
    target = min(thresholds)
    if n_cards > MAX_EXACT_DISTANCE_CARDS:
        return DEFAULT_MAX_ROUNDS
    for r in range(1, DEFAULT_MAX_ROUNDS + 1):
        if tv_riffle(n_cards, r) <= target:
            return min(DEFAULT_MAX_ROUNDS, r + 3)
    return DEFAULT_MAX_ROUNDS


def one_order_distance(n_cards: int) -> float:
    """1 - 1/N!: the distance of a pack that only ever takes one order."""
    return -math.expm1(-math.lgamma(n_cards + 1))


class _Mean:
    """Running mean and standard error of per-sample values.

    For 0/1 values (proportions) the error uses (hits + 1/2) / (n + 1) in
    place of the plain proportion, so a count of 0 or n still shows an error.
    """

    def __init__(self) -> None:
        self.n = 0
        self.total = 0.0
        self.squares = 0.0

    def add(self, values: np.ndarray) -> None:
        v = values.astype(np.float64)
        self.n += v.size
        self.total += float(v.sum())
        self.squares += float((v * v).sum())

    def estimate(self, method: str, proportion: bool = False) -> Estimate:
        mean = self.total / self.n
        if proportion:
            p = (self.total + 0.5) / (self.n + 1)
            var = p * (1 - p)
        else:
            var = max(0.0, self.squares / self.n - mean * mean) * self.n / max(1, self.n - 1)
        return Estimate(mean, math.sqrt(var / self.n), "estimate", method)


class _Observers:
    """Guessing-game and deal statistics of one stream of decks."""

    def __init__(self, start: StartOrder | None, deal_at_least: tuple[int, ...], deal: bool,
                 guess: CrossFitGuessing) -> None:
        self.start = start
        self.deal_at_least = deal_at_least
        self.deal = deal
        self.guess = guess  # the better strategy for the routine (position_guessing.guessing_for)
        self.hits = {m: _Mean() for m in deal_at_least}

    def update(self, decks: np.ndarray) -> None:
        self.guess.update(decks)
        if self.deal:
            assert self.start is not None
            most = most_from_one_meld(decks, self.start.meld_of_label)
            for m in self.deal_at_least:
                self.hits[m].add(most >= m)

    def guessing(self) -> Estimate:
        return self.guess.estimate()

    def dealing(self) -> dict[int, Estimate] | None:
        if not self.deal:
            return None
        return {m: self.hits[m].estimate(f"some player gets >= {m} of one meld", proportion=True)
                for m in self.deal_at_least}


def _uniform_decks(samples: int, n: int, rng: np.random.Generator) -> np.ndarray:
    dtype = np.int16 if n < 2**15 else np.int32
    return rng.permuted(np.broadcast_to(np.arange(n, dtype=dtype), (samples, n)), axis=1)


def passes_needed(
    thresholds: Sequence[float], passes: int | Callable[[int], int], distances: Sequence[Estimate],
    exact: Callable[[int], float] | None, shuffles: bool = True,
    seconds: Callable[[int], float] | None = None,
) -> tuple[PassesNeeded, ...]:
    """When each threshold is reached. `passes`: the machine passes of a round,
    or `passes(r)` those to the end of round r where rounds differ (the split);
    `distances[r - 1]` is round r's figure; `exact(r)` the exact distance after
    r rounds, where it is known (then the search goes past the simulated
    rounds); `shuffles` is False for a machine whose rounds have no
    randomness; `seconds(r)` the modelled time at the table to the end of
    round r."""
    passes_to = _passes_to(passes)
    if exact is not None:
        return tuple(_exact_reach(t, exact, shuffles, passes_to, seconds) for t in thresholds)
    return tuple(_not_before(t, distances, passes_to) for t in thresholds)


def _passes_to(passes: int | Callable[[int], int]) -> Callable[[int], int]:
    """The machine passes to the end of round r: r rounds of `passes` each,
    or `passes` itself where rounds differ."""
    if isinstance(passes, int):
        per_round = passes
        return lambda r: r * per_round
    return passes


def _exact_reach(t: float, exact: Callable[[int], float], shuffles: bool, passes_to: Callable[[int], int],
                 seconds: Callable[[int], float] | None) -> PassesNeeded:
    """Where the exact distance reaches threshold t. Distances never rise with
    more rounds, so the first round at or below it is the answer."""
    hit = next((r for r in range(0, MAX_SEARCH_ROUNDS + 1) if exact(r) <= t), None)
    if hit is None and not shuffles:
        return PassesNeeded(t, "never")
    return PassesNeeded(t, "exact", round=hit, passes=None if hit is None else passes_to(hit),
                        distance=None if hit is None else exact(hit),
                        seconds=None if hit is None or seconds is None else seconds(hit))


def _not_before(t: float, distances: Sequence[Estimate], passes_to: Callable[[int], int]) -> PassesNeeded:
    """The last round whose lower bound clears threshold t: not reached by then."""
    above = [r for r, d in enumerate(distances, 1) if d.value - SIGNIFICANCE * d.stderr > t]
    last = max(above, default=0)
    return PassesNeeded(t, "lower-bound", not_before_round=last + 1, not_before_pass=passes_to(last + 1),
                        simulated_rounds=len(distances))


def total_work(settings: Settings) -> int:
    """Units of progress `build_report` reports: decks handled, rounds counted."""
    return settings.samples * (len(settings.routines) * settings.rounds + 1)


def _run_routine(
    s: Settings, index: int, start: StartOrder | None, deal: bool, tick: Callable[[int], None],
) -> RoutineResult:
    """Simulate one routine and collect its figures round by round."""
    routine = s.routines[index]
    n = s.n_cards
    bits = routine.bits_per_round(n, s.capacity, s.machine)
    shuffles = bits != 0
    guesses = guessing_for(routine.name, n, s.capacity, s.rounds, s.machine)
    observers = {r: _Observers(start, s.deal_at_least, deal, guesses[r]) for r in range(1, s.rounds + 1)}
    rigorous = exact_law_bounds(routine.name, n, s.capacity, s.rounds, s.machine) if shuffles else None
    # Its own generator, so the routine's packs (and every other figure) are those drawn without it.
    upper = coupling_upper_bounds(routine.name, n, s.capacity, s.rounds, min(s.samples, COUPLING_SAMPLES),
                                  s.machine, np.random.default_rng([s.seed, index, 1])) if shuffles else None
    bounds = _simulated_statistics(s, index, observers, tick)
    exact = _exact_distance(s, routine, shuffles)
    rows = tuple(
        _round_result(s, routine, r, bounds[r], bits, None if rigorous is None else rigorous[r - 1], exact(r),
                      observers[r], None if upper is None else upper[r - 1])
        for r in range(1, s.rounds + 1))
    return _routine_result(s, routine, rows, exact, shuffles)


def _exact_distance(s: Settings, routine: ReportRoutine, shuffles: bool) -> Callable[[int], Estimate | None]:
    """The routine's exact distance after r rounds, where it is known (one
    order's, for a routine that never shuffles)."""
    if not shuffles:
        return lambda r: Estimate(one_order_distance(s.n_cards), 0.0, "exact", NEVER_SHUFFLED)
    return lambda r: routine.exact_distance(s.n_cards, s.capacity, r, s.machine)


def _simulated_statistics(
    s: Settings, index: int, observers: dict[int, _Observers], tick: Callable[[int], None],
) -> dict[int, dict[str, Estimate]]:
    """The routine's packs simulated round by round, each round's taken by
    its statistics and its observers: the statistics of every round."""
    routine = s.routines[index]
    stats = RoundStats(s.n_cards, s.rounds)
    stream = routine.simulate(s.n_cards, s.capacity, s.rounds, s.samples, s.machine,
                              np.random.default_rng([s.seed, index]), _chunk(s.n_cards))
    for r, decks in stream:
        stats.update(r, decks)
        observers[r].update(decks)
        tick(decks.shape[0])
    return stats.finish()


def _round_result(
    s: Settings, routine: ReportRoutine, r: int, statistics: dict[str, Estimate], bits: int | None,
    law: ExactBound | None, known: Estimate | None, observers: _Observers, upper: UpperBound | None,
) -> RoundResult:
    """Round r's figures: the exact distance where it is `known`, else the
    best lower bound, the rigorous one (`law`) where it shows more."""
    lower = best_lower_bound(statistics, n_cards=s.n_cards, bits=None if bits is None else bits * r)
    law_bound = None if law is None else law.estimate()
    best = lower
    if law_bound is not None and law_bound.value > shown_lower_bound(lower):
        best = law_bound  # rigorous, no simulation error, and larger than what the simulated bound shows
    return RoundResult(
        round=r, passes=routine.passes(s.n_cards, s.capacity, r), distance=best if known is None else known,
        lower_bound=lower, statistics=statistics, guessing=observers.guessing(),
        deal=observers.dealing(), exact_lower_bound=law_bound,
        pair_bound=None if law is None else law.pair_bound(),
        upper_bound=upper,
        seconds=routine.seconds(s.n_cards, s.capacity, r),
    )


def _routine_result(
    s: Settings, routine: ReportRoutine, rows: tuple[RoundResult, ...], exact: Callable[[int], Estimate | None],
    shuffles: bool,
) -> RoutineResult:
    """The routine's rows with the passes it needs to reach each threshold and its landmarks."""
    n = s.n_cards
    # An exact routine; the pipelined one has its exact figure at its end only (its codes follow the
    # order drawn), its earlier rounds the simulation's bound, and is searched round by round as those are.
    is_exact = exact(1) is not None or routine.exact_rounds(n, s.capacity) is not None
    exact_value = None if exact(1) is None else (lambda r: _value(exact(r)))
    distances = [row.distance for row in rows]

    def needed(thresholds: Sequence[float]) -> tuple[PassesNeeded, ...]:
        return passes_needed(thresholds, lambda r: routine.passes(n, s.capacity, r), distances, exact_value,
                             shuffles, lambda r: routine.seconds(n, s.capacity, r))

    # Three passes of each load: the row at that many machine passes, where there is one.
    loads = len(load_sizes(n, s.capacity))
    home = next((row for row in rows if row.passes == HOME_GAME_PASSES * loads), None)
    seven = float(tv_riffle_exact(SINGLE_DECK, SINGLE_DECK_PASSES))
    even = all(row.passes == row.round * loads for row in rows)
    return RoutineResult(
        name=routine.name,
        title=routine.title(n, s.capacity),
        description=routine.description(n, s.capacity),
        passes_per_round=loads if even else None,
        exact=is_exact,
        rounds=rows,
        thresholds=needed(s.thresholds),
        landmarks=Landmarks(
            home_game=None if home is None else HomeGame(HOME_GAME_PASSES, home.passes, home.distance),
            # Where this routine is as close to random as one deck after seven riffles.
            single_deck_seven=needed((seven,))[0],
        ),
        shuffles=shuffles,
        exact_rounds=routine.exact_rounds(n, s.capacity),
        exact_routine=routine.exact_routine(n, s.capacity),
    )


def _value(e: Estimate | None) -> float:
    assert e is not None
    return e.value


def _run_reference(
    s: Settings, start: StartOrder | None, deal: bool, tick: Callable[[int], None]
) -> tuple[Estimate, dict[int, RandomDeal] | None]:
    """The same observers on uniformly random decks: the truly random pack,
    with the deal question's exact chances (computed here, beside the other jobs)."""
    reference = _Observers(start, s.deal_at_least, deal, CrossFitGuessing(None))
    rng = np.random.default_rng([s.seed, len(s.routines) + 1000])
    step = _chunk(s.n_cards)
    for lo in range(0, s.samples, step):
        decks = _uniform_decks(min(step, s.samples - lo), s.n_cards, rng)
        reference.update(decks)
        tick(decks.shape[0])
    dealing = reference.dealing()
    if dealing is None:
        return reference.guessing(), None
    assert start is not None
    sizes = [len(m.cards) for m in start.melds]
    return reference.guessing(), {
        m: RandomDeal(random_deal_probability(sizes, s.n_cards, m), dealing[m]) for m in s.deal_at_least}


_RUNNERS: dict[str, Callable[..., Any]] = {"routine": _run_routine, "reference": _run_reference}


class _Stopped(Exception):
    """Unwinds a job's thread once the report is abandoned (Ctrl-C, or another job's error)."""


def _run_jobs(
    jobs: list[tuple[str, tuple[Any, ...]]], tick: Callable[[int], None], workers: int
) -> list[Any]:
    """Run the jobs here (one worker) or in `workers` threads, relaying progress to this thread.

    Threads, not processes: the work is compiled loops and numpy calls that
    release the interpreter lock, so threads share the cores with no process
    to start, no second import of numpy and numba, and no second load, or
    compile, of the compiled code. With as many threads as jobs the system
    shares the cores among all of them, so no core idles while one long job
    runs on. Every job seeds its own generator and owns its accumulators,
    so the figures do not depend on this.
    """
    if workers <= 1 or len(jobs) == 1:
        return [_RUNNERS[job](*args, tick) for job, args in jobs]
    return _ThreadedJobs(jobs).run(tick, workers)


class _ThreadedJobs:
    """Jobs taken in turn by worker threads, each job's progress queued for
    the calling thread to relay; the first error stops them all."""

    def __init__(self, jobs: list[tuple[str, tuple[Any, ...]]]) -> None:
        self.jobs = jobs
        self.progress: SimpleQueue[int] = SimpleQueue()
        self.waiting: SimpleQueue[int] = SimpleQueue()
        for i in range(len(jobs)):
            self.waiting.put(i)
        self.stop = threading.Event()
        self.results: list[Any] = [None] * len(jobs)
        self.errors: list[BaseException] = []

    def job_tick(self, units: int) -> None:
        if self.stop.is_set():
            raise _Stopped
        self.progress.put(units)

    def work(self) -> None:
        while not self.stop.is_set():
            try:
                i = self.waiting.get_nowait()
            except Empty:
                return
            job, args = self.jobs[i]
            try:
                self.results[i] = _RUNNERS[job](*args, self.job_tick)
            except _Stopped:
                return
            except BaseException as exc:  # raised again in the calling thread
                self.errors.append(exc)
                self.stop.set()
                return

    def relay(self, tick: Callable[[int], None], timeout: float | None) -> None:
        while True:
            try:
                units = self.progress.get(timeout=timeout) if timeout else self.progress.get_nowait()
            except Empty:
                return
            tick(units)

    def run(self, tick: Callable[[int], None], workers: int) -> list[Any]:
        # Daemon threads: a second Ctrl-C while they wind down cannot hold up the exit.
        threads = [threading.Thread(target=self.work, name=f"report-{k}", daemon=True)
                   for k in range(min(workers, len(self.jobs)))]
        try:
            for t in threads:
                t.start()
            while any(t.is_alive() for t in threads):
                self.relay(tick, 0.1)  # short waits, so Ctrl-C reaches this thread at once
            self.relay(tick, None)  # progress still queued
        finally:
            self.stop.set()  # each job stops at its next chunk
            for t in threads:
                t.join()
        if self.errors:
            raise self.errors[0]
        return self.results


def build_report(
    settings: Settings, progress: Callable[[int], None] | None = None, workers: int | None = None
) -> Report:
    """Simulate and collect every figure of the report (see module docstring).

    progress(units) is called, in the calling thread, as work is done; units
    add up to total_work(). The routines and the reference run side by side
    in `workers` threads (default: one each); each has its own seeded
    generator, so the figures do not depend on the number of workers.
    """
    s = settings
    n = s.n_cards
    _check_settings(s)
    # A pack known only by its size has no faces: labels are the starting order.
    start = start_order(s.start, s.pack, s.seed) if n == s.pack.cards and not s.pack.loose else None
    deal = start is not None and bool(start.melds) and n >= PLAYERS * HAND
    tick = progress or (lambda units: None)
    jobs: list[tuple[str, tuple[Any, ...]]] = [
        ("routine", (s, i, start, deal)) for i in range(len(s.routines))
    ]
    jobs.append(("reference", (s, start, deal)))
    *routines_out, (ref_guessing, random_deal) = _run_jobs(jobs, tick, len(jobs) if workers is None else workers)
    seven = tv_riffle_exact(SINGLE_DECK, SINGLE_DECK_PASSES)
    return Report(
        pack=s.pack,
        settings=_report_settings(s, deal),
        start=None if start is None else _start_summary(start),
        routines=tuple(routines_out),
        reference=Reference(
            guessing_random=harmonic(n),
            guessing_simulated=ref_guessing,
            deal_random=random_deal,
            single_deck_seven_passes=Landmark(SINGLE_DECK, SINGLE_DECK_PASSES, float(seven)),
        ),
    )


def _check_settings(s: Settings) -> None:
    """Refuse, before any simulation, a report that cannot be made: no
    routine, a routine the machine or the pack rules out, a Samba start
    for a pack of another size."""
    n = s.n_cards
    if not s.routines:
        raise ValueError("a report needs at least one routine")
    for routine in s.routines:
        why = routine.refuses(s.machine) or routine.refuses_pack(n, s.capacity)
        if why is not None:
            raise ValueError(f"{routine.name}: {why}")
    if s.start == "samba" and n != s.pack.cards:
        raise ValueError(f"the samba start needs the pack's {s.pack.cards} cards, not {n}")


def _report_settings(s: Settings, deal: bool) -> ReportSettings:
    """The settings as the report keeps them (the deal's rules only when it was asked)."""
    n = s.n_cards
    return ReportSettings(
        cards=n, capacity=s.capacity, loads=tuple(load_sizes(n, s.capacity)), rounds=s.rounds,
        samples=s.samples, seed=s.seed, start=s.start, routines=tuple(r.name for r in s.routines),
        thresholds=tuple(s.thresholds), machine=s.machine,
        deal=DealRules(PLAYERS, HAND, tuple(s.deal_at_least)) if deal else None,
    )


def _start_summary(start: StartOrder) -> StartSummary:
    """The starting order as the report keeps it: its sections and its melds' sizes."""
    return StartSummary(
        start.name,
        tuple(Section(a, b, c) for a, b, c in start.sections),
        tuple(MeldSummary(m.kind, m.team, len(m.cards)) for m in start.melds),
    )
