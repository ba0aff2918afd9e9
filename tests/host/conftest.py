"""Fixtures for the host tests (shared helpers live in hosttest_support.py)."""
from __future__ import annotations

from typing import Iterator

import pytest

from firmware import build
from simulator.virtual import VirtualShuffler


@pytest.fixture
def virtual_shuffler(tmp_path_factory: pytest.TempPathFactory) -> Iterator[VirtualShuffler]:
    """A virtual shuffler running the image `shuffler flash` would deploy for the sim board."""
    dev = VirtualShuffler(time_scale=0.0, keep_cards=True)  # a reset leaves the cards where they lie, as on a real machine
    build.install_to_dir(build.build_image("sim", tmp_path_factory.mktemp("image")), dev.flash_dir)
    dev.start()
    yield dev
    dev.stop()
