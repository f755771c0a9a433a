"""Assemble the whole graph from the library and the per-paper facts.

Cheap enough to run after every update-db (seconds for thousands of papers): the expensive per-paper work
is cached in ``facts``; here references are matched to library items, concepts merged across papers,
author identities resolved and co-author counts derived.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from itertools import combinations

import numpy as np

from agent_zot.graph.authors import resolve_authors
from agent_zot.graph.cited_works import merge_variants, work_node
from agent_zot.graph.concept_merge import Concept, ConceptLedger
from agent_zot.graph.facts import PaperFacts
from agent_zot.graph.matching import ReferenceMatcher
from agent_zot.graph.model import (
    BuiltGraph,
    Edge,
    EdgeKind,
    EdgeStream,
    GraphData,
    Node,
    NodeKind,
    node_id,
    paper_id,
)
from agent_zot.graph.references import reference_number
from agent_zot.text import ascii_fold
from agent_zot.zotero.copies import canonical_keys
from agent_zot.zotero.models import Item, Library


@dataclass(slots=True)
class BuildStats:
    papers: int = 0
    references: int = 0
    citations_in_library: int = 0
    external_works: int = 0
    concepts: int = 0
    authors: int = 0
    papers_without_creators: int = 0  # none in Zotero: why a graph can have "0 authors"
    edges: int = 0
    patched_papers: int = 0  # a patch: the papers it wrote again (0: built whole)
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
        } | {
            name: value
            for name, value in (
                ("papers_without_creators", self.papers_without_creators),
                ("patched_papers", self.patched_papers),
            )
            if value
        }

    @classmethod
    def from_dict(cls, stored: Mapping[str, int]) -> BuildStats:
        """The stats `to_dict` wrote (the per-kind ``counts`` are not in it)."""

        def count(name: str) -> int:
            return int(stored.get(name, 0))

        return cls(
            papers=count("papers"),
            references=count("references"),
            citations_in_library=count("citations_in_library"),
            external_works=count("external_works"),
            concepts=count("concepts"),
            authors=count("authors"),
            papers_without_creators=count("papers_without_creators"),
            edges=count("edges"),
            patched_papers=count("patched_papers"),
        )


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


def build_graph(
    library: Library, facts: dict[str, PaperFacts]
) -> tuple[BuiltGraph, BuildStats, ConceptLedger]:
    """The graph of the library: one node per paper, however many records it has (the copies' filing,
    references and keyphrases all count for it, and its node names them); and the concept ledger a later
    edit patches the concepts with. Its edges, but for the citations, are made as they are read, from the
    library, the author index and the concepts (EdgeStream): the build holds no object per edge."""
    items = list(library.items.values())
    canonical = canonical_keys(items)
    papers = [i for i in items if canonical.get(i.key, i.key) == i.key]
    copies: dict[str, list[str]] = {}
    for key, standing in canonical.items():
        if key != standing:
            copies.setdefault(standing, []).append(key)
    graph = _Graph()
    stats = BuildStats(papers=len(papers))
    records: dict[str, list[Item]] = {}  # a paper node's records: what its filing edges are read from
    for item in papers:
        node = paper_node(item, copies=sorted(copies.get(item.key, [])))
        graph.nodes[node.id] = node
        _add_filing_nodes(graph, item, library)
        records[node.id] = [item]
    for item in items:
        if item.key in canonical and canonical[item.key] != item.key:
            _add_filing_nodes(graph, item, library)
            records.setdefault(paper_id(canonical[item.key]), []).append(item)
    authored, co_authors, stats.authors = _add_authors(graph, papers)
    stats.papers_without_creators = sum(1 for item in papers if not item.authors)
    cites = _add_citations(graph, items, facts, stats, canonical)
    ledger, mentions = _add_concepts(graph, papers, _facts_per_paper(facts, canonical))
    stats.concepts = sum(1 for n in graph.nodes.values() if n.kind is NodeKind.CONCEPT)

    def filing() -> Iterator[Edge]:
        for pid, filed in records.items():
            seen: set[str] = set()
            for item in filed:
                for kind, node in _filing(item, library):
                    if node.id not in seen:
                        seen.add(node.id)
                        yield Edge(pid, node.id, kind, {})

    edges = EdgeStream([filing, authored, co_authors, lambda: _cite_edges(cites), mentions])
    stats.edges = len(edges)
    return BuiltGraph(list(graph.nodes.values()), edges), stats, ledger


def paper_node(item: Item, copies: list[str] | None = None) -> Node:
    """A paper's node; ``copies``: the paper's other records in the library."""
    props = {
        "title": item.title or "(untitled)",
        "year": item.year,
        "item_key": item.key,
        "item_type": item.item_type,
        "doi": item.doi.lower() or None,
        "copies": copies or None,
    }
    return Node(paper_id(item.key), NodeKind.PAPER, {k: v for k, v in props.items() if v not in (None, "")})


def _filing(item: Item, library: Library) -> Iterator[tuple[EdgeKind, Node]]:
    """The item's venue, tags and collections: each edge's kind and the node it reaches. A node's id is
    unique within one item's filing (a venue, a tag and a collection differ by prefix)."""
    if item.venue:
        yield EdgeKind.PUBLISHED_IN, _node(NodeKind.VENUE, venue_key(item.venue), name=item.venue)
    for tag in item.tag_names():
        yield EdgeKind.TAGGED, _node(NodeKind.TAG, tag, name=tag)
    for key in item.collection_keys:
        collection = library.collections.get(key)
        if collection is not None:
            node = _node(NodeKind.COLLECTION, key, name=collection.name, path=collection.path)
            yield EdgeKind.IN_COLLECTION, node


