"""A round of each routine with random sides, as the person does it (step
data of shuffling/steps.py): what the plan and the guide show, and
what the time model times for the plan and the quality report.

Pile trade (docs/mechanism.md): every load dealt, then all left piles in
load order on top of all right piles in load order, cut into loads again.
Stack-trade: every load dealt and its left pile put on its right pile, then
the top cards of each load moved onto the next.
"""
from __future__ import annotations

from shuffling import steps


def first_cut(names: list[str] | tuple[str, ...], sizes: list[int] | tuple[int, ...]) -> list[steps.Step]:
    """Before the first round: the pack cut into its loads (nothing with one load)."""
    return [steps.Cut(steps.PACK, tuple(names), tuple(sizes), by_eye=True, first=True)] if len(names) > 1 else []


def load_steps(names: list[str] | tuple[str, ...], sizes: list[int] | tuple[int, ...]) -> list[steps.Step]:
    """Every load in, touched and lifted off."""
    out: list[steps.Step] = []
    for name, size in zip(names, sizes):
        out += [steps.PutInTray(name, size), steps.Touch(), steps.Lift(name)]
    return out


def round_steps(names: list[str] | tuple[str, ...], sizes: list[int] | tuple[int, ...]) -> list[steps.Step]:
    """One round of the pile trade as the person does it: every load in,
    touched and lifted off, then the trade."""
    return load_steps(names, sizes) + trade_steps(list(names), list(sizes))


def stack_trade_round_steps(names: list[str] | tuple[str, ...], sizes: list[int] | tuple[int, ...],
                            trade: int) -> list[steps.Step]:
    """One round of stack-trade: every load in, touched, lifted off and its
    left pile put on its right pile; then the top `trade` cards of each load
    counted off onto the next load (one Move a load, for the time it takes)."""
    out = load_steps(names, sizes)
    out += [steps.Stack((steps.left_of(x), steps.right_of(x)), x) for x in names]
    if len(names) > 1:
        out += [steps.Move(trade, x, names[(i + 1) % len(names)], down=False) for i, x in enumerate(names)]
    return out


def trade_steps(names: list[str], sizes: list[int], lefts: list[int] | None = None,
                rights: list[int] | None = None, counted: bool = True) -> list[steps.Step]:
    """What a person does after every load of a round has been dealt, as step data.

    Pile trade (docs/mechanism.md): all left piles in load order, then all
    right piles in load order, form the new pack, cut from the top into loads.
    `lefts` and `rights` are the device's pile counts of the round's passes,
    when it sent them: only then are cards counted out; otherwise they are
    evened out by eye. `counted`: the shuffler counts each load before it
    deals it.
    """
    known = lefts is not None and rights is not None
    left_total = sum(lefts) if lefts is not None else None
    right_total = sum(rights) if rights is not None else None
    if len(names) == 1:
        n = names[0]
        return [steps.Stack((steps.left_of(n), steps.right_of(n)), n,
                        (left_total + right_total) if left_total is not None and right_total is not None else None)]
    lefts_names = tuple(steps.left_of(n) for n in names)
    rights_names = tuple(steps.right_of(n) for n in names)
    if len(names) == 2:
        a, b = names
        out: list[steps.Step] = [steps.Stack(lefts_names, a, left_total), steps.Stack(rights_names, b, right_total)]
        if known:
            assert left_total is not None
            move = left_total - sizes[0]
            if move:
                out.append(steps.Move(abs(move), a, b, down=move > 0, sizes=(sizes[0], sizes[1])))
        else:
            out.append(steps.EvenOut(a, b, (sizes[0], sizes[1])))
        return out
    return [
        steps.Stack(lefts_names, steps.LEFT_STACK, left_total),
        steps.Stack(rights_names, steps.RIGHT_STACK, right_total),
        steps.Stack((steps.LEFT_STACK, steps.RIGHT_STACK), steps.PACK),
        steps.Cut(steps.PACK, tuple(names), tuple(sizes), by_eye=True, counted=counted),
    ]
