"""`zot_search`: find papers in the library for a natural-language request.

The router gives the mode and the filters it found (authors, years, collection, tags); explicit arguments
win. With a topic, the hybrid index is searched with the filters pushed into the store; without one (a
pure "papers by X since 2019" request) the library's metadata answers, which also works with no index.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rapidfuzz import process

from agent_zot.errors import InvalidArgumentError, NotFoundError
from agent_zot.index.store import SearchFilter
from agent_zot.services.context import AppContext
from agent_zot.services.lookup import resolve_collection
from agent_zot.services.response import ToolResponse, clamp_limit, item_line, plural
from agent_zot.services.retrieval import PaperHit, search_papers
from agent_zot.services.routing import Route
from agent_zot.zotero.models import Collection, Item, Library

MAX_QUERY_CHARS = 2000
SNIPPET_CHARS = 320
NO_INDEX = (
    "The full-text index is empty, so only metadata searches work. "
    "Build it with `agent-zot update-db` (a few minutes for a typical library; later runs are incremental)."
)


@dataclass(frozen=True, slots=True)
class Filters:
    """What the request restricts the search to, resolved against the library."""

    authors: tuple[str, ...] = ()  # creator last names as stored in Zotero
    year_min: int | None = None
    year_max: int | None = None
    collection: Collection | None = None
    collection_keys: tuple[str, ...] = ()  # the collection and its sub-collections
    tags: tuple[str, ...] = ()
    item_types: tuple[str, ...] = ()

    def store_filter(self) -> SearchFilter:
        return SearchFilter(
            year_min=self.year_min,
            year_max=self.year_max,
            item_types=self.item_types,
            collections=self.collection_keys,
            tags=self.tags,
            creators=self.authors,
        )

    def admits(self, item: Item) -> bool:
        year = item.year
        return (
            (not self.authors or any(c.last_name in self.authors for c in item.creators))
            and (self.year_min is None or (year is not None and year >= self.year_min))
            and (self.year_max is None or (year is not None and year <= self.year_max))
            and (not self.collection_keys or bool(set(item.collection_keys) & set(self.collection_keys)))
            and (not self.tags or bool(set(item.tag_names()) & set(self.tags)))
            and (not self.item_types or item.item_type in self.item_types)
        )

    def describe(self) -> str:
        parts = []
        if self.authors:
            parts.append("authors " + ", ".join(self.authors))
        if self.year_min is not None or self.year_max is not None:
            parts.append(f"years {self.year_min or '…'}–{self.year_max or '…'}")
        if self.collection is not None:
            parts.append(f"collection {self.collection.path or self.collection.name}")
        if self.tags:
            parts.append("tags " + ", ".join(self.tags))
        if self.item_types:
            parts.append("type " + ", ".join(self.item_types))
        return "; ".join(parts)


def run_search(
    ctx: AppContext, decision: Route, query: str, *, limit: int | None, **explicit: Any
) -> ToolResponse:
    """Run a routed search; ``explicit`` holds the caller's own filter arguments (they win)."""
    text = " ".join(query.split())
    if not text and not any(explicit.values()):
        raise InvalidArgumentError(
            "The search query is empty.",
            hint="Say what to look for, e.g. query='contrastive learning for citation recommendation'.",
        )
    if len(text) > MAX_QUERY_CHARS:
        raise InvalidArgumentError(
            f"The query is {len(text):,} characters long; the limit is {MAX_QUERY_CHARS:,}.",
            hint="Shorten it to the question itself, or pass key phrases.",
        )
    library = ctx.library()
    filters = resolve_filters(library, decision.params, explicit)
    size = clamp_limit(limit, default=10)
    topic = str(decision.params.get("topic") or "").strip()
    if not topic and (filters.describe() or decision.mode == "metadata"):
        return _metadata_listing(library, filters, size)
    if not _index_ready(ctx):
        raise NotFoundError(
            NO_INDEX, hint="Metadata searches (e.g. 'papers by Smith since 2019') still work."
        )
    # The router's topic drops the words that named filters ("by Smith", "since 2019"); with no filters
    # the whole request is the better query (the topic may also lose words like "citation").
    wanted = (topic or text) if filters.describe() else text
    papers = search_papers(ctx.index(), wanted, limit=size, search_filter=filters.store_filter())
    return _paper_response(library, papers, filters, wanted)