def _node(kind: NodeKind, key: str, **props: object) -> Node:
    return Node(node_id(kind, key), kind, {k: v for k, v in props.items() if v not in (None, "")})


def _add_filing_nodes(graph: _Graph, item: Item, library: Library) -> None:
    for _, node in _filing(item, library):
        graph.nodes.setdefault(node.id, node)  # the first record to name a node names it


def _add_filing(graph: _Graph, item: Item, library: Library, pid: str) -> None:
    """The item's venue, tags and collections, as edges of the paper node ``pid``."""
    for kind, node in _filing(item, library):
        graph.nodes.setdefault(node.id, node)
        graph.edge(pid, kind, node.id)


# The edges a paper's filing makes (its tags and collections): all a retag changes in the graph
FILING_KINDS = (EdgeKind.TAGGED, EdgeKind.IN_COLLECTION)


def filing_edges(library: Library, items: Iterable[Item]) -> tuple[list[str], GraphData]:
    """The paper nodes these items are filed under and the FILING_KINDS edges they have, with the tag and
    collection nodes those reach, as a full build makes them: a paper's edges are those of all its
    records, so every copy of an item's paper is read."""
    canonical = canonical_keys(library.items.values())
    papers = sorted({canonical.get(item.key, item.key) for item in items})
    records = [k for k, standing in canonical.items() if standing in papers] + [
        p for p in papers if p not in canonical
    ]
    graph = _Graph()
    for key in records:
        _add_filing(graph, library.items[key], library, paper_id(canonical.get(key, key)))
    edges = [e for e in graph.edges.values() if e.kind in FILING_KINDS]
    targets = {e.target for e in edges}
    return [paper_id(p) for p in papers], GraphData(
        [n for n in graph.nodes.values() if n.id in targets], edges
    )


def venue_key(name: str) -> str:
    """Case, accents, punctuation and a trailing year folded: "Proc. of ACL 2020" ~ "proc of acl"."""
    folded = ascii_fold(name)
    folded = re.sub(r"\b(?:19|20)\d{2}\b", " ", folded)
    return " ".join(re.sub(r"[^\w\s]", " ", folded).split()) or name.casefold()


