"""What `agent-zot route` shows besides the mode: the paper, author and citation direction a request names,
resolved against the library the way the tool itself will resolve them."""

from __future__ import annotations

from typing import Any

from agent_zot.errors import AgentZotError, AmbiguousNameError
from agent_zot.graph.store import GraphStore
from agent_zot.services.resolve.papers import PaperRequest, resolve_named_paper, resolve_papers
from agent_zot.services.resolve.works import WorkMatch, resolve_cited
from agent_zot.services.routing import Route
from agent_zot.zotero.models import Library

# Modes that start from one paper; the tools resolve it from the request's words.
_PAPER_MODES = {
    "zot_summarize": {"quick", "targeted", "comprehensive", "full"},
    "zot_explore_graph": {"citation", "related", "content_similarity", "comprehensive"},
}
# Tools whose requests may name one paper or none (a topic, a collection, the whole library).
_MAYBE_PAPER = {"zot_manage_notes", "zot_export"}


def preview(
    library: Library | None, decision: Route, query: str, store: GraphStore | None = None
) -> dict[str, Any]:
    """{"papers": [...], "direction": ..., "note": ...}: what the request names, or why it names nothing.
    With the knowledge graph's ``store``, a citation request resolves as the tool resolves it: to a work
    the library only cites ({"work": ...}) where the tool would answer about that work."""
    found: dict[str, Any] = {}
    if decision.tool == "zot_explore_graph" and decision.mode == "citation":
        found["direction"] = decision.params.get("direction") or "both"
    names_paper = decision.mode in _PAPER_MODES.get(decision.tool, ()) or decision.tool in _MAYBE_PAPER
    if not names_paper:
        return found
    if library is None:
        found["note"] = "no library found to resolve the paper against"
        return found
    request = PaperRequest.of(query, decision.params)
    try:
        if decision.tool in _MAYBE_PAPER:
            match = resolve_named_paper(library, request)
        elif store is not None and "direction" in found:
            cited = resolve_cited(library, store, request)
            if isinstance(cited, WorkMatch):
                found["papers"] = []
                found["work"] = cited.to_dict()
                return found
            match = cited
        else:
            match = resolve_papers(library, request)
    except AmbiguousNameError as err:
        found["papers"] = []
        found["candidates"] = err.candidates
        found["note"] = err.message
        return found
    except AgentZotError as err:
        found["papers"] = []
        found["note"] = err.message
        return found
    found["papers"] = [match.to_dict()] if match is not None else []
    if match is None:
        found["note"] = "names no single paper"
    return found
