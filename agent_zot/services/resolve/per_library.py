"""Tables derived from one library snapshot, built on first use and kept while it is the current one: a
request reads them instead of walking every item again (tens of ms a request at 20,000 items)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Generic, TypeVar

from agent_zot.zotero.models import Library

T = TypeVar("T")


class PerLibrary(Generic[T]):
    """``build(library)``, kept for the latest snapshot only (an edit makes a new ``Library`` object)."""

    def __init__(self, build: Callable[[Library], T]) -> None:
        self._build = build
        self._lock = threading.Lock()
        self._latest: tuple[Library, T] | None = None

    def __call__(self, library: Library) -> T:
        with self._lock:
            if self._latest is not None and self._latest[0] is library:
                return self._latest[1]
        value = self._build(library)  # outside the lock: two first requests may both build, one is kept
        with self._lock:
            self._latest = (library, value)
        return value
