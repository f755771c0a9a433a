"""`zot_explore_graph`: nine ways to walk the library's knowledge graph, written once over the GraphStore
primitives (lookups, edges of a node set, k-hop neighbourhoods); ranking runs in networkx on what the store
returns. Each mode explains its results (paths, shared elements, counts)."""

from __future__ import annotations

import re
from typing import Any

from agent_zot.errors import AgentZotError, InvalidArgumentError, NotFoundError
from agent_zot.graph.model import NodeKind
from agent_zot.graph.store import Direction, GraphStore, GraphStoreError
from agent_zot.services.context import AppContext
from agent_zot.services.explore import citations, neighbours
from agent_zot.services.indexing import check_library
from agent_zot.services.resolve.graph import find_concept, resolve_author, resolve_field
from agent_zot.services.resolve.library import resolve_paper
from agent_zot.services.response import ToolResponse, clamp_limit
from agent_zot.services.routing import Route
from agent_zot.text import STOPWORDS
from agent_zot.zotero.models import Item, Library

EMPTY_GRAPH = (
    "The knowledge graph is empty. It is built by `agent-zot update-db` (citations come from the PDFs' "
    "reference lists, so index the full text)."
)
# Words that name the request rather than its field ("top venues for X", "what does my library cite most"),
# on top of the English function words.
_MODE_WORDS = STOPWORDS | frozenset(
    [
        "since",
        "research",
        "researchers",
        "work",
        "works",
        "paper",
        "papers",
        "study",
        "studies",
        "top",
        "best",
        "leading",
        "main",
        "influential",
        "important",
        "venues",
        "venue",
        "journals",
        "journal",
        "conferences",
        "conference",
        "changed",
        "change",
        "evolved",
        "evolve",
        "trend",
        "trends",
        "time",
        "related",
        "connected",
        "everything",
        "show",
        "find",
        "library",
        "cite",
        "cites",
        "cited",
        "citing",
        "missing",
        "don't",
        "dont",
        "not",
        "publish",
        "publishes",
        "published",
        "lack",
        "lacking",
    ]
)


def explore_graph(ctx: AppContext, decision: Route, **explicit: Any) -> ToolResponse:
    store, fallback = _store(ctx)
    if not store.counts().get(NodeKind.PAPER.value):
        raise NotFoundError(EMPTY_GRAPH)
    response = _run(ctx, store, decision, explicit)
    if fallback:
        response.text = f"({fallback})\n{response.text}"
        response.data["graph_store_fallback"] = fallback
    return response


def _store(ctx: AppContext) -> tuple[GraphStore, str | None]:
    """The configured store; when a Neo4j server is configured but fails, the embedded graph (which
    update-db keeps current either way) answers, and the response says so. A graph built from another
    library is refused, as its index is."""
    if ctx.index_resources().exists():
        check_library(ctx.index_resources().state, ctx.library())
    graph = ctx.graph()
    store = graph.store
    if store is graph.local:
        return store, None
    try:
        store.counts()
    except GraphStoreError as err:
        return graph.local, f"Neo4j unavailable, answered from the embedded graph: {err}"
    return store, None


def _run(ctx: AppContext, store: GraphStore, decision: Route, explicit: dict[str, Any]) -> ToolResponse:
    library = ctx.library()
    params = decision.params
    limit = clamp_limit(explicit.get("limit") or params.get("limit"), default=15)
    topic = field_text(str(explicit.get("concept") or params.get("topic") or ""))
    years = params.get("years") or {}
    start = explicit.get("year_min") or years.get("start")
    end = explicit.get("year_max") or years.get("end")
    mode = decision.mode
    if start is not None and end is not None and start > end:
        raise InvalidArgumentError(
            f"The year range {start}–{end} runs backwards.", hint=f"Did you mean {end}–{start}?"
        )

    def paper() -> Item:
        keys = params.get("item_keys") or []
        return resolve_paper(library, explicit.get("item_key") or (keys[0] if keys else None), topic)

    if mode == "citation":
        direction = Direction(explicit.get("direction") or citation_direction(explicit.get("query") or ""))
        return citations.citation_chains(
            store, paper(), direction=direction, hops=explicit.get("hops") or 1, limit=limit
        )
    if mode == "influence":
        return citations.influence(store, resolve_field(store, library, topic), limit=limit)
    if mode == "venue":
        return citations.venues(store, resolve_field(store, library, topic), limit=limit)
    if mode == "content_similarity":
        return neighbours.content_similarity(ctx.index(), library, paper(), limit=limit)
    if mode == "related":
        return neighbours.related(store, paper(), limit=limit)
    if mode == "collaboration":
        author = resolve_author(store, _author_name(explicit, params, topic))
        return neighbours.collaboration(store, author, hops=explicit.get("hops") or 1, limit=limit)
    if mode == "concept":
        return neighbours.concept_cooccurrence(store, _concept(store, topic), limit=limit)
    if mode == "temporal":
        field = resolve_field(store, library, topic)
        if field is None:
            raise NotFoundError("Which topic? Name a concept, tag or collection, e.g. 'language models'.")
        return neighbours.temporal(store, field, start=start, end=end, limit=limit)
    return comprehensive(ctx, store, library, explicit, params, topic, limit)


