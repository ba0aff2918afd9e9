"""`shuffler table`: act as the person at a virtual shuffler's card table.

Each subcommand is one thing a person does (bring a pack, put cards in the
tray, touch the pad, lift a pile, stack, cut, move cards, free a jam) and is
one request to the running virtual shuffler's control endpoint. The cards
themselves live in the simulated board (`simulator/virtual/board/sim_table.py`),
so whatever is done by hand, `show` can check that every card is there once.
"""
from __future__ import annotations

import json
from typing import Any, Callable

import click

from host import card_table_records as said
from host.card_table_words import words
from simulator.virtual import faults as faultlib
from simulator.virtual import registry
from simulator.virtual.world_client import EndpointClosed, WorldClient, WorldError

# The places on the machine by the names the command takes (the guide's, and
# the older ones, still accepted), to the world's names for them.
PLACE_NAMES = {"left": said.LEFT, "right": said.RIGHT, "tray": said.TRAY, "exit": said.EXIT,
               "out-of-tray": said.OUT_OF_TRAY, "throat": said.EXIT, "removed": said.OUT_OF_TRAY}
BAD_INPUT = 2  # as click's own usage errors


class Refused(click.ClickException):
    """The table refused what was asked (no such stack, too many cards, ...)."""

    exit_code = BAD_INPUT


def find_control(control: str | None, port: str | None) -> str:
    """The control endpoint to talk to: given, or the virtual shuffler on
    `port`, or the only one running."""
    if control:
        if control.startswith("tcp:") and not (control[4:].isdigit() and 0 < int(control[4:]) < 65536):
            raise click.ClickException(words(said.BadControl(control)))
        return control
    running = [a for a in registry.running() if a.control]
    if port:
        for a in running:
            if a.port == port:
                return a.control
        raise click.ClickException(words(said.NoneOnPort(port)))
    if not running:
        raise click.ClickException(words(said.NoneRunning()))
    if len(running) > 1:
        raise click.ClickException(words(said.SeveralRunning(tuple(a.port for a in running))))
    return running[0].control


def call(ctx: click.Context, fn: Callable[[WorldClient], Any]) -> Any:
    """One request on a fresh connection; one clear line when it fails."""
    address = find_control(ctx.obj["control"], ctx.obj["port"])
    try:
        client = WorldClient.connect(address, timeout=3.0)
    except OSError:
        raise click.ClickException(words(said.NothingAnswers(address))) from None
    try:
        with client:
            return fn(client)
    except EndpointClosed:
        raise click.ClickException(words(said.RestartedBeforeAnswer(address))) from None
    except WorldError as exc:
        raise Refused(str(exc)) from None
    except OSError as exc:
        raise click.ClickException(words(said.LostShuffler(address, str(exc.strerror or exc)))) from None


def seen(table: dict[str, Any]) -> said.TableSeen:
    """The table the world shows, as its record: the stacks, the machine's
    places (the exit and what came out of the tray only when they hold
    cards), the check."""
    places = table["places"]
    shown = [said.TRAY, said.LEFT, said.RIGHT] + [p for p in (said.EXIT, said.OUT_OF_TRAY) if places[p]]
    check = table["check"]
    return said.TableSeen(tuple((name, len(cards)) for name, cards in table["stacks"].items()),
                          tuple((p, len(places[p])) for p in shown), check["made"],
                          *(0 if check["ok"] else len(check[k]) for k in ("missing", "twice", "stray")))


@click.group("table")
@click.option("--control", envvar="SHUFFLER_CONTROL", metavar="ENDPOINT",
              help="Control endpoint `shuffler sim-device` printed (socket path or tcp:PORT).")
@click.option("--port", metavar="PORT", help="The virtual shuffler on this serial port.")
@click.pass_context
def table(ctx: click.Context, control: str | None, port: str | None) -> None:
    """Act as the person at a virtual shuffler's card table.

    Without --control or --port it talks to the only virtual shuffler running."""
    ctx.obj = {"control": control, "port": port}


@table.command("new")
@click.argument("n", type=click.IntRange(1, 1000))
@click.option("--name", default="pack", show_default=True, help="The stack the cards go on (on top).")
@click.pass_context
def new(ctx: click.Context, n: int, name: str) -> None:
    """Bring N fresh cards to the table."""
    count = call(ctx, lambda w: w.new(n, name))
    click.echo(words(said.StackHolds(name, count)))


@table.command("show")
@click.option("--json", "as_json", is_flag=True, help="Every card id, as JSON.")
@click.option("--cards", is_flag=True, help="List the card ids, top first.")
@click.pass_context
def show(ctx: click.Context, as_json: bool, cards: bool) -> None:
    """Every stack with its count, the tray and the piles; exits 1 unless
    every card is there once."""
    got = call(ctx, lambda w: w.show())
    got.pop("ok", None)
    if as_json:
        click.echo(json.dumps(got))
    else:
        click.echo(words(seen(got)))
        if cards:
            for name, ids in {**got["stacks"], **got["places"]}.items():
                if ids:
                    click.echo(f"{name}: {' '.join(str(c) for c in ids)}")
    if not got["check"]["ok"] or got["check"]["made"] == 0:
        ctx.exit(1)  # a check of no cards passes nothing


