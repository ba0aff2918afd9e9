"""The shuffle-quality report for a pack: every figure, as plain data.

`build_report(settings)` simulates each routine round by round and returns a
JSON-serialisable dict:

* per routine and round (a round is every load through the machine once, so
  round r ends at machine pass r x loads): the distance from uniform, exact
  where theory gives it (pile-trade, or any routine on a single load, on a
  fair machine) and otherwise the best Monte Carlo lower bound ("at least");
  the guessing-game score; the deal question's chances;
* per routine and threshold: the pass at which the distance first falls to
  the threshold (exact), or, where only lower bounds are known, the honest
  statement "not before pass X": the distance after k identical, independent
  rounds never rises with k, so a lower bound above the threshold at round r
  (by more than two standard errors) rules out every round up to r;
* landmarks from the rules: three passes of each load for a home game, and
  the exact distance of a single 52-card deck after seven riffles;
* the truly random references: H_N for the guessing game, and the deal
  question both exactly and by simulation of uniform decks.

Beside the two random-side routines stands exact mode ("exact"), the
device's default: the firmware deals each card by one bit of a random code,
b = ceil(log2 N) rounds of pile trade (docs/exact-mode.md). Its distance is
exact in every round, 1 - 1/prod(m_j!) before round b and 0 from round b on
(simulator.exact_mode.quality); its guessing game and deal come from
simulating exact mode (simulator.exact_mode.batch) on the same starting
order. After round b the routine is over and the device deals at random, so
later rounds are random pile-trade rounds, which keep a uniform pack uniform.
Exact mode's sides come from its codes, so a machine's bias, clumping or
double feeds are refused for it (machine_applies_to_exact_mode).
"""
from __future__ import annotations

import math
import multiprocessing
import os
import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from queue import Empty
from typing import Any

import numpy as np

from simulator.exact_mode.batch import simulate_exact_mode
from simulator.exact_mode.codes import device_code_set, n_bits
from simulator.exact_mode.quality import exact_mode_tv
from simulator.limits import MAX_EXACT_DISTANCE_CARDS, MAX_SEARCH_ROUNDS
from simulator.packs import Pack
from simulator.start_orders import StartOrder, start_order

from .bounds import RoundStats, best_lower_bound
from .deal import HAND, PLAYERS, most_from_one_meld, random_deal_probability
from .estimate import Estimate
from .exact import tv_riffle, tv_riffle_exact
from .guessing import guess_scores, harmonic
from .routines import ROUTINES, Machine, exact_tv, load_sizes, simulate
from .words import loads_phrase, number

EXACT_MODE = "exact"
# Every routine the report knows: the random-side ones, then exact mode.
REPORT_ROUTINES = (*ROUTINES, EXACT_MODE)

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


