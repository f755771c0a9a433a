"""What `zot_search`'s modes add to the hybrid core: compound-query merging, graph enrichment (the methods,
datasets and concepts of the top papers; their authors and citation neighbours), metadata matches, the
confidence of a result list, and library-mined expansion terms for short vague queries."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from agent_zot.graph.model import EdgeKind, NodeKind, paper_id
from agent_zot.graph.store import Direction, GraphStore
from agent_zot.index.retrieval import PaperHit
from agent_zot.services.resolve.match import match_items
from agent_zot.zotero.copies import paper_key
from agent_zot.zotero.models import Library

SUBQUERY_WORKERS = 3
_OPTIONAL = re.compile(r"\b(?:or|OR|vs\.?|versus)\b|\|\|")
# Thresholds from scripts/bench_retrieval.py on SciFact (see docs/performance.md): below these a result
# list is weak enough that running every backend is worth its cost.
MIN_CONFIDENCE = 0.35


@dataclass(slots=True)
class Quality:
    confidence: float
    reasons: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, object]:
        return {"confidence": round(self.confidence, 3), "reasons": self.reasons}


def merge_subqueries(
    topic: str, subqueries: tuple[str, ...], run: Callable[[str], list[PaperHit]], *, limit: int
) -> tuple[list[PaperHit], dict[str, object]]:
    """Run each part in a bounded pool and merge. "A or B" keeps the union (best score per paper); "A and
    B" (and comma lists) ranks papers by how many parts they cover first, then by their summed score,
    so papers covering both come first — decided by evidence, not by concatenating the words."""
    optional = bool(_OPTIONAL.search(topic))
    with ThreadPoolExecutor(max_workers=min(SUBQUERY_WORKERS, len(subqueries))) as pool:
        results = list(pool.map(run, subqueries))
    merged: dict[str, PaperHit] = {}
    covered: Counter[str] = Counter()
    for hits in results:
        best = max((h.score for h in hits), default=1.0) or 1.0
        for hit in hits:
            score = hit.score / best  # each part's scores on one scale
            covered[hit.item_key] += 1
            seen = merged.get(hit.item_key)
            if seen is None:
                merged[hit.item_key] = PaperHit(hit.item_key, score, list(hit.passages), set(hit.found_by))
                continue
            seen.score = max(seen.score, score) if optional else seen.score + score
            seen.found_by |= hit.found_by
            seen.passages.extend(p for p in hit.passages if p not in seen.passages)
    if optional:
        ranked = sorted(merged.values(), key=lambda p: -p.score)
    else:
        ranked = sorted(merged.values(), key=lambda p: (-covered[p.item_key], -p.score))
    for paper in ranked:
        paper.passages = sorted(paper.passages, key=lambda p: (p.kind != "chunk", -p.score))[:3]
    info: dict[str, object] = {
        "how": "union (any part)" if optional else "papers covering every part first",
        "covering_all": sum(1 for k in merged if covered[k] == len(subqueries)),
    }
    return ranked[:limit], info


def entities_of(
    store: GraphStore, library: Library, papers: list[PaperHit], *, top: int = 10
) -> dict[str, list[dict[str, object]]]:
    """Methods, datasets, theories and concepts the top papers mention, by how many of them do."""
    ids = [paper_id(paper_key(library, p.item_key)) for p in papers]
    edges = store.edges_of(ids, kinds=[EdgeKind.MENTIONS], direction=Direction.OUT)
    papers_of: dict[str, set[str]] = {}
    for edge in edges:
        papers_of.setdefault(edge.target, set()).add(edge.source.split(":", 1)[1])
    nodes = {n.id: n for n in store.get_nodes(sorted(papers_of))}
    grouped: dict[str, list[dict[str, object]]] = {}
    for cid in sorted(papers_of, key=lambda c: (-len(papers_of[c]), c)):
        node = nodes.get(cid)
        if node is None:
            continue
        kind = str(node.props.get("type", "Concept"))
        bucket = grouped.setdefault(kind, [])
        if len(bucket) < top:
            bucket.append({"name": node.name, "papers": sorted(papers_of[cid])})
    return grouped


def graph_neighbours(
    store: GraphStore, library: Library, papers: list[PaperHit], *, limit: int
) -> tuple[list[dict[str, object]], list[PaperHit]]:
    """Who works on this (authors of the top papers, by how many of them they wrote) and the papers that
    cite or are cited by the top papers (found by the graph, not by the words)."""
    ids = [paper_id(paper_key(library, p.item_key)) for p in papers]
    authored = store.edges_of(ids, kinds=[EdgeKind.AUTHORED_BY], direction=Direction.OUT)
    per_author = Counter(e.target for e in authored)
    names = {n.id: n.name for n in store.get_nodes([a for a, _ in per_author.most_common(limit)])}
    authors = [{"name": names[a], "papers": c} for a, c in per_author.most_common(limit) if a in names]
    cites = store.edges_of(ids, kinds=[EdgeKind.CITES])
    around: Counter[str] = Counter()
    for edge in cites:
        for node in (edge.source, edge.target):
            if node.startswith("paper:") and node not in ids:
                around[node] += 1
    extra = [PaperHit(n.split(":", 1)[1], 0.0, [], {"graph"}) for n, _ in around.most_common(limit)]
    return authors, extra


def metadata_matches(library: Library, text: str, *, limit: int) -> list[PaperHit]:
    """Items whose metadata (title, creators, venue, tags, …) contains every word of the text."""
    items = match_items(list(library.items.values()), text, library=library)[:limit]
    return [PaperHit(i.key, 0.0, [], {"metadata"}) for i in items]


def merge_backends(core: list[PaperHit], *others: list[PaperHit], limit: int) -> list[PaperHit]:
    """The hybrid ranking, with papers other backends found added after it (or marked, when the core
    already has them): a metadata or graph hit never outranks a passage that answers the words."""
    merged = {p.item_key: p for p in core}
    order = [p.item_key for p in core]
    for hits in others:
        for hit in hits:
            if hit.item_key in merged:
                merged[hit.item_key].found_by |= hit.found_by
            else:
                merged[hit.item_key] = hit
                order.append(hit.item_key)
    return [merged[k] for k in order][:limit]


def assess(papers: list[PaperHit], *, limit: int, query_terms: int) -> Quality:
    """Confidence in (0, 1) from result count, agreement of the two channels on the top papers (a paper
    both dense and sparse retrieval found is strong evidence), and the gap between the top score and the
    rest (a flat list means nothing stood out)."""
    if not papers:
        return Quality(0.0, ["no results"])
    count = min(1.0, len(papers) / max(1, min(limit, 5)))
    top = papers[: min(5, len(papers))]
    agreement = sum(1 for p in top if {"vector", "sparse"} <= p.found_by) / len(top)
    scores = [p.score for p in papers]
    spread = (scores[0] - scores[-1]) / scores[0] if scores[0] > 0 and len(scores) > 1 else 0.0
    confidence = 0.3 * count + 0.5 * agreement + 0.2 * min(1.0, spread * 2)
    reasons = []
    if not any("sparse" in p.found_by for p in papers):
        # No word of the query occurs in the library: whatever the dense side found is a guess.
        confidence *= 0.5
        reasons.append("no query word occurs in the library")
    if count < 1:
        reasons.append(f"only {len(papers)} results")
    if agreement < 0.4:
        reasons.append("full-text and keyword search disagree on the top papers")
    if spread < 0.1 and len(scores) > 1:
        reasons.append("no result stands out")
    if query_terms == 0:
        reasons.append("the query has no content words")
    return Quality(confidence, reasons)


def expansion_terms(store: GraphStore, text: str, *, limit: int = 3) -> list[str]:
    """Related terms mined from this library: concepts that co-occur (in the same papers) with the
    concepts whose names contain the query's words. Empty when the graph knows no such concept."""
    words = [w for w in re.findall(r"[\w-]+", text.casefold()) if len(w) > 2]
    if not words:
        return []
    seeds = {n.id for w in words for n in store.find_nodes(NodeKind.CONCEPT, name=w, limit=20)}
    if not seeds:
        return []
    papers = [
        e.source for e in store.edges_of(sorted(seeds), kinds=[EdgeKind.MENTIONS], direction=Direction.IN)
    ]
    together = Counter(
        e.target
        for e in store.edges_of(papers, kinds=[EdgeKind.MENTIONS], direction=Direction.OUT)
        if e.target not in seeds
    )
    names = {n.id: n.name for n in store.get_nodes([c for c, k in together.most_common(limit * 3) if k >= 2])}
    terms = [names[c] for c, _ in together.most_common(limit * 3) if c in names]
    return [t for t in terms if t.casefold() not in text.casefold()][:limit]
