"""MCP resources: read-only views of the library by URI, listed as resource templates. What they hold is
built in services/library_resources.py (imported on the first read, not at startup); this module only
registers them and turns our errors into resource errors the client shows as they are."""

from __future__ import annotations

import logging
from collections.abc import Callable
from types import ModuleType

from fastmcp import FastMCP
from fastmcp.exceptions import ResourceError

from agent_zot.errors import AgentZotError
from agent_zot.services.context import AppContext

ITEM_URI = "zotero://item/{key}"
PAGE_URI = "zotero://item/{key}/fulltext/{page}"
COLLECTION_URI = "zotero://collection/{key}"


def _service() -> ModuleType:
    from agent_zot.services import library_resources

    return library_resources


def _read(call: Callable[[], str]) -> str:
    # A ResourceError's message reaches the client unmasked; anything else would arrive as a bare
    # "Error reading resource" (the server masks error details). Ours are the caller's to fix, not the
    # server's faults: logged with their traceback at debug level only.
    try:
        return call()
    except AgentZotError as exc:
        raise ResourceError(str(exc), log_level=logging.DEBUG) from exc


def register_resources(server: FastMCP, ctx: AppContext) -> None:
    def item(key: str) -> str:
        return _read(lambda: _service().item_text(ctx, key))

    def item_page(key: str, page: str) -> str:
        return _read(lambda: _service().page_text(ctx, key, page))

    def collection(key: str) -> str:
        return _read(lambda: _service().collection_text(ctx, key))

    server.resource(
        ITEM_URI,
        name="item",
        description="An item's metadata and abstract (Markdown), and where its full text can be read.",
        mime_type="text/markdown",
    )(item)
    server.resource(
        PAGE_URI,
        name="item_fulltext_page",
        description="One page of an item's full text from the index (pages are PDF positions from 1).",
        mime_type="text/plain",
    )(item_page)
    server.resource(
        COLLECTION_URI,
        name="collection",
        description="A collection (key or name): its path, sub-collections and items, one line each.",
        mime_type="text/markdown",
    )(collection)
