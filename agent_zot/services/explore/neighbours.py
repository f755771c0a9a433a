"""Modes over shared neighbours: related papers, collaboration, concept co-occurrence, topics over time,
and content similarity (from the vector index)."""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Any

from agent_zot.graph.model import EdgeKind, Node, paper_id
from agent_zot.graph.store import Direction, GraphStore
from agent_zot.index.resources import IndexResources
from agent_zot.index.retrieval import group_by_paper, search_chunks
from agent_zot.services.resolve.graph import Field
from agent_zot.services.response import ToolResponse, item_line, plural
from agent_zot.zotero.models import Item, Library

# How much each kind of shared neighbour says about relatedness (citations are the strongest evidence).
RELATED_WEIGHTS = {
    "cites": 3.0,  # P cites Q or Q cites P
    "shared_reference": 1.0,  # both cite the same work (bibliographic coupling)
    "co_cited": 1.5,  # a third paper cites both
    "shared_author": 2.0,
    "shared_concept": 0.5,
    "shared_tag": 0.3,
}
_VIA = {
    EdgeKind.AUTHORED_BY: "shared_author",
    EdgeKind.MENTIONS: "shared_concept",
    EdgeKind.TAGGED: "shared_tag",
}


def related(store: GraphStore, item: Item, *, limit: int) -> ToolResponse:
    """Papers sharing citations, authors, concepts or tags with this one, each with the shared elements."""
    start = paper_id(item.key)
    reasons: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    direct = store.edges_of([start], kinds=[EdgeKind.CITES])
    for edge in direct:
        other = edge.target if edge.source == start else edge.source
        if other.startswith("paper:"):
            reasons[other]["cites"].append("cites it" if edge.source == other else "cited by it")
    cited = [e.target for e in direct if e.source == start]
    for edge in store.edges_of(cited, kinds=[EdgeKind.CITES], direction=Direction.IN):
        if edge.source != start:
            reasons[edge.source]["shared_reference"].append(edge.target)
    citing = [e.source for e in direct if e.target == start]
    for edge in store.edges_of(citing, kinds=[EdgeKind.CITES], direction=Direction.OUT):
        if edge.target != start and edge.target.startswith("paper:"):
            reasons[edge.target]["co_cited"].append(edge.source)
    own = store.edges_of([start], kinds=list(_VIA), direction=Direction.OUT)
    for edge in store.edges_of([e.target for e in own], kinds=list(_VIA), direction=Direction.IN):
        if edge.source != start:
            reasons[edge.source][_VIA[edge.kind]].append(edge.target)
    scored = sorted(reasons, key=lambda p: -_score(reasons[p]))[:limit]
    names = {n.id: n for n in store.get_nodes(scored + _shared_ids(reasons, scored))}
    lines = [f"Papers related to [{item.key}] {item.title}:"]
    rows = []
    for pid in scored:
        if pid not in names:
            continue
        why = _reasons_text(reasons[pid], names)
        lines.append(f"  {_paper_line(names[pid])} — {why}")
        rows.append(
            {
                **names[pid].props,
                "score": round(_score(reasons[pid]), 2),
                "reasons": _reasons_dict(reasons[pid], names),
            }
        )
    if not rows:
        lines.append("  Nothing shares citations, authors, concepts or tags with it yet.")
    return ToolResponse("\n".join(lines), {"paper": item.to_summary(), "related": rows})


def _score(reasons: dict[str, list[str]]) -> float:
    return sum(RELATED_WEIGHTS[kind] * len(set(values)) for kind, values in reasons.items())


def _shared_ids(reasons: dict[str, dict[str, list[str]]], papers: list[str]) -> list[str]:
    return sorted({v for p in papers for k, vs in reasons[p].items() if k != "cites" for v in vs})


def _reasons_dict(reasons: dict[str, list[str]], names: dict[str, Node]) -> dict[str, list[str]]:
    return {
        kind: sorted({names[v].name if v in names else v for v in values}) for kind, values in reasons.items()
    }


def _reasons_text(reasons: dict[str, list[str]], names: dict[str, Node]) -> str:
    parts = []
    for kind, values in _reasons_dict(reasons, names).items():
        label = kind.replace("_", " ")
        shown = ", ".join(values[:3]) + (f" +{len(values) - 3}" if len(values) > 3 else "")
        parts.append(f"{label}: {shown}" if kind != "cites" else shown)
    return "; ".join(parts)


def _paper_line(node: Node) -> str:
    return f"[{node.props.get('item_key')}] {node.name} ({node.props.get('year') or 'n.d.'})"


