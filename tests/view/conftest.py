"""Shared by the view folder's browser tests only: Debian's Chromium through Playwright."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Debian's Chromium through Playwright, one context per test module (the browser tests: the graph
    view and the app views); skipped with the reason where Chromium is missing, which CI never is."""
    from tests.view.view_fixtures import chromium, require_browser  # it builds on tests/conftest.py's helpers

    require_browser()
    with chromium() as context:
        yield context