@table.command("put")
@click.argument("stack")
@click.argument("n", type=click.IntRange(min=1), required=False)
@click.option("--under", is_flag=True, help="Under the cards already in the tray.")
@click.pass_context
def put(ctx: click.Context, stack: str, n: int | None, under: bool) -> None:
    """Put the top N cards of STACK (all of it by default) face down in the tray."""
    tray = call(ctx, lambda w: w.put(stack, n, "bottom" if under else "top"))
    click.echo(words(said.TrayHolds(tray)))


@table.command("touch")
@click.option("--ms", default=150, show_default=True, type=click.IntRange(1, 10000), help="How long the finger stays.")
@click.pass_context
def touch(ctx: click.Context, ms: int) -> None:
    """Touch the pad."""
    call(ctx, lambda w: w.touch(ms))
    click.echo(words(said.Touched()))


@table.command("lift")
@click.argument("pile", type=click.Choice(list(PLACE_NAMES)))
@click.argument("stack")
@click.option("--under", is_flag=True, help="Put it under STACK instead of on top.")
@click.option("--top", "top", type=click.IntRange(min=1), help="Only the top N cards (of the tray or a pile).")
@click.pass_context
def lift(ctx: click.Context, pile: str, stack: str, under: bool, top: int | None) -> None:
    """Lift PILE off the machine onto STACK (a new stack if there is none):
    the left or right pile, the tray, the cards caught in the exit, or the
    ones that came out of the tray (out-of-tray)."""
    def go(w: WorldClient) -> tuple[int, int]:
        n = w.lift(PLACE_NAMES[pile], stack, "bottom" if under else "top", top)
        return n, len(w.show()["stacks"].get(stack, []))

    n, total = call(ctx, go)
    click.echo(words(said.Lifted(n, PLACE_NAMES[pile], stack, total)))


@table.command("stack")
@click.argument("what")
@click.argument("onto")
@click.option("--under", is_flag=True, help="Put WHAT under ONTO instead of on top.")
@click.pass_context
def stack_cmd(ctx: click.Context, what: str, onto: str, under: bool) -> None:
    """Put the whole stack WHAT on top of ONTO."""
    count = call(ctx, lambda w: w.put_stack(what, onto, "bottom" if under else "top"))
    click.echo(words(said.StackHolds(onto, count)))


@table.command("cut")
@click.argument("stack")
@click.argument("n", type=click.IntRange(min=1), required=False)
@click.pass_context
def cut(ctx: click.Context, stack: str, n: int | None) -> None:
    """Cut STACK: its top N cards (half by default) go under the rest."""
    call(ctx, lambda w: w.cut(stack, n))
    click.echo(words(said.StackCut(stack)))


@table.command("move")
@click.argument("n", type=click.IntRange(min=1))
@click.argument("src", metavar="FROM")
@click.argument("dst", metavar="TO")
@click.option("--from-bottom", is_flag=True, help="Take them from the bottom of FROM.")
@click.option("--to-bottom", is_flag=True, help="Put them under TO.")
@click.pass_context
def move(ctx: click.Context, n: int, src: str, dst: str, from_bottom: bool, to_bottom: bool) -> None:
    """Move N cards from the top of stack FROM to the top of stack TO."""
    def go(w: WorldClient) -> dict[str, list[Any]]:
        w.move(n, src, dst, "bottom" if from_bottom else "top", "bottom" if to_bottom else "top")
        return w.show()["stacks"]

    stacks = call(ctx, go)
    click.echo(words(said.Moved(src, len(stacks.get(src, [])), dst, len(stacks.get(dst, [])))))


@table.command("fault")
@click.argument("spec", metavar="FAULT")
@click.pass_context
def fault(ctx: click.Context, spec: str) -> None:
    """Break the machine now: jam:K, double_feed:K[:overlap], empty_at:K,
    battery_low (6.2 V, below the cut-off), sensor_missing:SENSOR, hang,
    save_fail (K counts cards fed since the last load, from 0)."""
    try:
        f = faultlib.parse_fault(spec)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="FAULT") from None
    if f.name == "sensor_missing":
        call(ctx, lambda w: w.inject(f.name, 0, sensor=f.mode))
    else:
        call(ctx, lambda w: w.inject(f.name, f.k, mode=f.mode if f.name == "double_feed" else ""))
    click.echo(words(said.FaultInjected(spec)))


@table.command("clear")
@click.pass_context
def clear(ctx: click.Context) -> None:
    """Undo injected faults: free the jam, reconnect the sensors, a fresh battery,
    saving works again."""
    def go(w: WorldClient) -> None:
        w.fix()
        w.set_battery(faultlib.FRESH_BATTERY_MV)

    call(ctx, go)
    click.echo(words(said.FaultsCleared()))


@table.command("unplug")
@click.pass_context
def unplug(ctx: click.Context) -> None:
    """Cut the power and give it back: the board restarts, the cards stay."""
    call(ctx, lambda w: w.unplug())
    click.echo(words(said.PowerCycled()))


@table.command("sweep")
@click.pass_context
def sweep(ctx: click.Context) -> None:
    """Take every card off the table and out of the machine."""
    call(ctx, lambda w: w.clear_table())
    click.echo(words(said.Swept()))
