"""Exact laws of one card's and of two cards' positions under stack-trade.

A stack-trade round (routines.stack_trade_round) moves a card by position
only: within its load (start s, size n, card at offset o from the load's
top) the pass sends it left with probability p, and then its new offset is
the number of left cards above it, X ~ Bin(o, p); or right, and then it
comes after every left card of the load and after the right cards above it,
at offset o + Z with Z ~ Bin(n - 1 - o, p) the left cards below it. Then the
top t cards of every load move, in order, to the top of the next load
(cyclically). So one card's position is a Markov chain on the N positions,
and two cards' positions a Markov chain on the N (N - 1) ordered pairs of
distinct positions. Both chains are propagated here exactly in law, in
float64 (see TOLERANCE).

Each gives a rigorous lower bound on the distance from uniform: for any
statistic T, TV(shuffle, uniform) >= TV(law of T, law of T under a uniform
shuffle). The statistics, each with its uniform law:

* one card's position (any card, uniform on N positions) and which card lies
  at one position (any position, uniform on N labels): both are read from
  the N x N matrix P(card starting at i ends at j) after r rounds;
* two cards' positions for chosen starting pairs of cards (the chain run
  forward), and which two cards lie at chosen pairs of positions (the chain
  run backward, by the adjoint of its step): both uniform on the N (N - 1)
  ordered pairs. The second gives the stronger bounds from the second round
  on (after one round a pair of cards can give more): the report follows a
  few pairs of positions at the ends of the loads (candidate_position_pairs)
  and takes the strongest after each round.

Coarser statistics (which load, or which load and which half of it, a card
ends in) are functions of a position, so their bounds are never larger and
they are not computed separately.

Only a machine with independent sides is covered (any p; clump and
double_feed must be 0, since clumped sides make a card's move depend on its
neighbours' sides); the person's trade may vary (trade_sd), as a mixture
over the traded count.
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from numpy.typing import NDArray
from threadpoolctl import threadpool_limits

from shuffling.limits import MAX_EXACT_LAW_CARDS, MAX_PAIR_LAW_CARDS

from .estimate import Estimate
from .results import PairBound
from .routines import Machine, fixed_trade, load_bounds

__all__ = [
    "TOLERANCE",
    "covered",
    "trade_law",
    "card_kernel",
    "position_laws",
    "pair_laws",
    "one_card_tv",
    "pair_tv",
    "ExactBound",
    "exact_bounds",
    "exact_law_bounds",
    "candidate_position_pairs",
    "PAIR_FLOOR",
]

FloatArray = NDArray[np.float64]

# Every probability here is a sum of non-negative float64 products, so
# rounding errors never cancel and only add up: in one round an entry is a
# sum of at most n**2 + 2 n terms (n <= MAX_PAIR_LAW_CARDS = 200 for pairs; N
# <= MAX_EXACT_LAW_CARDS = 500 terms for one card) of products of at most
# four factors, the binomial factors built by at most n additions; so each
# round adds a relative error below 41,000 * 2**-53 < 5e-12, and after 200
# rounds (more than any report asks) every probability is within a relative
# 1e-9 of its exact value. A distance, half the sum of |p - q| over a law of
# mass 1, is then within 1e-9 of its exact value; each bound subtracts this.
TOLERANCE = 1e-9

# The pair chains are followed while their best bound is above this, that is
# while it proves anything at all (each bound has TOLERANCE taken off, so a
# bound at or below TOLERANCE reads 0): the strongest pair stays stronger than
# any one card in every round of a report (Samba's 80 and 161: 0.0535 against
# 0.0381 after round 9, 0.00049 against 0.00033 after round 16). A round
# costs about N**4 / 10 operations per pair (about 0.04 s for Samba's six),
# and the bounds halve about every round, so the chains stop by themselves
# some 35 rounds in.
PAIR_FLOOR = 0.0


def covered(machine: Machine) -> bool:
    """True when the chains apply: every side independent (clump = double_feed = 0)."""
    return machine.clump == 0.0 and machine.double_feed == 0.0


def _check(machine: Machine) -> None:
    if not covered(machine):
        raise ValueError("exact position laws need independent sides (clump = double_feed = 0)")


def trade_law(bounds: list[int], machine: Machine) -> dict[int, float]:
    """Law of the traded count t: fixed at half the smallest load, or the person's spread.

    Same law as routines.trade_count: rint(half + sd * Normal), clipped to
    [1, smallest load]; rint's ties have probability 0.
    """
    smallest = min(b - a for a, b in zip(bounds[:-1], bounds[1:]))
    half = fixed_trade(smallest)
    sd = machine.trade_sd
    if sd == 0.0:
        return {half: 1.0}

    def cdf(x: float) -> float:
        return 0.5 * math.erfc(-(x - half) / (sd * math.sqrt(2)))

    law = {}
    for v in range(1, smallest + 1):
        lo = -math.inf if v == 1 else v - 0.5
        hi = math.inf if v == smallest else v + 0.5
        w = (1.0 if hi == math.inf else cdf(hi)) - (0.0 if lo == -math.inf else cdf(lo))
        if w > 0:
            law[v] = w
    return law


@lru_cache(maxsize=64)
def _binomial_table(n: int, p: float) -> FloatArray:
    """B[m, j] = C(m, j) p**j (1-p)**(m-j) for 0 <= j <= m < n (zero above the diagonal)."""
    b = np.zeros((max(n, 1), max(n, 1)))
    b[0, 0] = 1.0
    for m in range(1, n):
        b[m, 1:] = b[m - 1, :-1] * p
        b[m, :] += b[m - 1, :] * (1 - p)
    b.setflags(write=False)
    return b


def _trade_map(bounds: list[int], t: int) -> NDArray[np.intp]:
    """dest[q]: where the card at position q after the passes ends after the trade."""
    n = bounds[-1]
    dest = np.arange(n)
    n_loads = len(bounds) - 1
    if n_loads == 1:
        return dest
    for i in range(n_loads):
        lo = bounds[i]
        nxt = bounds[(i + 1) % n_loads]
        dest[lo : lo + t] = nxt + np.arange(t)
    return dest


def _load_kernel(n: int, p: float) -> FloatArray:
    """K[o, o']: a card at offset o of a load of n ends at offset o' after the pass."""
    b = _binomial_table(n, p)
    return p * b + (1 - p) * _load_kernel_right(n, p)  # left: o' ~ Bin(o, p); right: see below


def _load_kernel_right(n: int, p: float) -> FloatArray:
    """bz[o, o']: a right card at offset o of a load of n ends at o' = o + Bin(n - 1 - o, p)."""
    b = _binomial_table(n, p)
    bz = np.zeros((n, n))
    for o in range(n):
        bz[o, o:n] = b[n - 1 - o, : n - o]
    return bz


def card_kernel(n_cards: int, capacity: int, machine: Machine = Machine()) -> FloatArray:
    """One round's N x N matrix: P(card at position i goes to position j)."""
    _check(machine)
    bounds = load_bounds(n_cards, capacity)
    passes = np.zeros((n_cards, n_cards))
    for lo, hi in zip(bounds[:-1], bounds[1:]):
        passes[lo:hi, lo:hi] = _load_kernel(hi - lo, machine.p)
    out = np.zeros_like(passes)
    for t, w in trade_law(bounds, machine).items():
        out[:, _trade_map(bounds, t)] += w * passes
    return out


def _one_blas_thread() -> threadpool_limits:
    """The matrices are small; more BLAS threads only fight the report's other
    jobs for the cores (40 s instead of 3 s for exact_bounds at 162 cards
    on a busy 2-core machine)."""
    return threadpool_limits(limits=1, user_api="blas")


def position_laws(n_cards: int, capacity: int, rounds: int, machine: Machine = Machine()) -> list[FloatArray]:
    """M_r[i, j] = P(the card starting at position i is at position j after r rounds), r = 1..rounds."""
    k = card_kernel(n_cards, capacity, machine)
    m = np.eye(n_cards)
    out = []
    with _one_blas_thread():
        for _ in range(rounds):
            m = m @ k
            out.append(m)
    return out


def one_card_tv(m: FloatArray) -> tuple[float, str]:
    """Largest exact TV from uniform among one card's position and one position's card.

    Returns the distance (float64, before TOLERANCE) and which statistic gave it.
    """
    n = m.shape[0]
    rows = 0.5 * np.abs(m - 1.0 / n).sum(axis=1)
    cols = 0.5 * np.abs(m - 1.0 / n).sum(axis=0)
    i, j = int(rows.argmax()), int(cols.argmax())
    if rows[i] >= cols[j]:
        return float(rows[i]), f"position of card {i}"
    return float(cols[j]), f"card at position {j}"


# --- two cards -------------------------------------------------------------


@dataclass(frozen=True)
class _Geometry:
    """Index maps and binomial tables of one load of n cards, with P(left) = p."""

    n: int
    p: float
    b: FloatArray  # b[m, j] = P(Bin(m, p) = j)
    bq: FloatArray  # the same with 1 - p
    bz: FloatArray  # bz[o, y] = P(o + Bin(n - 1 - o, p) = y)
    gap: tuple[NDArray[np.intp], NDArray[np.intp], NDArray[np.bool_]]  # (a, d) -> (a, a + 1 + d)
    back: tuple[NDArray[np.intp], NDArray[np.intp], NDArray[np.bool_]]  # (d, y) -> (y - 1 - d, y)
    cross: tuple[NDArray[np.intp], NDArray[np.intp], NDArray[np.bool_]]  # (y, e) -> (n - 1 - (e - y), y)
    hs: FloatArray  # hs[o1, g, z] = P(Bin(n - 2 - o1 - g, 1 - p) = z)


def _map(rows: NDArray[np.intp], cols: NDArray[np.intp], n: int) -> tuple[NDArray[np.intp], NDArray[np.intp], NDArray[np.bool_]]:
    ok = (rows >= 0) & (rows < n) & (cols >= 0) & (cols < n)
    return np.where(ok, rows, 0), np.where(ok, cols, 0), ok


@lru_cache(maxsize=16)
def _geometry(n: int, p: float) -> _Geometry:
    o = np.arange(n)
    a, d = np.meshgrid(o, o, indexing="ij")
    y, e = np.meshgrid(o, np.arange(3 * n), indexing="ij")
    bq = _binomial_table(n, 1 - p)
    h = n - 2 - a - d  # for (o1, g) = (a, d)
    hs = np.where((h >= 0)[:, :, None], bq[np.where(h >= 0, h, 0)], 0.0)
    return _Geometry(
        n, p, _binomial_table(n, p), bq, _load_kernel_right(n, p),
        _map(a, a + 1 + d, n), _map(d - 1 - a, d, n),
        _map(n - 1 - (e - y), y, n), hs,
    )


def _gather(u: FloatArray, where: tuple[NDArray[np.intp], NDArray[np.intp], NDArray[np.bool_]]) -> FloatArray:
    rows, cols, ok = where
    return np.where(ok, u[:, rows, cols], 0.0)


def _scatter_add(w: FloatArray, where: tuple[NDArray[np.intp], NDArray[np.intp], NDArray[np.bool_]],
                 values: FloatArray) -> None:
    rows, cols, ok = where
    w[:, rows[ok], cols[ok]] += values[:, ok]  # every map is one-to-one where ok


def _same_load(u: FloatArray, p: float) -> FloatArray:
    """Pass of one load for pair laws u[s, o1, o2] with o1 < o2 (the upper card first).

    Returns w[s, x, y]: the upper card at offset x, the lower card at y.
    With X, Y, Z the left cards above, between and below the two cards
    (binomial in o1, g = o2 - o1 - 1 and h = n - 1 - o2 cards), the four
    sides give (x, y) = (X, X + 1 + Y) both left; (X, o2 + Z) upper left;
    (o1 + 1 + Y + Z, X + Y) upper right and lower left; (o1 + Y + Z, o2 + Z)
    both right.
    """
    s, n, _ = u.shape
    geo = _geometry(n, p)
    q = 1 - p
    b, bq, bz = geo.b, geo.bq, geo.bz
    w = np.zeros_like(u)
    gmat = _gather(u, geo.gap)  # gmat[s, o1, g] = u[s, o1, o1 + 1 + g]
    # Both left: x = X, y - x - 1 = Y.
    _scatter_add(w, geo.gap, p * p * (b.T @ gmat @ b))
    # Upper left, lower right: x = X, y = o2 + Z.
    w += p * q * (b.T @ np.triu(u, 1) @ bz)
    # Both right: y - x - 1 = g - Y ~ Bin(g, q), y = o2 + Z; hmat[s, g, o2] = u[s, o2 - 1 - g, o2].
    hmat = _gather(u, geo.back)
    _scatter_add(w, geo.back, q * q * (bq.T @ hmat @ bz))
    # Upper right, lower left: y = X + Y, x~ = n - 1 - x = V + Z' with V = g - Y
    # right cards between and Z' ~ Bin(h, q) right cards below. For each g,
    # P_g[X, Z'] = sum over o1 of G[o1, g] B(o1, X) Bq(n - 2 - g - o1, Z');
    # then Q_g[X, X + Z'] = P_g[X, Z'] (skewed, e = X + Z'), and adding Y ~ Bin(g, p)
    # to y and g to e is Horner's scheme in g: acc = Q_g + shift_e(C acc),
    # C one Bernoulli(p) step along y.
    pg = np.einsum("ox,sog,ogz->sgxz", b, gmat, geo.hs, optimize=True)
    skew = np.zeros((s, n, 3 * n))
    for g in range(n - 1, -1, -1):
        stepped = q * skew
        stepped[:, 1:, :] += p * skew[:, :-1, :]
        skew[:, :, 0] = 0.0
        skew[:, :, 1:] = stepped[:, :, :-1]
        for k in range(s):
            _diagonal_view(skew[k])[...] += pg[k, g]
    _scatter_add(w, geo.cross, q * p * skew)
    return w


def _diagonal_view(a: FloatArray) -> FloatArray:
    """v[X, Z] = a[X, X + Z] for an (n, m) array, m >= 2n - 1: a writable view."""
    n = a.shape[0]
    s0, s1 = a.strides
    return np.lib.stride_tricks.as_strided(a, shape=(n, n), strides=(s0 + s1, s1))


def _same_load_adjoint(v: FloatArray, p: float) -> FloatArray:
    """The adjoint of _same_load: u[s, o1, o2] = sum over (x, y) of
    P(upper card o1 -> x, lower card o2 -> y) v[s, x, y], for o1 < o2 (0 elsewhere)."""
    s, n, _ = v.shape
    geo = _geometry(n, p)
    q = 1 - p
    b, bq, bz = geo.b, geo.bq, geo.bz
    u = np.zeros_like(v)
    g_adj = p * p * (b @ _gather(v, geo.gap) @ b.T)
    u += p * q * np.triu(b @ v @ bz.T, 1)
    _scatter_add(u, geo.back, q * q * (bq @ _gather(v, geo.back) @ bz.T))
    # Upper right, lower left, run backward: Horner's scheme of _same_load in reverse,
    # one Bernoulli(p) step along y per gap g. Column e of the skewed scheme at gap g
    # is column g + e of acc, so a step moves along y only. Only o1 <= n - 2 - g has
    # a card below the lower one, which needs X, Z' < m = n - 1 - g: the work at gap g
    # is m x m, not n x n (about a quarter of the products in all).
    acc = q * p * _gather(v, geo.cross)  # acc[s, y, e] = v[s, n - 1 - (e - y), y]
    st = acc.strides
    for g in range(n - 1):
        m = n - 1 - g
        skewed = np.lib.stride_tricks.as_strided(acc[:, :, g:], shape=(s, m, m),
                                                 strides=(st[0], st[1] + st[2], st[2]))
        g_adj[:, :m, g] += np.einsum("soz,oz->so", np.matmul(b[:m, :m], skewed), geo.hs[:m, g, :m])
        rows, cols = slice(0, m), slice(g + 1, g + 2 * m)  # what the next gap still reads
        below = p * acc[:, 1 : m + 1, cols]
        acc[:, rows, cols] *= q
        acc[:, rows, cols] += below
    _scatter_add(u, geo.gap, g_adj)
    return u


def _pair_round(d: FloatArray, bounds: list[int], p: float, trades: dict[int, float]) -> FloatArray:
    """One round for pair laws d[s, i, j] = P(first card at i, second card at j)."""
    out = np.empty_like(d)
    spans = list(zip(bounds[:-1], bounds[1:]))
    kernels = [_load_kernel(hi - lo, p) for lo, hi in spans]
    for a, (alo, ahi) in enumerate(spans):
        for c, (clo, chi) in enumerate(spans):
            block = d[:, alo:ahi, clo:chi]
            if a != c:
                out[:, alo:ahi, clo:chi] = kernels[a].T @ block @ kernels[c]
            else:
                upper = _same_load(np.triu(block, 1), p)
                lower = _same_load(np.triu(block.transpose(0, 2, 1), 1), p).transpose(0, 2, 1)
                out[:, alo:ahi, clo:chi] = upper + lower
    mixed = np.zeros_like(out)
    for t, w in trades.items():
        inv = np.argsort(_trade_map(bounds, t))
        mixed += w * out[:, inv][:, :, inv]
    return mixed


def _pair_round_adjoint(v: FloatArray, bounds: list[int], p: float, trades: dict[int, float]) -> FloatArray:
    """The adjoint of _pair_round: from v[s, i, j] = P(cards now at (i', j') are at the
    target pair after m rounds) to the same after m + 1 rounds."""
    mixed = np.zeros_like(v)
    for t, w in trades.items():
        dest = _trade_map(bounds, t)
        mixed += w * v[:, dest][:, :, dest]
    out = np.empty_like(v)
    spans = list(zip(bounds[:-1], bounds[1:]))
    kernels = [_load_kernel(hi - lo, p) for lo, hi in spans]
    for a, (alo, ahi) in enumerate(spans):
        for c, (clo, chi) in enumerate(spans):
            block = mixed[:, alo:ahi, clo:chi]
            if a != c:
                out[:, alo:ahi, clo:chi] = kernels[a] @ block @ kernels[c].T
            else:
                upper = _same_load_adjoint(block, p)
                lower = _same_load_adjoint(block.transpose(0, 2, 1), p).transpose(0, 2, 1)
                out[:, alo:ahi, clo:chi] = upper + lower
    return out


def pair_laws(
    n_cards: int, capacity: int, rounds: int, pairs: list[tuple[int, int]], machine: Machine = Machine(),
    *, of: str = "cards", chunk: int = 4,
) -> list[FloatArray]:
    """Exact laws after r = 1..rounds rounds for each pair, as arrays [len(pairs), N, N].

    of="cards": entry [s, i, j] is P(the card starting at pairs[s][0] is at
    position i and the one starting at pairs[s][1] at j); the chain runs
    forward from that pair.
    of="positions": entry [s, a, c] is P(the card at position pairs[s][0] is
    the one that started at a, and the card at pairs[s][1] the one that
    started at c); the chain runs backward (the adjoint) from that pair.
    """
    _check(machine)
    if of not in ("cards", "positions"):
        raise ValueError(f"of must be 'cards' or 'positions', not {of!r}")
    bounds = load_bounds(n_cards, capacity)
    trades = trade_law(bounds, machine)
    for a, b in pairs:
        if not (0 <= a < n_cards and 0 <= b < n_cards and a != b):
            raise ValueError(f"a pair needs two different positions in 0..{n_cards - 1}, not {(a, b)}")
    step = _pair_round if of == "cards" else _pair_round_adjoint
    out = [np.zeros((len(pairs), n_cards, n_cards)) for _ in range(rounds)]
    with _one_blas_thread():
        for lo in range(0, len(pairs), chunk):
            part = pairs[lo : lo + chunk]
            d = np.zeros((len(part), n_cards, n_cards))
            for s, (a, b) in enumerate(part):
                d[s, a, b] = 1.0
            for r in range(rounds):
                d = step(d, bounds, machine.p, trades)
                out[r][lo : lo + len(part)] = d
    return out


def pair_tv(d: FloatArray) -> FloatArray:
    """Exact TV of each pair law d[s] from the uniform law on ordered pairs of distinct positions."""
    n = d.shape[1]
    u = np.full((n, n), 1.0 / (n * (n - 1)))
    np.fill_diagonal(u, 0.0)
    return 0.5 * np.abs(d - u).sum(axis=(1, 2))


def candidate_position_pairs(n_cards: int, capacity: int) -> list[tuple[int, int]]:
    """The pairs of positions the bounds search, each as (upper, lower).

    Where the trade leaves its mark longest: every two of the end positions (top and
    bottom) of the first load and of the loads it trades with (the next and the one
    before), and each of those loads' top two and bottom two positions. Run over
    every pair of positions, the chain finds its strongest pair among these after
    every round at 30 to 47 cards in two to four loads, fair, biased or with a
    spread trade (tests/shuffling/test_stack_trade_laws.py), and a wide search at 162 cards finds
    none stronger (benchmarks/stack_trade_exact.py). With loads of one size the
    round looks the same from every load, so a pair moved by a whole load gives
    the same bound, and only one of each such set is kept.
    """
    bounds = load_bounds(n_cards, capacity)
    spans = list(zip(bounds[:-1], bounds[1:]))
    near = [spans[i] for i in sorted({0, 1 % len(spans), len(spans) - 1})]
    ends = sorted({x for lo, hi in near for x in (lo, hi - 1)})
    pairs = set(itertools.combinations(ends, 2))
    for lo, hi in near:
        if hi - lo >= 2:
            pairs |= {(lo, lo + 1), (hi - 2, hi - 1)}
    sizes = {hi - lo for lo, hi in spans}
    if len(sizes) == 1:
        size = sizes.pop()

        def shifted(pair: tuple[int, int], k: int) -> tuple[int, int]:
            a, b = sorted((x + k * size) % n_cards for x in pair)
            return a, b

        pairs = {min(shifted(pair, k) for k in range(len(spans))) for pair in pairs}
    return sorted(pairs)


@dataclass(frozen=True)
class ExactBound:
    """A rigorous lower bound on the distance from uniform after `rounds` rounds.

    value: the exact distance of the named statistic's law from its uniform
    law, computed in float64, less TOLERANCE, and at least 0. one_card and
    pair keep the best figure of each family (pair None where not followed),
    pair_positions the pair of positions that gave it.
    """

    rounds: int
    value: float
    method: str
    one_card: float
    pair: float | None
    pair_positions: tuple[int, int] | None = None

    def estimate(self) -> Estimate:
        """The bound as the report shows it: a lower bound with no simulation error."""
        return Estimate(self.value, 0.0, "lower-bound", f"exact law of the {self.method}")

    def pair_bound(self) -> PairBound | None:
        """The strongest pair of positions' bound, with the pair, where pairs were followed."""
        if self.pair is None or self.pair_positions is None:
            return None
        return PairBound(self.pair, self.pair_positions)


def exact_bounds(
    n_cards: int, capacity: int, rounds: int, machine: Machine = Machine(), *,
    pairs: list[tuple[int, int]] | None = None, pair_floor: float = PAIR_FLOOR,
) -> list[ExactBound] | None:
    """Exact-law lower bounds for stack-trade after 1..rounds rounds.

    None where they do not apply: a single load (the routine is then an
    inverse riffle, known exactly), clumped sides, or a pack too big for the
    N x N table. Pairs of positions (candidate_position_pairs, all in one
    batch) are followed while their best bound is above pair_floor, and
    only for packs of at most MAX_PAIR_LAW_CARDS cards; each round's bound is
    the stronger of the best pair's and the best one card's, named.
    """
    bounds = load_bounds(n_cards, capacity)
    if len(bounds) <= 2 or not covered(machine) or n_cards > MAX_EXACT_LAW_CARDS:
        return None
    if pairs is None:
        pairs = candidate_position_pairs(n_cards, capacity)
    follow = bool(pairs) and n_cards <= MAX_PAIR_LAW_CARDS
    singles = position_laws(n_cards, capacity, rounds, machine)
    trades = trade_law(bounds, machine)
    d = _pair_indicators(pairs, n_cards)
    out = []
    for r in range(1, rounds + 1):
        v1, m1 = one_card_tv(singles[r - 1])
        value, method = max(0.0, v1 - TOLERANCE), m1
        pv: float | None = None
        where: tuple[int, int] | None = None
        if follow:
            d, pv, where = _best_pair(d, pairs, bounds, machine, trades)
            if pv > value:
                value, method = pv, pair_method(*where)
            follow = pv > pair_floor
        out.append(ExactBound(r, value, method, max(0.0, v1 - TOLERANCE), pv, where))
    return out


def pair_method(a: int, b: int) -> str:
    """The method of a bound the law of the cards at positions a and b gives."""
    return f"cards at positions {a} and {b}"


def _pair_indicators(pairs: list[tuple[int, int]], n_cards: int) -> FloatArray:
    """One N x N table per pair of positions (a, b), 1 at (a, b): what the
    adjoint rounds carry back to each pair's law."""
    d = np.zeros((len(pairs), n_cards, n_cards))
    for s, (a, b) in enumerate(pairs):
        d[s, a, b] = 1.0
    return d


def _best_pair(d: FloatArray, pairs: list[tuple[int, int]], bounds: list[int], machine: Machine,
               trades: dict[int, float]) -> tuple[FloatArray, float, tuple[int, int]]:
    """The pairs' tables a round further, the best pair's bound and the pair."""
    with _one_blas_thread():
        d = _pair_round_adjoint(d, bounds, machine.p, trades)
    tvs = pair_tv(d)
    k = int(tvs.argmax())
    return d, max(0.0, float(tvs[k]) - TOLERANCE), pairs[k]


def exact_law_bounds(
    routine_name: str, n_cards: int, capacity: int, rounds: int, machine: Machine = Machine()
) -> list[ExactBound] | None:
    """The report's rigorous lower bounds for a routine, round by round, or None.

    Only stack-trade needs them: pile-trade and exact mode have exact
    distances. Each round's bound gives the report an Estimate of kind
    "lower-bound" with no simulation error, named for the exact law that gave
    it (ExactBound.estimate), and the strongest pair of positions with its
    bound (ExactBound.pair_bound).
    """
    if routine_name != "stack-trade":
        return None
    return exact_bounds(n_cards, capacity, rounds, machine)
