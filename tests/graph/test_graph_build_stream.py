"""Issue 57 item 1: a first build's memory does not grow with edges held as objects. build_graph makes its
edges as they are read, from the library, the author index, the concepts and the citations kept as tuples;
the store's whole-graph write reads them once. A real library from the fixture builder."""

from __future__ import annotations

import gc
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from itertools import combinations
from pathlib import Path

import pytest

from agent_zot.graph.build import build_graph, venue_key
from agent_zot.graph.facts import PaperFacts
from agent_zot.graph.model import Edge, EdgeKind, GraphData, Node, NodeKind, node_id, paper_id
from agent_zot.graph.references import Reference
from agent_zot.graph.store_sqlite import SqliteGraphStore
from agent_zot.zotero.builder import ZoteroLibraryBuilder
from agent_zot.zotero.models import Library
from agent_zot.zotero.reader import load_library
from tests.conftest import guard_database

PEOPLE = [
    ("Ada", "Lovelace"),
    ("Alan", "Turing"),
    ("Grace", "Hopper"),
    ("Edsger", "Dijkstra"),
    ("Barbara", "Liskov"),
]
TOPICS = ["consensus protocols", "garbage collection", "type systems", "lock service", "stream processing"]


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Library, dict[str, PaperFacts]]:
    b = ZoteroLibraryBuilder(tmp_path_factory.mktemp("stream") / "Zotero", shape="z7", seed=57)
    shelves = [b.add_collection(name) for name in ("Systems", "Languages")]
    for n in range(12):  # overlapping teams: shared co-authors with counts above one
        b.add_item(
            "journalArticle",
            title=f"On {TOPICS[n % 5]} part {n}",
            date=str(2000 + n),
            publicationTitle=f"Proc. of Venue {n % 3} {2000 + n}",  # one venue per n % 3, years folded
            creators=[PEOPLE[(n + k) % 5] for k in range(1 + n % 3)],
            tags=[f"tag{n % 4}", "shared"],
            collections=[shelves[n % 2]] if n % 3 else [],
        )
    library = load_library(guard_database(b.build()))
    keys = sorted(library.items)
    facts = {}
    for i, key in enumerate(keys):
        cited = library.items[keys[i - 1]].title
        references = [
            Reference(f"[1] {cited}", title=cited),
            Reference("[2] An outside work", ("Someone",), 1999, "An outside work", doi="10.1/out"),
        ]
        facts[key] = PaperFacts(key, references, [(TOPICS[i % 5], 0.5), ("graph", 0.25)])
    return library, facts


def _live_edges() -> int:
    gc.collect()
    return sum(1 for obj in gc.get_objects() if type(obj) is Edge)


def test_a_built_graph_holds_no_edge_objects(
    built: tuple[Library, dict[str, PaperFacts]],
) -> None:
    library, facts = built
    before = _live_edges()
    graph, stats, _ = build_graph(library, facts)
    held = _live_edges() - before
    edges = list(graph.edges)
    cites = sum(1 for e in edges if e.kind is EdgeKind.CITES)
    assert len(edges) == stats.edges > 3 * cites > 0
    assert held == 0  # the citations too: kept as tuples, since a merge of cited works moves them
    assert list(graph.edges) == edges  # made again, the same, each time it is read


def test_the_store_holds_the_streamed_edges(
    built: tuple[Library, dict[str, PaperFacts]], tmp_path: Path
) -> None:
    library, facts = built
    graph, stats, _ = build_graph(library, facts)
    store = SqliteGraphStore(tmp_path / "state.sqlite")
    try:
        store.replace_all(graph)
        stored = store.all_edges([])
        assert [e.key for e in stored] == sorted(e.key for e in graph.edges)
        assert {e.key: e.props for e in stored} == {e.key: e.props for e in graph.edges}
        assert store.counts()["Paper"] == stats.papers
    finally:
        store.close()


@dataclass(slots=True)
class _Once:
    """Rows that can be read only once: what a whole-graph write must cope with."""

    nodes: list[Node]
    edge_list: list[Edge] = field(default_factory=list)
    reads: int = 0

    @property
    def edges(self) -> Iterator[Edge]:
        self.reads += 1
        return iter(self.edge_list)


def test_replace_all_reads_the_edges_once(tmp_path: Path) -> None:
    nodes = [Node(paper_id(k), NodeKind.PAPER, {"title": k}) for k in ("A", "B", "C")]
    edges = [Edge(paper_id("A"), paper_id(t), EdgeKind.CITES, {"confidence": 1.0}) for t in ("B", "C")]
    rows = _Once(nodes, edges)
    store = SqliteGraphStore(tmp_path / "state.sqlite")
    try:
        store.replace_all(rows)
        assert rows.reads == 1
        assert store.all_edges([]) == GraphData(nodes, edges).edges
    finally:
        store.close()


def test_streamed_edges_are_what_the_library_says(built: tuple[Library, dict[str, PaperFacts]]) -> None:
    """The derived kinds against a plain count: co-authors from the authorship edges, filing from the items."""
    library, facts = built
    graph, _, _ = build_graph(library, facts)
    edges = list(graph.edges)
    teams: dict[str, set[str]] = {}
    for e in edges:
        if e.kind is EdgeKind.AUTHORED_BY:
            teams.setdefault(e.source, set()).add(e.target)
    pairs = Counter(pair for team in teams.values() for pair in combinations(sorted(team), 2))
    co_authors = {(e.source, e.target): e.props["count"] for e in edges if e.kind is EdgeKind.CO_AUTHOR}
    assert co_authors == dict(pairs) and max(pairs.values()) > 1
    filing = {(e.source, e.target) for e in edges if e.kind in (EdgeKind.TAGGED, EdgeKind.IN_COLLECTION)}
    filing |= {(e.source, e.target) for e in edges if e.kind is EdgeKind.PUBLISHED_IN}
    expected = set()
    for item in library.items.values():
        pid = paper_id(item.key)
        expected |= {(pid, node_id(NodeKind.TAG, tag)) for tag in item.tag_names()}
        expected |= {(pid, node_id(NodeKind.COLLECTION, key)) for key in item.collection_keys}
        expected.add((pid, node_id(NodeKind.VENUE, venue_key(item.venue))))
    assert filing == expected
    node_ids = {n.id for n in graph.nodes}
    assert {end for e in edges for end in (e.source, e.target)} <= node_ids
