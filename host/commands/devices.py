"""`shuffler devices`: list the serial ports that may be a shuffler."""
from __future__ import annotations

import dataclasses
import json

import click

from host import port_records, port_words, ports


@click.command("devices")
@click.option("--json", "as_json", is_flag=True, help="One JSON list instead of a table.")
def devices(as_json: bool) -> None:
    """List boards on USB (by vendor and product id) and running virtual shufflers."""
    found = ports.candidates()
    if as_json:
        click.echo(json.dumps([dataclasses.asdict(c) for c in found]))
        return
    if not found:
        click.echo(port_words.words(port_records.NoShufflerFound()))
        return
    width = max(len(c.port) for c in found)
    for c in found:
        click.echo(f"{c.port:<{width}}  {c.board:<5}  {c.what}")
