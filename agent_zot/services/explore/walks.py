"""`zot_explore_graph`: nine ways to walk the library's knowledge graph, written once over the GraphStore
primitives (lookups, edges of a node set, k-hop neighbourhoods); ranking runs in networkx on what the store
returns. Each mode explains its results (paths, shared elements, counts)."""

from __future__ import annotations

import re
from typing import Any

from agent_zot.errors import AgentZotError, AmbiguousNameError, InvalidArgumentError, NotFoundError
from agent_zot.graph.model import NodeKind
from agent_zot.graph.store import Direction, GraphStore, GraphStoreError
from agent_zot.index.owner import check_library
from agent_zot.services.context import AppContext
from agent_zot.services.explore import citations, graph_view, neighbours
from agent_zot.services.explore.cited_work import cited_work
from agent_zot.services.explore.reading_gap import reading_gap
from agent_zot.services.resolve.graph import (
    Field,
    collection_papers,
    find_concept,
    resolve_author,
    resolve_author_in,
    resolve_field,
)
from agent_zot.services.resolve.library import resolve_collection
from agent_zot.services.resolve.papers import PaperMatch, PaperRequest, resolve_papers, resolved_record
from agent_zot.services.resolve.works import WorkMatch, resolve_cited
from agent_zot.services.response import ToolResponse, clamp_limit
from agent_zot.services.routing import Route
from agent_zot.services.routing.examples import asks_for_gap
from agent_zot.text import STOPWORDS
from agent_zot.zotero.models import Library

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
        # what is drawn, not what it is about ("map the citation network of my entire library")
        "map",
        "draw",
        "visualize",
        "visualise",
    ]
)


def explore_graph(ctx: AppContext, decision: Route, **explicit: Any) -> ToolResponse:
    store, fallback = _store(ctx)
    if not store.has_papers():
        raise NotFoundError(EMPTY_GRAPH)
    try:
        response = _run(ctx, store, decision, explicit)
    except (NotFoundError, AmbiguousNameError, InvalidArgumentError) as err:
        if _about_whole_library(decision, explicit):
            response = _library_instead(ctx, store, decision, explicit)
        elif isinstance(err, InvalidArgumentError):
            raise
        else:
            response = _gap_instead(ctx, store, decision, explicit, err)
    if fallback:
        response.text = f"({fallback})\n{response.text}"
        response.data["graph_store_fallback"] = fallback
    return response


# Modes that start from one paper: when the request names none, it may be the reading gap in other words.
_ONE_PAPER_MODES = ("citation", "related", "content_similarity")


def _named(decision: Route, explicit: dict[str, Any]) -> bool:
    return bool(
        explicit.get("item_key") or any(decision.params.get(k) for k in ("item_keys", "doi", "arxiv_id"))
    )


def _about_whole_library(decision: Route, explicit: dict[str, Any]) -> bool:
    """A one-paper mode asked about the whole library ("the whole citation graph of my library") that
    named no paper: answered for the library, not refused for want of a paper."""
    return (
        decision.mode in _ONE_PAPER_MODES
        and bool(decision.params.get("whole_library"))
        and not _named(decision, explicit)
    )


def _library_instead(
    ctx: AppContext, store: GraphStore, decision: Route, explicit: dict[str, Any]
) -> ToolResponse:
    library = ctx.library()
    params = decision.params
    limit = clamp_limit(explicit.get("limit") or params.get("limit"), default=15)
    topic = _topic(explicit, params)
    response = comprehensive(ctx, store, library, explicit, params, topic, limit)
    response.text = f"(No paper is named; read as your whole library.)\n{response.text}"
    response.data["read_as"] = "whole library"
    return response


