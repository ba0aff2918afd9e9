"""`shuffler flash`: put the firmware on a board and check that it answers."""
from __future__ import annotations

import tempfile
import time
from pathlib import Path

import click

from firmware import build
from firmware.build import ImageError
from host import device_words, flashing

OVERALL_TIMEOUT_S = 180.0


@click.command("flash")
@click.option("--port", "port", metavar="PORT", help="Serial port of the board (see `shuffler devices`).")
@click.option(
    "--board",
    type=click.Choice(build.BOARDS),
    help="Board kind; checked against the board, detected when left out.",
)
@click.option("--connect-timeout", default=5.0, show_default=True, type=click.FloatRange(min=0.1),
              help="Seconds to wait for the board's raw REPL.")
@click.option("--hello-timeout", default=10.0, show_default=True, type=click.FloatRange(min=0.1),
              help="Seconds to wait for the firmware's hello after the reset.")
def flash(port: str | None, board: str | None, connect_timeout: float, hello_timeout: float) -> None:
    """Precompile the firmware, copy it with mpremote, reset, and check hello."""
    from firmware import protocol

    if not port:
        raise click.ClickException("no port given: use --port PORT (see `shuffler devices`)")
    try:
        _flash(port, board, connect_timeout, hello_timeout, protocol.FIRMWARE_VERSION)
    except ImageError as exc:
        raise click.ClickException(str(exc)) from None


def _flash(port: str, board: str | None, connect_timeout: float, hello_timeout: float, version: str) -> None:
    flashing.check_port(port)
    transport = flashing.open_transport(port)
    deadline = flashing.Deadline(OVERALL_TIMEOUT_S, transport.serial.close)
    try:
        flashing.enter_raw_repl(transport, port, timeout=connect_timeout)
        with tempfile.TemporaryDirectory(prefix="shuffler-image-") as tmp:
            try:
                actual = _board_kind(transport, port, board)
                image = build.build_image(actual, Path(tmp))
            except ImageError:
                # Entering the raw REPL stopped the firmware: start it again, or
                # the next command finds a board that does not answer hello.
                _back_to_firmware(transport)
                raise
            click.echo(f"flashing firmware {version} ({len(image)} files) to the {actual} board on {port}")
            flashing.deploy(transport, image)
        kept = flashing.settings_on_board(transport)
        bad = flashing.unusable_settings(transport, kept)
        flashing.soft_reset_to_firmware(transport)
        hello = flashing.await_hello(transport.serial, version, actual, timeout=hello_timeout)
    except ImageError:
        if deadline.expired:
            raise flashing.FlashError(f"gave up after {OVERALL_TIMEOUT_S:.0f} s: the board on {port} stopped answering; run the same command again") from None
        raise
    finally:
        deadline.cancel()
        try:
            transport.close()
        except Exception:
            pass
    click.echo(f"ok: firmware {hello.get('fw')} answers on {port} (board {hello.get('board')}, protocol {hello.get('proto')})")
    unusable = [name for b, name, _ in device_words.BAD_FILES if b & bad]
    kept = [n for n in kept if n not in unusable]
    if kept:
        click.echo(kept_words(kept, unusable))
    for line in device_words.bad_file_words(bad):
        click.echo(f"warn: {line}")


def _board_kind(transport, port: str, board: str | None) -> str:  # type: ignore[no-untyped-def]
    """The board's kind, as its MicroPython says; FlashError when it is not
    one the firmware supports or not the one asked for (nothing written)."""
    from mpremote.transport import TransportError

    try:
        actual = flashing.board_of(transport)
    except (TransportError, OSError, flashing.serial.SerialException):
        raise flashing.FlashError(f"the board on {port} stopped answering before anything was written; press its "
                                  "reset button (or plug it in again) and run the same command again") from None
    if actual not in build.BOARDS:
        raise flashing.FlashError(f"the board on {port} is a {actual!r} MicroPython port, which the firmware does not "
                                  "support; nothing was written")
    if board is not None and actual != board:
        raise flashing.FlashError(
            f"wrong board: {port} is a {actual!r} board, not {board!r}; nothing was written (use --board {actual})")
    return actual


def kept_words(kept: list[str], unusable: list[str] | tuple[str, ...] = ()) -> str:
    """What flashing left on the board, each settings file named: the ones
    kept, and the one the board did not have (its firmware's defaults)."""
    names = " and ".join(f"{flashing.SETTINGS[n]} ({n})" for n in kept)
    line = f"kept the board's {names}: the new firmware goes on with {'them' if len(kept) > 1 else 'it'}"
    for n in flashing.SETTINGS:
        if n not in kept and n not in unusable:
            line += f"; it had no {flashing.SETTINGS[n]} ({n}): " + MISSING_WORDS[n]
    return line


MISSING_WORDS = {"cal.json": "`shuffler setup` calibrates it", "config.json": "the firmware's defaults"}


def _back_to_firmware(transport) -> None:  # type: ignore[no-untyped-def]
    """Leave the board as it was found: its firmware (if any) running again."""
    try:
        flashing.soft_reset_to_firmware(transport)
        time.sleep(0.1)  # let the reset byte go out before the port closes
    except Exception:
        pass  # the refusal is what the person needs to read
