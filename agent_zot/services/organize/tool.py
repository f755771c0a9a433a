"""`zot_manage_collections` and `zot_manage_tags`: read modes answer from the library as Zotero holds it;
write modes go through Zotero's API when writes are enabled (writes/gate.py)."""

from __future__ import annotations

from agent_zot.errors import InvalidArgumentError
from agent_zot.services.catalog import WRITE_MODES, CollectionsRequest, TagsRequest
from agent_zot.services.context import AppContext
from agent_zot.services.organize import collections, reading, tags
from agent_zot.services.response import ToolResponse, clamp_limit, with_route
from agent_zot.services.routing import Route
from agent_zot.services.writes.gate import run_write


def manage_collections(ctx: AppContext, req: CollectionsRequest, decision: Route) -> ToolResponse:
    if decision.mode in WRITE_MODES["zot_manage_collections"]:
        keys = req.item_keys or []
        scan = "" if "item_keys" in req.explicit() else req.query  # explicit keys are taken as they are
        if decision.mode == "import":
            return run_write(ctx, decision, lambda _: _import(ctx, req))
        if decision.mode == "create":
            path = req.collection if "collection" in req.explicit() else None
            path = path or decision.params.get("new_collection") or req.collection
            return run_write(ctx, decision, lambda w: w.create_collection(ctx, path))
        add = decision.mode == "add"
        return run_write(
            ctx, decision, lambda w: w.change_membership(ctx, req.collection, keys, add=add, query=scan)
        )
    library = ctx.library()
    size = clamp_limit(req.limit)
    if decision.mode == "show_items":
        if not req.collection:
            raise InvalidArgumentError(
                "Which collection? No collection name was given or found in the query.",
                hint="Pass collection='Thesis/Chapter 2' or list collections first.",
            )
        listing = collections.collection_items(library, req.collection, limit=size, recursive=req.recursive)
        return with_route(listing, decision)
    if decision.mode == "recent":
        recent_by = reading.recently_read if reading.asks_for_reading(req.query) else collections.recent_items
        recent = recent_by(library, limit=size, days=req.days, collection=req.collection)
        return with_route(recent, decision)
    return with_route(collections.collection_tree(library), decision)


def _import(ctx: AppContext, req: CollectionsRequest) -> ToolResponse:
    from agent_zot.services.organize.add.service import add_papers  # the registries' client loads on use

    # Explicit identifiers are taken one per entry; else every identifier in the query is (the route's
    # parameters show them too).
    given = req.identifiers if "identifiers" in req.explicit() else None
    return add_papers(ctx, given, req.query, req.collection, req.tags)


def manage_tags(ctx: AppContext, req: TagsRequest, decision: Route) -> ToolResponse:
    if decision.mode in WRITE_MODES["zot_manage_tags"]:
        # Write modes take tag names literally; names quoted in the query come first.
        names = req.tags or decision.params.get("quoted") or _tag_list(decision)
        scan = "" if "item_keys" in req.explicit() else req.query  # explicit keys are taken as they are
        add = decision.mode == "add"
        return run_write(
            ctx, decision, lambda w: w.change_tags(ctx, names, req.item_keys or [], add=add, query=scan)
        )
    library = ctx.library()
    size = clamp_limit(req.limit)
    if decision.mode == "search":
        expression = req.tags or decision.params.get("tag_expression") or _tag_list(decision)
        if not expression:
            raise InvalidArgumentError(
                "Which tags? None were given or found in the query.",
                hint='Pass tags="ml || nlp, -review" (or: ml or nlp, and not review).',
            )
        return with_route(tags.search_by_tags(library, expression, limit=size), decision)
    quoted = decision.params.get("quoted") or []
    return with_route(tags.list_tags(library, limit=size, contains=quoted[0] if quoted else None), decision)


def _tag_list(decision: Route) -> list[str] | None:
    names = decision.params.get("tags")
    return list(names) if names else None