def _gap_instead(
    ctx: AppContext, store: GraphStore, decision: Route, explicit: dict[str, Any], err: AgentZotError
) -> ToolResponse:
    """The reading gap for a request that named no paper the library holds but reads like the labelled
    reading-gap requests ("what am I missing that keeps showing up in my references?"); else ``err``."""
    query = str(explicit.get("query") or "")
    if decision.mode not in _ONE_PAPER_MODES or _named(decision, explicit) or not asks_for_gap(query):
        raise err
    library = ctx.library()
    scope = _gap_scope(
        store, library, decision.params, field_text(str(decision.params.get("topic") or "")), query
    )
    limit = clamp_limit(explicit.get("limit") or decision.params.get("limit"), default=15)
    response = reading_gap(store, scope, limit=limit)
    response.text = f"(No paper of your library is named; read as the works your papers cite that it lacks.)\n{response.text}"
    response.data["read_as"] = "reading gap"
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
        store.has_papers()
    except GraphStoreError as err:
        return graph.local, f"Neo4j unavailable, answered from the embedded graph: {err}"
    return store, None


def _run(ctx: AppContext, store: GraphStore, decision: Route, explicit: dict[str, Any]) -> ToolResponse:
    library = ctx.library()
    params = decision.params
    limit = clamp_limit(explicit.get("limit") or params.get("limit"), default=15)
    topic = _topic(explicit, params)
    years = params.get("years") or {}
    start = explicit.get("year_min") or years.get("start")
    end = explicit.get("year_max") or years.get("end")
    mode = decision.mode
    if start is not None and end is not None and start > end:
        raise InvalidArgumentError(
            f"The year range {start}–{end} runs backwards.", hint=f"Did you mean {end}–{start}?"
        )

    def paper() -> PaperMatch:
        return resolve_papers(library, _paper_request(explicit, params))

    if mode == "citation":
        direction = Direction(explicit.get("direction") or params.get("direction") or "both")
        found = resolve_cited(library, store, _paper_request(explicit, params))
        if isinstance(found, WorkMatch):
            return cited_work(ctx, found, direction=direction.value, limit=limit)
        match = found
        hops = explicit.get("hops") or 1
        response = citations.citation_chains(
            store, match.item, direction=direction, hops=hops, limit=limit, copies=match.duplicates
        )
        response.view = graph_view.around_paper(ctx, match.item, hops)
        return _with_paper(response, match, direction=direction.value)
    if mode == "influence":
        if asks_for_gap(str(explicit.get("query") or "")):
            scope = _gap_scope(store, library, params, topic, str(explicit.get("query") or ""))
            return reading_gap(store, scope, limit=limit)
        return citations.influence(store, resolve_field(store, library, topic), limit=limit)
    if mode == "venue":
        return citations.venues(store, resolve_field(store, library, topic), limit=limit)
    if mode == "content_similarity":
        match = paper()
        response = neighbours.content_similarity(ctx.index(), library, match.item, limit=limit)
        response.view = graph_view.around_paper(ctx, match.item)
        return _with_paper(response, match)
    if mode == "related":
        match = paper()
        response = neighbours.related(store, match.item, limit=limit)
        response.view = graph_view.around_paper(ctx, match.item)
        return _with_paper(response, match)
    if mode == "collaboration":
        author = _author(store, explicit, params, topic)
        response = neighbours.collaboration(store, author, hops=explicit.get("hops") or 1, limit=limit)
        response.data["resolved"] = resolved_record(author=author.name)
        response.view = graph_view.around_author(ctx, author)
        return response
    if mode == "concept":
        concept = _concept(store, topic)
        response = neighbours.concept_cooccurrence(store, concept, limit=limit)
        response.view = graph_view.around_concept(ctx, concept)
        return response
    if mode == "temporal":
        field = resolve_field(store, library, topic)
        if field is None:
            raise NotFoundError("Which topic? Name a concept, tag or collection, e.g. 'language models'.")
        return neighbours.temporal(store, field, start=start, end=end, limit=limit)
    return comprehensive(ctx, store, library, explicit, params, topic, limit)


