"""`shuffler check`: every sensor and actuator of a board, each with what it
reads, what a working one reads and one line of diagnosis; the exit status
is 0 only when the board is ready to shuffle. `--json` gives each finding's
words and, beside them, the records they are worded from
(host/finding_records.py)."""
from __future__ import annotations

import json
import time

import click

from firmware import protocol
from host import check as checks
from host import finding_words, ports, readings
from host.device_link import DeviceError, Link, LinkError, ProtocolMismatch
from host.parts import ready, untried, verdict, verdict_line

WATCH_EVERY_S = 0.5


def connect(port: str) -> Link:
    """The board's link after the handshake, or one line saying why not."""
    link = ports.open_link(port)
    try:
        ports.greet(link)
    except ProtocolMismatch as exc:
        link.close()
        raise click.ClickException(f"{exc}") from None
    except LinkError:
        link.close()
        raise
    return link


def report(snap: checks.Snapshot, as_json: bool, port: str) -> bool:
    found = checks.findings(snap)
    ok = ready(found)
    if as_json:
        click.echo(json.dumps({"port": port, "board": snap.board, "ready": ok, "untried": untried(found) or None,
                               "verdict": finding_words.as_dict(verdict(found)),
                               "parts": [f.to_dict(snap.board) for f in found]}))
        return ok
    for f in found:
        click.echo(f.line(snap.board))
    click.echo(verdict_line(found))
    return ok


def cleared(link: Link) -> None:
    """A latched fault cleared, a jammed pass ended: the board tests its
    sensors again, and latches again what is still wrong (the lines say)."""
    st = link.request(protocol.CMD_STATUS).get("state")
    if st in (protocol.ST_ALARM, protocol.ST_PAUSED):
        link.request(protocol.CMD_CLEAR)


def fed(link: Link) -> object:
    """Feed one card to the left, if the tray holds one: the motor and the beam
    seen working. Its end's event record, checks.Refused, or None."""
    try:
        return readings.feed(link, 1, protocol.LEFT)
    except DeviceError as exc:
        return checks.Refused.of(exc.reply)


@click.command("check")
@click.option("--port", "port", metavar="PORT", help="Serial port of the board (see `shuffler devices`).")
@click.option("--watch", is_flag=True, help="Read the sensors again and again, until Ctrl-C.")
@click.option("--readings", "count", type=click.IntRange(min=1), default=None,
              help="With --watch: stop after this many readings.")
@click.option("--feed", "do_feed", is_flag=True,
              help="Also feed one card from the tray to the left pile: the motor and the exit beam at work (a beam "
                   "that sees nothing cannot stop the motor at the card: a card or two go, and the line says so).")
@click.option("--clear", "do_clear", is_flag=True,
              help="First clear a latched fault (the board tests its sensors again) or end a jammed pass.")
@click.option("--json", "as_json", is_flag=True, help="Print the findings as JSON (a line per reading).")
def check(port: str | None, watch: bool, count: int | None, do_feed: bool, do_clear: bool, as_json: bool) -> None:
    """Read every sensor and actuator once (or live) and say what is wrong."""
    if not port:
        raise click.ClickException("no port given: use --port PORT (see `shuffler devices`)")
    try:
        link = connect(port)
    except LinkError as exc:
        raise click.ClickException(ports.link_words(port, exc)) from None
    try:
        if do_clear:
            cleared(link)
        feed = fed(link) if do_feed else None
        snap = readings.snapshot(link, feed)
        if not watch:
            ok = report(snap, as_json, port)
        else:
            ok = _watch(link, snap, as_json, port, count)
    except LinkError as exc:
        raise click.ClickException(ports.link_words(port, exc)) from None
    finally:
        link.close()
    if not ok:
        raise click.exceptions.Exit(1)


def _watch(link: Link, first: checks.Snapshot, as_json: bool, port: str, count: int | None) -> bool:
    touches = first.sensors.touches or 0
    snap, n, ok = readings.snapshot(link, first.feed, touches_before=touches), 0, False
    try:
        while True:
            n += 1
            if not as_json:
                click.echo(f"-- reading {n} --")
            ok = report(snap, as_json, port)
            if count is not None and n >= count:
                return ok
            time.sleep(WATCH_EVERY_S)
            try:
                snap = readings.snapshot(link, first.feed, touches_before=touches)
            except DeviceError as exc:
                if exc.code != protocol.E_BUSY:
                    raise
                click.echo("(the board is dealing: the sensors are read again after the pass)", err=True)
    except KeyboardInterrupt:
        return ok
