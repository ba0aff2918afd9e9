"""`shuffler flash`: put the firmware on a board and check that it answers."""
from __future__ import annotations

import tempfile
import time
from pathlib import Path

import click

from firmware import build
from firmware.build import ImageError
from host import device_words, flashing, port_words
from host import port_records as said

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
        raise click.ClickException(port_words.words(said.NoPortGiven()))
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
            click.echo(port_words.words(said.Flashing(version, len(image), actual, port)))
            flashing.deploy(transport, image)
        kept = flashing.settings_on_board(transport)
        bad = flashing.unusable_settings(transport, kept)
        flashing.soft_reset_to_firmware(transport)
        hello = flashing.await_hello(transport.serial, version, actual, timeout=hello_timeout)
    except ImageError:
        if deadline.expired:
            raise flashing.FlashError(said.FlashGaveUp(port, OVERALL_TIMEOUT_S)) from None
        raise
    finally:
        deadline.cancel()
        try:
            transport.close()
        except Exception:
            pass
    click.echo(port_words.words(said.Flashed(str(hello.get("fw")), port, str(hello.get("board")), hello.get("proto"))))
    settings = settings_kept(kept, bad)
    if settings is not None:
        click.echo(port_words.words(settings))
    for bit, _, _ in device_words.BAD_FILES:
        if bad & bit:
            click.echo(port_words.words(said.SettingsUnusable(bit)))


def _board_kind(transport, port: str, board: str | None) -> str:  # type: ignore[no-untyped-def]
    """The board's kind, as its MicroPython says; FlashError when it is not
    one the firmware supports or not the one asked for (nothing written)."""
    from mpremote.transport import TransportError

    try:
        actual = flashing.board_of(transport)
    except (TransportError, OSError, flashing.serial.SerialException):
        raise flashing.FlashError(said.StoppedAnswering(port)) from None
    if actual not in build.BOARDS:
        raise flashing.FlashError(said.UnsupportedBoard(port, actual))
    if board is not None and actual != board:
        raise flashing.FlashError(said.WrongBoard(port, actual, board))
    return actual


def settings_kept(on_board: list[str], bad: int) -> said.SettingsKept | None:
    """What flashing left on the board: the settings files the new firmware
    goes on with (those on the board it can use; `bad`: the hello's bits for
    the ones it cannot, said apart), and the ones the board did not have.
    None when it kept none."""
    unusable = [name for b, name, _ in device_words.BAD_FILES if b & bad]
    kept = tuple(n for n in on_board if n not in unusable)
    if not kept:
        return None
    return said.SettingsKept(kept, tuple(n for n in flashing.SETTINGS if n not in kept and n not in unusable))


def _back_to_firmware(transport) -> None:  # type: ignore[no-untyped-def]
    """Leave the board as it was found: its firmware (if any) running again."""
    try:
        flashing.soft_reset_to_firmware(transport)
        time.sleep(0.1)  # let the reset byte go out before the port closes
    except Exception:
        pass  # the refusal is what the person needs to read
