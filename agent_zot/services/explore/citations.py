"""Citation-based modes: citation chains, influence (PageRank and citation counts), venues."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any
from weakref import WeakKeyDictionary

from agent_zot.graph.model import EdgeKind, Node, NodeKind, paper_id
from agent_zot.graph.rank import pagerank
from agent_zot.graph.store import Direction, GraphStore
from agent_zot.services.resolve.graph import Field
from agent_zot.services.response import ToolResponse, plural
from agent_zot.zotero.models import Item

MAX_HOPS = 3


@dataclass(slots=True)
class Reached:
    node: Node
    hops: int
    path: list[str]  # node ids from the start to this node


def citation_chains(
    store: GraphStore,
    item: Item,
    *,
    direction: Direction,
    hops: int,
    limit: int,
    copies: tuple[Item, ...] = (),
) -> ToolResponse:
    """Papers this paper cites and papers citing it, up to ``hops`` steps, each with its path. Other
    ``copies`` of the same paper in the library count as the paper: a reference list may have been
    matched to either."""
    hops = max(1, min(hops, MAX_HOPS))
    starts = [paper_id(item.key), *(paper_id(c.key) for c in copies)]
    sections: dict[str, list[Reached]] = {}
    if direction in (Direction.OUT, Direction.BOTH):
        sections["cites"] = _walk(store, starts, Direction.OUT, hops, limit)
    if direction in (Direction.IN, Direction.BOTH):
        sections["cited_by"] = _walk(store, starts, Direction.IN, hops, limit)
    lines = [f"Citation network of [{item.key}] {item.title} (up to {plural(hops, 'hop')}):"]
    data: dict[str, Any] = {"paper": item.to_summary(), "hops": hops}
    for name, reached in sections.items():
        label = "Cites" if name == "cites" else "Cited by (in your library)"
        lines.append(f"{label}: {len(reached)}")
        for r in reached[:limit]:
            lines.append(
                f"  {_node_line(r.node)}" + (f"  via {_path_text(store, r.path)}" if r.hops > 1 else "")
            )
        data[name] = [_reached_dict(r) for r in reached[:limit]]
        if not reached:
            lines.append(f"  {_empty_hint(store, name, starts, (item, *copies))}")
    return ToolResponse("\n".join(lines), data)


def _empty_hint(store: GraphStore, section: str, starts: list[str], records: tuple[Item, ...]) -> str:
    """Why a direction came back empty, about the reference lists that direction reads: the paper's own
    for what it cites, the other papers' for what cites it."""
    readers = {e.source for e in store.all_edges([EdgeKind.CITES]) if e.source.startswith("paper:")}
    if section == "cited_by":
        others = len(readers - set(starts))
        if not others:
            return (
                "No reference list of another paper of yours has been read: index them (agent-zot update-db)."
            )
        return (
            f"None of the reference lists of {plural(others, 'paper')} of yours (those read from indexed "
            "files) names it. Papers whose file is not indexed or gave no reference list are not counted: "
            "index the papers that should cite it (agent-zot update-db)."
        )
    if readers & set(starts):
        return "Its reference list names no work the graph keeps."
    if not any(r.attachments for r in records):
        return "It has no file in Zotero, so its reference list is unknown: attach its PDF and run agent-zot update-db."
    return (
        "No reference list was read from its file: is the file indexed (agent-zot update-db), and does it "
        "print one?"
    )


