"""Assemble the whole graph from the library and the per-paper facts.

Cheap enough to run after every update-db (seconds for thousands of papers): the expensive per-paper work
is cached in ``facts``; here references are matched to library items, concepts merged across papers,
author identities resolved and co-author counts derived.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from itertools import combinations

from agent_zot.graph.authors import resolve_authors
from agent_zot.graph.concepts import merge_concepts
from agent_zot.graph.facts import PaperFacts
from agent_zot.graph.matching import ReferenceMatcher, external_work_key, work_keys
from agent_zot.graph.model import Edge, EdgeKind, GraphData, Node, NodeKind, node_id, paper_id
from agent_zot.graph.references import Reference
from agent_zot.text import ascii_fold
from agent_zot.zotero.models import Item, Library

MAX_WORK_AUTHORS = 12  # a cited work's authors kept on its node (a 40-author consortium paper keeps 12)


@dataclass(slots=True)
class BuildStats:
    papers: int = 0
    references: int = 0
    citations_in_library: int = 0
    external_works: int = 0
    concepts: int = 0
    authors: int = 0
    edges: int = 0
    counts: dict[str, int] = field(default_factory=dict)

    def to_dict(self) -> dict[str, int]:
        return {
            "papers": self.papers,
            "references": self.references,
            "citations_in_library": self.citations_in_library,
            "external_works": self.external_works,
            "concepts": self.concepts,
            "authors": self.authors,
            "edges": self.edges,
        }


class _Graph:
    """Nodes by id and edges by (source, kind, target), so repeated facts collapse."""

    def __init__(self) -> None:
        self.nodes: dict[str, Node] = {}
        self.edges: dict[tuple[str, str, str], Edge] = {}

    def node(self, kind: NodeKind, key: str, **props: object) -> str:
        nid = node_id(kind, key)
        if nid not in self.nodes:
            self.nodes[nid] = Node(nid, kind, {k: v for k, v in props.items() if v not in (None, "")})
        return nid

    def edge(self, source: str, kind: EdgeKind, target: str, **props: object) -> Edge:
        edge = Edge(source, target, kind, {k: v for k, v in props.items() if v is not None})
        existing = self.edges.get(edge.key)
        if existing is None:
            self.edges[edge.key] = edge
            return edge
        return existing

    def data(self) -> GraphData:
        return GraphData(list(self.nodes.values()), list(self.edges.values()))


def build_graph(library: Library, facts: dict[str, PaperFacts]) -> tuple[GraphData, BuildStats]:
    items = list(library.items.values())
    graph = _Graph()
    stats = BuildStats(papers=len(items))
    for item in items:
        _add_paper(graph, item, library)
    stats.authors = _add_authors(graph, items)
    _add_citations(graph, items, facts, stats)
    stats.concepts = _add_concepts(graph, items, facts)
    data = graph.data()
    stats.edges = len(data.edges)
    return data, stats


def _add_paper(graph: _Graph, item: Item, library: Library) -> None:
    pid = graph.node(
        NodeKind.PAPER,
        item.key,
        title=item.title or "(untitled)",
        year=item.year,
        item_key=item.key,
        item_type=item.item_type,
        doi=item.doi.lower() or None,
    )
    if item.venue:
        vid = graph.node(NodeKind.VENUE, venue_key(item.venue), name=item.venue)
        graph.edge(pid, EdgeKind.PUBLISHED_IN, vid)
    for tag in item.tag_names():
        graph.edge(pid, EdgeKind.TAGGED, graph.node(NodeKind.TAG, tag, name=tag))
    for key in item.collection_keys:
        collection = library.collections.get(key)
        if collection is not None:
            cid = graph.node(NodeKind.COLLECTION, key, name=collection.name, path=collection.path)
            graph.edge(pid, EdgeKind.IN_COLLECTION, cid)


# The edges a paper's filing makes (its tags and collections): all a retag changes in the graph
FILING_KINDS = (EdgeKind.TAGGED, EdgeKind.IN_COLLECTION)


def filing_edges(library: Library, items: Iterable[Item]) -> GraphData:
    """The FILING_KINDS edges of these papers and the tag and collection nodes they reach, as a full
    build makes them."""
    graph = _Graph()
    for item in items:
        _add_paper(graph, item, library)
    edges = [e for e in graph.edges.values() if e.kind in FILING_KINDS]
    targets = {e.target for e in edges}
    return GraphData([n for n in graph.nodes.values() if n.id in targets], edges)


def venue_key(name: str) -> str:
    """Case, accents, punctuation and a trailing year folded: "Proc. of ACL 2020" ~ "proc of acl"."""
    folded = ascii_fold(name)
    folded = re.sub(r"\b(?:19|20)\d{2}\b", " ", folded)
    return " ".join(re.sub(r"[^\w\s]", " ", folded).split()) or name.casefold()


def _add_authors(graph: _Graph, items: list[Item]) -> int:
    index = resolve_authors(items)
    by_paper: dict[str, list[tuple[int, str]]] = {}
    for author in index:
        aid = graph.node(
            NodeKind.AUTHOR, author.key, name=author.name, creator_ids=sorted(author.creator_ids)
        )
        for item_key, position in author.papers:
            graph.edge(paper_id(item_key), EdgeKind.AUTHORED_BY, aid, position=position)
            by_paper.setdefault(item_key, []).append((position, aid))
    pairs: Counter[tuple[str, str]] = Counter()
    for authors in by_paper.values():
        ids = sorted({aid for _, aid in authors})
        pairs.update(combinations(ids, 2))
    for (first, second), count in pairs.items():
        graph.edge(first, EdgeKind.CO_AUTHOR, second, count=count)
    return len(index)


def _add_citations(
    graph: _Graph, items: Iterable[Item], facts: dict[str, PaperFacts], stats: BuildStats
) -> None:
    matcher = ReferenceMatcher(items)
    filed: dict[str, str] = {}  # any key of a work (DOI, title, authors) -> the key its node has
    for key, paper in facts.items():
        source = paper_id(key)
        if source not in graph.nodes:
            continue
        for reference in paper.references:
            stats.references += 1
            match = matcher.match(reference, citing_key=key)
            if match is not None:
                edge = graph.edge(
                    source,
                    EdgeKind.CITES,
                    paper_id(match.item_key),
                    confidence=match.confidence,
                    method=match.method,
                )
                edge.props["confidence"] = max(edge.props.get("confidence", 0.0), match.confidence)
                continue
            wid = _work_node(graph, reference, filed)
            if wid is not None:
                graph.edge(source, EdgeKind.CITES, wid, confidence=1.0, method="external")
    stats.citations_in_library = sum(
        1 for e in graph.edges.values() if e.kind is EdgeKind.CITES and e.target.startswith("paper:")
    )
    stats.external_works = sum(1 for n in graph.nodes.values() if n.kind is NodeKind.EXTERNAL_WORK)


def _work_node(graph: _Graph, reference: Reference, filed: dict[str, str]) -> str | None:
    """The node of a cited work outside the library: one per work, though one list gives its DOI and
    another only its title; it keeps every identifier and the fuller author list any of them gives."""
    keys = work_keys(reference)
    if not keys:
        return None
    work = next((filed[k] for k in keys if k in filed), None) or external_work_key(reference) or keys[0]
    for key in keys:
        filed.setdefault(key, work)
    # every author (as "A; B; C"): "Rowstron and Druschel" names a work as it names a paper
    authors = "; ".join(reference.authors[:MAX_WORK_AUTHORS]) or None
    wid = graph.node(
        NodeKind.EXTERNAL_WORK,
        work,
        title=reference.title or _untitled(reference),
        year=reference.year,
        doi=reference.doi,
        arxiv=reference.arxiv,
        first_author=reference.authors[0] if reference.authors else None,
        authors=authors,
        venue=reference.venue or None,
        untitled=True if not reference.title else None,
    )
    props = graph.nodes[wid].props
    for name, value in (("doi", reference.doi), ("arxiv", reference.arxiv), ("venue", reference.venue)):
        if value and not props.get(name):
            props[name] = value
    if authors and len(authors) > len(str(props.get("authors") or "")):
        props["authors"] = authors
    if reference.title and props.get("untitled"):
        props["title"] = reference.title
        del props["untitled"]
    return wid


def _untitled(reference: Reference) -> str:
    """What stands for the title of a reference that prints none: its text, without its number."""
    text = re.sub(r"^\s*(?:\[\d+\]|\d+[.)])\s*", "", reference.raw)
    return text[:160]


def _add_concepts(graph: _Graph, items: Iterable[Item], facts: dict[str, PaperFacts]) -> int:
    per_paper = {key: f.keyphrases for key, f in facts.items() if f.keyphrases}
    # Titles and abstracts let the merge see acronym definitions ("convolutional neural network (CNN)").
    texts = {i.key: f"{i.title}\n{i.abstract}" for i in items if i.key in per_paper}
    concepts = merge_concepts(per_paper, texts=texts)
    for key, mentions in concepts.per_paper.items():
        source = paper_id(key)
        if source not in graph.nodes:
            continue
        for concept_key, weight in mentions:
            concept = concepts.concepts[concept_key]
            cid = graph.node(
                NodeKind.CONCEPT,
                concept_key,
                name=concept.name,
                type=concept.type.value,
                aliases=sorted(concept.aliases),
                papers=concept.doc_freq,
            )
            graph.edge(source, EdgeKind.MENTIONS, cid, weight=round(weight, 4))
    return sum(1 for n in graph.nodes.values() if n.kind is NodeKind.CONCEPT)