def _gap_scope(
    store: GraphStore, library: Library, params: dict[str, Any], topic: str, query: str
) -> Field | None:
    """The papers whose references a reading gap counts: the named collection (or the one whose whole name
    the request writes), else a concept, tag or collection the topic names exactly, else the whole library (the words left of "what do my papers
    keep citing that aren't in my library" name no field)."""
    named = params.get("collection") or _collection_named_in(library, query)
    if named:
        collection = resolve_collection(library, str(named))
        return Field(f"collection '{collection.path}'", collection_papers(store, library, collection))
    field = resolve_field(store, library, topic) if topic else None
    return field if field is not None and not field.description.startswith("papers matching") else None


def _collection_named_in(library: Library, text: str) -> str | None:
    """The key of the one collection whose whole name the request writes ("my PPG Signal papers"), if any."""
    said = _spaced_words(text)
    named = [
        c.key for c in library.collections.values() if len(c.name) >= 3 and _spaced_words(c.name) in said
    ]
    return named[0] if len(named) == 1 else None


def _spaced_words(text: str) -> str:
    return " " + " ".join(re.findall(r"[\w-]+", text.casefold())) + " "


def _paper_request(explicit: dict[str, Any], params: dict[str, Any]) -> PaperRequest:
    return PaperRequest.of(str(explicit.get("query") or ""), params, explicit.get("item_key"))


def _with_paper(response: ToolResponse, match: PaperMatch, *, direction: str | None = None) -> ToolResponse:
    """The answer with the paper it is about (and its direction) recorded, and a duplicate noted."""
    note = match.note()
    if note:
        response.text = f"{response.text}\n{note}"
    response.data["resolved"] = resolved_record(match, direction=direction)
    return response


def _topic(explicit: dict[str, Any], params: dict[str, Any]) -> str:
    """The concept argument as given ("research corpus" keeps "research"), else the query's topic with
    its mode words removed."""
    return str(explicit.get("concept") or "").strip() or field_text(str(params.get("topic") or ""))


def field_text(topic: str) -> str:
    """The topic with mode words and glue removed ("top venues for language models" → "language models")."""
    words = re.findall(r"[\w'’-]+", topic)
    kept = [w for w in words if w.casefold() not in _MODE_WORDS]
    return " ".join(kept)


def _author(store: GraphStore, explicit: dict[str, Any], params: dict[str, Any], topic: str) -> Any:
    """The author argument, else the first name the router found, else a name anywhere in the request."""
    authors = params.get("authors") or []
    named = explicit.get("author") or (authors[0] if authors else None)
    if named:
        return resolve_author(store, str(named))
    return resolve_author_in(store, str(explicit.get("query") or topic))


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
    try:
        match: PaperMatch | None = resolve_papers(library, _paper_request(explicit, params))
    except AgentZotError:
        match = None
    direction = Direction(explicit.get("direction") or params.get("direction") or "both")
    view: graph_view.ViewMaker | None = None
    if match is not None:
        item = match.item
        view = graph_view.around_paper(ctx, item)
        sections.append(
            (
                "citation",
                citations.citation_chains(
                    store, item, direction=direction, hops=1, limit=small, copies=match.duplicates
                ),
            )
        )
        sections.append(("related", neighbours.related(store, item, limit=small)))
        if ctx.index().exists():
            sections.append(
                ("content_similarity", neighbours.content_similarity(ctx.index(), library, item, limit=small))
            )
    elif explicit.get("author") or params.get("authors"):
        author = _author(store, explicit, params, topic)
        sections.append(("collaboration", neighbours.collaboration(store, author, hops=1, limit=small)))
        view = graph_view.around_author(ctx, author)
    else:
        field = resolve_field(store, library, topic)
        sections.append(("influence", citations.influence(store, field, limit=small)))
        concept = find_concept(store, topic) if topic else None
        if concept is not None:
            sections.append(("concept", neighbours.concept_cooccurrence(store, concept, limit=small)))
        sections.append(("venue", citations.venues(store, field, limit=small)))
    text = "\n\n".join(f"## {name}\n{response.text}" for name, response in sections)
    response = ToolResponse(
        text, {"strategies": [name for name, _ in sections], **{n: r.data for n, r in sections}}, view=view
    )
    return _with_paper(response, match, direction=direction.value) if match is not None else response