EdgeParts = Callable[[], Iterator[Edge]]


def _add_authors(graph: _Graph, items: list[Item]) -> tuple[EdgeParts, EdgeParts, int]:
    """The author nodes; the AUTHORED_BY and CO_AUTHOR edges as parts of an EdgeStream; the number of
    authors. Co-authorship is counted over authors' ranks (in id order) packed into one int per pair."""
    index = resolve_authors(items)
    authors = list(index)
    ids = [
        graph.node(NodeKind.AUTHOR, a.key, name=a.name, creator_ids=sorted(a.creator_ids)) for a in authors
    ]
    ordered = sorted(set(ids))
    rank = {aid: r for r, aid in enumerate(ordered)}
    by_paper: dict[str, set[int]] = {}
    for author, aid in zip(authors, ids, strict=True):
        for item_key, _ in author.papers:
            by_paper.setdefault(item_key, set()).add(rank[aid])
    size = max(len(ordered), 1)
    pairs = np.fromiter(
        (
            first * size + second
            for team in by_paper.values()
            for first, second in combinations(sorted(team), 2)
        ),
        dtype=np.int64,
    )
    del by_paper
    codes, counts = np.unique(pairs, return_counts=True)

    def authored() -> Iterator[Edge]:
        for author, aid in zip(authors, ids, strict=True):
            seen: set[str] = set()
            for item_key, position in author.papers:
                if item_key not in seen:  # an author twice on one paper: the first position
                    seen.add(item_key)
                    yield Edge(paper_id(item_key), aid, EdgeKind.AUTHORED_BY, {"position": position})

    def co_authors() -> Iterator[Edge]:
        for code, count in zip(codes.tolist(), counts.tolist(), strict=True):
            first, second = divmod(code, size)
            yield Edge(ordered[first], ordered[second], EdgeKind.CO_AUTHOR, {"count": count})

    return authored, co_authors, len(index)


def _add_citations(
    graph: _Graph,
    items: Iterable[Item],
    facts: dict[str, PaperFacts],
    stats: BuildStats,
    canonical: dict[str, str],
) -> Citations:
    """Each paper's references: to the library paper they match (any of its records), else to a cited work;
    the work nodes are added to ``graph``, the CITES edges returned."""
    matcher = ReferenceMatcher(items)
    filed: dict[str, str] = {}  # any key of a work (DOI, title, authors) -> the key its node has
    cites: Citations = {}
    kind = EdgeKind.CITES.value
    for key, paper in facts.items():
        source = paper_id(canonical.get(key, key))
        if source not in graph.nodes:
            continue
        for reference in paper.references:
            stats.references += 1
            match = matcher.match(reference, citing_key=key)
            if match is not None:
                target = paper_id(canonical.get(match.item_key, match.item_key))
                if target == source:  # a copy's reference to another record of itself
                    continue
                held = cites.get((source, kind, target))
                cites[(source, kind, target)] = (
                    (match.confidence, match.method, None)
                    if held is None
                    else (
                        max(held[0], match.confidence),
                        held[1],
                        held[2],
                    )  # the surest match, the first method
                )
                continue
            wid = work_node(graph.nodes, reference, filed)
            if wid is not None:
                # the citing sentence is found by this number at answer time, without reparsing the list
                number = reference_number(reference.raw)
                held = cites.get((source, kind, wid))
                if held is None:
                    cites[(source, kind, wid)] = (1.0, "external", number)
                elif held[2] is None and number is not None:
                    cites[(source, kind, wid)] = (held[0], held[1], number)
    merge_variants(graph.nodes, cites)
    stats.citations_in_library = sum(1 for _, _, target in cites if target.startswith("paper:"))
    stats.external_works = sum(1 for n in graph.nodes.values() if n.kind is NodeKind.EXTERNAL_WORK)
    return cites


