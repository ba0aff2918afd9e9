"""The page's tests import their helpers from this folder; the fixtures
the browser tests share: a headless chromium, a runtime folder of the
test's own and the guides a test starts."""
from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, Iterator

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from page_support import LAPTOP  # noqa: E402
from web_support import Guide, browser, quit_browser  # noqa: E402


@pytest.fixture(scope="module")
def driver(request: pytest.FixtureRequest) -> Iterator[Any]:
    """One headless chromium for the module, at the module's LAPTOP size
    (else page_support's)."""
    d = browser(*getattr(request.module, "LAPTOP", LAPTOP))
    try:
        yield d
    finally:
        quit_browser(d)



@pytest.fixture
def guides() -> Iterator[list[Guide]]:
    """The guides a test starts, each killed at its end."""
    started: list[Guide] = []
    yield started
    for g in started:
        g.kill()
