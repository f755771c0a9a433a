"""MCP progress notifications for a long tool call: the services' progress reports (services/progress.py)
sent to the client as `notifications/progress`, when the client asked for them (a progressToken)."""

from __future__ import annotations

import logging

import anyio.from_thread
from fastmcp.server.dependencies import get_context

from agent_zot.services.progress import ProgressSink

log = logging.getLogger(__name__)


def progress_sink() -> ProgressSink | None:
    """A sink for the current tool call, or None when the client asked for no progress. Called in the
    worker thread fastmcp runs a tool in; the notifications go out on the server's event loop."""
    try:
        context = get_context()
    except RuntimeError:  # not inside a request (a direct call)
        return None
    request = context.request_context
    if request is None or not (request.meta or {}).get("progressToken"):
        return None

    def send(done: float, total: float | None, message: str) -> None:
        try:
            anyio.from_thread.run(context.report_progress, done, total, message)
        except (RuntimeError, anyio.BrokenResourceError, anyio.ClosedResourceError) as err:
            log.debug("progress not sent (the client went away?): %s", err)  # the answer still comes

    return send
