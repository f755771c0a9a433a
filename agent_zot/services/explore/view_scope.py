"""Which papers `agent-zot view` draws: a collection, an author, a concept or a seed paper, each found with
the resolvers the explore tools use, widened by N hops along citations and shared authors."""

from __future__ import annotations

from dataclasses import dataclass, field

from rapidfuzz import fuzz, process

from agent_zot.errors import InvalidArgumentError, NotFoundError
from agent_zot.graph.model import EdgeKind, Node, NodeKind, paper_id
from agent_zot.graph.store import Direction, GraphStore
from agent_zot.services.resolve.graph import collection_papers, find_concept, resolve_author
from agent_zot.services.resolve.library import resolve_collection, resolve_item
from agent_zot.services.response import quoted
from agent_zot.zotero.copies import paper_key
from agent_zot.zotero.models import Library

MAX_HOPS = 4


@dataclass(frozen=True, slots=True)
class ViewRequest:
    """What the user asked to see. Scopes given together intersect; ``hops`` then widens the result
    (default: 1 around a seed paper, 0 otherwise)."""

    collection: str | None = None
    item: str | None = None
    author: str | None = None
    concept: str | None = None
    hops: int | None = None
    max_nodes: int = 2000


@dataclass(slots=True)
class Scope:
    description: str
    paper_ids: set[str] | None  # None: the whole library
    pinned: list[str] = field(default_factory=list)  # kept first when the graph is capped (the seed paper)


def resolve_scope(store: GraphStore, library: Library, request: ViewRequest) -> Scope:
    """The papers in scope (ids), or NotFoundError/AmbiguousNameError naming the closest matches."""
    hops = request.hops if request.hops is not None else (1 if request.item else 0)
    if not 0 <= hops <= MAX_HOPS:
        raise InvalidArgumentError(f"--hops must be between 0 and {MAX_HOPS}, not {hops}.")
    parts: list[tuple[str, set[str]]] = []
    pinned: list[str] = []
    if request.collection:
        collection = resolve_collection(library, request.collection)
        parts.append((f"collection '{collection.path}'", collection_papers(store, library, collection)))
    if request.author:
        author = resolve_author(store, request.author)
        papers = store.edges_of([author.id], kinds=[EdgeKind.AUTHORED_BY], direction=Direction.IN)
        parts.append((f"author {author.name}", {e.source for e in papers}))
    if request.concept:
        concept = _concept(store, request.concept)
        papers = store.edges_of([concept.id], kinds=[EdgeKind.MENTIONS], direction=Direction.IN)
        parts.append((f"concept '{concept.name}'", {e.source for e in papers}))
    if request.item:
        item = resolve_item(library, request.item, words=True)
        pid = paper_id(paper_key(library, item.key))  # a copy's paper is drawn once, as its record
        pinned.append(pid)
        parts.append((f"[{item.key}] {item.title}", {pid}))
    if not parts:
        if hops:
            raise InvalidArgumentError(
                "--hops widens a scope: give --item, --collection, --author or --concept."
            )
        return Scope("the whole library", None)
    ids = set.intersection(*(papers for _, papers in parts))
    description = " and ".join(name for name, _ in parts)
    if not ids:
        raise NotFoundError(
            f"No paper is in {description}."
            if len(parts) > 1
            else f"No paper in the graph belongs to {description}.",
            hint="Drop a scope, or run `agent-zot update-db` if papers were added since the last run.",
        )
    if hops:
        ids = expand(store, ids, hops)
        description += f", with papers up to {hops} hop{'s' if hops > 1 else ''} away"
    return Scope(description, ids, pinned)


def expand(store: GraphStore, seeds: set[str], hops: int) -> set[str]:
    """Papers within ``hops`` steps of ``seeds``: a step is a citation either way or a shared author."""
    reached = set(seeds)
    frontier = sorted(seeds)
    for _ in range(hops):
        found: set[str] = set()
        for edge in store.edges_of(frontier, kinds=[EdgeKind.CITES]):
            found.update(x for x in (edge.source, edge.target) if x.startswith("paper:"))
        authors = store.edges_of(frontier, kinds=[EdgeKind.AUTHORED_BY], direction=Direction.OUT)
        if authors:
            shared = store.edges_of(
                sorted({e.target for e in authors}), kinds=[EdgeKind.AUTHORED_BY], direction=Direction.IN
            )
            found.update(e.source for e in shared)
        frontier = sorted(found - reached)
        reached |= found
        if not frontier:
            break
    return reached


def _concept(store: GraphStore, name: str) -> Node:
    concept = find_concept(store, name)
    if concept is not None:
        return concept
    names = sorted({n.name for n in store.find_nodes(NodeKind.CONCEPT, limit=10**9)})
    close = [m for m, _, _ in process.extract(name, names, scorer=fuzz.WRatio, limit=5, score_cutoff=50)]
    raise NotFoundError(
        f"No concept {quoted(name)} in the graph.",
        hint=("Close concepts: " + ", ".join(close) + ".")
        if close
        else "Name a concept that papers mention.",
    )
