"""`shuffler sim-device --board pico`: the emulated Raspberry Pi Pico
(MicroPython's rp2 port in rp2040js, simulator/pico/) until stopped."""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from host.commands.sim_device import person_hint, stop_signals, unwritable
from simulator.virtual import faults as faultlib
from simulator.virtual import registry

if TYPE_CHECKING:
    from simulator.pico import EmulatedPico

FS_FILE = "rp2-littlefs.img"  # the filesystem region of the Pico's flash, in the flash folder
MECHANICAL = ("jam", "double_feed", "empty_at", "battery_low", "sensor_missing")


def run_pico(flash: Path | None, install: bool | None, time_scale: float,
             standing: list[faultlib.Fault], seed: int, wiring: tuple[str, ...] = ()) -> None:
    from simulator.pico.control import ControlServer
    from simulator.pico.emulator import SLOWDOWN

    for f in standing:
        if f.name not in MECHANICAL:
            raise click.BadParameter(f"{f.name} is a fault of the simulated board's driver; "
                                     f"the emulated Pico takes {', '.join(MECHANICAL)}", param_hint="--fault")
    fs_file = flash / FS_FILE if flash is not None else None
    fs, blank = flash_image(flash, fs_file, install)
    pico = started_pico(fs, time_scale, seed, standing, wiring)
    control = ControlServer(pico).start()
    # Listed by `shuffler devices`; a Link opened on this port waits as long as the emulator needs.
    try:
        advert = registry.advertise(pico.port, flash if flash is not None else Path(""), control.address,
                                    board="pico", slowdown=SLOWDOWN)
    except OSError as exc:
        control.stop()
        pico.stop()
        raise unwritable(exc) from None
    with stop_signals() as done:
        try:
            where = fs_file if fs_file is not None else "kept in memory"
            click.echo(f"emulated Pico on {pico.port} (flash {where})")
            kept = (f"its flash is kept in {fs_file} when it stops; the cards on its table go" if fs_file is not None
                    else "its flash and the cards on its table go when it stops (give --flash DIR to keep its flash)")
            for line in person_hint(control.address, "", pico.port, None, blank, kept):
                click.echo(line)
            while not done.wait(0.2):
                if not pico.running:
                    raise click.ClickException(f"the emulated Pico stopped unexpectedly: {pico.error}")
            if fs_file is not None:
                pico.save_flash(fs_file)
        finally:
            registry.withdraw(advert)
            control.stop()
            pico.stop()
    click.echo("emulated Pico stopped", err=True)


def flash_image(flash: Path | None, fs_file: Path | None, install: bool | None) -> tuple[bytes | None, bool]:
    """The filesystem the Pico starts with (the flash folder's, or the
    firmware's when installing: by default only on an empty flash), and
    whether it starts blank (no firmware, nothing installed)."""
    from simulator.pico.flash_fs import build_fs, firmware_files

    if flash is not None:
        try:
            flash.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise unwritable(exc) from None
    fs: bytes | None = fs_file.read_bytes() if fs_file is not None and fs_file.exists() else None
    if install is None:
        install = fs is None
    blank = fs is None and not install
    if install:
        fs = build_fs(firmware_files())
    return fs, blank


def started_pico(fs: bytes | None, time_scale: float, seed: int, standing: list[faultlib.Fault],
                 wiring: tuple[str, ...]) -> EmulatedPico:
    """The emulated Pico, its standing faults put on its world, started;
    a missing image or a failing emulator in one line."""
    from simulator.pico import EmulatedPico, EmulatorError, ImageMissing

    try:
        pico = EmulatedPico(fs=fs, time_scale=time_scale, seed=seed,
                            missing=[f.mode for f in standing if f.name == "sensor_missing"], wiring=wiring)
    except (ImageMissing, EmulatorError) as exc:
        raise click.ClickException(str(exc)) from None
    for f in standing:
        if f.name != "sensor_missing":
            pico.world.inject(f.name, f.k, f.mode)
    pico.start()
    return pico
