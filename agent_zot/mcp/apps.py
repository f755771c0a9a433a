"""MCP Apps (`io.modelcontextprotocol/ui`): one registration place for the views of apps/views.py.

Each view is a `ui://` resource (mime type `text/html;profile=mcp-app`), and the tool it belongs to names it
in `_meta.ui.resourceUri`. A host that renders apps announces the extension in its client capabilities;
only then does a result carry what only a view reads (`ToolResponse.view`, under `structuredContent.view`),
so every other client gets the answer it always got. A tool only a view calls would be registered with
`visibility=["app"]`; no view needs one (the matrix pages with zot_summarize and exports with zot_export,
the claim worksheet sends its verdicts to zot_export, the figure list asks zot_summarize for one figure, the
graph asks zot_explore_graph to re-centre).
A view that costs work (the figure list's thumbnails) is a function, called only for such a client.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fastmcp import FastMCP
from fastmcp.apps import UI_EXTENSION_ID, UI_MIME_TYPE, AppConfig, ResourceCSP

from agent_zot.apps.views import VIEWS, ToolView, app_page, view_of
from agent_zot.services.response import ToolResponse


def tool_app(tool: str) -> AppConfig | None:
    """The app metadata of ``tool``: the view it opens, if it has one."""
    view = view_of(tool)
    return None if view is None else AppConfig(resource_uri=view.uri)


def register_apps(server: FastMCP) -> None:
    for view in VIEWS:
        # An empty CSP declaration: the host allows the view no origin at all (it needs none).
        server.resource(
            view.uri,
            name=f"{view.name}_view",
            description=f"The view of {view.tool}'s results (MCP Apps).",
            mime_type=UI_MIME_TYPE,
            app=AppConfig(csp=ResourceCSP(), prefers_border=True),
        )(_page(view))


def _page(view: ToolView) -> Callable[[], str]:
    """The resource's reader: the page is built when read (hosts fetch it once and cache it)."""

    def page() -> str:
        return app_page(view)

    return page


def client_renders_apps() -> bool:
    """Whether the client of the request being answered announced the Apps extension."""
    from fastmcp.server.dependencies import get_context

    try:
        return get_context().client_supports_extension(UI_EXTENSION_ID)
    except RuntimeError:  # no request (a direct call in a test): no view
        return False


def for_client(response: ToolResponse, renders_apps: bool) -> dict[str, Any]:
    """The structured content a client gets: with the view's part only for one that renders it."""
    if renders_apps and response.view is not None:
        view = response.view() if callable(response.view) else response.view
        if view is not None:
            return {**response.data, "view": view}
    return response.data
