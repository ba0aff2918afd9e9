"""`shuffler setup`: the bring-up of a board in the terminal (host/setup.py),
from a freshly flashed board to one ready to shuffle."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, TextIO

import click

from firmware import protocol
from firmware.build import ImageError
from host.commands import flash as flash_cmd
from host import ports
from host.device_link import LinkError
from host import setup as bringup
from host import setup_steps
from host import setup_words
from host.setup_records import FlashFailed, Told
from simulator.virtual import registry

# flash's waits for a real board; a slow device's port says how much longer.
CONNECT_S = 5.0
HELLO_S = 10.0


class Terminal:
    """The person at the terminal: each step's words, then what they type;
    what the bring-up tells, in its words. With a steps file, each step and
    each thing told also as its record, one JSON line, before its words
    are shown (a step's line has `reply`, what it waits for)."""

    def __init__(self, steps_file: Path | None) -> None:
        self.steps: TextIO | None = steps_file.open("w") if steps_file is not None else None

    def write(self, record: dict[str, Any]) -> None:
        if self.steps is not None:
            self.steps.write(json.dumps(record) + "\n")
            self.steps.flush()

    def ask(self, step: setup_steps.Step) -> str:
        self.write(setup_steps.to_dict(step))
        click.echo(setup_steps.words(step))
        if setup_steps.reply(step) == setup_steps.NOTHING:
            return ""
        try:
            return input("> ")
        except EOFError:
            raise click.ClickException("the keyboard's input ended: the bring-up stopped") from None

    def tell(self, told: Told) -> None:
        self.write(setup_words.to_dict(told))
        click.echo(setup_words.words(told))

    def close(self) -> None:
        if self.steps is not None:
            self.steps.close()


def flash_port(port: str) -> None:
    slow = registry.slowdown(port)
    try:
        flash_cmd._flash(port, None, CONNECT_S * slow, HELLO_S * slow, protocol.FIRMWARE_VERSION)
    except ImageError as exc:
        raise bringup.Stop(FlashFailed(str(exc))) from None


@click.command("setup")
@click.option("--port", "port", metavar="PORT", help="Serial port of the board (see `shuffler devices`).")
@click.option("--steps-file", type=click.Path(dir_okay=False, path_type=Path),
              help="Write each step, and each thing it tells, as a JSON line before it is shown "
                   "(for a program at the machine).")
@click.option("--touch-wait", type=click.IntRange(min=1, max=600), default=bringup.TOUCH_WAIT_S, show_default=True,
              help="Seconds to wait for the touch on the pad.")
def setup(port: str | None, steps_file: Path | None, touch_wait: int) -> None:
    """Bring a board up: firmware, load cell, touch pad, exit beam, motor direction, battery."""
    if not port:
        raise click.ClickException("no port given: use --port PORT (see `shuffler devices`)")
    term = Terminal(steps_file)
    try:
        ok, _ = bringup.Bringup(port, term, flash_port, open_link=ports.open_link,
                            touch_wait_s=touch_wait).run()
    except LinkError as exc:  # before the bring-up began: the port, or the board's first answer
        raise click.ClickException(str(exc)) from None
    except bringup.Stop as exc:
        term.write(setup_words.to_dict(exc.told))  # its words are the command's last line
        stop = click.ClickException(str(exc))
        stop.exit_code = exc.code
        raise stop from None
    finally:
        term.close()
    if not ok:
        raise click.exceptions.Exit(1)
