"""The embedded graph is read from its tables, not loaded: a fresh store's first answers and a rebuild's
write cost memory in proportion to the answer or a batch, never to the graph; and what is computed from the
whole graph (PageRank, the cited-works tables) is computed once per graph version."""

from __future__ import annotations

import tracemalloc
from collections.abc import Callable, Sequence
from itertools import pairwise
from pathlib import Path
from typing import TypeVar

import pytest

from agent_zot.graph.model import Edge, EdgeKind, GraphData, Node, NodeKind
from agent_zot.graph.store import Direction
from agent_zot.graph.store_sqlite import SqliteGraphStore
from agent_zot.services.explore.citations import influence
from agent_zot.services.resolve.works import works_index
from agent_zot.state.db import connect
from agent_zot.zotero.models import Library

T = TypeVar("T")


def library_graph(papers: int) -> GraphData:
    """A library-shaped graph: papers with 3 authors each (and their co-author pairs), a venue, 3 concepts,
    4 citations (one of them to a work the library does not hold)."""
    nodes = [
        Node(f"paper:P{i:05d}", NodeKind.PAPER, {"title": f"Paper {i} on graphs", "year": 1990 + i % 30})
        for i in range(papers)
    ]
    authors = papers // 2
    nodes += [
        Node(f"author:a{i:05d}", NodeKind.AUTHOR, {"name": f"Author Number {i}"}) for i in range(authors)
    ]
    nodes += [
        Node(f"concept:c{i:04d}", NodeKind.CONCEPT, {"name": f"concept {i}"}) for i in range(papers // 10)
    ]
    nodes += [
        Node(f"work:w{i:04d}", NodeKind.EXTERNAL_WORK, {"title": f"Work {i}"}) for i in range(papers // 5)
    ]
    nodes.append(Node("venue:v", NodeKind.VENUE, {"name": "Venue"}))
    edges: dict[tuple[str, str, str], Edge] = {}

    def add(source: str, kind: EdgeKind, target: str, **props: object) -> None:
        edges[(source, kind.value, target)] = Edge(source, target, kind, dict(props))

    for i in range(papers):
        paper = f"paper:P{i:05d}"
        team = sorted({f"author:a{(i * k * 7 + k) % authors:05d}" for k in (1, 2, 3)})
        for position, author in enumerate(team):
            add(paper, EdgeKind.AUTHORED_BY, author, position=position)
        for a, b in pairwise(team):
            add(a, EdgeKind.CO_AUTHOR, b, count=1)
        add(paper, EdgeKind.PUBLISHED_IN, "venue:v")
        for k in (1, 2, 3):
            add(paper, EdgeKind.MENTIONS, f"concept:c{(i * k) % (papers // 10):04d}", weight=0.5)
            add(paper, EdgeKind.CITES, f"paper:P{(i * 31 + k) % papers:05d}", confidence=0.9, method="doi")
        add(paper, EdgeKind.CITES, f"work:w{i % (papers // 5):04d}", confidence=0.8, method="title")
    return GraphData(nodes, list(edges.values()))


def peak_bytes(run: Callable[[], T]) -> tuple[T, int]:
    """What ``run`` allocates at its peak (Python's allocations; what existed before is not counted)."""
    tracemalloc.start()
    try:
        result = run()
        return result, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.fixture(scope="module")
def graph() -> GraphData:
    return library_graph(4000)


@pytest.fixture(scope="module")
def graph_size(graph: GraphData) -> int:
    """The Python memory the graph itself takes (its nodes and edges, as the builder hands them over)."""
    return peak_bytes(lambda: library_graph(4000))[1]


def test_a_fresh_store_answers_without_loading_the_graph(
    tmp_path: Path, graph: GraphData, graph_size: int
) -> None:
    path = tmp_path / "state.sqlite"
    writer = SqliteGraphStore(path)
    writer.replace_all(graph)
    writer.close()
    fresh = SqliteGraphStore(path)
    try:

        def first_requests() -> tuple[GraphData, list[Node], list[Edge]]:
            return (
                fresh.neighbourhood(["paper:P00042"], direction=Direction.BOTH, hops=2, limit=100),
                fresh.find_nodes(NodeKind.AUTHOR, name="author number 17"),
                fresh.edges_of(["author:a00017"], kinds=[EdgeKind.AUTHORED_BY], direction=Direction.IN),
            )

        (around, authors, authored), peak = peak_bytes(first_requests)
        assert len(around.nodes) == 100 and around.nodes[0].id == "paper:P00042"
        assert authors[0].id == "author:a00017"  # the exact name first, then 170, 171, ...
        assert authored and all(e.target == "author:a00017" for e in authored)
        assert peak < graph_size / 20, (peak, graph_size)
    finally:
        fresh.close()


def test_a_rebuild_streams_into_the_tables(tmp_path: Path, graph: GraphData, graph_size: int) -> None:
    """Writing the whole graph holds a batch of rows at a time, not a second copy of the graph; and an
    unchanged rebuild is still no write at all."""
    store = SqliteGraphStore(tmp_path / "state.sqlite")
    try:
        _, peak = peak_bytes(lambda: store.replace_all(graph))
        assert peak < graph_size / 4, (peak, graph_size)
        assert store.counts()[EdgeKind.CITES.value] == sum(e.kind is EdgeKind.CITES for e in graph.edges)
        version = store.version()
        store.replace_all(GraphData(list(reversed(graph.nodes)), list(reversed(graph.edges))))
        assert store.version() == version
    finally:
        store.close()


class CountingStore(SqliteGraphStore):
    """The real store, counting the graph-wide reads the caches should spare."""

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.reads: list[str] = []

    def all_edges(self, kinds: Sequence[EdgeKind]) -> list[Edge]:
        self.reads.append("all_edges")
        return super().all_edges(kinds)

    def find_nodes(self, kind: NodeKind, *, name: str | None = None, limit: int = 50) -> list[Node]:
        if limit > 10_000:  # every node of a kind
            self.reads.append(f"find_nodes {kind.value}")
        return super().find_nodes(kind, name=name, limit=limit)


def test_pagerank_is_computed_once_per_graph_version(tmp_path: Path) -> None:
    store = CountingStore(tmp_path / "state.sqlite")
    try:
        store.replace_all(library_graph(200))
        first = influence(store, None, limit=5)
        assert influence(store, None, limit=5).data == first.data
        assert store.reads.count("all_edges") == 1  # the second answer reused the ranking
        # a citation's confidence changes (no count changes): the ranking follows it
        strong = Edge("paper:P00003", "paper:P00000", EdgeKind.CITES, {"confidence": 1.0})
        store.upsert(GraphData([], [Edge(f"paper:P{i:05d}", "paper:P00000", EdgeKind.CITES, {"confidence": 1.0})
                                    for i in range(1, 60)] + [strong]))  # fmt: skip
        again = influence(store, None, limit=5)
        assert store.reads.count("all_edges") == 2
        assert again.data != first.data and again.data["papers"][0]["title"] == "Paper 0 on graphs"
    finally:
        store.close()


def test_cited_works_tables_are_built_once_per_graph_version(tmp_path: Path) -> None:
    store = CountingStore(tmp_path / "state.sqlite")
    library = Library(tmp_path, tmp_path / "zotero.sqlite", None, [], {}, {}, [], [], {}, identity="lib")
    try:
        store.replace_all(library_graph(200))
        first = works_index(store, library)
        assert first is not None and works_index(store, library) is first
        assert store.reads.count("find_nodes ExternalWork") == 1
        store.upsert(GraphData([Node("work:new", NodeKind.EXTERNAL_WORK, {"title": "A New Work"})]))
        rebuilt = works_index(store, library)
        assert rebuilt is not None and "work:new" in rebuilt.nodes
        assert store.reads.count("find_nodes ExternalWork") == 2
    finally:
        store.close()


def test_an_older_state_file_gains_the_name_column_and_indexes(tmp_path: Path) -> None:
    """A state file an older agent-zot wrote (no name column, the old target index) is searched by name
    as before, once the store has opened it."""
    path = tmp_path / "state.sqlite"
    conn = connect(path)
    conn.executescript(
        "DROP TABLE graph_nodes; CREATE TABLE graph_nodes (id TEXT PRIMARY KEY, kind TEXT NOT NULL, "
        "props TEXT NOT NULL); CREATE INDEX graph_edges_target ON graph_edges(target);"
    )
    conn.executemany(
        "INSERT INTO graph_nodes VALUES (?, ?, ?)",
        [("author:m", "Author", '{"name":"Jürgen MÜLLER"}'), ("paper:P", "Paper", '{"title":"Graphs"}')],
    )
    conn.close()
    store = SqliteGraphStore(path)
    try:
        assert [n.id for n in store.find_nodes(NodeKind.AUTHOR, name="müller")] == ["author:m"]
        assert [n.id for n in store.find_nodes(NodeKind.PAPER, name="GRAPH")] == ["paper:P"]
        conn = connect(path)
        indexes = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
        conn.close()
        assert {"graph_edges_target_kind", "graph_nodes_kind_name"} <= indexes
        assert "graph_edges_target" not in indexes
    finally:
        store.close()
