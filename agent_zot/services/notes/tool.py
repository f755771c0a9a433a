"""`zot_manage_notes`: list or search a paper's (or a scope's) notes and annotations, by words or by
meaning; create a note through Zotero's API when writes are enabled (writes/gate.py)."""

from __future__ import annotations

from dataclasses import replace

from agent_zot.services.catalog import WRITE_MODES, NotesRequest
from agent_zot.services.context import AppContext
from agent_zot.services.notes import read
from agent_zot.services.notes.meaning import MeaningSearch
from agent_zot.services.notes.note_scope import resolve_scope
from agent_zot.services.resolve.named import paper_with_notes, words_not_in_title
from agent_zot.services.resolve.papers import PaperMatch, resolved_record
from agent_zot.services.resolve.scope import without_note
from agent_zot.services.response import ToolResponse, clamp_limit, with_route
from agent_zot.services.routing import Route
from agent_zot.services.writes.gate import run_write

# Route parameters that narrow a notes request to a scope (their names are not title words).
_SCOPE_PARAMS = ("collection", "tags", "color")


def handle(ctx: AppContext, req: NotesRequest, decision: Route) -> ToolResponse:
    keys = decision.params.get("item_keys") or []
    key = req.item_key or (keys[0] if keys else None)
    if decision.mode in WRITE_MODES["zot_manage_notes"]:
        text = req.note or decision.params.get("note_text")
        return run_write(ctx, decision, lambda w: w.create_note(ctx, key, text, req.query))
    library = ctx.library()
    size = clamp_limit(req.limit)
    quoted = decision.params.get("quoted") or []
    match = None
    if not key:
        scoped = any(decision.params.get(k) for k in _SCOPE_PARAMS) or bool(req.collection or req.tags)
        match = paper_with_notes(library, req.query, decision.params, scoped=scoped)
    if match is not None:
        key = match.item.key
        quoted = words_not_in_title(quoted, match.item)  # words that named the paper are not looked for
        if decision.mode == "search" and not quoted:
            decision = replace(decision, reason=f"{decision.reason}; names the paper [{key}]")
    elif quoted and decision.mode != "search":  # quoted words that name no paper: words to look for
        decision = replace(decision, mode="search", reason=f"{decision.reason}; quoted words → search")
    scope = resolve_scope(library, item=key, collection=req.collection, tags=req.tags, color=req.color)
    text = " ".join(quoted) or ("" if match is not None else decision.params.get("topic") or "")
    changed = read.listing_mode(
        decision.mode, color=req.color, query=req.query, scoped=scope.narrowed, text=text
    )
    if changed is not None:
        decision = replace(decision, mode=changed[0], reason=f"{decision.reason}; {changed[1]}")
    if decision.mode == "search":
        meaning = MeaningSearch.of(ctx)
        response = read.search_notes(library, text or req.query, limit=size, scope=scope, meaning=meaning)
    elif decision.mode == "list_annotations":
        response = read.list_annotations(library, limit=size, scope=scope)
    else:
        response = read.list_notes(library, limit=size, scope=scope)
    if scope.item is not None:
        response.data["resolved"] = resolved_record(match or PaperMatch(scope.item, "item key"))
        if match is not None and match.note():
            response.text = f"{response.text}\n{match.note()}"
    if scope.left_out:
        response.text = f"{response.text}\n{without_note('Listed', scope.left_out)}"
    return with_route(response, decision)