_CITED_BY = re.compile(
    r"\b(?:who|(?:which|what)\s+(?:papers?|works?|articles?)|papers?|works?|articles?)\s+(?:\w+\s+){0,3}?(?:cites?|citing)\b"
    r"|\bcited by\b|\bciting\b"
)
_CITES = re.compile(
    r"\b(?:does|did|do)\b[^.?!]{0,60}\bcite\b|\breferences? (?:of|in|from)\b|\bcited (?:in|by it)\b"
    r"|\bbibliography\b|\bbuil[dt]s? (?:on|upon)\b|\bwhat\b[^.?!]{0,60}\bcites\b"
)


def citation_direction(query: str) -> str:
    """in: papers citing it ("who cites X"); out: what it cites ("what does X cite"); else both."""
    cited_by, cites = bool(_CITED_BY.search(query)), bool(_CITES.search(query))
    if cited_by != cites:
        return "in" if cited_by else "out"
    return "both"


def field_text(topic: str) -> str:
    """The topic with mode words and glue removed ("top venues for language models" → "language models")."""
    words = re.findall(r"[\w'’-]+", topic)
    kept = [w for w in words if w.casefold() not in _MODE_WORDS]
    return " ".join(kept)


def _author_name(explicit: dict[str, Any], params: dict[str, Any], topic: str) -> str:
    authors = params.get("authors") or []
    return str(explicit.get("author") or (authors[0] if authors else topic))


def _concept(store: GraphStore, topic: str) -> Any:
    concept = find_concept(store, topic) if topic else None
    if concept is None:
        close = (
            [n.name for n in store.find_nodes(NodeKind.CONCEPT, name=topic.split()[-1], limit=5)]
            if topic
            else []
        )
        raise NotFoundError(
            f"No concept {topic!r} in the graph.",
            hint=("Close concepts: " + ", ".join(close) + ".")
            if close
            else "Name a concept that papers mention.",
        )
    return concept


def comprehensive(
    ctx: AppContext,
    store: GraphStore,
    library: Library,
    explicit: dict[str, Any],
    params: dict[str, Any],
    topic: str,
    limit: int,
) -> ToolResponse:
    """Several strategies merged: for a paper its citations, related and similar papers; for an author the
    collaboration network; for a field its influential papers, concepts and venues."""
    small = max(3, limit // 3)
    sections: list[tuple[str, ToolResponse]] = []
    keys = params.get("item_keys") or []
    try:
        item = resolve_paper(library, explicit.get("item_key") or (keys[0] if keys else None), topic)
    except AgentZotError:
        item = None
    if item is not None:
        sections.append(
            (
                "citation",
                citations.citation_chains(store, item, direction=Direction.BOTH, hops=1, limit=small),
            )
        )
        sections.append(("related", neighbours.related(store, item, limit=small)))
        if ctx.index().exists():
            sections.append(
                ("content_similarity", neighbours.content_similarity(ctx.index(), library, item, limit=small))
            )
    elif explicit.get("author") or params.get("authors"):
        author = resolve_author(store, _author_name(explicit, params, topic))
        sections.append(("collaboration", neighbours.collaboration(store, author, hops=1, limit=small)))
    else:
        field = resolve_field(store, library, topic)
        sections.append(("influence", citations.influence(store, field, limit=small)))
        concept = find_concept(store, topic) if topic else None
        if concept is not None:
            sections.append(("concept", neighbours.concept_cooccurrence(store, concept, limit=small)))
        sections.append(("venue", citations.venues(store, field, limit=small)))
    text = "\n\n".join(f"## {name}\n{response.text}" for name, response in sections)
    return ToolResponse(
        text, {"strategies": [name for name, _ in sections], **{n: r.data for n, r in sections}}
    )
