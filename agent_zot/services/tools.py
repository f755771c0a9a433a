"""The seven tools' behaviour, front-end neutral: route the request, run the mode, attach the route.

The MCP server and the CLI both call `call()` (or `run()` with a typed request); the tools themselves are
declared in services/catalog.py. Explicit arguments always win over what the router extracted from the
natural-language query (`ToolSpec.merged`), and an explicit argument picks the mode it implies when the
query names none (`ToolSpec.implied_mode`).
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from pydantic import ValidationError
from rapidfuzz import fuzz

from agent_zot.errors import AgentZotError, InvalidArgumentError, NotFoundError
from agent_zot.services.catalog import (
    BY_NAME,
    WRITE_MODES,
    CollectionsRequest,
    ExploreRequest,
    ExportRequest,
    NotesRequest,
    SearchRequest,
    SummarizeRequest,
    TagsRequest,
)
from agent_zot.services.context import AppContext
from agent_zot.services.export.annotations import default_name as annotations_file_name
from agent_zot.services.export.files import ExportScope, GraphExport, export, format_for, write_review
from agent_zot.services.notes import read as notes
from agent_zot.services.organize import collections, tags
from agent_zot.services.resolve.papers import PaperMatch, PaperRequest, resolve_named_paper, resolved_record
from agent_zot.services.response import ToolResponse, clamp_limit, estimate_tokens, plural
from agent_zot.services.routing import Route, resolve_tool, route
from agent_zot.services.spec import ToolRequest, ToolSpec
from agent_zot.zotero.models import Library

__all__ = ["WRITE_MODES", "call", "routed", "run"]


def spec_for(tool: str) -> ToolSpec:
    """The spec of a tool by its name or a short alias ("tags", "export")."""
    try:
        return BY_NAME[resolve_tool(tool)]
    except ValueError as exc:
        raise InvalidArgumentError(str(exc)) from exc


def routed(tool: str, query: str, force_mode: str | None) -> Route:
    try:
        return route(tool, query or "", force_mode=force_mode)
    except ValueError as exc:
        raise InvalidArgumentError(str(exc)) from exc


def call(ctx: AppContext, tool: str, **arguments: Any) -> ToolResponse:
    """Run ``tool`` with keyword arguments as the MCP tool takes them; ``None`` means not given."""
    spec = spec_for(tool)
    given = {name: value for name, value in arguments.items() if value is not None}
    try:
        request = spec.request.model_validate(given)
    except ValidationError as exc:
        raise InvalidArgumentError(_validation_message(spec, exc)) from exc
    return run(ctx, spec, request)


DEMO_NOTE = (
    "Demo library: no Zotero library was found, so this comes from agent-zot's built-in demo papers, "
    "not from yours."
)
DEMO_HINT = (
    "Point agent-zot at your Zotero data folder (the one holding zotero.sqlite): set zotero_data_dir in "
    "the config or AGENT_ZOT_ZOTERO_DATA_DIR, or pass --library; `agent-zot doctor` checks it."
)


# The tools that answer from the full-text index, whose answers say when a rebuild is running.
INDEX_TOOLS = frozenset({"zot_search", "zot_summarize", "zot_explore_graph"})


def run(ctx: AppContext, spec: ToolSpec, request: ToolRequest) -> ToolResponse:
    """Route a typed request and run the mode it lands on. Answers from the demo library say so, and
    answers from the index say when a rebuild is running (they come from the previous index)."""
    decision, request = prepare(spec, request)
    handler = globals()[spec.handler]
    try:
        with ctx.request():
            response = handler(ctx, request, decision)
    except AgentZotError as exc:
        if ctx.serving_demo():
            exc.hint = f"{exc.hint} ({DEMO_NOTE} {DEMO_HINT})" if exc.hint else f"{DEMO_NOTE} {DEMO_HINT}"
        raise
    from agent_zot.services.answer_notes import flag_answer

    flag_answer(ctx.library(), response)
    if spec.name in INDEX_TOOLS:
        _note_rebuild(ctx, response)
        _note_lag(ctx, response)
    if ctx.serving_demo():
        _prefix(
            response,
            f"[{DEMO_NOTE} {DEMO_HINT}]",
            {"library": {"demo": True, "note": DEMO_NOTE, "hint": DEMO_HINT}},
        )
    return response


def _note_lag(ctx: AppContext, response: ToolResponse) -> None:
    from agent_zot.services.upkeep.freshness import index_lag

    lag = index_lag(ctx)
    if lag is None:
        return
    _prefix(response, f"[Note: {lag.describe()}.]", {"index_behind": lag.to_dict()})


def _note_rebuild(ctx: AppContext, response: ToolResponse) -> None:
    running = ctx.rebuild_status()
    if running is None:
        return
    note = f"Note: {running.describe()}; this answer comes from the previous index until it completes."
    _prefix(
        response,
        f"[{note}]",
        {
            "rebuild": {
                "running": True,
                "started_at": running.started_at,
                "items_done": running.items_done,
                "items_total": running.items_total,
            },
        },
    )


def _prefix(response: ToolResponse, line: str, data: dict[str, Any]) -> None:
    """Put a note above the answer; its token estimate, when it has one, covers the note too."""
    response.text = f"{line}\n{response.text}"
    response.data = {**data, **response.data}
    if isinstance(response.data.get("tokens"), int):
        response.data["tokens"] = estimate_tokens(response.text)


def prepare(spec: ToolSpec, request: ToolRequest) -> tuple[Route, Any]:
    """The route for a request, and the request with extracted values where the caller gave none."""
    forced = getattr(request, "force_mode", None)
    decision = routed(spec.name, request.query, forced)
    if forced is None:
        implied = spec.implied_mode(request, query_named_mode=decision.cued)
        if implied is not None and implied.mode != decision.mode:
            chosen = routed(spec.name, request.query, implied.mode)
            reason = f"argument {implied.field} → mode {implied.mode} (query: {decision.reason})"
            decision = replace(chosen, forced=False, reason=reason)
    return decision, spec.merged(request, decision.params)


def _validation_message(spec: ToolSpec, exc: ValidationError) -> str:
    problems = []
    for error in exc.errors()[:3]:
        where = ".".join(str(part) for part in error["loc"]) or "arguments"
        problems.append(f"{where}: {error['msg']}")
    return f"Invalid arguments for {spec.name}: " + "; ".join(problems)


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
    if ctx.write_block is not None:
        return ToolResponse(
            ctx.write_block, {"route": decision.to_dict(), "status": "refused"}, is_error=True
        )
    if not ctx.settings.writes_enabled:
        return _not_enabled(decision)
    from agent_zot.services.writes import service  # pyzotero loads on the first write

    return _finish(run(service), decision)


def manage_collections(ctx: AppContext, req: CollectionsRequest, decision: Route) -> ToolResponse:
    if decision.mode in WRITE_MODES["zot_manage_collections"]:
        keys = req.item_keys or []
        scan = "" if "item_keys" in req.explicit() else req.query  # explicit keys are taken as they are
        if decision.mode == "create":
            path = req.collection if "collection" in req.explicit() else None
            path = path or decision.params.get("new_collection") or req.collection
            return _write(ctx, decision, lambda w: w.create_collection(ctx, path))
        add = decision.mode == "add"
        return _write(
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
        return _finish(listing, decision)
    if decision.mode == "recent":
        recent = collections.recent_items(library, limit=size, days=req.days, collection=req.collection)
        return _finish(recent, decision)
    return _finish(collections.collection_tree(library), decision)


def manage_tags(ctx: AppContext, req: TagsRequest, decision: Route) -> ToolResponse:
    if decision.mode in WRITE_MODES["zot_manage_tags"]:
        # Write modes take tag names literally; names quoted in the query come first.
        names = req.tags or decision.params.get("quoted") or _tag_list(decision)
        scan = "" if "item_keys" in req.explicit() else req.query  # explicit keys are taken as they are
        add = decision.mode == "add"
        return _write(
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
        return _finish(tags.search_by_tags(library, expression, limit=size), decision)
    quoted = decision.params.get("quoted") or []
    return _finish(tags.list_tags(library, limit=size, contains=quoted[0] if quoted else None), decision)


def _tag_list(decision: Route) -> list[str] | None:
    names = decision.params.get("tags")
    return list(names) if names else None


def manage_notes(ctx: AppContext, req: NotesRequest, decision: Route) -> ToolResponse:
    from agent_zot.services.notes.annotations import resolve_scope
    from agent_zot.services.notes.meaning import MeaningSearch

    keys = decision.params.get("item_keys") or []
    key = req.item_key or (keys[0] if keys else None)
    if decision.mode in WRITE_MODES["zot_manage_notes"]:
        text = req.note or decision.params.get("note_text")
        return _write(ctx, decision, lambda w: w.create_note(ctx, key, text, req.query))
    library = ctx.library()
    size = clamp_limit(req.limit)
    quoted = decision.params.get("quoted") or []
    match = None if key else _named_paper(library, req, decision)
    if match is not None:
        key = match.item.key
        # Quoted words that named the paper are not words to look for in its notes.
        quoted = [q for q in quoted if fuzz.partial_ratio(q.casefold(), match.item.title.casefold()) < 90]
        if decision.mode == "search" and not quoted:
            decision = replace(decision, reason=f"{decision.reason}; names the paper [{key}]")
    elif quoted and decision.mode != "search":  # quoted words that name no paper: words to look for
        decision = replace(decision, mode="search", reason=f"{decision.reason}; quoted words → search")
    scope = resolve_scope(library, item=key, collection=req.collection, tags=req.tags, color=req.color)
    text = " ".join(quoted) or ("" if match is not None else decision.params.get("topic") or "")
    changed = notes.listing_mode(
        decision.mode, color=req.color, query=req.query, scoped=scope.narrowed, text=text
    )
    if changed is not None:
        decision = replace(decision, mode=changed[0], reason=f"{decision.reason}; {changed[1]}")
    if decision.mode == "search":
        meaning = MeaningSearch.of(ctx)
        response = notes.search_notes(library, text or req.query, limit=size, scope=scope, meaning=meaning)
    elif decision.mode == "list_annotations":
        response = notes.list_annotations(library, limit=size, scope=scope)
    else:
        response = notes.list_notes(library, limit=size, scope=scope)
    if scope.item is not None:
        response.data["resolved"] = resolved_record(match or PaperMatch(scope.item, "item key"))
        if match is not None and match.note():
            response.text = f"{response.text}\n{match.note()}"
    return _finish(response, decision)


def _named_paper(library: Library, req: NotesRequest, decision: Route) -> PaperMatch | None:
    """The paper a notes request names in its words ("my notes on Lo et al. 2020", "highlights in the
    S2ORC paper"), or None. With a collection, tags or a colour named too, only a "the X paper" phrase
    counts (their names are not title words). Quoted words that name no paper are words to look for."""
    params = decision.params
    scoped = any(params.get(k) for k in ("collection", "tags", "color")) or req.collection or req.tags
    text = str(params.get("paper") or "") if scoped else req.query
    if not text.strip():
        return None
    try:
        return resolve_named_paper(library, PaperRequest.of(text, params))
    except NotFoundError:
        if params.get("quoted") and not params.get("paper"):
            return None
        raise


def export_library(ctx: AppContext, req: ExportRequest, decision: Route) -> ToolResponse:
    """Export to a file. ``search`` scopes by metadata words; the query's own words are not used as a
    filter (they usually just describe the request), only the collection and keys found in it, and the
    one paper it names ("export Lo et al. 2020 to BibTeX")."""
    fmt = req.force_mode or decision.mode
    if fmt == "review":
        return _finish(_review(ctx, req), decision)
    if fmt == "matrix":
        from agent_zot.services.export.matrix import export_matrix  # the index stack loads on the first call

        return _finish(export_matrix(ctx, req, decision.params), decision)
    match = None
    if (
        not (req.item_keys or req.collection or req.search or req.tags)
        and format_for(req.path, fmt) != "graphml"
    ):
        match = _export_paper(ctx.library(), req.query, decision)
    keys = (match.item.key,) if match is not None else tuple(req.item_keys or ())
    scope = ExportScope(
        item_keys=keys, collection=req.collection, query=req.search or None, tags=tuple(req.tags or ())
    )
    graph = None
    if format_for(req.path, fmt) == "graphml":
        from agent_zot.graph.graphml import DEFAULT_MAX_NODES

        graph = GraphExport(
            ctx.graph().store, tuple(req.node_types or ()), req.max_nodes or DEFAULT_MAX_NODES
        )
    path = req.path
    if fmt == "annotations" and not path:  # "… as JSON" with no file name: a .json file
        path = annotations_file_name(scope, req.query)
    response = export(
        ctx.library(), ctx.settings, path=path, fmt=fmt, scope=scope, overwrite=req.overwrite, graph=graph
    )
    if match is not None:
        response.data["resolved"] = resolved_record(match)
    return _finish(response, decision)


# "export my papers on X", "everything tagged Y": a set of papers, not one named paper.
_MANY_PAPERS = re.compile(
    r"\b(?:papers|articles|items|references|entries|everything|all|library|collection|works|publications"
    r"|studies)\b",
    re.IGNORECASE,
)


def _export_paper(library: Library, query: str, decision: Route) -> PaperMatch | None:
    """The one paper an export request names ("export the S2ORC paper to BibTeX", "bibtex for Lo et al.
    2020"), or None when it asks for many (then the whole scope is exported, as before)."""
    if not query.strip() or _MANY_PAPERS.search(query):
        return None
    return resolve_named_paper(library, PaperRequest.of(query, decision.params))


def _review(ctx: AppContext, req: ExportRequest) -> ToolResponse:
    from agent_zot.services.search.run import NO_INDEX
    from agent_zot.services.summarize.audit.review import (
        build_review,  # the index stack loads on the first call
    )

    has_draft = bool(req.draft and req.draft.strip())
    if not has_draft and not any(v.claim and v.claim.strip() for v in req.verdicts or ()):
        raise InvalidArgumentError(
            "The review package needs the draft (or the claims) to review.",
            hint="Pass draft='<the draft text>' or draft='claim one\nclaim two' (or name each verdict's claim).",
        )
    if not ctx.index_ready():
        raise NotFoundError(NO_INDEX, hint="The review package gathers evidence from the indexed passages.")
    body, counts = build_review(ctx, req.draft if has_draft else None, verdicts=list(req.verdicts or ()))
    target = write_review(ctx.settings, req.path, body, overwrite=req.overwrite)
    questions = counts["with_open_questions"]
    text = (
        f"Wrote a review package of {plural(counts['packaged'], 'claim')} ({questions} with open questions, "
        f"{counts['failed_citations']} with failed citations) to {target}. {counts['judged_by']}"
    )
    failed = [c for c in counts.get("verdict_checks", []) if c["status"] != "verified"]
    if failed:
        text += "\nNot checked out (fix and export again with overwrite=true):"
        text += "".join(
            f"\n- verdict {c['n']} [{c['item_key']} p. {c['page']}]: {c['reason']}" for c in failed
        )
    return ToolResponse(
        text + "\nHand that file to a reviewer.",
        {"format": "review", "path": str(target), "files": [str(target)], **counts},
    )


def search(ctx: AppContext, req: SearchRequest, decision: Route) -> ToolResponse:
    from agent_zot.services.search.run import run_search  # the index stack loads on the first search

    filters = {
        "year_min": req.year_min,
        "year_max": req.year_max,
        "authors": req.authors,
        "collection": req.collection,
        "tags": req.tags,
        "item_type": req.item_type,
    }
    if decision.mode == "evidence":
        from agent_zot.services.search.evidence.run import run_evidence

        response = run_evidence(ctx, decision, req.query, limit=req.limit, detail=req.detail, **filters)
        return _finish(response, decision)
    response, ran = run_search(
        ctx, decision, req.query, limit=req.limit, escalate=not decision.forced, detail=req.detail, **filters
    )
    return _finish(response, ran)


def summarize(ctx: AppContext, req: SummarizeRequest, decision: Route) -> ToolResponse:
    from agent_zot.services.summarize.run import run_summarize  # the index stack loads on the first call

    if decision.mode == "audit":
        from agent_zot.services.summarize.audit.report import response
        from agent_zot.services.summarize.audit.run import audit_draft

        if not req.draft or not req.draft.strip():
            raise InvalidArgumentError(
                "The audit needs the draft's text.",
                hint="Pass draft='<the draft: Markdown, LaTeX or plain text>' (the CLI takes a file: "
                "agent-zot audit DRAFT).",
            )
        return _finish(response(audit_draft(ctx, req.draft)), decision)
    if decision.mode == "matrix":
        from agent_zot.services.summarize.matrix import run_matrix

        scope = {"questions", "collection", "tags", "item_keys", "search", "offset"}
        arguments = req.model_dump(include=scope)
        matrix = run_matrix(ctx, decision.params, req.query, max_tokens=req.max_tokens, **arguments)
        return _finish(matrix, decision)

    response = run_summarize(
        ctx,
        decision,
        req.query,
        item_key=req.item_key,
        pages=req.pages,
        offset=req.offset,
        max_tokens=req.max_tokens,
        figure=req.figure,
    )
    return _finish(response, decision)


def explore_graph(ctx: AppContext, req: ExploreRequest, decision: Route) -> ToolResponse:
    from agent_zot.services.explore.run import explore_graph as explore  # networkx loads on the first call

    arguments = req.model_dump(exclude={"force_mode"})
    return _finish(explore(ctx, decision, **arguments), decision)
