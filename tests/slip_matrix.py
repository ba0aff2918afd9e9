"""The slip matrix: one slip of a catalogue made by a person at the virtual
shuffler's table during a guided exact routine, what the guide did about
it, what it claimed at the end, and the truth.

The truth is what the guide never sees: the codes the virtual board keeps in
its flash (exact.json), read as the routine goes, and the pack the person
ends with. A card's code goes with the card: read for the whole pack when a
routine begins (its cut), for a part's cards by the place each lies in when
the part's first pass goes in (a card put back in the stack before then
takes its place's code: docs/exact-mode.md, *Mended in place*), and when
that part is dealt again from fresh codes (when its first repaired load
goes in). The pack is
"in code order" when its j-th card has code j: what the routine's proof says
it ends in. Exactly 0 is true when it is in code order.

Used by tests/host/test_slip_matrix.py (a small pack on a small tray) and
benchmarks/exact_mode_slips.py (Samba, canasta 108).
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from firmware import exact_routes
from host import person as persons
from host.guide import notices
from host.guide.results import GuideStopped, Summary
from shuffling import steps


FOREIGN = "a card of another pack"


@dataclass(frozen=True)
class Slip:
    """One slip: `name` says it; `round` is where (the routine's round);
    `load` the load (None: any); `kind` what the person does (see SlippingPerson);
    `seen`: whether a count or the device can show it (else only the claim's
    condition speaks of it)."""

    name: str
    kind: str
    round: int
    load: str | None
    seen: bool


class SlippingPerson(persons.ScriptedPerson):
    """The scripted person (does every step as told), who makes one slip
    and follows the guide's fixes; it reads the board's codes as it goes (the
    truth, never the guide's)."""

    slip: Slip
    flash: Path
    route: exact_routes.Route

    def __init__(self, world: Any, cards: int, **kw: Any) -> None:
        super().__init__(world, cards, **kw)
        self.card_code: dict[Any, int] = {}
        self.slipped = False
        self.in_hand: list[Any] = []  # cards the slip took out of a load
        self.fresh: set[str] = set()  # parts dealt again: their codes are read at their next load
        self.start_codes: list[int] = []
        self.first_loads: dict[str, list[Any]] = {}  # the routine's first round: what each load held as it went in

    # -- the truth ---------------------------------------------------------------------
    def codes(self) -> list[int]:
        return list(json.loads((self.flash / "exact.json").read_text())["codes"])

    def part_lo(self, load: str) -> tuple[int, int] | None:
        for i in range(len(self.route.part_lo)):
            if self.route.part_name(i) == load:
                return self.route.part_lo[i], self.route.part_size[i]
        return None

    def first_pass(self, load: str, round: int | None) -> bool:
        """Whether round (1-based) is the first pass of the split's part `load`."""
        at = self.part_lo(load)
        if at is None or round is None or self.route.kind != exact_routes.SPLIT:
            return False
        first = next(r for r in range(self.route.rounds)
                     if self.route.kinds[r] == exact_routes.SORT_ROUND and self.route.lo[r] == at[0])
        return round == first + 1

    def in_code_order(self, pack: list[Any]) -> bool:
        return [self.card_code.get(c) for c in pack] == list(range(len(pack)))

    # -- doing the steps ---------------------------------------------------------------
    def do(self, step: steps.Step, number: int, round: int | None = None) -> None:
        if isinstance(step, steps.Cut) and step.first:
            # A routine begins (a fresh one after a loss too): its codes by position.
            self.start_codes = self.codes()
            self.first_loads: dict[str, list[Any]] = {}
        if round is not None and round > 1 and self.first_loads:
            # A card's code is the one at its position when it is first dealt
            # (the routine's first round, its loads in order): positions not
            # yet dealt hold their codes in a uniformly random arrangement,
            # so which card lies where before then does not matter
            # (docs/exact-mode.md).
            ids = [c for name in sorted(self.first_loads) for c in self.first_loads[name]]
            self.card_code.update(zip(ids, self.start_codes))
            self.first_loads = {}
        if isinstance(step, steps.PutInTray) and not isinstance(step, steps.Reload) and self.first_pass(step.load, round):
            # A part's first pass reads its codes by position: a card put back
            # in its stack before then takes the code of the place it lies in
            # (docs/exact-mode.md, *Mended in place* (a)).
            self.fresh.add(step.load)
        if isinstance(step, steps.PutInTray) and step.load in self.fresh and step.load in self.table:
            at = self.part_lo(step.load)
            if at is not None:
                lo, size = at
                codes = self.codes()
                self.card_code.update(zip(self.table[step.load], codes[lo:lo + size]))
                self.fresh.discard(step.load)
        if isinstance(step, steps.PutInTray) and round == 1 and step.load in self.table and not step.rest:
            self.first_loads[step.load] = list(self.table[step.load])  # as it goes in (the last time counts)
        self.number_now = number
        if not self.slipped and round == self.slip.round and self.slip_now(step):
            self.slipped = True
            if self.slip.kind not in ("swapped", "short_pack", "foreign"):  # (done as believed: answered already)
                self.answer_after(step, number, round)
            return
        super().do(step, number, round)

    def answer_after(self, step: steps.Step, number: int, round: int | None) -> None:
        """The slip is made instead of the step as told; the step is answered as done."""
        self.round = round
        self.steps.append(step)
        self.said.append(persons.Said(number, "script"))

    def slip_now(self, step: steps.Step) -> bool:
        """Make the slip at this step, if it is the one (True: the step was done, wrongly)."""
        kind, load = self.slip.kind, self.slip.load
        if kind.startswith("drop_") and isinstance(step, steps.Reload) and step.load == load:
            ids = self.world.take("left") + self.world.take("right")  # as told: left on right, back in the tray
            self.table[load] = ids
        if kind.startswith("drop_") and isinstance(step, steps.PutInTray) and step.load == load \
                and load in self.table and not step.again:
            ids = self.table.pop(load)
            where = {"drop_top": 0, "drop_bottom": len(ids) - 1, "drop_middle": len(ids) // 2}[kind]
            self.in_hand = [ids.pop(where)]
            self.world.load(ids)
            if self.slip.round == 1:
                self.first_loads[load] = list(ids)
            self.in_tray = load
            return True
        if kind in ("double_feed", "overlap") and isinstance(step, steps.Touch) and self.in_tray == load:
            self.world.inject("double_feed", 3, "overlap" if kind == "overlap" else "", "")
            self.world.touch()
            return True
        if kind == "stack_order" and isinstance(step, steps.Stack) and len(step.parts) > 1 and step.result == load:
            parts = tuple(reversed(step.parts))  # the bottom part put on top
            steps.do_on_table(steps.Stack(parts, step.result, step.may_be_empty), self.table)
            return True
        if kind == "reload_wrong" and isinstance(step, steps.Reload) and step.load == load:
            left, right = self.world.take("left"), self.world.take("right")
            self.world.load(right + left)  # right pile on the left pile
            self.in_tray = load
            return True
        if kind in ("short_pack", "foreign") and isinstance(step, steps.Cut) and step.first:
            # The pack is not the game's: two of its cards were never there
            # (the bottom of load B), or a card of another pack lies on load A.
            super().do(step, self.number_now, self.slip.round)
            if kind == "short_pack":
                self.table["B"] = self.table["B"][:-2]
            else:
                self.table["A"] = [FOREIGN] + self.table["A"]
            return True
        if kind == "swapped" and isinstance(step, steps.PutInTray) and step.load == load and not step.again:
            # The other part's stack taken for this one: the labels in the
            # person's head swap, then the step is done as they believe it.
            other = next(name for name in self.table if name != load and name in self.part_names())
            self.table[load], self.table[other] = self.table[other], self.table[load]
            super().do(step, self.number_now, self.slip.round)
            return True
        return False

    def part_names(self) -> list[str]:
        return [self.route.part_name(i) for i in range(len(self.route.part_lo))]

    def carry_out(self, step: steps.Step) -> None:
        if isinstance(step, steps.Fix) and step.what in ("anywhere", "missing") and self.in_hand:
            ids = self.table.get(step.load or "", [])
            back = self.in_hand
            self.in_hand = []
            # "anywhere": where it lands does not matter; the middle. "missing": at its bottom, as told.
            at = len(ids) // 2 if step.what == "anywhere" else len(ids)
            self.table[step.load or ""] = ids[:at] + back + ids[at:]
            return
        super().carry_out(step)
        if isinstance(step, steps.Collect) and step.missing and self.in_hand:
            # Told a load was short: the card is looked for, and found.
            self.table[steps.PACK] = self.table[steps.PACK] + self.in_hand
            self.in_hand = []


def catalogue(route: exact_routes.Route) -> tuple[Slip, ...]:
    """The slips, placed on a split's own rounds: its split round (loads A
    and B), its first part's first and second pass, its second part's first."""
    p, q = route.part_name(0), route.part_name(1)
    p1 = next(r for r in range(route.rounds) if route.kinds[r] == exact_routes.SORT_ROUND) + 1
    q1 = next(r for r in range(route.rounds) if route.kinds[r] == exact_routes.SORT_ROUND
              and route.lo[r] == route.part_lo[1]) + 1
    return (
        Slip("a card slips off the top of load B before its pass (the split round)", "drop_top", 1, "B", True),
        Slip(f"a card slips off the middle of load {p} before its first pass", "drop_middle", p1, p, True),
        Slip(f"a card slips off the top of load {p} before its second pass", "drop_top", p1 + 1, p, True),
        Slip(f"a card slips off the bottom of load {q} before its first pass", "drop_bottom", q1, q, True),
        Slip(f"two cards caught in the exit in {p}'s second pass, put back", "double_feed", p1 + 1, p, True),
        Slip(f"two cards through the exit as one in {p}'s second pass", "overlap", p1 + 1, p, True),
        Slip("two cards through the exit as one in the split round", "overlap", 1, "A", True),
        Slip(f"load {q} put in for load {p}", "swapped", p1, p, True),
        Slip("the pack is two cards short (load B's bottom two never there)", "short_pack", 1, "B", True),
        Slip("a card of another pack lies on load A", "foreign", 1, "A", True),
        Slip(f"the split's stack for {p} put together the wrong way round", "stack_order", 1, p, False),
        Slip(f"{p}'s piles put back right on left between its passes", "reload_wrong", p1 + 1, p, False),
    )


def record_repairs(person: SlippingPerson) -> Callable[[notices.Notice], None]:
    """A listener for the guide's notices: a part dealt again has its codes read afresh."""
    def heard(notice: notices.Notice) -> None:
        if isinstance(notice, notices.PartDealtAgain):
            person.fresh.add(notice.part)
    return heard


@dataclass(frozen=True)
class Outcome:
    slip: Slip
    did: str  # what the guide did about it
    claim: str  # what it claimed
    conditional: bool  # the claim named what the shuffler cannot see
    truth: bool  # the pack ended in code order
    pack_whole: bool  # every card once


def outcome(slip: Slip, result: Summary | GuideStopped, person: SlippingPerson) -> Outcome:
    if isinstance(result, GuideStopped):
        return Outcome(slip, f"stopped: {result}", "none", True, False, False)
    entries = result.exactness
    did = "; ".join(f"{e['outcome']}: {e['words']}" for e in entries) or "nothing"
    exact = result.distance == 0.0 and result.distance_kind == "exact"
    claim = "exactly 0" if exact else f"{result.distance_kind} {result.distance:.4f}"
    final = [e for e in person.log if e["op"] == "final"]
    pack = final[-1]["pack"] if final else []
    return Outcome(slip, did, claim, bool(result.condition) or not exact, person.in_code_order(pack),
                   sorted(pack) == list(range(len(pack))))
