"""What the guide walks through: the routine's steps, one pass at a time.

A routine is the policy the guide's state machine consults; it never talks
to the device or the person. The machine asks it for the first stretch of
work (`begin`) and, after each pass, for the stretch up to the next pass
(`after_pass`): table steps, notices, then the pass's load and touch, or the
last gathering. Random mode (`RandomRoutine`) walks the plan's pile-trade
rounds, exact mode (`GuidedExactRoutine`) the fixed instructions of
shuffling/exact_mode/physical.py for the routine the device runs
(whole-pack radix or the split, firmware/exact_routes.py) with the loads the
device expects.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Union

from firmware import exact_routes as routes
from host.device_messages import Reply
from host.guide import notices
from host.plan import Plan, trade_steps
from shuffling import steps as step_kinds
from shuffling import time_model
from shuffling.exact_mode import repair_in_place
from shuffling.exact_mode.physical import ExactStep, route_steps, split_place

@dataclass(frozen=True)
class RoundMark:
    """The steps from here on belong to `round` (the round of the pass they
    come before or after)."""

    round: int


Item = Union[step_kinds.Step, notices.Notice, RoundMark]

# Random mode deals a load within this of the plan as it is (the shuffle does
# not depend on where the loads are cut); further off, the person is told to
# move cards first. Exact mode needs the count exactly.
LOAD_TOLERANCE_PCT = 5


def load_tolerance(want: int) -> int:
    """Cards a load may be off its planned size in random mode: 5 %, at least 2."""
    return max(2, want * LOAD_TOLERANCE_PCT // 100)


def even_split(cards: int, loads: int) -> list[int]:
    """cards into `loads` near-equal loads, larger ones on top."""
    if loads <= 0:
        return []
    q, r = divmod(max(cards, 0), loads)
    return [q + 1] * r + [q] * (loads - r)


@dataclass(frozen=True)
class PassResult:
    load: str
    cards: int
    left: int | None  # None: the device's counts of the piles are not known
    right: int | None
    parts: int


class RandomRoutine:
    """The plan's pile-trade rounds; `counted`: a device counts every load."""

    exact = False

    def __init__(self, plan: Plan, counted: bool, from_round: int = 1,
                 seconds_per_round: float | None = None) -> None:
        self.plan = plan
        self.counted = counted
        self.names = list(plan.names)
        self.sizes = list(plan.loads)
        self.round = from_round
        self.first_round = from_round
        self.index = 0
        self.expected = list(self.sizes)
        self.results: list[PassResult] = []
        self.per_round: list[list[int]] = []
        self.passes = 0
        self.seconds_per_round = seconds_per_round

    @property
    def rounds(self) -> int:
        return self.plan.rounds

    def begin(self) -> list[Item]:
        cut = step_kinds.Cut(step_kinds.PACK, tuple(self.names), tuple(self.sizes), by_eye=len(self.names) > 1,
                    counted=self.counted, first=True)
        return [RoundMark(self.round), cut, *self._round_start(), *self._load(0)]

    def _round_start(self) -> list[Item]:
        left = None
        if self.seconds_per_round is not None:
            left = self.seconds_per_round * (self.rounds - self.round + 1)
        return [RoundMark(self.round), notices.RoundStart(self.round, self.rounds, False, left)]

    def _load(self, i: int) -> list[Item]:
        name = self.names[i]
        touch = step_kinds.Touch("start") if self.counted else step_kinds.Touch("manual")
        return [step_kinds.PutInTray(name, self.expected[i], about=self.tolerance(name) > 0 or not self.counted), touch]

    def tolerance(self, load: str) -> int:
        i = self.names.index(load) if load in self.names else len(self.names) - 1
        return load_tolerance(self.expected[i]) if i + 1 < len(self.names) else 0

    def next_load(self, load: str) -> str | None:
        i = self.names.index(load)
        return self.names[i + 1] if i + 1 < len(self.names) else None

    def record(self, result: PassResult) -> None:
        """A pass of this routine is over."""
        self.results.append(result)
        self.passes += 1

    def after_pass(self) -> list[Item]:
        """The work after the pass just recorded, up to the next pass."""
        i = self.index
        result = self.results[-1]
        if result.cards != self.expected[i] and i + 1 < len(self.names):
            # Spread the difference over the loads still to come this round.
            dealt = sum(r.cards for r in self.results)
            self.expected[i + 1:] = even_split(self.plan.cards - dealt, len(self.names) - i - 1)
        out: list[Item] = [step_kinds.Lift(result.load, result.left, result.right)]
        if i + 1 < len(self.names):
            self.index += 1
            return out + self._load(i + 1)
        return out + self._end_of_round()

    def _end_of_round(self) -> list[Item]:
        out: list[Item] = []
        total = sum(r.cards for r in self.results)
        if self.counted:
            self.per_round.append([r.cards for r in self.results])
            if total != self.plan.cards:
                out.append(notices.RoundCountOff(self.round, total, self.plan.cards))
        known = self.counted and all(r.left is not None and r.right is not None for r in self.results)
        lefts = [r.left or 0 for r in self.results] if known else None
        rights = [r.right or 0 for r in self.results] if known else None
        out += trade_steps(self.names, self.sizes, lefts, rights, counted=self.counted)
        self.results, self.index, self.expected = [], 0, list(self.sizes)
        if self.round < self.rounds:
            self.round += 1
            return out + self._round_start() + self._load(0)
        self.round += 1
        # Fewer rounds than the quality needs (--rounds): the last step does not call the pack shuffled.
        short = self.plan.quality.name if self.plan.distance > self.plan.quality.threshold else ""
        return out + [step_kinds.Gather(tuple(self.names), short)]

    @property
    def done(self) -> bool:
        return self.round > self.rounds

    def place(self) -> tuple[int, str, int]:
        """(round, load, pass number) of the pass in hand or next."""
        r = min(self.round, self.rounds)
        return r, self.names[self.index], (r - 1) * len(self.names) + self.index + 1

    @property
    def of_passes(self) -> int:
        return self.rounds * len(self.names)

    def table_seconds(self) -> float:
        """The plan's time at a real table for the passes dealt."""
        return self.plan.timing.total_s * self.passes / max(1, self.of_passes)