def resolve_filters(library: Library, params: dict[str, Any], explicit: dict[str, Any]) -> Filters:
    years = params.get("years") or {}
    year_min = explicit.get("year_min") or years.get("start")
    year_max = explicit.get("year_max") or years.get("end")
    if year_min is not None and year_max is not None and year_min > year_max:
        raise InvalidArgumentError(f"The year range {year_min}–{year_max} is empty (start after end).")
    names = explicit.get("authors") or params.get("authors") or ()
    collection_name = explicit.get("collection") or params.get("collection")
    collection = resolve_collection(library, collection_name) if collection_name else None
    return Filters(
        authors=tuple(s for name in names for s in author_surnames(library, name)),
        year_min=year_min,
        year_max=year_max,
        collection=collection,
        collection_keys=tuple(_below(library, collection)) if collection else (),
        tags=tuple(explicit.get("tags") or params.get("tags") or ()),
        item_types=tuple(filter(None, [explicit.get("item_type")])),
    )


def author_surnames(library: Library, name: str) -> list[str]:
    """The stored last names a typed author name stands for ("van der Berg", "J. Smith", "Smith")."""
    wanted = " ".join(name.replace(",", " ").split()).casefold()
    surnames = {c.last_name for item in library.items.values() for c in item.creators if c.last_name}
    found = [s for s in surnames if wanted == s.casefold() or wanted.endswith(" " + s.casefold())]
    if found:
        return sorted(found)
    close = [m for m, score, _ in process.extract(name, sorted(surnames), limit=5) if score >= 70]
    raise NotFoundError(
        f"No author named {name!r} in your library.",
        hint=("Did you mean: " + ", ".join(close) + "?")
        if close
        else "Check the spelling, or search by topic.",
    )


def _below(library: Library, collection: Collection) -> list[str]:
    keys, stack = [], [collection.key]
    while stack:
        key = stack.pop()
        keys.append(key)
        stack.extend(library.collections[key].child_keys if key in library.collections else [])
    return keys


def _index_ready(ctx: AppContext) -> bool:
    resources = ctx.index()
    return resources.exists() and resources.state.counts().items_indexed > 0


def _metadata_listing(library: Library, filters: Filters, limit: int) -> ToolResponse:
    items = sorted(
        (i for i in library.items.values() if filters.admits(i)),
        key=lambda i: (-(i.year or 0), i.title.casefold()),
    )
    what = filters.describe() or "the whole library"
    lines = [f"{plural(len(items), 'paper')} match {what} (metadata search):"]
    lines += [f"{n}. {item_line(i)}" for n, i in enumerate(items[:limit], 1)]
    data = {
        "total": len(items),
        "papers": [i.to_summary() | {"found_by": ["metadata"], "passages": []} for i in items[:limit]],
    }
    return ToolResponse("\n".join(lines), data)


def _paper_response(library: Library, papers: list[PaperHit], filters: Filters, query: str) -> ToolResponse:
    scope = f" within {filters.describe()}" if filters.describe() else ""
    if not papers:
        return ToolResponse(f"No papers found for {query!r}{scope}.", {"total": 0, "papers": []})
    lines = [f"{plural(len(papers), 'paper')} for {query!r}{scope}:"]
    rows = []
    for n, paper in enumerate(papers, 1):
        item = library.items.get(paper.item_key)
        if item is None:  # indexed, but deleted from Zotero since the last update-db
            continue
        lines.append(f"{n}. {item_line(item)}")
        for passage in paper.passages:
            where = passage.pages or ("metadata" if passage.kind == "metadata" else "")
            snippet = " ".join(passage.text.split())
            snippet = snippet if len(snippet) <= SNIPPET_CHARS else snippet[: SNIPPET_CHARS - 1] + "…"
            lines.append(f"   {where}: {snippet}")
        rows.append(
            item.to_summary()
            | {
                "score": round(paper.score, 4),
                "found_by": ["vector", "sparse"],
                "passages": [p.to_dict() for p in paper.passages],
            }
        )
    return ToolResponse("\n".join(lines), {"total": len(rows), "papers": rows})
