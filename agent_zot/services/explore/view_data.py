"""The data `agent-zot view` draws: papers in scope as nodes (sized by in-library citations or PageRank,
grouped by collection), and paper-to-paper edges of three kinds: citations, shared authors and shared
concepts. Read from the graph store and the library; no front-end code here.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from itertools import combinations
from typing import TYPE_CHECKING, Any

from agent_zot.errors import NotFoundError
from agent_zot.graph.model import Edge, EdgeKind, Node, NodeKind
from agent_zot.graph.store import Direction, GraphStore
from agent_zot.index.owner import check_library
from agent_zot.services.explore.citations import citation_ranking
from agent_zot.services.explore.view_scope import Scope, ViewRequest, resolve_scope
from agent_zot.zotero.models import Item, Library

if TYPE_CHECKING:
    from agent_zot.services.context import AppContext

NO_GRAPH = (
    "There is no knowledge graph to draw yet. Build it with `agent-zot update-db` (citations come from the "
    "PDFs' reference lists, so index the full text), then run `agent-zot view` again."
)
DEFAULT_MAX_NODES = 2000
# A shared author or concept links every pair of its papers: past these group sizes the pairs say little
# (a concept half the library mentions) and would swamp the drawing, so such groups add no edges.
AUTHOR_GROUP_MAX = 30
CONCEPT_GROUP_MAX = 30
# Each paper keeps its strongest links of these kinds (most authors or concepts shared): enough to place
# it near its kin, few enough that 5,000 papers draw smoothly.
LINKS_PER_PAPER = 4
ABSTRACT_CHARS = 2000
AUTHORS_SHOWN = 12
TAGS_SHOWN = 15


@dataclass(slots=True)
class ViewData:
    """The page's data: ``to_json()`` is what the page embeds."""

    scope: str
    total_papers: int  # papers in scope before the cap
    nodes: list[dict[str, Any]]
    edges: dict[str, list[list[int]]]  # kind -> [source index, target index(, weight)]
    groups: list[dict[str, Any]]  # collections the papers are coloured by, largest first
    others: dict[str, str] = field(default_factory=dict)  # papers named in panels but not drawn
    left_out: int = 0
    claims: list[dict[str, Any]] = field(default_factory=list)  # claims drawn beside the papers (evidence.py)
    claims_left_out: int = 0

    @property
    def note(self) -> str:
        notes = []
        if self.left_out:
            notes.append(
                f"Showing the {len(self.nodes):,} most connected of {self.total_papers:,} papers; "
                f"{self.left_out:,} left out. Raise --max-nodes, or narrow the view with --collection, "
                "--author, --concept or --item."
            )
        if self.claims_left_out:
            notes.append(
                f"Showing the first {len(self.claims):,} sentences with citations or findings; "
                f"{self.claims_left_out:,} more are in the report of `agent-zot audit`."
            )
        return " ".join(notes)

    def counts(self) -> dict[str, int]:
        counts = {"papers": len(self.nodes), **{kind: len(edges) for kind, edges in self.edges.items()}}
        return counts | ({"claims": len(self.claims)} if self.claims else {})

    def claims_stances(self) -> list[str]:
        """The stance of every claim's link to a paper (drawn or not)."""
        return [link["stance"] for claim in self.claims for link in claim["links"]]

    def to_json(self) -> dict[str, Any]:
        return {
            "scope": self.scope,
            "total_papers": self.total_papers,
            "left_out": self.left_out,
            "note": self.note,
            "counts": self.counts(),
            "groups": self.groups,
            "nodes": self.nodes,
            "edges": self.edges,
            "others": self.others,
            "claims": self.claims,
        }


def build_view(store: GraphStore, library: Library, request: ViewRequest) -> ViewData:
    """The papers in the requested scope and the edges among them, capped at ``request.max_nodes``
    (the seed paper first, then the most connected)."""
    return view_of(store, library, resolve_scope(store, library, request), request.max_nodes)


