"""`shuffler devices`: list the serial ports that may be a shuffler."""
from __future__ import annotations

import json

import click

from host import ports


@click.command("devices")
@click.option("--json", "as_json", is_flag=True, help="One JSON list instead of a table.")
def devices(as_json: bool) -> None:
    """List boards on USB (by vendor and product id) and running virtual shufflers."""
    found = ports.candidates()
    if as_json:
        click.echo(json.dumps([c.__dict__ for c in found]))
        return
    if not found:
        click.echo("No shuffler found: plug one in, or start one with `shuffler sim-device`.")
        return
    width = max(len(c.port) for c in found)
    for c in found:
        click.echo(f"{c.port:<{width}}  {c.board:<5}  {c.what}")
