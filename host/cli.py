"""The `shuffler` command: one click group, one module per subcommand.

Each subcommand lives in its own module and is listed in `_COMMANDS` as
"module:attribute"; this file only wires them together and makes sure bad
input ends in one clear line and a non-zero exit, never a traceback.
"""
from __future__ import annotations

import importlib
import sys

import click

# Subcommand modules, each exposing a click.Command.
_COMMANDS: tuple[str, ...] = (
    "host.devices_cmd:devices",
    "host.flash_cmd:flash",
    "host.sim_device_cmd:sim_device",
    "host.plan_cmd:plan",
    "host.guide_cmd:guide",
    "host.quality_cmd:quality",
)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="lotus-shuffler", prog_name="shuffler")
def cli() -> None:
    """Plan, run and judge shuffles on a two-pile card shuffler."""


for _spec in _COMMANDS:
    _module, _attr = _spec.split(":")
    cli.add_command(getattr(importlib.import_module(_module), _attr))


def main(argv: list[str] | None = None) -> int:
    """Entry point: click's own errors print one line; anything else is caught."""
    try:
        cli.main(args=argv, prog_name="shuffler", standalone_mode=False)
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
