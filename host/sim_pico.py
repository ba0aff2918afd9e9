"""`shuffler sim-device --board pico`: the emulated Raspberry Pi Pico
(MicroPython's rp2 port in rp2040js, simulator/pico/) until stopped."""
from __future__ import annotations

import signal
import threading
from pathlib import Path
from types import FrameType

import click

from host.commands.sim_device import person_hint, unwritable
from simulator.virtual import faults as faultlib
from simulator.virtual import registry

FS_FILE = "rp2-littlefs.img"  # the filesystem region of the Pico's flash, in the flash folder
MECHANICAL = ("jam", "double_feed", "empty_at", "battery_low", "sensor_missing")


def run_pico(flash: Path | None, install: bool | None, time_scale: float,
             standing: list[faultlib.Fault], seed: int, wiring: tuple[str, ...] = ()) -> None:
    from simulator.pico import EmulatedPico, EmulatorError, ImageMissing
    from simulator.pico.control import ControlServer
    from simulator.pico.emulator import SLOWDOWN
    from simulator.pico.flash_fs import build_fs, firmware_files

    for f in standing:
        if f.name not in MECHANICAL:
            raise click.BadParameter(f"{f.name} is a fault of the simulated board's driver; "
                                     f"the emulated Pico takes {', '.join(MECHANICAL)}", param_hint="--fault")
    fs_file = flash / FS_FILE if flash is not None else None
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
    try:
        pico = EmulatedPico(fs=fs, time_scale=time_scale, seed=seed,
                            missing=[f.mode for f in standing if f.name == "sensor_missing"], wiring=wiring)
    except (ImageMissing, EmulatorError) as exc:
        raise click.ClickException(str(exc)) from None
    for f in standing:
        if f.name != "sensor_missing":
            pico.world.inject(f.name, f.k, f.mode)
    pico.start()
    control = ControlServer(pico).start()
    # Listed by `shuffler devices`; a Link opened on this port waits as long as the emulator needs.
    try:
        advert = registry.advertise(pico.port, flash if flash is not None else Path(""), control.address,
                                    board="pico", slowdown=SLOWDOWN)
    except OSError as exc:
        control.stop()
        pico.stop()
        raise unwritable(exc) from None
    done = threading.Event()

    def on_signal(signum: int, frame: FrameType | None) -> None:
        done.set()

    old = {s: signal.signal(s, on_signal) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
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
        for s, handler in old.items():
            signal.signal(s, handler)
        registry.withdraw(advert)
        control.stop()
        pico.stop()
    click.echo("emulated Pico stopped", err=True)
