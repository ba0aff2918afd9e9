"""The `shuffler` command: one click group, one module per subcommand.

Each subcommand lives in its own module and is listed in `_COMMANDS` by
name as "module:attribute", imported only when used; this file only wires
them together and makes sure bad input ends in one clear line and a
non-zero exit, never a traceback.
"""
from __future__ import annotations

import importlib
import sys

import click

from firmware import protocol

# Subcommand name -> ("module:attribute" of its click.Command, its short
# help). The short help is kept here so that `shuffler --help` lists the
# commands without importing one (numpy, numba and mpremote take seconds);
# tests/host/test_cli_errors.py checks it is each command's own.
_COMMANDS: dict[str, tuple[str, str]] = {
    "devices": ("host.commands.devices:devices",
                "List boards on USB (by vendor and product id) and running virtual shufflers."),
    "flash": ("host.commands.flash:flash",
              "Precompile the firmware, copy it with mpremote, reset, and check hello."),
    "setup": ("host.commands.setup:setup",
              "Bring a board up: firmware, load cell, touch pad, exit beam, motor direction, battery."),
    "check": ("host.commands.check:check",
              "Read every sensor and actuator once (or live) and say what is wrong."),
    "sim-device": ("host.commands.sim_device:sim_device",
                   "Start a virtual shuffler; print its port and flash dir; run until Ctrl-C."),
    "table": ("host.commands.table:table", "Act as the person at a virtual shuffler's card table."),
    "plan": ("host.commands.plan:plan", "The routine for a pack: loads, passes, trades, rounds and time."),
    "guide": ("host.commands.guide:guide",
              "Guide the shuffle step by step: loads, passes, trades, faults, and a summary."),
    "quality": ("host.commands.quality:quality",
                "Distance from random after each pass, passes needed, the guessing game and the deal."),
}


def _shortened(text: str, limit: int) -> str:
    """The text, or as many of its words as fit with "..." after them."""
    if len(text) <= limit:
        return text
    words = text.split()
    while words and len(" ".join(words)) + 3 > limit:
        words.pop()
    return " ".join(words).rstrip(",;:") + "..."


class _LazyGroup(click.Group):
    """Imports a subcommand's module only when it is asked for.

    The heavy imports (numpy, matplotlib, mpremote) then happen inside
    `main`, where an interrupt or a broken install still ends in one line;
    the list of commands in the help imports none.
    """

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(_COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        spec = _COMMANDS.get(cmd_name)
        if spec is None:
            return None
        module, attr = spec[0].split(":")
        command = getattr(importlib.import_module(module), attr)
        return command if isinstance(command, click.Command) else None

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        names = self.list_commands(ctx)
        limit = formatter.width - 6 - max(len(name) for name in names)
        rows = [(name, _shortened(_COMMANDS[name][1], limit)) for name in names]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


@click.group(cls=_LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
# The project's one version (the firmware's, which pyproject.toml reads too)
# and the protocol it speaks: a board answering hello with other numbers is
# not this tool's.
@click.version_option(protocol.FIRMWARE_VERSION, prog_name="shuffler",
                      message=f"%(prog)s %(version)s (protocol {protocol.PROTOCOL_VERSION})")
def cli() -> None:
    """Plan, run and judge shuffles on a two-pile card shuffler."""


def main(argv: list[str] | None = None) -> int:
    """Entry point: click's own errors print one line; anything else is caught."""
    try:
        # A command that ends with click's Exit(code) (`check`: not ready) has
        # its code returned here rather than raised.
        code = cli.main(args=argv, prog_name="shuffler", standalone_mode=False)
        if isinstance(code, int) and not isinstance(code, bool) and code:
            return code
    except click.exceptions.NoArgsIsHelpError as exc:
        click.echo(exc.format_message())  # a bare `shuffler` asks for help
        return 0
    except click.exceptions.Abort:
        click.echo("shuffler: interrupted", err=True)
        return 130
    except click.ClickException as exc:
        click.echo(f"shuffler: {exc.format_message()}", err=True)
        return exc.exit_code
    except click.exceptions.Exit as exc:
        return exc.exit_code
    except KeyboardInterrupt:
        click.echo("shuffler: interrupted", err=True)
        return 130
    except Exception as exc:  # last resort: one line, never a traceback
        click.echo(f"shuffler: internal error: {type(exc).__name__}: {exc}", err=True)
        return 70
    return 0


if __name__ == "__main__":
    sys.exit(main())
