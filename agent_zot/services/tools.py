"""The seven tools' behaviour, front-end neutral: route the request, run the mode, attach the route.

The MCP server and the CLI both call these functions; explicit arguments always win over what the
router extracted from the natural-language query.
"""

from __future__ import annotations

from typing import Any

from agent_zot.errors import InvalidArgumentError
from agent_zot.services import collections, notes, tags
from agent_zot.services.context import AppContext
from agent_zot.services.export import ExportScope, GraphExport, export, format_for
from agent_zot.services.response import ToolResponse, clamp_limit
from agent_zot.services.routing import Route, route

WRITE_MODES = {
    "zot_manage_collections": {
        "create": "creating collections",
        "add": "adding items to collections",
        "remove": "removing items from collections",
    },
    "zot_manage_tags": {"add": "adding tags", "remove": "removing tags"},
    "zot_manage_notes": {"create": "creating notes"},
}


def routed(tool: str, query: str, force_mode: str | None) -> Route:
    try:
        return route(tool, query or "", force_mode=force_mode)
    except ValueError as exc:
        raise InvalidArgumentError(str(exc)) from exc


def _finish(response: ToolResponse, decision: Route, **extra: Any) -> ToolResponse:
    response.data = {"route": decision.to_dict(), **extra, **response.data}
    return response


def _not_enabled(decision: Route) -> ToolResponse:
    from agent_zot.services.writes.route import ENABLE_HINT

    what = WRITE_MODES[decision.tool][decision.mode]
    return ToolResponse(
        f"Detected a request for {what} (mode '{decision.mode}'), but changing the library is not enabled, "
        "so nothing was changed. Writes go through Zotero's API, never to zotero.sqlite. To enable them: "
        f"{ENABLE_HINT} Or make the change in Zotero itself.",
        {"route": decision.to_dict(), "status": "not_enabled", "enable_with": ENABLE_HINT},
        is_error=True,
    )


def _write(ctx: AppContext, decision: Route, run: Any) -> ToolResponse:
    """Run a write mode when writes are enabled; otherwise say how to enable them."""
    if not ctx.settings.writes_enabled:
        return _not_enabled(decision)
    from agent_zot.services.writes import service  # pyzotero loads on the first write

    return _finish(run(service), decision)


def _param(explicit: Any, decision: Route, name: str) -> Any:
    return explicit if explicit not in (None, "", []) else decision.params.get(name)


def manage_collections(
    ctx: AppContext,
    query: str = "",
    *,
    force_mode: str | None = None,
    collection: str | None = None,
    limit: int | None = None,
    days: int | None = None,
    recursive: bool = False,
    item_keys: list[str] | None = None,
) -> ToolResponse:
    decision = routed("zot_manage_collections", query, force_mode)
    if decision.mode in WRITE_MODES["zot_manage_collections"]:
        keys = _param(item_keys, decision, "item_keys") or []
        scan = "" if item_keys else query  # explicit keys are taken as they are
        if decision.mode == "create":
            path = _param(collection, decision, "new_collection") or decision.params.get("collection")
            return _write(ctx, decision, lambda w: w.create_collection(ctx, path))
        name = _param(collection, decision, "collection")
        add = decision.mode == "add"
        return _write(ctx, decision, lambda w: w.change_membership(ctx, name, keys, add=add, query=scan))
    library = ctx.library()
    name = _param(collection, decision, "collection")
    size = clamp_limit(_param(limit, decision, "limit"))
    if decision.mode == "show_items":
        if not name:
            raise InvalidArgumentError(
                "Which collection? No collection name was given or found in the query.",
                hint="Pass collection='Thesis/Chapter 2' or list collections first.",
            )
        return _finish(collections.collection_items(library, name, limit=size, recursive=recursive), decision)
    if decision.mode == "recent":
        window = _param(days, decision, "days")
        return _finish(collections.recent_items(library, limit=size, days=window, collection=name), decision)
    return _finish(collections.collection_tree(library), decision)


def manage_tags(
    ctx: AppContext,
    query: str = "",
    *,
    force_mode: str | None = None,
    tags_expression: str | list[str] | None = None,
    limit: int | None = None,
    item_keys: list[str] | None = None,
) -> ToolResponse:
    decision = routed("zot_manage_tags", query, force_mode)
    if decision.mode in WRITE_MODES["zot_manage_tags"]:
        # Write modes take tag names literally; names quoted in the query come first.
        names = tags_expression or decision.params.get("quoted") or _tag_list(decision)
        keys = _param(item_keys, decision, "item_keys") or []
        scan = "" if item_keys else query  # explicit keys are taken as they are
        add = decision.mode == "add"
        return _write(ctx, decision, lambda w: w.change_tags(ctx, names, keys, add=add, query=scan))
    library = ctx.library()
    size = clamp_limit(_param(limit, decision, "limit"), default=50)
    if decision.mode == "search":
        expression = tags_expression or decision.params.get("tag_expression") or _tag_list(decision)
        if not expression:
            raise InvalidArgumentError(
                "Which tags? None were given or found in the query.",
                hint='Pass tags="ml || nlp, -review" (or: ml or nlp, and not review).',
            )
        return _finish(tags.search_by_tags(library, expression, limit=size), decision)
    quoted = decision.params.get("quoted") or []
    return _finish(tags.list_tags(library, limit=size, contains=quoted[0] if quoted else None), decision)