def _walk(store: GraphStore, starts: list[str], direction: Direction, hops: int, limit: int) -> list[Reached]:
    """Breadth-first along CITES from the paper (and its copies), nearest first; a path is kept for every
    node reached."""
    parents: dict[str, str | None] = dict.fromkeys(starts)
    depth = dict.fromkeys(starts, 0)
    frontier = list(starts)
    for hop in range(1, hops + 1):
        edges = store.edges_of(frontier, kinds=[EdgeKind.CITES], direction=direction)
        nxt: list[str] = []
        for edge in sorted(edges, key=lambda e: -float(e.props.get("confidence", 1.0))):
            origin, other = (
                (edge.source, edge.target) if direction is Direction.OUT else (edge.target, edge.source)
            )
            if origin in depth and other not in parents and other.startswith(("paper:", "work:")):
                parents[other], depth[other] = origin, hop
                nxt.append(other)
        frontier = [
            n for n in nxt if n.startswith("paper:")
        ]  # external works have no references of their own
        if not frontier or len(parents) > limit * 5:
            break
    # Papers in the library first (they can be opened), then external works; each nearest first.
    reached_ids = sorted(
        (n for n in parents if n not in starts), key=lambda n: (depth[n], not n.startswith("paper:"))
    )
    nodes = {n.id: n for n in store.get_nodes(reached_ids)}
    return [Reached(nodes[n], depth[n], _path(parents, n)) for n in reached_ids if n in nodes]


def _path(parents: dict[str, str | None], end: str) -> list[str]:
    path = [end]
    step = parents[end]
    while step is not None:
        path.append(step)
        step = parents[step]
    return path[::-1]


def _path_text(store: GraphStore, path: list[str]) -> str:
    nodes = {n.id: n for n in store.get_nodes(path[1:-1])}
    return " → ".join(_short(nodes[p]) for p in path[1:-1] if p in nodes)


def _short(node: Node) -> str:
    key = node.props.get("item_key")
    return f"[{key}]" if key else node.name[:40]


def _node_line(node: Node) -> str:
    year = node.props.get("year") or "n.d."
    if node.kind is NodeKind.PAPER:
        return f"[{node.props.get('item_key')}] {node.name} ({year})"
    doi = f" doi:{node.props['doi']}" if node.props.get("doi") else ""
    return f"(not in library) {node.name or node.id} ({year}){doi}"


def _reached_dict(r: Reached) -> dict[str, Any]:
    return {"id": r.node.id, "kind": r.node.kind.value, **r.node.props, "hops": r.hops, "path": r.path}


@dataclass(slots=True)
class _Ranked:
    version: int | None  # the store's graph version it was computed on
    nodes: list[str]  # every node a CITES edge touches
    edges: int
    rank: dict[str, float]
    cited_by: Counter[str]
    by: str  # what computed the PageRank: "agent-zot" or "Neo4j GDS"


# One ranking per store object, reused while its graph version is the same (PageRank only changes when the
# citation edges do); a store that keeps no version (Neo4j) is ranked on every request.
_rankings: WeakKeyDictionary[GraphStore, _Ranked] = WeakKeyDictionary()


def citation_ranking(store: GraphStore) -> _Ranked:
    """PageRank and in-library cited-by counts over the CITES edges."""
    version = store.version()
    kept = _rankings.get(store) if version is not None else None
    if kept is not None and kept.version == version:
        return kept
    edges = store.all_edges([EdgeKind.CITES])
    weighted = [(e.source, e.target, float(e.props.get("confidence", 1.0))) for e in edges]
    # In Neo4j with the Graph Data Science plugin the server ranks its own graph; otherwise we do.
    server = getattr(store, "pagerank", None)
    served = server(EdgeKind.CITES) if server is not None and edges else None
    rank = served if served is not None else pagerank(weighted)
    nodes = list(dict.fromkeys(end for s, t, _ in weighted for end in (s, t)))
    cited_by = Counter(e.target for e in edges if e.source.startswith("paper:"))
    ranked = _Ranked(
        version, nodes, len(edges), rank, cited_by, "Neo4j GDS" if served is not None else "agent-zot"
    )
    if version is not None:
        _rankings[store] = ranked
    return ranked


