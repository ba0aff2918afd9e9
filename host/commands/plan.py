"""`shuffler plan`: print the routine for a pack on this machine."""
from __future__ import annotations

import json

import click

from host import plan as planlib
from shuffling import steps

QUALITY_HELP = "; ".join(f"{q.name}: distance at most {q.threshold:g}" for q in planlib.QUALITY_LEVELS)


def pack_options(f):  # type: ignore[no-untyped-def]
    """--pack, --cards, --capacity and --quality, shared with `shuffler guide`."""
    f = click.option("--quality", "quality", default=planlib.DEFAULT_QUALITY, show_default=True,
                     metavar="LEVEL", help=f"How random the pack must end up ({QUALITY_HELP}).")(f)
    f = click.option("--capacity", type=int, default=planlib.DEFAULT_CAPACITY, show_default=True,
                     help="Cards the machine's tray holds.")(f)
    f = click.option("--cards", type=int, default=None, help="Any other pack size, instead of --pack.")(f)
    f = click.option("--pack", "pack", default=None, metavar="NAME",
                     help=f"Pack preset (default {planlib.DEFAULT_PACK}): {', '.join(planlib.preset_names())}.")(f)
    return f


def build_plan(pack: str | None, cards: int | None, capacity: int, quality: str,
               rounds: int | None = None, exact_routine: str | None = None) -> planlib.Plan:
    try:
        return planlib.make_plan(planlib.choose_pack(pack, cards), capacity, quality, rounds, exact_routine)
    except planlib.PlanError as exc:
        raise click.UsageError(str(exc)) from None  # bad input: the same exit code as every command


def minutes(seconds: float) -> str:
    m, s = divmod(int(round(seconds)), 60)
    return f"{m} min {s:02d} s" if m else f"{s} s"


def count(n: int, one: str, many: str | None = None) -> str:
    """'1 pass', '2 passes', '1 card', '81 cards'."""
    return f"{n} {one if n == 1 else (many or one + 's')}"


def after(rounds: int) -> str:
    return "after it" if rounds == 1 else "after them"


def a_or_an(n: int) -> str:
    """The article before a number said aloud: 'an 81', 'an 8', 'an 11', 'a 104'."""
    digits = str(n)
    group = len(digits) % 3 or 3  # the digits said first: 81 of 81,000
    lead = int(digits[:group])
    return "an" if digits[0] == "8" or lead in (11, 18) else "a"


def header(p: planlib.Plan) -> str:
    machine = f"on {a_or_an(p.capacity)} {p.capacity}-card machine"
    if p.pack.name == "custom":  # the title is the size already
        return f"{count(p.cards, 'card')} {machine}"
    return f"{p.pack.title}: {count(p.cards, 'card')} {machine}"


def loads_line(p: planlib.Plan) -> str:
    if len(p.loads) == 1:
        return f"One load: {p.names[0]}, {count(p.loads[0], 'card')}"
    sizes = " / ".join(str(s) for s in p.loads)
    named = ", ".join(f"{n} {count(s, 'card')}" for n, s in zip(p.names, p.loads))
    return f"Loads: {sizes} cards in {len(p.loads)} loads ({named}; {p.names[0]} is the top of the pack)"


def home_game_line(p: planlib.Plan) -> str:
    """What the rules' three passes of each load give, from the simulator."""
    r = planlib.HOME_GAME_ROUNDS
    d = planlib.distance_after(p.cards, p.capacity, r)
    return (f"For comparison: three passes of each load, as often done for a home game "
            f"({count(r, 'round')}, {count(r * len(p.loads), 'pass', 'passes')}), leave a distance "
            f"from random of {d:.4f}.")


def describe(p: planlib.Plan) -> list[str]:
    """The plan as lines a person can follow: what `shuffler guide` runs
    first (the exact routine, with the shuffler connected), then random mode
    as the alternative."""
    return [header(p), "", *describe_exact(p), "", *describe_random(p)]


