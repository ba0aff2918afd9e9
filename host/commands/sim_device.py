"""`shuffler sim-device`: run a virtual shuffler until stopped."""
from __future__ import annotations

import signal
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING

import click

from firmware import build
from firmware.build import ImageError
from host import card_table_records as said
from host.card_table_words import words
from simulator.virtual import faults as faultlib

if TYPE_CHECKING:
    from simulator.virtual import VirtualShuffler


def person_hint(control: str, uid: str, port: str, table_file: Path | None, blank: bool = False,
                kept: str = "") -> list[str]:
    """How to go on with this shuffler, printed at start (HowToGoOn): the
    guide (or, on a blank board, the flash and the bring-up that come
    first), and the person's hands at its table (`kept`: what stays when it
    stops, if not the virtual board's)."""
    record = said.HowToGoOn(control, uid, port, blank, str(table_file) if table_file else None, kept)
    return words(record).splitlines()


def unwritable(exc: OSError) -> click.ClickException:
    """The runtime folder (SHUFFLER_RUNTIME_DIR) or the flash cannot be written: one line."""
    return click.ClickException(words(said.Unwritable(exc.filename and str(exc.filename), str(exc.strerror or exc))))


def folder_problem(flash: Path | None) -> said.NotAFolder | None:
    """Why --flash cannot be the board's folder (a file, or under one); None if it can."""
    if flash is None:
        return None
    if flash.exists() and not flash.is_dir():
        return said.NotAFolder(str(flash))
    for parent in flash.absolute().parents:
        if parent.exists():
            return None if parent.is_dir() else said.NotAFolder(str(flash), str(parent))
    return None


@click.command("sim-device")
@click.option("--flash", "flash", type=click.Path(file_okay=False, path_type=Path),
              help="Flash directory (the board's filesystem); a temporary one when left out.")
@click.option("--install/--no-install", default=None,
              help="Copy the firmware into the flash first (default: only when the flash is empty).")
@click.option("--time-scale", default=1.0, show_default=True, type=click.FloatRange(min=0),
              help="Simulated ms per real ms; 0 never waits in real time.")
@click.option("--fault", "fault_specs", multiple=True, metavar="FAULT",
              help="Standing fault, repeatable: jam:K, double_feed:K[:overlap], empty_at:K, "
                   "battery_low, sensor_missing:SENSOR, hang, save_fail.")
@click.option("--seed", default=1, show_default=True, help="Seed of the sensor noise.")
@click.option("--heap-kib", type=click.IntRange(min=64), help="Interpreter heap, as on a small board.")
@click.option("--table", "table_file", type=click.Path(dir_okay=False, path_type=Path),
              help="Keep the cards on the table in this file, so they stay across restarts (default with --flash: "
                   "a file beside the flash folder).")
@click.option("--wiring", "wiring", multiple=True, type=click.Choice(faultlib.WIRING),
              help="Wire the board wrong, repeatable: the motor's wires swapped, the load cell's signal wires "
                   "swapped, a touch pad that never answers, no receiver at the exit beam.")
@click.option("--board", type=click.Choice(["sim", "pico"]), default="sim", show_default=True,
              help="sim: the unix port over the simulated board; pico: MicroPython's rp2 port "
                   "on an emulated Raspberry Pi Pico, wired to the same simulated mechanism.")
def sim_device(
    flash: Path | None,
    install: bool | None,
    time_scale: float,
    fault_specs: tuple[str, ...],
    seed: int,
    heap_kib: int | None,
    table_file: Path | None,
    wiring: tuple[str, ...],
    board: str,
) -> None:
    """Start a virtual shuffler; print its port and flash dir; run until Ctrl-C."""
    from simulator.virtual import VirtualShuffler

    try:
        standing = [faultlib.parse_fault(s) for s in fault_specs]
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--fault") from None
    problem = folder_problem(flash)
    if problem:
        raise click.ClickException(words(problem))
    if board == "pico":
        pico_device(flash, install, time_scale, standing, seed, wiring, heap_kib)
        return
    empty = flash is None or not flash.exists() or not any(flash.iterdir())
    if install is None:
        install = empty
    table_file = table_file_for(flash, table_file)
    env = {"SHUFFLER_SIM_WIRING": ",".join(wiring)} if wiring else {}
    # Started blank (no firmware put on an empty flash), the board is as a
    # Pico from its download page: nothing calibrated it at a factory.
    blank = empty and not install
    if blank:
        env["SHUFFLER_SIM_BLANK"] = "1"
    dev = VirtualShuffler(flash, time_scale=time_scale, seed=seed, faults=standing, heap_kib=heap_kib,
                          table_file=table_file, keep_cards=True, env=env or None)
    start_device(dev, install)
    serve_until_stopped(dev, dev.table_file if flash else None, blank)
    click.echo(words(said.SimStopped()), err=True)


def pico_device(flash: Path | None, install: bool | None, time_scale: float, standing: list[faultlib.Fault],
                seed: int, wiring: tuple[str, ...], heap_kib: int | None) -> None:
    """`--board pico`: MicroPython's rp2 port on an emulated Pico, run until stopped."""
    from host.sim_pico import run_pico

    if heap_kib is not None:  # the rp2 port's heap is the chip's RAM less what the port keeps
        raise click.BadParameter(words(said.PicoHeapIsItsOwn()), param_hint="--heap-kib")
    run_pico(flash, install, time_scale, standing, seed, wiring)


def table_file_for(flash: Path | None, table_file: Path | None) -> Path | None:
    """Where the cards on the table are kept: --table, else a file beside the
    flash folder (not on it), else nowhere."""
    if table_file is not None and not table_file.parent.is_dir():
        raise click.BadParameter(words(said.NoTableFolder(str(table_file.parent))), param_hint="--table")
    if table_file is None and flash is not None:
        return flash.resolve().parent / f"{flash.resolve().name}-table.json"
    return table_file


def start_device(dev: VirtualShuffler, install: bool) -> None:
    """The firmware put on the flash when asked, then the board started;
    stopped again, with one line, when either fails."""
    try:
        if install:
            with tempfile.TemporaryDirectory(prefix="shuffler-image-") as tmp:
                build.install_to_dir(build.build_image("sim", Path(tmp)), dev.flash_dir)
        dev.start()
    except ImageError as exc:
        dev.stop()
        raise click.ClickException(str(exc)) from None
    except OSError as exc:
        dev.stop()
        raise unwritable(exc) from None
    except BaseException:
        dev.stop()
        raise


def serve_until_stopped(dev: VirtualShuffler, table_file: Path | None, blank: bool) -> None:
    """Say where the shuffler is and how to go on, then run until a signal
    (Ctrl-C, a kill, the terminal closed) or the board stops by itself."""
    with stop_signals() as done:
        try:
            click.echo(words(said.SimStarted(dev.port, str(dev.flash_dir))))
            for line in person_hint(dev.control_address, dev.uid, dev.port, table_file, blank):
                click.echo(line)
            while not done.wait(0.2):
                if not dev.running:
                    raise click.ClickException(words(said.SimStopped(unexpectedly=True)))
        finally:
            dev.stop()


@contextmanager
def stop_signals() -> Iterator[threading.Event]:
    """An event the signals that stop a virtual shuffler set (Ctrl-C, a
    kill, the terminal closed) instead of raising; their handlers put back
    after."""
    done = threading.Event()

    def on_signal(signum: int, frame: FrameType | None) -> None:
        done.set()

    old = {s: signal.signal(s, on_signal) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
    try:
        yield done
    finally:
        for s, handler in old.items():
            signal.signal(s, handler)
