"""The test suite's root: its folder is on the import path, so every
folder's tests share the support modules kept here (suite.py, pty_screen.py,
setup_person.py, device_client.py), and the fixtures they share."""
from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Callable, Iterator

import pytest
from hypothesis import settings

from pty_screen import SimDevice, end_process, launch_sim_device

# The property tests draw the same examples on every run (from a seed made
# of each test's name), so whether the suite passes never rests on which
# examples a run happened to draw; HYPOTHESIS_PROFILE=explore draws new
# ones each run, to look for failures no run has met yet.
settings.register_profile("suite", derandomize=True, database=None)
settings.register_profile("explore", derandomize=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "suite"))


@pytest.fixture(autouse=True)
def own_runtime(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A runtime folder of the test's own: the virtual devices and page
    servers another test started (perhaps at the same moment, beside it)
    are never in its registry, nor its in theirs."""
    folder = tmp_path_factory.mktemp("runtime")
    monkeypatch.setenv("SHUFFLER_RUNTIME_DIR", str(folder))
    return folder


@pytest.fixture(scope="module")
def sim_image_flash(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A flash folder holding the image `shuffler flash` deploys for the sim
    board (a test copies it before a virtual shuffler runs on it)."""
    from firmware import build

    flash = tmp_path_factory.mktemp("flash-image")
    build.install_to_dir(build.build_image("sim", tmp_path_factory.mktemp("image")), flash)
    return flash


@pytest.fixture
def sim_devices(sim_image_flash: Path, tmp_path: Path) -> Iterator[Callable[..., SimDevice]]:
    """Starts `shuffler sim-device` as a person starts it in a terminal;
    every one started is ended when the test ends, even when one will not
    stop.

        start(*args, time_scale=None, flash=None, image=True, firmware=True)

    flash: the folder it runs on (a new one of the test's own by default);
    a folder that does not exist yet is made holding the firmware's image
    (`image` True), or empty (a blank board, False); image None: no folder
    given, the command's own. firmware: wait for the firmware to open the
    board (not for a blank one)."""
    procs = []

    def start(*args: str, time_scale: float | None = None, flash: Path | None = None, image: bool | None = True,
              firmware: bool = True) -> SimDevice:
        if image is not None:
            flash = flash or tmp_path / f"flash{len(procs)}"
            if not flash.exists():
                if image:
                    shutil.copytree(sim_image_flash, flash)
                else:
                    flash.mkdir(parents=True)
        dev = launch_sim_device(flash, time_scale, *args, firmware=firmware)
        procs.append(dev.proc)
        return dev

    yield start
    for proc in procs:
        end_process(proc)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """A property test's time limit ends its worker (the thread method): the
    signal method's failure is an error hypothesis would shrink, running the
    example again with no limit left, so a hang would hang the whole run."""
    for item in items:
        test = getattr(item, "obj", None)
        if getattr(test, "is_hypothesis_test", False) and item.get_closest_marker("timeout") is None:
            item.add_marker(pytest.mark.timeout(method="thread"))