def influence(store: GraphStore, field: Field | None, *, limit: int) -> ToolResponse:
    """Papers ranked by PageRank over the library's citation graph (external works included as nodes,
    so citing well-known work does not make a paper influential), with in-library citation counts."""
    ranking = citation_ranking(store)
    rank, cited_by = ranking.rank, ranking.cited_by
    if ranking.edges == 0:
        return ToolResponse(
            "No citations in the graph yet: run `agent-zot update-db` on a library with PDFs.",
            {"papers": [], "external": []},
        )
    papers = [n for n in rank if n.startswith("paper:") and (field is None or n in field.paper_ids)]
    papers.sort(key=lambda n: (-rank[n], -cited_by[n]))
    if len(papers) < limit:  # papers nobody cites and that cite nothing still rank (last), not vanish
        others = field.paper_ids if field else {n.id for n in store.find_nodes(NodeKind.PAPER, limit=10**9)}
        papers += sorted(others - set(papers))
    external = sorted((n for n in ranking.nodes if n.startswith("work:")), key=lambda n: -cited_by[n])
    external = [n for n in external if cited_by[n] >= 2][:limit]
    nodes = {n.id: n for n in store.get_nodes(papers[:limit] + external)}
    scope = f" within {field.description}" if field else ""
    lines = [
        f"Most influential papers{scope} (PageRank over citations, by {ranking.by}; cited-by counts in your "
        "library):"
    ]
    if field is not None and not field.paper_ids:
        lines.append(
            "  (no paper of yours is in it: name a concept, tag or collection, or ask about the whole library)"
        )
    rows = []
    for n in papers[:limit]:
        if n in nodes:
            score = rank.get(n, 0.0)
            lines.append(f"  {_node_line(nodes[n])} — pagerank {score:.4f}, cited by {cited_by[n]}")
            rows.append({**nodes[n].props, "pagerank": round(score, 6), "cited_by": cited_by[n]})
    if external:
        lines.append("Most cited works you do not have:")
        lines += [f"  {_node_line(nodes[n])} — cited by {cited_by[n]}" for n in external if n in nodes]
    return ToolResponse(
        "\n".join(lines),
        {
            "papers": rows,
            "external": [{**nodes[n].props, "cited_by": cited_by[n]} for n in external if n in nodes],
            "field": field.description if field else None,
            "pagerank_by": ranking.by,
        },
    )


def venues(store: GraphStore, field: Field | None, *, limit: int) -> ToolResponse:
    """Venues ranked by how many (field) papers appeared there and how often those are cited in the library."""
    if field is None:  # the whole library: graph-wide edge lists, which the store keeps ready
        published = store.all_edges([EdgeKind.PUBLISHED_IN])
        cites = store.all_edges([EdgeKind.CITES])
    else:
        paper_ids = sorted(field.paper_ids)
        published = store.edges_of(paper_ids, kinds=[EdgeKind.PUBLISHED_IN], direction=Direction.OUT)
        cites = store.edges_of(paper_ids, kinds=[EdgeKind.CITES], direction=Direction.IN)
    cited_by = Counter(e.target for e in cites if e.source.startswith("paper:"))
    papers_at: Counter[str] = Counter()
    citations_at: Counter[str] = Counter()
    for edge in published:
        papers_at[edge.target] += 1
        citations_at[edge.target] += cited_by[edge.source]
    ranked = sorted(papers_at, key=lambda v: (-papers_at[v], -citations_at[v]))[:limit]
    nodes = {n.id: n for n in store.get_nodes(ranked)}
    scope = f" for {field.description}" if field else ""
    lines = [f"Venues{scope}, by papers in your library (and citations they receive there):"]
    rows = []
    for v in ranked:
        if v in nodes:
            lines.append(f"  {nodes[v].name}: {plural(papers_at[v], 'paper')}, cited {citations_at[v]}×")
            rows.append({"venue": nodes[v].name, "papers": papers_at[v], "citations": citations_at[v]})
    if not rows:
        lines.append("  (no venue recorded for these papers)")
    return ToolResponse("\n".join(lines), {"venues": rows, "field": field.description if field else None})
