"""Entry points for the tools: validate the request first (no network), then run it on the first usable
route (the local API when enabled, else the web API); a route that refuses before anything was
written hands over to the next one.
"""

from __future__ import annotations

from collections.abc import Callable

from agent_zot.config import Settings
from agent_zot.errors import InvalidArgumentError
from agent_zot.identifiers import KEY_SHAPED
from agent_zot.services.context import AppContext
from agent_zot.services.response import ToolResponse
from agent_zot.services.writes import collections, item_changes, notes
from agent_zot.services.writes.client import ApiWriter, ZoteroWriter
from agent_zot.services.writes.common import clean_keys
from agent_zot.services.writes.errors import RouteUnavailableError
from agent_zot.services.writes.note_html import note_html
from agent_zot.services.writes.route import write_routes
from agent_zot.zotero.models import Library

Operation = Callable[[ZoteroWriter], ToolResponse]


def run_on_routes(settings: Settings, operation: Operation) -> ToolResponse:
    """Run on the first route that works; later routes only while nothing has been written."""
    routes = write_routes(settings)
    skipped: list[str] = []
    for position, route in enumerate(routes):
        writer = ApiWriter(route, settings)
        try:
            response = operation(writer)
        except RouteUnavailableError as exc:
            if writer.wrote or position == len(routes) - 1:
                exc.hint = exc.hint or (
                    "Zotero's local API may not accept writes in this Zotero version; set "
                    "AGENT_ZOT_ZOTERO_API_KEY and AGENT_ZOT_ZOTERO_LIBRARY_ID to write through the web API."
                )
                raise
            skipped.append(f"{route.label}: {exc.message}")
            continue
        finally:
            writer.close()
        if skipped:
            response.text += "\nNot used: " + "; ".join(skipped)
            response.data["skipped_routes"] = skipped
        return response
    raise AssertionError("write_routes returns at least one route or raises")


def create_collection(ctx: AppContext, path: str | None) -> ToolResponse:
    if not path:
        raise InvalidArgumentError(
            "Which collection should be created? No name was given or found in the query.",
            hint="Pass collection='Thesis/Chapter 2' (missing parent collections are created too).",
        )
    collections.split_path(path)  # a malformed path fails before any request
    return run_on_routes(ctx.settings, lambda writer: collections.create_path(writer, path))


def _keys(library: Library, keys: list[str], query: str) -> list[str]:
    """The given keys plus key-shaped words of the query that name items in the local database (the
    router only takes words with a digit as keys; real keys may have none). Callers pass no query
    when the keys were given explicitly."""
    return clean_keys([*keys, *(k for k in KEY_SHAPED.findall(query) if k in library.items)])


def change_membership(
    ctx: AppContext, name: str | None, keys: list[str], *, add: bool, query: str = ""
) -> ToolResponse:
    if not name:
        raise InvalidArgumentError(
            "Which collection? No collection name was given or found in the query.",
            hint="Pass collection='Reading list' (name, path A/B or key).",
        )
    library = ctx.library()
    item_keys = _keys(library, keys, query)

    def operation(writer: ZoteroWriter) -> ToolResponse:
        collection = collections.target_collection(library, writer, name)
        return item_changes.change_membership(writer, library, item_keys, collection, add=add)

    return run_on_routes(ctx.settings, operation)


def change_tags(
    ctx: AppContext, tags: str | list[str] | None, keys: list[str], *, add: bool, query: str = ""
) -> ToolResponse:
    names = item_changes.tag_names(tags)
    library = ctx.library()
    item_keys = _keys(library, keys, query)
    return run_on_routes(
        ctx.settings, lambda writer: item_changes.change_tags(writer, library, item_keys, names, add=add)
    )


def create_note(ctx: AppContext, parent_key: str | None, text: str | None, query: str = "") -> ToolResponse:
    html = note_html(text or "")
    if not parent_key:
        found = KEY_SHAPED.findall(query.split(":", 1)[0]) if query else []
        parent_key = found[0] if found else None
    if not parent_key:
        raise InvalidArgumentError(
            "Which item should the note go under? No item key was given or found in the query.",
            hint="Pass item_key='ABCD2345' (find keys with zot_search).",
        )
    key = clean_keys([parent_key])[0]
    library = ctx.library()
    return run_on_routes(ctx.settings, lambda writer: notes.create_note(writer, library, key, html))