def view_of(store: GraphStore, library: Library, scope: Scope, max_nodes: int) -> ViewData:
    """The papers of ``scope`` and the edges among them, capped at ``max_nodes`` (pinned papers first)."""
    papers = {n.id: n for n in store.find_nodes(NodeKind.PAPER, limit=10**9)}
    if not papers:
        raise NotFoundError(NO_GRAPH)
    in_scope = sorted(papers if scope.paper_ids is None else scope.paper_ids & papers.keys())
    if not in_scope:  # a paper added to Zotero since the last update-db
        raise NotFoundError(
            f"{scope.description} is not in the graph yet.", hint="Run `agent-zot update-db`."
        )
    ranking = citation_ranking(store)
    every_citation = store.all_edges([EdgeKind.CITES])
    cites_all = [e for e in every_citation if e.target.startswith("paper:")]
    links = _Links(store, in_scope, cites_all, whole=scope.paper_ids is None)
    kept = _cap(in_scope, links, ranking.cited_by, scope.pinned, max_nodes)
    index = {pid: i for i, pid in enumerate(kept)}
    external = Counter(e.source for e in every_citation if e.target.startswith("work:") and e.source in index)
    cites_out: dict[str, list[str]] = defaultdict(list)
    cites_in: dict[str, list[str]] = defaultdict(list)
    for edge in cites_all:
        cites_out[edge.source].append(edge.target)
        cites_in[edge.target].append(edge.source)
    groups, group_of = _groups(library, kept)
    nodes = []
    for pid in kept:
        node = papers[pid]
        item = library.items.get(str(node.props.get("item_key", pid.removeprefix("paper:"))))
        nodes.append(
            {
                **_paper(node, item, library),
                "cited_by": ranking.cited_by[pid],
                "pagerank": round(ranking.rank.get(pid, 0.0), 8),
                "cites": [_key(p) for p in sorted(cites_out[pid])],
                "cited_by_keys": [_key(p) for p in sorted(cites_in[pid])],
                "external_refs": external[pid],
                "group": group_of.get(pid, -1),
            }
        )
    named = {p for pid in kept for p in (*cites_out[pid], *cites_in[pid])} - index.keys()
    others = {_key(p): _label(papers[p]) for p in sorted(named) if p in papers}
    edges = {
        "cites": [[index[a], index[b]] for a, b in links.cites if a in index and b in index],
        "coauthor": [
            [index[a], index[b], w] for (a, b), w in links.coauthor.items() if a in index and b in index
        ],
        "concept": [
            [index[a], index[b], w] for (a, b), w in links.concept.items() if a in index and b in index
        ],
    }
    return ViewData(scope.description, len(in_scope), nodes, edges, groups, others, len(in_scope) - len(kept))


class _Links:
    """Paper-to-paper links among the papers in scope: citations, shared authors, shared concepts."""

    def __init__(
        self, store: GraphStore, paper_ids: list[str], cites_all: list[Edge], *, whole: bool
    ) -> None:
        wanted = set(paper_ids)
        self.cites = sorted(
            {(e.source, e.target) for e in cites_all if e.source in wanted and e.target in wanted}
            - {(p, p) for p in wanted}
        )
        authored, mentions = (
            # The whole library: the store keeps each kind's edge list ready, far cheaper than a lookup
            (store.all_edges([EdgeKind.AUTHORED_BY]), store.all_edges([EdgeKind.MENTIONS]))
            if whole
            else (
                store.edges_of(paper_ids, kinds=[EdgeKind.AUTHORED_BY], direction=Direction.OUT),
                store.edges_of(paper_ids, kinds=[EdgeKind.MENTIONS], direction=Direction.OUT),
            )
        )
        self.coauthor = _strongest(_shared(authored, wanted, AUTHOR_GROUP_MAX))
        self.concept = _strongest(_shared(mentions, wanted, CONCEPT_GROUP_MAX))

    def degree(self) -> Counter[str]:
        pairs: Iterable[tuple[str, str]] = [*self.cites, *self.coauthor, *self.concept]
        return Counter(x for pair in set(pairs) for x in pair)


def _shared(edges: list[Edge], papers: set[str], group_max: int) -> dict[tuple[str, str], int]:
    """Pairs of papers sharing a neighbour (an author, a concept), with how many they share."""
    members: dict[str, list[str]] = defaultdict(list)
    for edge in edges:
        if edge.source in papers:
            members[edge.target].append(edge.source)
    pairs: Counter[tuple[str, str]] = Counter()
    for group in members.values():
        if 2 <= len(group) <= group_max:
            pairs.update(combinations(sorted(set(group)), 2))
    return dict(sorted(pairs.items()))


