"""Words of the report: counts as prose, and what each column of its tables says."""
from __future__ import annotations

import math
from typing import TYPE_CHECKING

from shuffling.steps import loads_phrase, number  # the words of the table, written once
from shuffling.time_model import duration

if TYPE_CHECKING:
    from .estimate import Estimate
    from .results import ExactRoutineResult, UpperBound

__all__ = ["number", "loads_phrase", "distance_note", "guessing_note", "deal_note", "passes_note", "never_note",
           "exact_routine_line", "duration"]

# What each column of the report's tables says, written once for the screen
# and the docs. Every column reads "lower is better": 0 distance, the guessing
# score down at H_N, the deal as a random pack deals it.

def distance_note() -> str:
    return ("distance from random: 0 means no test can tell the pack from a randomly shuffled one; "
            "1 means some arrangement is still (almost) certain. \"exact\" figures are exact. "
            "\"at least x ± e\" is a lower bound: the true distance is x or more (e is the simulation's "
            "error) and may be much more; \"at least x (method)\" is a lower bound with no simulation error.")


def exact_routine_line(routine: str, exact: ExactRoutineResult, parts_apart: bool) -> str:
    """Under an exact routine's table: which routine its rounds are, whether the shuffler
    runs it for this pack, its passes and time, and what an onlooker who counts its piles
    learns; `parts_apart`: its stacks lie apart until its last pass (the split)."""
    whose = ("the shuffler runs it for this pack" if exact.chosen
             else "the shuffler runs the other routine for this pack; this one is run when asked for")
    text = (f"The rounds of {routine} are {exact.name} ({whose}): {exact.passes} passes, about "
            f"{duration(exact.seconds)} at the table, then exactly random.")
    if parts_apart:
        text += (" Until its last pass its stacks and parts lie apart; each round's figures are for the pack "
                 "they make put together in order, top part first.")
    if exact.onlooker_bits > 0:
        text += (f" Its piles' counts depend on the order: someone who counts them learns "
                 f"{exact.onlooker_bits:.1f} bits of it (of {exact.order_bits:.1f}), and every order that "
                 f"gives those counts stays equally likely.")
    else:
        text += " Every pile's count is fixed by the routine: counting them tells nothing of the order."
    return text


def guessing_note(n_cards: int, h_n: float) -> str:
    return (f"guessing game: a player who remembers the gathered order names each card before it is turned "
            f"up; the figure is how many of the {n_cards:,} they name right on average. On a random pack "
            f"no one does better than H_N = 1 + 1/2 + ... + 1/{n_cards} = {h_n:.2f}; more means the old "
            f"order still shows.")


def strategy_note(fitted: list[str]) -> str:
    """How the player guesses; `fitted`: the routines whose player also knows the exact position law."""
    text = "The player follows the runs the passes leave."
    if fitted:
        text += (f" On {' and '.join(fitted)} the player also knows, exactly, where each card can lie after "
                 "each round, and uses whichever of these strategies names more cards (picked on one set of "
                 "shuffles and scored on another).")
    return text


def bound_figure(value: float) -> str:
    """A bound with no simulation error: four decimals, or two significant digits below 0.01."""
    digits = 4 if value <= 0 else max(4, 1 - math.floor(math.log10(value)))
    return f"{value:.{digits}f}"


def law_bounds_line(routine: str, bounds: list[Estimate | None]) -> str:
    """The exact-law bounds of a routine, round by round, in one line under its table, each
    run of rounds with the statistic that gave it (which card, or which pair of positions)."""
    runs: list[tuple[str, list[str]]] = []
    for r, e in enumerate(bounds, start=1):
        if e is None:
            continue
        what = e.method.removeprefix("exact law of the ")
        cell = f"{r}: {bound_figure(e.value)}"
        if runs and runs[-1][0] == what:
            runs[-1][1].append(cell)
        else:
            runs.append((what, [cell]))
    cells = "; ".join(f"{', '.join(values)} ({what})" for what, values in runs)
    return f"Exact-law bounds for {routine} (rigorous lower bounds, no simulation error), by round: {cells}."


def upper_bounds_line(routine: str, bounds: list[UpperBound | None]) -> str:
    """The simulated upper bounds of a routine, round by round, in one line under its table."""
    shown = [(r, b) for r, b in enumerate(bounds, start=1) if b is not None]
    cells = ", ".join(f"{r}: {b.value:.4f}" for r, b in shown)
    first = shown[0][1]
    return (f"Upper bounds for {routine} by coupling (simulated with {first.samples:,} pairs of packs, each at "
            f"{first.confidence:.1%} confidence), by round: {cells}.")


def upper_bound_note() -> str:
    return ("upper bounds: a pack from the gathered order and a randomly ordered one are shuffled alike (every "
            "card on the same side in both, but on opposite sides while it lies in different loads in the two); "
            "the distance from random is at most the chance they still differ, simulated, and holds with the "
            "confidence stated. The true distance lies anywhere between the lower and the upper bound.")


def law_bound_note() -> str:
    return ("exact-law bounds: the distance from random of one statistic (which cards lie at two given "
            "positions, or where one card lies) computed exactly, with no simulation error: the true "
            "distance is at least this. Weaker than the simulated bounds after a few rounds, they need no "
            "trust in the simulation; the distance column shows one wherever it is the larger.")


def deal_note(random_chances: dict[int, float], players: int, hand: int) -> str:
    """One note for the meld columns; random_chances: at least m cards -> a random pack's chance."""
    ms = sorted(random_chances)
    heads = " and ".join(f"≥{m}" for m in ms)
    counts = " or ".join(number(m) for m in ms)
    chances = " and ".join(f"{random_chances[m]:.4f}" for m in ms)
    return (f"{heads} of one meld: the chance that one of the {number(players)} players is dealt at least "
            f"{counts} cards of one gathered meld ({number(hand)} cards each, round the table), shown as its "
            f"gap to a random pack's ({chances}): \"fewer\" means the melds are still spread round the "
            f"table, \"more\" that they come back together; 0 is a random deal.")


def passes_note(kinds: set[str]) -> str:
    """What the passes table's answers mean, for the kinds of answer it holds."""
    parts = {
        "exact": ("\"pass X\" is where the distance first falls to the figure, exactly, with the modelled time at "
                  "the table to that pass (shuffling/time_model.py, the figures `shuffler plan` states)."),
        "lower-bound": ("\"not before pass X\" comes from a lower bound: every earlier pass is ruled out, "
                        "and the figure may be reached well after X."),
        "never": "\"never\": the machine does not shuffle at all.",
    }
    return "Passes needed: " + " ".join(text for kind, text in parts.items() if kind in kinds)


def never_note() -> str:
    return ("This machine never shuffles: every card goes to the same side, so each round repeats one fixed "
            "rearrangement and the pack only ever takes one order (distance 1 - 1/N!, exactly).")
