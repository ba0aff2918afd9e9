"""The test suite's root: its folder is on the import path, so every
folder's tests share the support modules kept here (pty_screen.py,
setup_person.py), and the fixtures they share."""
from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(scope="module")
def sim_image_flash(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A flash folder holding the image `shuffler flash` deploys for the sim
    board (a test copies it before a virtual shuffler runs on it)."""
    from firmware import build

    flash = tmp_path_factory.mktemp("flash-image")
    build.install_to_dir(build.build_image("sim", tmp_path_factory.mktemp("image")), flash)
    return flash