def _tag_list(decision: Route) -> list[str] | None:
    names = decision.params.get("tags")
    return list(names) if names else None


def manage_notes(
    ctx: AppContext,
    query: str = "",
    *,
    force_mode: str | None = None,
    item_key: str | None = None,
    limit: int | None = None,
    note: str | None = None,
) -> ToolResponse:
    decision = routed("zot_manage_notes", query, force_mode)
    if decision.mode in WRITE_MODES["zot_manage_notes"]:
        parent = item_key or next(iter(decision.params.get("item_keys") or []), None)
        text = note or decision.params.get("note_text")
        return _write(ctx, decision, lambda w: w.create_note(ctx, parent, text, query))
    library = ctx.library()
    keys = decision.params.get("item_keys") or []
    key = item_key or (keys[0] if keys else None)
    size = clamp_limit(_param(limit, decision, "limit"))
    if decision.mode == "search":
        text = " ".join(decision.params.get("quoted") or []) or decision.params.get("topic") or query
        return _finish(notes.search_notes(library, text, limit=size), decision)
    if decision.mode == "list_annotations":
        return _finish(notes.list_annotations(library, item_key=key, limit=size), decision)
    return _finish(notes.list_notes(library, item_key=key, limit=size), decision)


def export_library(
    ctx: AppContext,
    query: str = "",
    *,
    force_mode: str | None = None,
    path: str | None = None,
    collection: str | None = None,
    item_keys: list[str] | None = None,
    search: str | None = None,
    overwrite: bool = False,
    node_types: list[str] | None = None,
    max_nodes: int | None = None,
) -> ToolResponse:
    """Export to a file. ``search`` scopes by metadata words; the query's own words are not used as a
    filter (they usually just describe the request), only the collection and keys found in it."""
    decision = routed("zot_export", query, force_mode)
    target = path or decision.params.get("path")
    scope = ExportScope(
        item_keys=tuple(item_keys or decision.params.get("item_keys") or ()),
        collection=_param(collection, decision, "collection"),
        query=search or None,
    )
    fmt = force_mode or decision.mode
    graph = None
    if format_for(target, fmt) == "graphml":
        from agent_zot.graph.graphml import DEFAULT_MAX_NODES

        graph = GraphExport(ctx.graph().store, tuple(node_types or ()), max_nodes or DEFAULT_MAX_NODES)
    response = export(
        ctx.library(), ctx.settings, path=target, fmt=fmt, scope=scope, overwrite=overwrite, graph=graph
    )
    return _finish(response, decision)


def search(
    ctx: AppContext,
    query: str = "",
    *,
    force_mode: str | None = None,
    limit: int | None = None,
    year_min: int | None = None,
    year_max: int | None = None,
    authors: list[str] | None = None,
    collection: str | None = None,
    tags: list[str] | None = None,
    item_type: str | None = None,
    detail: str | None = None,
) -> ToolResponse:
    from agent_zot.services.search import run_search  # the index stack loads on the first search

    decision = routed("zot_search", query, force_mode)
    response, ran = run_search(
        ctx,
        decision,
        query,
        limit=_param(limit, decision, "limit"),
        escalate=force_mode is None,
        detail=detail,
        year_min=year_min,
        year_max=year_max,
        authors=authors,
        collection=collection,
        tags=tags,
        item_type=item_type,
    )
    return _finish(response, ran)


def summarize(
    ctx: AppContext,
    query: str = "",
    *,
    force_mode: str | None = None,
    item_key: str | None = None,
    pages: str | None = None,
    offset: int | None = None,
    max_tokens: int | None = None,
) -> ToolResponse:
    from agent_zot.services.summarize import run_summarize  # the index stack loads on the first call

    paginated = pages is not None or offset is not None
    decision = routed("zot_summarize", query, force_mode or ("full" if paginated else None))
    response = run_summarize(
        ctx, decision, query, item_key=item_key, pages=pages, offset=offset, max_tokens=max_tokens
    )
    return _finish(response, decision)


def explore_graph(
    ctx: AppContext,
    query: str = "",
    *,
    force_mode: str | None = None,
    item_key: str | None = None,
    author: str | None = None,
    concept: str | None = None,
    year_min: int | None = None,
    year_max: int | None = None,
    hops: int | None = None,
    direction: str | None = None,
    limit: int | None = None,
) -> ToolResponse:
    from agent_zot.services.explore import explore_graph as explore  # networkx loads on the first call

    decision = routed("zot_explore_graph", query, force_mode)
    response = explore(
        ctx,
        decision,
        query=query,
        item_key=item_key,
        author=author,
        concept=concept,
        year_min=year_min,
        year_max=year_max,
        hops=hops,
        direction=direction,
        limit=limit,
    )
    return _finish(response, decision)
