"""`zot_search`: find papers in the library for a natural-language request.

The router gives the mode and the filters it found (authors, years, collection, tags); explicit arguments
win. With a topic, the hybrid index is searched with the filters pushed into the store; without one (a
pure "papers by X since 2019" request) the library's metadata answers, which also works with no index.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from agent_zot.errors import InvalidArgumentError, NotFoundError
from agent_zot.graph.store import GraphStore
from agent_zot.index.integrity import update_running
from agent_zot.index.rerank import make_reranker
from agent_zot.index.retrieval import Depth, PaperHit, search_papers
from agent_zot.index.sentences import asks_a_question
from agent_zot.index.titled import title_named
from agent_zot.services.answer_notes import note_library_pending
from agent_zot.services.context import AppContext
from agent_zot.services.paper_reading.roles import answer_kind
from agent_zot.services.query_text import NO_INDEX, checked_detail, checked_text, content_words
from agent_zot.services.resolve.library import identified_items
from agent_zot.services.resolve.scope import Filters, explicit_filters, resolve_filters, without_note
from agent_zot.services.response import ToolResponse, clamp_limit, item_line, plural, quoted
from agent_zot.services.routing import Route
from agent_zot.services.search import modes, present
from agent_zot.services.search.building import build_progress, metadata_answer
from agent_zot.zotero.models import Library

# Passages per paper by rank (the last count repeats): the first paper most often holds the answer, and a
# 10-paper answer of sentence windows stays near 2,000 tokens (scripts/bench_passages.py).
PASSAGES_BY_RANK = {"sentences": (8, 2, 1, 1), "full": (3, 1)}
# A question about a detail is answered by one paper, most often the first: it shows that paper in depth
# (the others keep a passage each, within the same 8,000 characters); a topic keeps its breadth. On the dev
# parts of both question sets this took the answer in the default answer from 0.68 to 0.77 and 0.94 to 0.96.
QUESTION_PASSAGES_BY_RANK = (14, 1)
# ...unless the next papers score close to the first: then which paper holds the answer is a close call,
# and the depth is shared between them (dev questions: the right paper was second or lower only when the
# next score was within 0.875 of the first).
# An answer that reads further (`present.reads_further`) shows this many passages of its first paper, and of
# the second: the first may be the wrong one (dev: 4 more answers held their answering sentence, none lost).
QUESTION_DEPTH = Depth(by_rank=QUESTION_PASSAGES_BY_RANK, shared=(8, 5, 5, 1), close=0.85, further=(20, 8))


def run_search(
    ctx: AppContext,
    decision: Route,
    query: str,
    *,
    limit: int | None,
    escalate: bool = True,
    detail: str | None = None,
    **explicit: Any,
) -> tuple[ToolResponse, Route]:
    """Run a routed search; ``explicit`` holds the caller's own filter arguments (they win). Returns the
    response and the route as it finally ran (escalation and expansion are recorded in it). A mode the
    caller forced is not escalated. ``detail``: "sentences" (default: the best sentences of each passage)
    or "full" (whole indexed chunks)."""
    text = checked_text(query, explicit)
    detail = checked_detail(detail)
    params = decision.params
    # A plain search does not wait for a first read of the library under way (a server's first
    # seconds): the index answers, naming the papers as it stores them. What needs the library waits.
    library = ctx.library_if_read() if _plain(decision, explicit) else ctx.library()
    if library is None and not _index_answers_alone(ctx):
        library = ctx.library()
    size = clamp_limit(limit, default=10)
    topic = str(params.get("topic") or "").strip()
    filters = Filters()
    if library is not None:
        if not topic and (params.get("item_keys") or params.get("doi")) and not any(explicit.values()):
            return _identified(library, params), decision
        filters = resolve_filters(library, params, explicit, strict_authors=not topic)
        if not topic and (filters.describe() or decision.mode == "metadata"):
            return _metadata_listing(library, filters, size), decision
    if not content_words(text):
        raise InvalidArgumentError(
            f"{quoted(text)} has no words to search for (only common words).",
            hint="Name the topic, method or paper you are looking for.",
        )
    if library is not None and not ctx.index_ready():
        progress = build_progress(ctx, library)
        if progress is None:
            raise NotFoundError(
                NO_INDEX, hint="Metadata searches (e.g. 'papers by Smith since 2019') still work."
            )
        candidates = [item for item in library.items.values() if filters.admits(item)]
        return metadata_answer(library, candidates, content_words(text), size, progress), decision
    # The router's topic drops the words that named filters ("by Smith", "since 2019"); with no filters
    # the whole request is the better query (the topic may also lose words like "citation"), and so is a
    # question's whole wording: the filter has narrowed the papers, and "What do ... buy you, according to the
    # 2013 paper ...?" read as its topic alone is no longer a question (no question's depth, no answer kind).
    wanted = (topic or text) if filters.describe() and not asks_a_question(text) else text
    search = _Search(ctx, library, filters, size, detail)
    papers, route = search.run(decision, wanted, topic)
    dropped = Filters()
    if not papers and library is not None:
        # Filters read from the words ("in the 1970s") are a guess: one that leaves nothing is dropped
        # (and said); the caller's explicit arguments always hold.
        kept = replace(explicit_filters(library, explicit), left_out=filters.left_out)
        dropped = filters.beyond(kept)
        if dropped.describe():
            filters = kept
            search = _Search(ctx, library, filters, size, detail)
            route = replace(route, reason=f"{route.reason}; nothing within {dropped.describe()} → dropped")
            papers, route = search.run(route, wanted, topic)
    quality = modes.assess(papers, limit=size, query_terms=len(content_words(wanted)))
    if escalate and quality.confidence < modes.MIN_CONFIDENCE and route.mode != "comprehensive":
        library = search.read_library()  # the escalated modes read it: a weak answer waits for it
        reason = f"{route.reason}; low confidence {quality.confidence:.2f} ({', '.join(quality.reasons)}) → comprehensive"
        route = replace(route, mode="comprehensive", escalated=True, reason=reason)
        papers, route = search.run(route, wanted, topic)
        quality = modes.assess(papers, limit=size, query_terms=len(content_words(wanted)))
    items = library.items if library is not None else present.indexed_items(papers)
    if filters.left_out:
        search.notes.append(without_note("Searched", filters.left_out))
    search.notes.extend(filters.unmatched)
    # The notes are part of the answer: its passages leave room for them within the budget.
    noted = sum(len(note) + 1 for note in search.notes)
    response = present.paper_response(
        items, papers, scope=filters.describe(), query=wanted, detail=detail, reserve=noted
    )
    if present.reads_further(wanted, response, papers):
        response = present.paper_response(
            items, papers, scope=filters.describe(), query=wanted, detail=detail, reserve=noted, further=True
        )
    response.data["quality"] = quality.to_dict()
    response.data.update(search.extras)
    if filters.left_out or filters.unmatched:
        response.data["unknown_filters"] = [*filters.left_out, *filters.unmatched]
    if search.notes:
        response.text += "\n" + "\n".join(search.notes)
    if dropped.describe():
        instead = f"within {filters.describe()}" if filters.describe() else "the whole library"
        response.text = f"[Note: nothing within {dropped.describe()} matched; searched {instead} instead.]\n{response.text}"
        response.data["dropped_filters"] = dropped.to_dict()
    if library is None:
        note_library_pending(response)
        return response, route
    progress = build_progress(ctx, library)
    if progress is not None:  # answered from the papers indexed so far
        response.text = f"[Note: {progress.note()} This answer comes from those.]\n{response.text}"
        response.data["building"] = progress.to_dict()
    return response, route


# What a request names that only the library resolves (authors, collections, tags, keys, DOIs; years are
# checked against it)
_LIBRARY_PARAMS = ("authors", "years", "collection", "tags", "item_keys", "doi")


def _plain(decision: Route, explicit: dict[str, Any]) -> bool:
    """A search of the full text alone: the default mode (the others read the library or the graph's
    view of it), nothing that the library resolves."""
    return (
        decision.mode == "fast"
        and not any(explicit.values())
        and not any(decision.params.get(name) for name in _LIBRARY_PARAMS)
    )


def _index_answers_alone(ctx: AppContext) -> bool:
    """Whether the index answers without the library: built, intact, and no first build under way (its
    answers count the library's papers; see `build_progress`)."""
    if not ctx.index_ready():
        return False
    resources = ctx.index_resources()
    return resources.state.get_meta("updated_at") is not None or not update_running(resources.folder)


class _Search:
    """One request's runs of the hybrid core and the mode-specific backends."""

    def __init__(
        self, ctx: AppContext, library: Library | None, filters: Filters, size: int, detail: str
    ) -> None:
        self.ctx, self.library, self.filters, self.size, self.detail = ctx, library, filters, size, detail
        self.extras: dict[str, Any] = {}
        self.notes: list[str] = []
        # An escalated request runs the same hybrid retrieval again before adding other backends: the
        # first pass is reused (copies, since later steps mark the hits they merge).
        self._core_runs: dict[tuple[str, int], list[PaperHit]] = {}

    def read_library(self) -> Library:
        """The library, waited for when this search began before it was read (`run_search`)."""
        if self.library is None:
            self.library = self.ctx.library()
        return self.library

    def core(self, text: str, limit: int | None = None) -> list[PaperHit]:
        key = (text, limit or self.size)
        if key not in self._core_runs:
            self._core_runs[key] = self._retrieve(text, key[1])
        return [replace(hit, found_by=set(hit.found_by)) for hit in self._core_runs[key]]

    def _retrieve(self, text: str, limit: int) -> list[PaperHit]:
        question = self.detail == "sentences" and asks_a_question(text)
        return search_papers(
            self.ctx.index(),
            text,
            limit=limit,
            search_filter=self.filters.store_filter(),
            fusion=self.ctx.settings.search_fusion,
            reranker=make_reranker(self.ctx.settings),
            rerank_candidates=self.ctx.settings.rerank_candidates,
            passages_per_paper=QUESTION_DEPTH if question else PASSAGES_BY_RANK[self.detail],
            detail=self.detail,
            hint=answer_kind(text) if question else None,
        )

    def run(self, route: Route, wanted: str, topic: str) -> tuple[list[PaperHit], Route]:
        # An escalated run replaces the first one's answer, and with it the notes and extras it made.
        self.extras, self.notes = {}, []
        if route.subqueries and self._titled(wanted):
            reason = f"{route.reason}; the words are a paper's title → searched whole"
            route = replace(route, compound=False, subqueries=(), reason=reason)
        if route.subqueries:
            papers, info = modes.merge_subqueries(
                topic, route.subqueries, lambda part: self.core(part, self.size * 3), limit=self.size
            )
            self.extras["compound"] = info
        else:
            route, wanted = self._expanded(route, wanted)
            papers = self.core(wanted)
        graph = self._graph()
        if route.mode == "entity" and graph is not None:
            self.extras["entities"] = modes.entities_of(graph, self.read_library(), papers)
            self.notes.append(_entities_text(self.extras["entities"]))
        if route.mode in ("graph", "comprehensive") and graph is not None:
            authors, neighbours = modes.graph_neighbours(graph, self.read_library(), papers, limit=self.size)
            self.extras["authors"] = authors
            if authors:
                self.notes.append(
                    "Who works on this: " + ", ".join(f"{a['name']} ({a['papers']})" for a in authors[:8])
                )
            papers = modes.merge_backends(papers, neighbours, limit=self.size + len(neighbours))
        if route.mode in ("metadata", "comprehensive"):
            found = modes.metadata_matches(self.read_library(), topic or wanted, limit=self.size)
            papers = modes.merge_backends(papers, [p for p in found if self._admits(p)], limit=self.size * 2)
        return papers, route

    def _titled(self, text: str) -> bool:
        """Whether ``text``, read as several parts, is one paper's title ("X and Y: Z"): then it is searched
        whole, and that paper comes first."""
        index = self.ctx.index()
        return (
            title_named(index, text, self.filters.store_filter(), self.ctx.settings.search_fusion) is not None
        )

    def _expanded(self, route: Route, wanted: str) -> tuple[Route, str]:
        """Short, vague queries (one or two content words) get terms mined from this library."""
        graph = self._graph()
        if graph is None or len(content_words(wanted)) > 2:
            return route, wanted
        terms = modes.expansion_terms(graph, wanted)
        if not terms:
            return route, wanted
        params = {**route.params, "expanded_terms": terms}
        reason = f"{route.reason}; expanded with {', '.join(terms)} (co-occurring concepts in this library)"
        return replace(route, params=params, reason=reason), f"{wanted} {' '.join(terms)}"

    def _graph(self) -> GraphStore | None:
        graph = self.ctx.graph()
        return None if graph.is_empty() else graph.store

    def _admits(self, paper: PaperHit) -> bool:
        item = self.read_library().items.get(paper.item_key)
        return item is not None and self.filters.admits(item)


def _entities_text(entities: dict[str, list[dict[str, Any]]]) -> str:
    if not entities:
        return "No methods, datasets or concepts recorded for these papers yet (the graph is built by update-db)."
    lines = ["In these papers:"]
    for kind in ("Method", "Dataset", "Theory", "Concept"):
        if entities.get(kind):
            shown = ", ".join(f"{e['name']} ({len(e['papers'])})" for e in entities[kind][:8])
            lines.append(f"  {kind}s: {shown}")
    return "\n".join(lines)


def _identified(library: Library, params: dict[str, Any]) -> ToolResponse:
    """A query that is only an item key or a DOI: that item, or why not."""
    items = identified_items(library, list(params.get("item_keys") or []), params.get("doi") or None)
    lines = [item_line(i) for i in items]
    data = {
        "total": len(items),
        "papers": [present.listed(i) for i in items],
    }
    return ToolResponse("\n".join(lines), data)


def _metadata_listing(library: Library, filters: Filters, limit: int) -> ToolResponse:
    items = sorted(
        (i for i in library.items.values() if filters.admits(i)),
        key=lambda i: (-(i.year or 0), i.title.casefold()),
    )
    what = filters.describe() or "the whole library"
    lines = [f"{plural(len(items), 'paper')} match {what} (metadata search):"]
    lines += [f"{n}. {item_line(i)}" for n, i in enumerate(items[:limit], 1)]
    data: dict[str, Any] = {
        "total": len(items),
        "papers": [present.listed(i) for i in items[:limit]],
    }
    if filters.left_out:
        lines.append(without_note("Searched", filters.left_out))
    lines.extend(filters.unmatched)
    if filters.left_out or filters.unmatched:
        data["unknown_filters"] = [*filters.left_out, *filters.unmatched]
    return ToolResponse("\n".join(lines), data)
