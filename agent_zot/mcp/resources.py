"""MCP resources: read-only views of the library by URI, listed as resource templates. What they hold is
built in services/library_resources.py (imported on the first read, not at startup); this module only
registers them and turns our errors into resource errors the client shows as they are."""

from __future__ import annotations

import logging
from collections.abc import Callable
from types import ModuleType
from typing import TypeVar

from fastmcp import FastMCP
from fastmcp.exceptions import ResourceError

from agent_zot.errors import AgentZotError
from agent_zot.services.context import AppContext

T = TypeVar("T", str, bytes)
ITEM_URI = "zotero://item/{key}"
PAGE_URI = "zotero://item/{key}/fulltext/{page}"
COLLECTION_URI = "zotero://collection/{key}"
FIGURE_URI = "zotero://item/{key}/figure/{number}"
TABLE_URI = "zotero://item/{key}/table/{number}"
PAGE_IMAGE_URI = "zotero://item/{key}/page/{page}/image"


def _service() -> ModuleType:
    from agent_zot.services import library_resources

    return library_resources


def _read(call: Callable[[], T]) -> T:
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

    def figure(key: str, number: str) -> bytes:
        return _read(lambda: _service().element_png(ctx, key, "figure", number))

    def table(key: str, number: str) -> bytes:
        return _read(lambda: _service().element_png(ctx, key, "table", number))

    def page_image(key: str, page: str) -> bytes:
        return _read(lambda: _service().page_png(ctx, key, page))

    for uri, name, read, what in (
        (FIGURE_URI, "item_figure", figure, "A figure of an item's PDF (its number as printed)"),
        (TABLE_URI, "item_table", table, "A table of an item's PDF (its number as printed)"),
        (PAGE_IMAGE_URI, "item_page_image", page_image, "A page of an item's PDF (positions from 1)"),
    ):
        server.resource(uri, name=name, description=f"{what}, as a PNG.", mime_type="image/png")(read)
    server.resource(
        COLLECTION_URI,
        name="collection",
        description="A collection (key or name): its path, sub-collections and items, one line each.",
        mime_type="text/markdown",
    )(collection)