def describe_random(p: planlib.Plan) -> list[str]:
    """Random mode: the loads, a round's passes and trade, the rounds the
    quality needs and their time."""
    if planlib.exact_schedule(p.cards, p.capacity) is None:
        lead = "What `shuffler guide` runs here: random mode, random sides for the quality's rounds"
    else:
        lead = ("Random mode instead (`shuffler guide --mode random`, and always with `--manual`, without the "
                "shuffler): random sides for the quality's rounds, close to random but never exactly")
    out = [
        lead,
        loads_line(p),
        f"Each round ({count(len(p.loads), 'pass', 'passes')}):",
    ]
    for n, s in zip(p.names, p.loads):
        out.append(f"  - put load {n} ({count(s, 'card')}) in the tray and touch the sensor; "
                   f"lift off its left and right piles, keeping them apart")
    out.append("  then the pile trade:")
    out += [f"  - {steps.words(step)}" for step in p.trade()]
    out += [
        f"Quality '{p.quality.name}' ({p.quality.meaning}): distance from random at most "
        f"{p.quality.threshold:g}",
        f"Rounds: {p.rounds} ({count(p.passes, 'pass', 'passes')}); "
        f"distance from random {after(p.rounds)}: {p.distance:.4f} ({planlib.METHOD})",
    ]
    if p.rounds > 1:
        prev = p.by_round[-2]
        out.append(f"  (one round fewer leaves {prev:.4f})")
    out.append(home_game_line(p))
    out += [
        f"Expected time: about {minutes(p.timing.total_s)} "
        f"({minutes(p.timing.machine_s)} dealing, {minutes(p.timing.handling_s)} handling)",
        f"  assuming {planlib.timing_assumption(p.loads)}",
    ]
    return out


def describe_exact(p: planlib.Plan) -> list[str]:
    """What the guide runs with the shuffler connected: the exact routine
    (the shuffler's choice, or the one asked for with --routine), its passes
    and its time at a real table; then every other exact routine."""
    device = planlib.exact_schedule(p.cards, p.capacity)
    if device is None:
        return [f"Exact mode: not available for {p.cards} cards on a {p.capacity}-card machine "
                f"(at most {planlib.EXACT_MAX_CARDS} cards in at most {planlib.EXACT_MAX_LOADS} loads)."]
    every = planlib.exact_schedules(p.cards, p.capacity)
    kind = p.exact_routine or device.routine
    ex = next(x for x in every if x.routine == kind)
    others = [x for x in every if x is not ex]
    command = "shuffler guide" if p.exact_routine is None else f"shuffler guide --routine {ex.routine}"
    which = ""
    if ex.routine != device.routine:
        which = f" (the shuffler's own choice is the {device.name})"
    elif others:
        which = " (the shuffler's choice: the least time at the table)"
    out = [f"What `{command}` runs with the shuffler connected: exact mode, the {ex.name}{which}",
           f"  {count(ex.passes, 'pass', 'passes')}, about {minutes(ex.timing.total_s)} at a real table "
           f"({minutes(ex.timing.machine_s)} dealing, {minutes(ex.timing.handling_s)} handling)",
           f"  Its passes: {passes_words(ex)}.",
           f"  {exact_how(ex)}",
           "  After the last pass every order of the pack is equally likely: distance from random exactly 0 "
           "(proofs in docs/exact-mode.md).",
           f"  {onlooker_line(ex)}",
           f"  assuming {planlib.timing_assumption(ex.parts or (-(-p.cards // ex.loads),))}"]
    for other in others:
        out.append(f"Also exact, with `--routine {other.routine}`: the {other.name}, "
                   f"{count(other.passes, 'pass', 'passes')}, about {minutes(other.timing.total_s)} "
                   f"({minutes(other.timing.machine_s)} dealing, {minutes(other.timing.handling_s)} handling)")
        out.append(f"  {exact_how(other)}")
        out.append(f"  {onlooker_line(other)}")
    if all(not x.onlooker.fixed and x.routine != "pipelined" for x in every):
        out.append("No exact routine here keeps every pile's count fixed: each deals its first loads cut from a "
                   "pack whose codes lie in random order (only a pack that fits the tray, dealt as one load, does). "
                   "Each ends exactly random for anyone who does not count the piles.")
    return out