def collaboration(store: GraphStore, author: Node, *, hops: int, limit: int) -> ToolResponse:
    """Co-authors of an author (1 or 2 hops), with how many papers they share."""
    hops = max(1, min(hops, 2))
    sub = store.neighbourhood([author.id], kinds=[EdgeKind.CO_AUTHOR], hops=hops, limit=limit * 10)
    counts: Counter[str] = Counter()
    second: set[str] = set()
    for edge in sub.edges:
        if author.id in (edge.source, edge.target):
            other = edge.target if edge.source == author.id else edge.source
            counts[other] += int(edge.props.get("count", 1))
    for edge in sub.edges:
        for node in (edge.source, edge.target):
            if node != author.id and node not in counts:
                second.add(node)
    papers = store.edges_of([author.id], kinds=[EdgeKind.AUTHORED_BY], direction=Direction.IN)
    nodes = {n.id: n for n in sub.nodes}
    lines = [
        f"{author.name}: {plural(len(papers), 'paper')} in your library, {plural(len(counts), 'co-author')}"
    ]
    direct = sorted(counts, key=lambda a: (-counts[a], nodes[a].name if a in nodes else a))[:limit]
    lines += [f"  {nodes[a].name} — {plural(counts[a], 'shared paper')}" for a in direct if a in nodes]
    data: dict[str, Any] = {
        "author": author.name,
        "papers": len(papers),
        "co_authors": [{"name": nodes[a].name, "shared_papers": counts[a]} for a in direct if a in nodes],
    }
    if hops == 2:
        reach = sorted(second, key=lambda a: nodes[a].name if a in nodes else a)[:limit]
        lines.append(f"Co-authors of co-authors: {len(second)}")
        lines += [f"  {nodes[a].name}" for a in reach if a in nodes]
        data["second_hop"] = [nodes[a].name for a in reach if a in nodes]
    return ToolResponse("\n".join(lines), data)


def concept_cooccurrence(store: GraphStore, concept: Node, *, limit: int) -> ToolResponse:
    """Concepts that appear in the same papers as this one, with the papers behind the concept."""
    mentions = store.edges_of([concept.id], kinds=[EdgeKind.MENTIONS], direction=Direction.IN)
    papers = [e.source for e in sorted(mentions, key=lambda e: -float(e.props.get("weight", 0)))]
    together: Counter[str] = Counter()
    for edge in store.edges_of(papers, kinds=[EdgeKind.MENTIONS], direction=Direction.OUT):
        if edge.target != concept.id:
            together[edge.target] += 1
    top = [c for c, _ in together.most_common(limit)]
    nodes = {n.id: n for n in store.get_nodes(top + papers[:limit])}
    kind = concept.props.get("type", "Concept")
    lines = [f"{concept.name} ({kind}): {plural(len(papers), 'paper')}"]
    lines += [f"  {_paper_line(nodes[p])}" for p in papers[:limit] if p in nodes]
    lines.append("Appears together with:")
    lines += [
        f"  {nodes[c].name} ({nodes[c].props.get('type', 'Concept')}) — {plural(together[c], 'paper')}"
        for c in top
        if c in nodes
    ]
    return ToolResponse(
        "\n".join(lines),
        {
            "concept": {"name": concept.name, "type": kind},
            "papers": [nodes[p].props for p in papers[:limit] if p in nodes],
            "co_occurring": [
                {"name": nodes[c].name, "type": nodes[c].props.get("type"), "papers": together[c]}
                for c in top
                if c in nodes
            ],
        },
    )


def temporal(
    store: GraphStore, field: Field, *, start: int | None, end: int | None, limit: int
) -> ToolResponse:
    """How a field's papers and concepts change by year between ``start`` and ``end``."""
    nodes = {n.id: n for n in store.get_nodes(sorted(field.paper_ids))}
    by_year: dict[int, list[str]] = defaultdict(list)
    for pid, node in nodes.items():
        year = node.props.get("year")
        if isinstance(year, int) and (start is None or year >= start) and (end is None or year <= end):
            by_year[year].append(pid)
    concepts_by_year: dict[int, Counter[str]] = {}
    for year, papers in by_year.items():
        edges = store.edges_of(papers, kinds=[EdgeKind.MENTIONS], direction=Direction.OUT)
        concepts_by_year[year] = Counter(e.target for e in edges)
    concept_names = {
        n.id: n.name for n in store.get_nodes(sorted({c for cs in concepts_by_year.values() for c in cs}))
    }
    span = f"{start or min(by_year, default='…')}–{end or max(by_year, default='…')}"
    lines = [f"{field.description}, {span}: {plural(sum(map(len, by_year.values())), 'paper')}"]
    rows = []
    for year in sorted(by_year):
        top = [concept_names.get(c, c) for c, _ in concepts_by_year[year].most_common(5)]
        lines.append(
            f"  {year}: {plural(len(by_year[year]), 'paper')}" + (f" — {', '.join(top)}" if top else "")
        )
        rows.append({"year": year, "papers": len(by_year[year]), "top_concepts": top})
    if not rows:
        lines.append("  No papers with a year in this range.")
    return ToolResponse("\n".join(lines[: limit + 1]), {"field": field.description, "years": rows})


def content_similarity(
    resources: IndexResources, library: Library, item: Item, *, limit: int
) -> ToolResponse:
    """Papers nearest to this paper's own text (its first chunks, else title and abstract) by dense cosine."""
    resources.open()
    points = resources.store.get_by_item(item.key)
    text = " ".join(p.payload.get("text", "") for p in points[:3]) or f"{item.title}. {item.abstract}"
    hits = search_chunks(resources, text[:2000], fetch=(limit + 1) * 8, search_filter=None, fusion="dense")
    papers = [
        p for p in group_by_paper(hits, limit=limit + 1, passages_per_paper=1) if p.item_key != item.key
    ]
    lines = [f"Papers closest in content to [{item.key}] {item.title}:"]
    rows = []
    for hit in papers[:limit]:
        other = library.items.get(hit.item_key)
        if other is not None:
            lines.append(f"  {item_line(other)} — cosine {hit.score:.3f}")
            rows.append(other.to_summary() | {"score": round(hit.score, 4)})
    if not rows:
        lines.append("  Nothing indexed yet: run `agent-zot update-db`.")
    return ToolResponse("\n".join(lines), {"paper": item.to_summary(), "similar": rows})
