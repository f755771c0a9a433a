"""Progress of a long tool call, for a front end that can show it (MCP progress notifications).

Services stay free of any front end: the MCP layer passes a plain callback in (`reporting_to`) for the
length of one call, and a long step (a matrix row per paper, a draft's citations, a summary's aspects) says
how far it is with `report`; with no callback set, `report` costs nothing.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Protocol

_EVERY_S = 0.5  # at most one report this often (the first and the last always go)


class ProgressSink(Protocol):
    def __call__(self, done: float, total: float | None, message: str) -> None: ...


_SINK: ContextVar[ProgressSink | None] = ContextVar("agent_zot_progress", default=None)
_LAST: ContextVar[float] = ContextVar("agent_zot_progress_last", default=0.0)


@contextmanager
def reporting_to(sink: ProgressSink | None) -> Iterator[None]:
    """Send the reports of the calls made inside the block to ``sink`` (None: nowhere)."""
    token = _SINK.set(sink)
    last = _LAST.set(0.0)
    try:
        yield
    finally:
        _SINK.reset(token)
        _LAST.reset(last)


def report(done: int, total: int | None, message: str) -> None:
    """Say how far a long step is: ``done`` of ``total`` (its unit named in ``message``)."""
    sink = _SINK.get()
    if sink is None:
        return
    now = time.monotonic()
    if done > 0 and (total is None or done < total) and now - _LAST.get() < _EVERY_S:
        return
    _LAST.set(now)
    sink(done, total, message)