class GuidedExactRoutine:
    """The guide's record of the exact routine the device runs: exact mode's
    fixed instructions, with the loads the device expects (the device's own
    record of it is firmware/exact.py's ExactRoutine).

    Everything about the routine comes from its steps, for the routine the
    device said it runs: each round's loads, in order, with their sizes."""

    exact = True

    def __init__(self, cards: int, capacity: int, begun: Reply, resume_at: Reply | None = None) -> None:
        self.cards = cards
        self.route = routes.route(cards, capacity, begun.kind)
        if self.route.rounds != begun.rounds:
            raise ValueError(f"the shuffler's {begun.kind} routine has {begun.rounds} rounds, this pack's "
                             f"{self.route.rounds}")
        self.steps: list[ExactStep] = route_steps(self.route, begun.uneven)
        self.rounds = begun.rounds
        self.device_next: Reply | None = begun.next
        self.i = 0
        self.round = 0  # the round of the pass in hand or next
        self.load = begun.next.load
        self.passes = 0
        self.per_round: list[list[int]] = []
        # Each round's loads, in the order they go in, with the sizes the code set fixes.
        self.round_sizes: dict[int, dict[str, int]] = {}
        for es in self.steps:
            if isinstance(es.step, step_kinds.PutInTray):
                self.round_sizes.setdefault(es.round, {})[es.step.load] = int(es.step.cards or 0)
        self.resume_at = resume_at
        # What the device has said of the routine: it is done (exact_done),
        # or exactness is lost and why (exact_lost, a restart that took the codes).
        self.finished = False
        self.lost: str | None = None
        self.extra_passes = 0  # passes added by parts dealt again
        self.rewound = False  # the pass in hand's part is dealt again after it (no rest owed to its routine)
        self.regather: str | None = None  # the part whose piles go together first, once its pass is over
        self.awaiting_repair = 0  # repairs the host asked for whose exact_repair events are still to come
        self.next_is_repair = False  # the device's next load is a part dealt again (it may name the round just dealt)
        self.walked: list[step_kinds.Step] = []  # every step shown, a part dealt again shown twice: its table time

    # -- the stretches of work ---------------------------------------------------------
    def begin(self) -> list[Item]:
        if self.resume_at is not None:
            return self._resume(self.resume_at)
        return [notices.ExactIntro(self.rounds, self.of_passes), *self._stretch()]

    def _resume(self, at: Reply) -> list[Item]:
        """From the pass the device expects: the table work since the last pass, shown again."""
        put = next((j for j, es in enumerate(self.steps) if isinstance(es.step, step_kinds.PutInTray)
                    and (es.round, es.step.load) == (at.round, at.load)), None)
        if put is None:
            raise ValueError(f"round {at.round}, load {at.load} is not in this pack's routine")
        start = put
        while start > 0 and not isinstance(self.steps[start - 1].step, step_kinds.Touch):
            start -= 1
        self.i = start
        self.passes = sum(1 for es in self.steps[:put] if isinstance(es.step, step_kinds.PutInTray))
        self.per_round = [[] for _ in range(at.round)]
        left = self.of_passes - self.passes
        # What the guide cannot know about the table after a stop: asked first.
        return [notices.Resuming(at.round, self.rounds, at.load, left), step_kinds.Fix("stopped"),
                *self._stretch(resumed=True)]

    def _stretch(self, resumed: bool = False) -> list[Item]:
        """The steps from here to the next touch (or to the end)."""
        out: list[Item] = []
        mark = None
        while self.i < len(self.steps):
            es = self.steps[self.i]
            self.i += 1
            step = es.step
            self.walked.append(step)
            if es.round != mark:
                mark = es.round
                out.append(RoundMark(es.round))
            if isinstance(step, step_kinds.PutInTray):
                if es.round != self.round:
                    self.round = es.round
                    if len(self.per_round) < es.round:
                        self.per_round.append([])
                    out.append(self._round_start())
                self.load = step.load
                cards = self.want(es.round, step.load, step.cards)
                if resumed and isinstance(step, step_kinds.Reload):  # its piles may be off the machine already
                    out.append(dataclasses.replace(step, cards=cards, after_stop=True))
                else:
                    out.append(dataclasses.replace(step, cards=cards))
                continue
            # A pile's count is never sent in exact mode: the steps say which
            # piles may have no card (shuffling/exact_mode/physical.py).
            out.append(step)
            if isinstance(step, step_kinds.Touch):
                return out
        return out

    def _round_start(self) -> notices.RoundStart:
        """The round begins with the step just taken: the time model times what is left."""
        left = time_model.timing(es.step for es in self.steps[self.i - 1:]).total_s
        return notices.RoundStart(self.round, self.rounds, True, left)

    def want(self, round: int, load: str, planned: int | None) -> int:
        nxt = self.device_next
        if nxt is not None and (nxt.round, nxt.load) == (round, load):
            return nxt.count
        return int(planned or 0)

    def record(self, result: PassResult) -> None:
        self.passes += 1
        self.rewound = False
        if self.per_round:
            self.per_round[-1].append(result.cards)

    # -- a part dealt again ----------------------------------------------------------
    def part_first_round(self) -> int | None:
        """The first round (1-based) of the part in hand, where the split
        deals it alone; None for whole-pack radix or a split round."""
        r = max(self.round, 1) - 1
        rt = self.route
        if rt.kind != routes.SPLIT or rt.kinds[r] != routes.SORT_ROUND or rt.loads[r] != 1:
            return None
        while r > 0 and rt.kinds[r - 1] == routes.SORT_ROUND and rt.lo[r - 1] == rt.lo[r]:
            r -= 1
        return r + 1

    def part_passes(self, first: int) -> int:
        """The passes of the part whose first round is `first`: one a round."""
        rt = self.route
        r = first - 1
        count = 0
        while r < rt.rounds and rt.kinds[r] == routes.SORT_ROUND and rt.lo[r] == rt.lo[first - 1]:
            count += 1
            r += 1
        return count

    def part_seconds(self, first: int) -> float:
        """The time model's time for the part dealt again from its first round
        (not the routine's last step, the gather, which its last round holds
        and which comes once either way)."""
        passes = self.part_passes(first)
        block = [es.step for es in self.steps if first <= es.round < first + passes
                 and not isinstance(es.step, step_kinds.Gather)]
        return time_model.timing(block).total_s

    def repair(self, first: int, regather: bool) -> None:
        """The part in hand is dealt again from its first round (1-based):
        the steps walk on from that round's load, after (regather) a step
        that puts its piles together in any order."""
        put = next(j for j, es in enumerate(self.steps) if es.round == first and isinstance(es.step, step_kinds.PutInTray))
        # The part's passes dealt so far are dealt again, and the pass of it
        # in hand, which went wrong (regather: its piles are on the machine),
        # is one more.
        done = self.round - first + (1 if regather else 0)
        self.i = put
        self.round = first - 1  # the round starts again (its heading said again)
        self.extra_passes += done
        self.rewound = True
        self.regather = self.load if regather else None

    # -- a stack dealt again from its split round (a wrong set) -------------------------
    def parent_round(self) -> int | None:
        """The split round (1-based) that cut the stack in hand (a part at its
        first pass, or a stack a split round deals) off a stack smaller than
        the pack; None elsewhere (whole-pack radix, the pipelined routine, a
        part's later pass, a stack cut off the whole pack: there dealing the
        stack again is a fresh routine)."""
        r = max(self.round, 1) - 1
        if self.route.kinds[r] != routes.SPLIT_ROUND and self.part_first_round() != r + 1:
            return None
        t = routes.parent_round(self.route, r)
        if t < 0 or self.route.size[t] >= self.route.n:
            return None
        return t + 1

    def parent_stack(self, parent: int, load: str) -> tuple[str, tuple[str, ...], int, tuple[str, ...]]:
        """Split round `parent`'s stack as a place on the table, the stacks it
        lies in now (top of the pack first: `load`, the load in hand, among
        them once it is out of the tray, parts dealt already too; in a split
        round, the piles of its loads dealt already), its cards, and the
        piles among them that may have no card."""
        rt, t, r = self.route, parent - 1, max(self.round, 1) - 1
        lying: list[str] = []
        piles: list[str] = []
        for lo, size in repair_in_place.stacks_on_table(rt, t, r):
            if (lo, size) != (rt.lo[r], rt.size[r]):
                lying.append(split_place(rt, lo, size))
                continue
            names = self.names()
            for name in names[:names.index(load)] if load in names else []:
                piles += [step_kinds.left_of(name), step_kinds.right_of(name)]
            lying += piles + [load]
        return split_place(rt, rt.lo[t], rt.size[t]), tuple(lying), rt.size[t], tuple(piles)

    def parent_passes(self, parent: int) -> int:
        return repair_in_place.parent_passes(self.route, parent - 1)

    def parent_seconds(self, parent: int) -> float:
        """The time model's time for split round `parent`'s stack dealt again
        (not the routine's last step, the gather, which comes once either way)."""
        rounds = repair_in_place.parent_rounds(self.route, parent - 1)
        block = [es.step for es in self.steps if es.round - 1 in rounds and not isinstance(es.step, step_kinds.Gather)]
        return time_model.timing(block).total_s

    def repair_parent(self, parent: int) -> None:
        """Split round `parent`'s stack is dealt again from that round: the
        steps walk on from its first step (the cut), every pass of it dealt
        so far one more."""
        names = self.names()
        in_round = names.index(self.load) if self.load in names else 0  # this round's loads dealt already
        self.extra_passes += sum(self.route.loads[t] for t in range(parent - 1, max(self.round, 1) - 1)) + in_round
        self.i = next(j for j, es in enumerate(self.steps) if es.round == parent)
        self.round = parent - 1  # the round starts again (its heading said again)
        self.rewound = True
        self.regather = None

    def after_pass(self) -> list[Item]:
        first: list[Item] = []
        if self.regather:
            first.append(step_kinds.Fix("regather", load=self.regather))
            self.regather = None
        return first + self._stretch()

    @property
    def done(self) -> bool:
        return self.i >= len(self.steps)

    def tolerance(self, load: str) -> int:
        return 0  # the device expects the count exactly

    def names(self) -> list[str]:
        """This round's loads, in the order they go in."""
        return list(self.round_sizes.get(max(self.round, 1), {}))

    def next_load(self, load: str) -> str | None:
        names = self.names()
        i = names.index(load) if load in names else len(names) - 1
        return names[i + 1] if i + 1 < len(names) else None

    def by_eye(self) -> bool:
        """This round's loads were cut by eye: a split round, or whole-pack
        radix's first round or a round of three loads or more."""
        r = max(self.round, 1) - 1
        if self.route.kinds[r] == routes.SPLIT_ROUND:
            return self.route.kind == routes.SPLIT  # the pipelined routine's load A is counted exactly
        return self.route.kind == routes.RADIX and self.route.loads[r] > 1 and (r == 0 or self.route.loads[r] >= 3)

    def swapped_with(self, load: str, n: int) -> str | None:
        """The load the tray's count shows instead of `load`, if a mix-up can
        explain it: the other stack of a two-load radix round, or another
        part of the split."""
        if self.by_eye() or self.route.kinds[max(self.round, 1) - 1] == routes.SPLIT_ROUND:
            return None
        if self.route.kind == routes.RADIX:
            sizes = self.round_sizes.get(self.round, {})
            others = [x for x in sizes if x != load and sizes[x] == n] if len(sizes) == 2 else []
        else:
            others = [self.route.part_name(i) for i, size in enumerate(self.route.part_size)
                      if size == n and self.route.part_name(i) != load]
        return others[0] if others else None

    def swap_notice(self, load: str, want: int, n: int, other: str) -> notices.Notice:
        """What to say when the tray holds `other`'s count instead of `load`'s."""
        if self.route.kind == routes.RADIX:
            stack, other_stack = ("left", "right") if self.names().index(load) == 0 else ("right", "left")
            return notices.StacksSwapped(load, want, n, stack, other_stack)
        return notices.LoadsSwapped(load, want, n, other)

    def place(self) -> tuple[int, str, int]:
        return max(self.round, 1), self.load, self.passes + 1

    @property
    def of_passes(self) -> int:
        return self.route.passes() + self.extra_passes

    def table_seconds(self) -> float:
        """The time model's time at a real table for every step shown so far."""
        return time_model.timing(self.walked).total_s