def _chunk(n_cards: int) -> int:
    return max(1, min(CHUNK, CHUNK_ELEMENTS // n_cards))


def _exact(name: str, n_cards: int, capacity: int, rounds: int, machine: Machine) -> float | None:
    """The exact distance where theory gives it and it is quick to compute."""
    if n_cards > MAX_EXACT_DISTANCE_CARDS:
        return None
    value = exact_tv(name, n_cards, capacity, rounds, machine=machine)
    return None if value is None else float(value)


@dataclass(frozen=True)
class Settings:
    """Everything a report depends on."""

    pack: Pack
    n_cards: int
    capacity: int = DEFAULT_CAPACITY
    rounds: int = DEFAULT_MAX_ROUNDS
    samples: int = DEFAULT_SAMPLES
    seed: int = 0
    routines: tuple[str, ...] = REPORT_ROUTINES
    thresholds: tuple[float, ...] = DEFAULT_THRESHOLDS
    machine: Machine = field(default_factory=Machine)
    start: str = "samba"
    deal_at_least: tuple[int, ...] = DEAL_AT_LEAST


def machine_applies_to_exact_mode(machine: Machine) -> str | None:
    """None when exact mode can be reported on this machine, else why not (one line).

    The firmware picks every side from the codes, so a random source's bias
    means nothing to it; clumping and double feeds would break exactness in
    ways these knobs do not describe (the device stops being exact at a
    double feed it sees: docs/exact-mode.md). The person's trade (trade_sd)
    belongs to stack-trade and leaves exact mode alone.
    """
    if machine.p != 0.5:
        return "--bias is the chance a random side goes left; exact mode takes its sides from its codes"
    if machine.clump != 0.0 or machine.double_feed != 0.0:
        return ("--clump and --double-feed model random sides; exact mode takes its sides from its "
                "codes and stops being exact at a double feed it sees")
    return None


def exact_mode_codes(n_cards: int, capacity: int) -> list[int]:
    """The code set the device takes for this pack and machine."""
    return device_code_set(n_cards, capacity)[0]


def exact_mode_distance(codes: list[int], rounds: int) -> float:
    """Exact mode's exact distance after `rounds` rounds (0 from round b on)."""
    return float(exact_mode_tv(codes, min(rounds, n_bits(len(codes)))))


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


def _random_bits_per_round(n_cards: int, capacity: int, machine: Machine) -> int:
    """Upper bound on log2 of the number of outcomes of one round.

    A round's result is fixed by each card's side (N choices of two) and, when
    the person's trade varies, by the number traded (at most smallest load + 1
    values); so at most 2**bits arrangements are reachable after a round.
    """
    bits = n_cards
    if machine.trade_sd > 0:
        bits += math.ceil(math.log2(min(load_sizes(n_cards, capacity)) + 1))
    return bits


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

    def __init__(self, start: StartOrder | None, deal_at_least: tuple[int, ...], deal: bool) -> None:
        self.start = start
        self.deal_at_least = deal_at_least
        self.deal = deal
        self.guess = _Mean()
        self.hits = {m: _Mean() for m in deal_at_least}

    def update(self, decks: np.ndarray) -> None:
        self.guess.add(guess_scores(decks))
        if self.deal:
            assert self.start is not None
            most = most_from_one_meld(decks, self.start.meld_of_label)
            for m in self.deal_at_least:
                self.hits[m].add(most >= m)

    def guessing(self) -> dict[str, Any]:
        return self.guess.estimate("guessing game").to_dict()

    def dealing(self) -> dict[str, Any] | None:
        if not self.deal:
            return None
        return {str(m): self.hits[m].estimate(f"some player gets >= {m} of one meld", proportion=True).to_dict()
                for m in self.deal_at_least}


def _uniform_decks(samples: int, n: int, rng: np.random.Generator) -> np.ndarray:
    dtype = np.int16 if n < 2**15 else np.int32
    return rng.permuted(np.broadcast_to(np.arange(n, dtype=dtype), (samples, n)), axis=1)


def _threshold_rows(
    name: str, n_cards: int, capacity: int, machine: Machine, rounds: list[dict[str, Any]],
    thresholds: tuple[float, ...], passes_per_round: int,
    exact: Callable[[int], float | None] | None = None,
) -> list[dict[str, Any]]:
    """Passes needed per threshold; `exact(r)` gives the exact distance after r rounds
    (default: the routine's exact_tv where theory gives it)."""
    if exact is None:
        def exact(r: int) -> float | None:
            return _exact(name, n_cards, capacity, r, machine)
    out = []
    for t in thresholds:
        row: dict[str, Any] = {"threshold": t}
        if exact(1) is not None:
            # Distances never rise with more rounds, so the first round at or
            # below the threshold is the answer.
            def at(r: int) -> float:
                d = exact(r)
                return 1.0 if d is None else d

            hit = next((r for r in range(0, MAX_SEARCH_ROUNDS + 1) if at(r) <= t), None)
            row.update(kind="exact", round=hit, passes=None if hit is None else hit * passes_per_round)
            if hit is not None:
                row["distance"] = exact(hit)
        else:
            # The last round whose lower bound clears the threshold: not reached by then.
            above = [r["round"] for r in rounds
                     if r["distance"]["value"] - SIGNIFICANCE * r["distance"]["stderr"] > t]
            last = max(above, default=0)
            row.update(kind="lower-bound", not_before_round=last + 1,
                       not_before_pass=(last + 1) * passes_per_round,
                       simulated_rounds=len(rounds))
        out.append(row)
    return out


def _landmarks(rounds: list[dict[str, Any]], passes_per_round: int) -> dict[str, Any]:
    by_round = {r["round"]: r for r in rounds}
    home = by_round.get(HOME_GAME_PASSES)
    return {
        "home_game": None if home is None else {
            "rounds": HOME_GAME_PASSES,
            "passes": HOME_GAME_PASSES * passes_per_round,
            "distance": home["distance"],
        },
    }


def total_work(settings: Settings) -> int:
    """Units of progress `build_report` reports: decks handled, rounds counted."""
    return settings.samples * (len(settings.routines) * settings.rounds + 1)


def _round_rows(
    s: Settings, stream: Iterator[tuple[int, np.ndarray]], start: StartOrder | None, deal: bool,
    tick: Callable[[int], None], passes_per_round: int,
    distance: Callable[[int, dict[str, Estimate]], tuple[Estimate, Estimate]],
) -> list[dict[str, Any]]:
    """One row per round from a stream of (round, decks); `distance(r, statistics)`
    gives the round's distance and lower bound."""
    stats = RoundStats(s.n_cards, s.rounds)
    observers = {r: _Observers(start, s.deal_at_least, deal) for r in range(1, s.rounds + 1)}
    for r, decks in stream:
        stats.update(r, decks)
        observers[r].update(decks)
        tick(decks.shape[0])
    bounds = stats.finish()
    rows = []
    for r in range(1, s.rounds + 1):
        value, lower = distance(r, bounds[r])
        rows.append({
            "round": r,
            "passes": r * passes_per_round,
            "distance": value.to_dict(),
            "lower_bound": lower.to_dict(),
            "statistics": {k: v.to_dict() for k, v in bounds[r].items()},
            "guessing": observers[r].guessing(),
            "deal": observers[r].dealing(),
        })
    return rows


def _routine_entry(
    s: Settings, name: str, description: str, passes_per_round: int, rounds: list[dict[str, Any]],
    exact: Callable[[int], float | None], extra: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """A routine's part of the report: its rounds, thresholds and landmarks."""
    seven = float(tv_riffle_exact(SINGLE_DECK, SINGLE_DECK_PASSES))

    def thresholds(values: tuple[float, ...]) -> list[dict[str, Any]]:
        return _threshold_rows(name, s.n_cards, s.capacity, s.machine, rounds, values,
                               passes_per_round, exact)

    return {
        "name": name,
        "description": description,
        "passes_per_round": passes_per_round,
        "exact": exact(1) is not None,
        **(extra or {}),
        "rounds": rounds,
        "thresholds": thresholds(s.thresholds),
        "landmarks": {
            **_landmarks(rounds, passes_per_round),
            # Where this routine is as close to random as one deck after seven riffles.
            "single_deck_seven": thresholds((seven,))[0],
        },
    }


def _run_routine(
    s: Settings, index: int, name: str, start: StartOrder | None, deal: bool,
    tick: Callable[[int], None],
) -> dict[str, Any]:
    """Simulate one routine and collect its figures round by round."""
    if name == EXACT_MODE:
        return _run_exact_mode(s, index, start, deal, tick)
    n = s.n_cards
    routine = ROUTINES[name]
    passes_per_round = len(load_sizes(n, s.capacity))
    bits = _random_bits_per_round(n, s.capacity, s.machine)

    def exact(r: int) -> float | None:
        return _exact(name, n, s.capacity, r, s.machine)

    def distance(r: int, statistics: dict[str, Estimate]) -> tuple[Estimate, Estimate]:
        lower = best_lower_bound(statistics, n_cards=n, bits=bits * r)
        value = exact(r)
        return (lower if value is None else Estimate(value, 0.0, "exact", "Bayer-Diaconis")), lower

    stream = simulate(routine, n, s.capacity, s.rounds, s.samples, machine=s.machine,
                      seed=np.random.default_rng([s.seed, index]), chunk=_chunk(n))
    rounds = _round_rows(s, stream, start, deal, tick, passes_per_round, distance)
    return _routine_entry(s, name, routine.description(n, s.capacity), passes_per_round, rounds, exact)


def exact_mode_description(n_cards: int, capacity: int) -> str:
    """What the table does in exact mode (one sentence)."""
    b = n_bits(n_cards)
    sizes = load_sizes(n_cards, capacity)
    gather = ("put the left pile on top of the right pile" if len(sizes) == 1
              else "stack all the left piles on top of all the right piles, as pile-trade does, "
                   "and cut where the device says")
    return (f"The device sends each card to the side one bit of its random code names; run every load "
            f"({loads_phrase(sizes)}) and {gather}: exactly random after {number(b)} "
            f"{'round' if b == 1 else 'rounds'}, at random after that.")


def _run_exact_mode(
    s: Settings, index: int, start: StartOrder | None, deal: bool, tick: Callable[[int], None],
) -> dict[str, Any]:
    """Exact mode: exact distances from the code set, the rest by simulation."""
    n = s.n_cards
    passes_per_round = len(load_sizes(n, s.capacity))
    codes = exact_mode_codes(n, s.capacity)

    def exact(r: int) -> float:
        return exact_mode_distance(codes, r)

    def distance(r: int, statistics: dict[str, Estimate]) -> tuple[Estimate, Estimate]:
        # The statistics' bound alone: beside the exact figure it shows the method stays below it.
        return Estimate(exact(r), 0.0, "exact", "exact mode: 1 - 1/prod(m_j!)"), best_lower_bound(statistics)

    stream = simulate_exact_mode(n, s.capacity, s.rounds, s.samples,
                                 np.random.default_rng([s.seed, index]), chunk=_chunk(n))
    rounds = _round_rows(s, stream, start, deal, tick, passes_per_round, distance)
    return _routine_entry(s, EXACT_MODE, exact_mode_description(n, s.capacity), passes_per_round, rounds,
                          exact, {"exact_rounds": n_bits(n)})


def _run_reference(
    s: Settings, start: StartOrder | None, deal: bool, tick: Callable[[int], None]
) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """The same observers on uniformly random decks: the truly random pack."""
    reference = _Observers(start, s.deal_at_least, deal)
    rng = np.random.default_rng([s.seed, len(s.routines) + 1000])
    step = _chunk(s.n_cards)
    for lo in range(0, s.samples, step):
        decks = _uniform_decks(min(step, s.samples - lo), s.n_cards, rng)
        reference.update(decks)
        tick(decks.shape[0])
    return reference.guessing(), reference.dealing()


# Progress from worker processes: each chunk's size goes on this queue.
_PROGRESS_QUEUE: Any = None


@contextmanager
def _sigint_ignored() -> Iterator[None]:
    if threading.current_thread() is not threading.main_thread():
        yield  # only the main thread may change signal handlers
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def _worker_init(queue: Any) -> None:
    global _PROGRESS_QUEUE
    _PROGRESS_QUEUE = queue
    # Ctrl-C is the parent's to handle: it stops the workers itself.
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _queue_tick(units: int) -> None:
    _PROGRESS_QUEUE.put(units)


def _in_worker(job: str, *args: Any) -> Any:
    runner: Callable[..., Any] = _run_routine if job == "routine" else _run_reference
    return runner(*args, _queue_tick)


def _run_jobs(
    jobs: list[tuple[str, tuple[Any, ...]]], tick: Callable[[int], None], workers: int
) -> list[Any]:
    """Run the jobs here (one worker) or in worker processes, relaying progress.

    Processes, not threads: much of the work holds the interpreter lock.
    Every job seeds its own generator, so the figures do not depend on this.
    """
    if workers <= 1 or len(jobs) == 1:
        runners: dict[str, Callable[..., Any]] = {"routine": _run_routine, "reference": _run_reference}
        return [runners[job](*args, tick) for job, args in jobs]
    ctx = multiprocessing.get_context("spawn")
    # Start the helper processes with Ctrl-C ignored (the setting survives
    # exec), so a Ctrl-C while they import cannot print their tracebacks.
    with _sigint_ignored():
        queue = ctx.Queue()
        pool = ctx.Pool(min(workers, len(jobs)), initializer=_worker_init, initargs=(queue,))

    def relay(timeout: float) -> None:
        while True:
            try:
                tick(queue.get(timeout=timeout))
            except Empty:
                return

    try:
        pending = [pool.apply_async(_in_worker, (job, *args)) for job, args in jobs]
        while not all(p.ready() for p in pending):
            relay(0.1)
            for p in pending:
                if p.ready() and not p.successful():
                    p.get()  # a worker failed: raise its error now
        results = [p.get() for p in pending]
        relay(0.05)  # progress still in flight
    finally:
        pool.terminate()
        pool.join()
    return results


def build_report(
    settings: Settings, progress: Callable[[int], None] | None = None, workers: int | None = None
) -> dict[str, Any]:
    """Simulate and collect every figure of the report (see module docstring).

    progress(units) is called as work is done; units add up to total_work().
    Routines run side by side in `workers` processes (default: one per
    CPU); each has its own seeded generator, so the figures do not depend on
    the number of workers.
    """
    s = settings
    n = s.n_cards
    for name in s.routines:
        if name not in REPORT_ROUTINES:
            raise ValueError(f"unknown routine {name!r}; valid routines: {', '.join(REPORT_ROUTINES)}")
    why = machine_applies_to_exact_mode(s.machine)
    if EXACT_MODE in s.routines and why is not None:
        raise ValueError(why)
    if s.start == "samba" and n != s.pack.cards:
        raise ValueError(f"the samba start needs the pack's {s.pack.cards} cards, not {n}")
    # A pack known only by its size has no faces: labels are the starting order.
    start = start_order(s.start, s.pack, s.seed) if n == s.pack.cards and not s.pack.loose else None
    deal = start is not None and bool(start.melds) and n >= PLAYERS * HAND
    tick = progress or (lambda units: None)
    workers = workers or os.cpu_count() or 1
    jobs: list[tuple[str, tuple[Any, ...]]] = [
        ("routine", (s, i, name, start, deal)) for i, name in enumerate(s.routines)
    ]
    jobs.append(("reference", (s, start, deal)))
    *routines_out, (ref_guessing, ref_dealing) = _run_jobs(jobs, tick, workers)
    random_deal = None
    if deal:
        assert start is not None
        sizes = [len(m.cards) for m in start.melds]
        simulated = ref_dealing or {}
        random_deal = {
            str(m): {"exact": random_deal_probability(sizes, n, m), "simulated": simulated[str(m)]}
            for m in s.deal_at_least
        }
    seven = tv_riffle_exact(SINGLE_DECK, SINGLE_DECK_PASSES)
    return {
        "pack": {"name": s.pack.name, "title": s.pack.title, "decks": s.pack.decks,
                 "jokers": s.pack.jokers, "cards": s.pack.cards, "notes": s.pack.notes},
        "settings": {
            "cards": n, "capacity": s.capacity, "loads": load_sizes(n, s.capacity),
            "rounds": s.rounds, "samples": s.samples, "seed": s.seed, "start": s.start,
            "routines": list(s.routines), "thresholds": list(s.thresholds),
            "machine": {"bias": s.machine.p, "clump": s.machine.clump,
                        "double_feed": s.machine.double_feed, "trade_sd": s.machine.trade_sd},
            "deal": {"players": PLAYERS, "hand": HAND, "at_least": list(s.deal_at_least)} if deal else None,
        },
        "start": None if start is None else {
            "name": start.name,
            "sections": [{"name": a, "first": b, "end": c} for a, b, c in start.sections],
            "melds": [{"kind": m.kind, "team": m.team, "cards": len(m.cards)} for m in start.melds],
        },
        "routines": routines_out,
        "reference": {
            "guessing_random": harmonic(n),
            "guessing_simulated": ref_guessing,
            "deal_random": random_deal,
            "single_deck_seven_passes": {
                "cards": SINGLE_DECK, "passes": SINGLE_DECK_PASSES, "distance": float(seven),
                "kind": "exact",
            },
        },
    }
