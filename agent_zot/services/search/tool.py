"""`zot_search`: run the mode the route chose (passages, papers, metadata, comprehensive, or the claim check
of `evidence`, services/evidence/) with the request's filters. The index stack loads on the first search,
not at startup."""

from __future__ import annotations

from dataclasses import replace

from agent_zot.services.catalog import SearchRequest
from agent_zot.services.context import AppContext
from agent_zot.services.response import ToolResponse, with_route
from agent_zot.services.routing import Route


def preload() -> None:
    """Import what a first search imports on its way (the server's warm-up calls this, so that the first
    answer does not pay for it)."""
    from agent_zot.services.evidence import claim_check  # noqa: F401
    from agent_zot.services.search import answer  # noqa: F401


def handle(ctx: AppContext, req: SearchRequest, decision: Route) -> ToolResponse:
    filters = {
        "year_min": req.year_min,
        "year_max": req.year_max,
        "authors": req.authors,
        "collection": req.collection,
        "tags": req.tags,
        "item_type": req.item_type,
    }
    if decision.mode == "evidence" and not decision.forced and _is_a_title(ctx, req.query):
        # Titles often read as claims ("Density, not radius, separates rocky and water-rich small planets"):
        # whoever types one wants the paper
        decision = replace(
            decision, mode="fast", reason=f"{decision.reason}; the words are a paper's title → search"
        )
    if decision.mode == "evidence":
        from agent_zot.services.evidence.claim_check import run_evidence

        response = run_evidence(ctx, decision, req.query, limit=req.limit, detail=req.detail, **filters)
        return with_route(response, decision)
    from agent_zot.services.search.answer import run_search

    response, ran = run_search(
        ctx, decision, req.query, limit=req.limit, escalate=not decision.forced, detail=req.detail, **filters
    )
    return with_route(response, ran)


def _is_a_title(ctx: AppContext, query: str) -> bool:
    """Whether the query is a paper's title, nothing more (index/titled.py); not before an index is built."""
    if not ctx.index_ready():
        return False
    from agent_zot.index.titled import title_named

    return title_named(ctx.index(), query, None, ctx.settings.search_fusion, alone=True) is not None