# A CITES edge as a build holds it: (source, kind, target) -> (confidence, method, ref_number); a tuple
# each, not an Edge with a props dict (a third of the memory)
Citations = dict[tuple[str, str, str], tuple[float, str, int | None]]


def _cite_edges(cites: Citations) -> Iterator[Edge]:
    for (source, _, target), (confidence, method, number) in cites.items():
        props: dict[str, object] = {"confidence": confidence, "method": method}
        if number is not None:
            props["ref_number"] = number
        yield Edge(source, target, EdgeKind.CITES, props)


def citation_edges(library: Library, facts: dict[str, PaperFacts]) -> tuple[list[str], GraphData, BuildStats]:
    """Every paper's CITES edges and the cited works they reach, as a full build makes them: what a patch
    writes when an edit may have changed which paper a reference list names."""
    items = list(library.items.values())
    canonical = canonical_keys(items)
    graph = _Graph()
    papers = [paper_id(i.key) for i in items if canonical.get(i.key, i.key) == i.key]
    for pid in papers:  # stand-ins: only their ids are read
        graph.nodes[pid] = Node(pid, NodeKind.PAPER, {})
    stats = BuildStats()
    cites = _add_citations(graph, items, facts, stats, canonical)
    works = [n for n in graph.nodes.values() if n.kind is NodeKind.EXTERNAL_WORK]
    return papers, GraphData(works, list(_cite_edges(cites))), stats


def _facts_per_paper(facts: dict[str, PaperFacts], canonical: dict[str, str]) -> dict[str, PaperFacts]:
    """The facts of each paper: its standing record's, or a copy's when that record has none."""
    merged: dict[str, PaperFacts] = {}
    for key, paper in facts.items():
        standing = canonical.get(key, key)
        if standing not in merged or (not merged[standing].keyphrases and paper.keyphrases):
            merged[standing] = paper
    return merged


def concept_inputs(
    items: Iterable[Item], facts: dict[str, PaperFacts]
) -> tuple[dict[str, list[tuple[str, float]]], dict[str, str]]:
    """Each paper's keyphrases, and its title and abstract, where the merge sees acronym definitions
    ("convolutional neural network (CNN)")."""
    per_paper = {key: f.keyphrases for key, f in facts.items() if f.keyphrases}
    texts = {i.key: concept_text(i) for i in items if i.key in per_paper}
    return per_paper, texts


def concept_text(item: Item) -> str:
    return f"{item.title}\n{item.abstract}"


def _add_concepts(
    graph: _Graph, items: Iterable[Item], facts: dict[str, PaperFacts]
) -> tuple[ConceptLedger, EdgeParts]:
    """The concept nodes, the ledger, and the MENTIONS edges as a part of an EdgeStream."""
    per_paper, texts = concept_inputs(items, facts)
    ledger = ConceptLedger.build(per_paper, texts)
    concepts = ledger.concept_set()
    mentions = {key: found for key, found in concepts.per_paper.items() if paper_id(key) in graph.nodes}
    for found in mentions.values():
        for concept_key, _ in found:
            _concept_node(graph, concepts.concepts, concept_key)

    def edges() -> Iterator[Edge]:
        for key, found in mentions.items():
            seen: set[str] = set()
            for concept_key, weight in found:
                cid = node_id(NodeKind.CONCEPT, concept_key)
                if cid not in seen:
                    seen.add(cid)
                    yield Edge(paper_id(key), cid, EdgeKind.MENTIONS, {"weight": round(weight, 4)})

    return ledger, edges


def _concept_node(graph: _Graph, concepts: dict[str, Concept], concept_key: str) -> str:
    concept = concepts[concept_key]
    return graph.node(
        NodeKind.CONCEPT,
        concept_key,
        name=concept.name,
        type=concept.type.value,
        aliases=sorted(concept.aliases),
        papers=concept.doc_freq,
    )
