"""The graph's schema: node and edge kinds, and the records every part of the graph code passes around.

Node ids are strings with the kind as prefix, stable across builds so stores can MERGE on them:
``paper:<item key>``, ``author:<identity key>``, ``venue:<normalised name>``, ``concept:<normalised phrase>``,
``tag:<name>``, ``collection:<collection key>``, ``work:<doi:…|arxiv:…|title hash>``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Protocol

# What build_graph makes, by version: bump it when its output changes, so that update-db rebuilds graphs an
# older agent-zot built (2: cited works merged across reference lists, with every author and the venue;
# 3: one node per paper, however many records the library has of it; 4: a numbered reference's number on its
# CITES edge to a cited work; 5: built with the memo an edit patches it from, graph/patch.py; 6: the
# entries of one cited work that keys kept apart joined, graph/cited_works.py).
GRAPH_BUILD = 6


class NodeKind(StrEnum):
    PAPER = "Paper"
    AUTHOR = "Author"
    VENUE = "Venue"
    CONCEPT = "Concept"
    TAG = "Tag"
    COLLECTION = "Collection"
    EXTERNAL_WORK = "ExternalWork"


class EdgeKind(StrEnum):
    AUTHORED_BY = "AUTHORED_BY"  # Paper -> Author; props: position (0-based)
    PUBLISHED_IN = "PUBLISHED_IN"  # Paper -> Venue
    CITES = "CITES"  # Paper -> Paper | ExternalWork; props: confidence (0-1), method, ref_number
    MENTIONS = "MENTIONS"  # Paper -> Concept; props: weight (0-1)
    TAGGED = "TAGGED"  # Paper -> Tag
    IN_COLLECTION = "IN_COLLECTION"  # Paper -> Collection
    CO_AUTHOR = "CO_AUTHOR"  # Author -> Author (derived, stored once per pair, lower id first); props: count


class ConceptType(StrEnum):
    METHOD = "Method"
    DATASET = "Dataset"
    THEORY = "Theory"
    CONCEPT = "Concept"


PREFIX = {
    NodeKind.PAPER: "paper",
    NodeKind.AUTHOR: "author",
    NodeKind.VENUE: "venue",
    NodeKind.CONCEPT: "concept",
    NodeKind.TAG: "tag",
    NodeKind.COLLECTION: "collection",
    NodeKind.EXTERNAL_WORK: "work",
}


def node_id(kind: NodeKind, key: str) -> str:
    return f"{PREFIX[kind]}:{key}"


def paper_id(item_key: str) -> str:
    return node_id(NodeKind.PAPER, item_key)


@dataclass(slots=True)
class Node:
    """``props`` hold plain JSON values only (str, int, float, bool, None, lists of those): every store
    keeps them as properties. Papers: title, year, item_key, item_type; authors: name, creator_ids;
    venues and tags: name; concepts: name, type, aliases; collections: name, path; external works:
    title, year, doi, arxiv, first_author."""

    id: str
    kind: NodeKind
    props: dict[str, Any] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return str(self.props.get("name") or self.props.get("title") or self.id)


@dataclass(slots=True)
class Edge:
    source: str
    target: str
    kind: EdgeKind
    props: dict[str, Any] = field(default_factory=dict)

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.source, self.kind.value, self.target)


@dataclass(slots=True)
class GraphData:
    """A set of nodes and edges: a whole graph, a subgraph, or a batch to write."""

    nodes: list[Node] = field(default_factory=list)
    edges: list[Edge] = field(default_factory=list)

    def node_ids(self) -> set[str]:
        return {n.id for n in self.nodes}


class GraphRows(Protocol):
    """What a whole-graph write reads: nodes and edges, each iterated once (a GraphData, or a built graph
    whose edges are made as they are read)."""

    @property
    def nodes(self) -> Iterable[Node]: ...

    @property
    def edges(self) -> Iterable[Edge]: ...


class EdgeStream:
    """Edges made when they are read, part by part, from the compact tables a build keeps: a whole
    library's edges as objects were most of a first build's memory (about 0.9 GB at 1.9 million).
    Iterable again and again; each part yields its edges once (their keys are unique)."""

    def __init__(self, parts: Sequence[Callable[[], Iterator[Edge]]]) -> None:
        self._parts = list(parts)
        self._count: int | None = None

    def __iter__(self) -> Iterator[Edge]:
        for part in self._parts:
            yield from part()

    def __len__(self) -> int:
        if self._count is None:
            self._count = sum(1 for _ in self)
        return self._count


@dataclass(slots=True)
class BuiltGraph:
    """A whole graph as build_graph makes it: its nodes, and its edges as a stream."""

    nodes: list[Node]
    edges: EdgeStream
