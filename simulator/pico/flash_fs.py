"""A littlefs filesystem for the emulated Pico's flash, built on the host:
the same files `shuffler flash` writes, so a test starts from a flashed
board without spending emulated minutes on the copy."""
from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Mapping

from simulator.pico import image as img


def build_fs(files: Mapping[str, bytes]) -> bytes:
    """A filesystem image holding `files` (name -> content) in its root,
    in the layout MicroPython's rp2 port mounts (os.VfsLfs2, progsize=256)."""
    from littlefs import LittleFS

    fs = LittleFS(
        block_size=img.FS_BLOCK_SIZE,
        block_count=img.FS_BLOCK_COUNT,
        prog_size=img.FS_PROG_SIZE,
        read_size=img.FS_READ_SIZE,
        lookahead_size=img.FS_LOOKAHEAD,
    )
    for name, data in files.items():
        with fs.open(name, "wb") as f:
            f.write(data)
    return bytes(fs.context.buffer)


def firmware_files(extra: Mapping[str, bytes] | None = None) -> dict[str, bytes]:
    """The rp2 image `shuffler flash` deploys (precompiled .mpy, main.py as
    source), plus extra files (for example a config.json)."""
    from firmware import build

    with tempfile.TemporaryDirectory(prefix="shuffler-rp2-image-") as tmp:
        image = build.build_image("rp2", Path(tmp))
        files = {f.remote: f.local.read_bytes() for f in image}
    files.update(extra or {})
    return files


def calibration() -> bytes:
    """cal.json for the simulated load cell (its tare and counts per card)."""
    import json

    from simulator.pico.emulator import load_world_module

    w = load_world_module()
    return json.dumps({"tare": w.STACK_TARE, "per_card": w.STACK_PER_CARD}).encode()
