"""Cyclic garbage collection paused while a library is built in memory.

Reading or loading a library makes hundreds of thousands of objects that all stay alive; each few hundred
allocations started the collector, which walked the young ones again and again (and, now and then, all of
them): at 20,000 items the collector took more time than the work. Objects are still freed by reference
counting meanwhile; only the search for unreachable cycles waits until the library is built.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_lock = threading.Lock()
_pauses = 0  # reads in progress, in any thread: the collector runs again when the last one ends
_was_enabled = True


@contextmanager
def gc_paused() -> Iterator[None]:
    global _pauses, _was_enabled
    with _lock:
        if _pauses == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _pauses += 1
    try:
        yield
    finally:
        with _lock:
            _pauses -= 1
            if _pauses == 0 and _was_enabled:
                gc.enable()
