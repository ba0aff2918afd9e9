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

# Subcommand name -> "module:attribute" of its click.Command.
_COMMANDS: dict[str, str] = {
    "devices": "host.devices_cmd:devices",
    "flash": "host.flash_cmd:flash",
    "setup": "host.setup_cmd:setup",
    "check": "host.check_cmd:check",
    "sim-device": "host.sim_device_cmd:sim_device",
    "table": "host.table_cmd:table",
    "plan": "host.plan_cmd:plan",
    "guide": "host.guide_cmd:guide",
    "quality": "host.quality_cmd:quality",
}


class _LazyGroup(click.Group):
    """Imports a subcommand's module only when it is asked for.

    The heavy imports (numpy, matplotlib, mpremote) then happen inside
    `main`, where an interrupt or a broken install still ends in one line.
    """

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(_COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        spec = _COMMANDS.get(cmd_name)
        if spec is None:
            return None
        module, attr = spec.split(":")
        command = getattr(importlib.import_module(module), attr)
        return command if isinstance(command, click.Command) else None


@click.group(cls=_LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="lotus-shuffler", prog_name="shuffler")
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
