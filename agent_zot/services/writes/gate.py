"""Whether a write mode runs: refused while the index is moved, not enabled (and how to enable it), or run
through the write service. Writes go through Zotero's API, never to zotero.sqlite."""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType

from agent_zot.services.catalog import WRITE_MODES
from agent_zot.services.context import AppContext
from agent_zot.services.response import ToolResponse, with_route
from agent_zot.services.routing import Route
from agent_zot.services.writes.route import ENABLE_HINT


def run_write(ctx: AppContext, decision: Route, change: Callable[[ModuleType], ToolResponse]) -> ToolResponse:
    """Run ``change`` with the write service when writes are enabled; otherwise say how to enable them."""
    if ctx.write_block is not None:
        return ToolResponse(
            ctx.write_block, {"route": decision.to_dict(), "status": "refused"}, is_error=True
        )
    if not ctx.settings.writes_enabled:
        return _not_enabled(decision)
    from agent_zot.services.writes import service  # the write path loads on the first write

    return with_route(change(service), decision)


def _not_enabled(decision: Route) -> ToolResponse:
    what = WRITE_MODES[decision.tool][decision.mode]
    return ToolResponse(
        f"Detected a request for {what} (mode '{decision.mode}'), but changing the library is not enabled, "
        "so nothing was changed. Writes go through Zotero's API, never to zotero.sqlite. To enable them: "
        f"{ENABLE_HINT} Or make the change in Zotero itself.",
        {"route": decision.to_dict(), "status": "not_enabled", "enable_with": ENABLE_HINT},
        is_error=True,
    )
