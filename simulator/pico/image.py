"""Where the emulated Pico's binaries are: the stock MicroPython rp2 image and
the RP2040 boot ROM. They are test tools kept outside the repository, found
through SHUFFLER_RP2_IMAGE_DIR or in ../shared/rp2 next to the repository."""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
ENV = "SHUFFLER_RP2_IMAGE_DIR"
DEFAULT_DIR = REPO.parent / "shared" / "rp2"
UF2 = "micropython-v1.28.0-rpi-pico.uf2"
BOOTROM = "rp2040-bootrom-b1.bin"
# The stock RPI_PICO image keeps its littlefs filesystem at this flash offset
# (2 MiB flash, the last 1408 KiB): 352 blocks of 4 KiB, written in 256-byte pages.
FS_OFFSET = 0xA0000
FS_BLOCK_SIZE = 4096
FS_BLOCK_COUNT = 352
FS_PROG_SIZE = 256
FS_READ_SIZE = 32
FS_LOOKAHEAD = 32


class ImageMissing(RuntimeError):
    """The binaries are not where they are looked for; the message says where to put them."""


@dataclass(frozen=True)
class PicoImage:
    uf2: Path
    bootrom: Path


def image_dir() -> Path:
    given = os.environ.get(ENV)
    return Path(given) if given else DEFAULT_DIR


def find_image() -> PicoImage:
    folder = image_dir()
    uf2, rom = folder / UF2, folder / BOOTROM
    missing = [p.name for p in (uf2, rom) if not p.is_file()]
    if missing:
        raise ImageMissing(
            f"the emulated Pico needs {' and '.join(missing)} in {folder}: "
            f"put MicroPython v1.28.0's RPI_PICO image ({UF2}) and the RP2040 boot ROM ({BOOTROM}) there, "
            f"or set {ENV} to the folder that holds them"
        )
    return PicoImage(uf2, rom)