def _strongest(
    pairs: dict[tuple[str, str], int], per_paper: int = LINKS_PER_PAPER
) -> dict[tuple[str, str], int]:
    """Each paper's ``per_paper`` strongest links (a link stays when either end keeps it)."""
    around: dict[str, list[tuple[int, str, tuple[str, str]]]] = defaultdict(list)
    for pair, weight in pairs.items():
        for end, other in (pair, pair[::-1]):
            around[end].append((-weight, other, pair))
    kept = {pair for options in around.values() for _, _, pair in sorted(options)[:per_paper]}
    return {pair: weight for pair, weight in pairs.items() if pair in kept}


def _cap(
    paper_ids: list[str], links: _Links, cited_by: Counter[str], pinned: list[str], max_nodes: int
) -> list[str]:
    """The papers drawn, in a stable order: all of them, or past ``max_nodes`` the seed paper and then the
    most connected (links of any kind, then in-library citations)."""
    if len(paper_ids) <= max_nodes:
        return paper_ids
    degree = links.degree()
    first = {p: i for i, p in enumerate(pinned)}
    ranked = sorted(paper_ids, key=lambda p: (first.get(p, len(first)), -degree[p], -cited_by[p], p))
    return sorted(ranked[: max(1, max_nodes)])


def _groups(library: Library, paper_ids: list[str]) -> tuple[list[dict[str, Any]], dict[str, int]]:
    """Each paper's colour group: the largest of its collections (by papers drawn), ties by path."""
    keys_of = {}
    for pid in paper_ids:
        item = library.items.get(_key(pid))
        keys_of[pid] = [k for k in (item.collection_keys if item else []) if k in library.collections]
    size = Counter(k for keys in keys_of.values() for k in keys)
    chosen = {
        pid: min(keys, key=lambda k: (-size[k], library.collections[k].path))
        for pid, keys in keys_of.items()
        if keys
    }
    counts = Counter(chosen.values())
    order = sorted(counts, key=lambda k: (-counts[k], library.collections[k].path))
    position = {k: i for i, k in enumerate(order)}
    groups = [{"name": library.collections[k].path, "count": counts[k]} for k in order]
    return groups, {pid: position[k] for pid, k in chosen.items()}


def _paper(node: Node, item: Item | None, library: Library) -> dict[str, Any]:
    """A paper's panel fields: from the library when it still has the item, else from the graph node."""
    key = _key(node.id)
    if item is None:
        return {
            "key": key,
            "title": node.name,
            "year": node.props.get("year"),
            "link": _link(library, key, None),
        }
    authors = [c.full_name for c in item.authors]
    return {
        "key": key,
        "title": item.title or node.name,
        "year": item.year,
        "authors": authors[:AUTHORS_SHOWN] + (["et al."] if len(authors) > AUTHORS_SHOWN else []),
        "venue": item.venue,
        "type": item.item_type,
        "doi": item.doi,
        "abstract": item.abstract[:ABSTRACT_CHARS] + ("…" if len(item.abstract) > ABSTRACT_CHARS else ""),
        "tags": item.tag_names()[:TAGS_SHOWN],
        "collections": sorted(
            library.collections[k].path for k in item.collection_keys if k in library.collections
        ),
        "link": _link(library, key, item),
        "retracted": item.retraction.describe() if item.retraction else None,
    }


def _link(library: Library, key: str, item: Item | None) -> str:
    """The zotero:// address that selects the item in Zotero (a group library's items live under it)."""
    if item is not None:
        for info in library.libraries:
            if info.library_id == item.library_id and info.kind == "group" and info.group_id is not None:
                return f"zotero://select/groups/{info.group_id}/items/{key}"
    return f"zotero://select/library/items/{key}"


def _key(pid: str) -> str:
    return pid.removeprefix("paper:")


def _label(node: Node) -> str:
    year = node.props.get("year")
    return f"{node.name} ({year})" if year else node.name


def library_view(ctx: AppContext, request: ViewRequest) -> ViewData:
    """The view of the context's library, from the embedded graph (update-db keeps it current even when a
    Neo4j server is configured); a missing index or graph says to run update-db."""
    return build_view(graph_store(ctx), ctx.library(), request)


def graph_store(ctx: AppContext) -> GraphStore:
    """The embedded graph of the context's index, or NotFoundError saying how to build it."""
    resources = ctx.index_resources()
    if not resources.exists():  # reading never creates an index
        raise NotFoundError(NO_GRAPH)
    check_library(resources.state, ctx.library())
    graph = ctx.graph()
    if graph.is_empty():
        raise NotFoundError(NO_GRAPH)
    return graph.local