def times(n: int) -> str:
    return {1: "once", 2: "twice"}.get(n, f"{n} times")


def passes_words(ex: planlib.ExactSchedule) -> str:
    """The routine's passes in the order dealt: 'A and B once each, then P 7
    times, then Q 6 times'."""
    said = []
    for names, n in ex.segments:
        loads = names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"
        said.append(f"{loads} {times(n)}{' each' if len(names) > 1 else ''}")
    return ", then ".join(said)


def onlooker_line(ex: planlib.ExactSchedule) -> str:
    """What someone who counts the routine's piles learns of the order."""
    seen = ex.onlooker
    if seen.fixed:
        return "Every pile's count is fixed by the routine: counting the piles tells nothing of the order."
    rounds = [r.round for r in seen.rounds]
    where = ("its first round's piles" if rounds == [1] else
             f"the piles of its rounds {', '.join(str(r) for r in rounds[:-1])} and {rounds[-1]}" if len(rounds) > 1
             else f"the piles of its round {rounds[0]}")
    return (f"The counts of {where} depend on the order: someone who counts them learns {seen.bits:.1f} bits of "
            f"it (of the {seen.order_bits:.1f} bits of a random order), and every order that gives those counts "
            f"stays equally likely.")


def exact_how(ex: planlib.ExactSchedule) -> str:
    """One line on what the person does in an exact routine."""
    if ex.routine == "split":
        parts = ", ".join(f"{name} ({count(size, 'card')})" for name, size in zip(ex.part_names, ex.parts))
        return (f"The pack is split into loads that fit the tray, {parts}; each is then dealt on its own, "
                "reloaded whole between its passes (its left pile on its right pile: one step).")
    if ex.routine == "pipelined":
        (p, whole), (q, held) = zip(ex.part_names, ex.parts)
        return (f"One pass of the top {count(whole, 'card')} holds {count(held, 'card')} out ({q}); the rest, on "
                f"top of the bottom {held}, is {p}, dealt on its own, then {q}, each reloaded whole between its "
                f"passes; {q} goes between {p}'s last two piles. Every load's count is fixed.")
    if ex.loads == 1:
        return (f"{count(ex.rounds, 'pass', 'passes')} of the whole pack, reloaded whole between passes (its left "
                "pile on its right pile: one step).")
    if ex.loads == 2:
        return (f"{count(ex.rounds, 'round')} of two loads; from round 2 the loads are the left and right stacks as "
                "they come, so their sizes are fixed: no evening out between rounds.")
    return (f"{count(ex.rounds, 'round')} of {count(ex.loads, 'load')}; after each round the loads are cut from "
            "the left and right stacks where the guide says.")


@click.command("plan")
@pack_options
@click.option("--rounds", type=int, default=None, help="Use this many rounds instead of the quality's count.")
@click.option("--routine", "exact_routine", default=None, metavar="radix|split",
              help="The exact routine the plan describes first (default: the one the shuffler takes): "
                   "radix, whole-pack radix, or split.")
@click.option("--json", "as_json", is_flag=True, help="Print the plan as JSON.")
def plan(pack: str | None, cards: int | None, capacity: int, quality: str, rounds: int | None,
         exact_routine: str | None, as_json: bool) -> None:
    """The routine for a pack: loads, passes, trades, rounds and time."""
    p = build_plan(pack, cards, capacity, quality, rounds, exact_routine)
    if as_json:
        click.echo(json.dumps(p.to_dict(), indent=2))
        return
    for line in describe(p):
        click.echo(line)
