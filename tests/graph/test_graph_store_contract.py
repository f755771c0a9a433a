"""One contract for every GraphStore: the embedded SQLite store and the Neo4j store, the latter against a
real Bolt server (ArcadeDB with its Bolt plugin, started once per session by ``tests/bolt_server.py``).

Decided semantics every store shares (and store.py documents): an edge naming a node that does not exist
after the call makes the whole write fail with GraphStoreError and change nothing; props whose value is
None are not kept; results are deterministic (get_nodes in the order asked, find_nodes exact-then-prefix-
then-substring and by id, edges sorted by (source, kind, target), neighbourhood by hop and then by id).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import pytest

from agent_zot.graph.model import Edge, EdgeKind, GraphData, Node, NodeKind
from agent_zot.graph.store import Direction, GraphStore, GraphStoreError
from agent_zot.graph.store_neo4j import Neo4jGraphStore
from agent_zot.graph.store_sqlite import SqliteGraphStore
from agent_zot.state.db import connect
from agent_zot.state.index import IndexState
from tests.bolt_server import BoltServer, bolt_server  # noqa: F401  (the session fixture, used by name)

StoreFactory = Callable[[], GraphStore]

P1, P2, P3, P4, P5 = (f"paper:P{i}" for i in range(1, 6))
MUELLER, WANG, SMITH = "author:mueller", "author:wang", "author:smith"
NATURE, GNN, BIO, ML, THESIS, WORK = (
    "venue:nature",
    "concept:gnn",
    "concept:biology",
    "tag:ml",
    "collection:C1",
    "work:doi:10.1/x",
)


def paper(node_id: str, title: str, year: int) -> Node:
    key = node_id.removeprefix("paper:")
    return Node(
        node_id,
        NodeKind.PAPER,
        {"title": title, "year": year, "item_key": key, "item_type": "journalArticle"},
    )


NODES = [
    paper(P1, "Graph Neural Networks for Citation Analysis", 2020),
    paper(P2, "Über Graphen und Netze", 2018),
    paper(P3, "Deep Learning", 2015),
    paper(P4, "Graph Theory", 1990),
    paper(P5, "Unrelated Biology", 2001),
    Node(MUELLER, NodeKind.AUTHOR, {"name": "Jürgen Müller", "creator_ids": [1, 7]}),
    Node(WANG, NodeKind.AUTHOR, {"name": "王伟", "creator_ids": [2]}),
    Node(SMITH, NodeKind.AUTHOR, {"name": "Jane Smith", "creator_ids": [3]}),
    Node(NATURE, NodeKind.VENUE, {"name": "Nature"}),
    Node(
        GNN, NodeKind.CONCEPT, {"name": "graph neural network", "type": "Method", "aliases": ["GNN", "GNNs"]}
    ),
    Node(BIO, NodeKind.CONCEPT, {"name": "biology", "type": "Concept", "aliases": []}),
    Node(ML, NodeKind.TAG, {"name": "ml"}),
    Node(THESIS, NodeKind.COLLECTION, {"name": "Thesis", "path": ["Work", "Thesis"]}),
    Node(WORK, NodeKind.EXTERNAL_WORK, {"title": "An External Work", "doi": "10.1/x", "first_author": "Roe"}),
]


def edge(source: str, kind: EdgeKind, target: str, /, **props: object) -> Edge:
    return Edge(source, target, kind, dict(props))


EDGES = [
    edge(P1, EdgeKind.AUTHORED_BY, MUELLER, position=0),
    edge(P1, EdgeKind.AUTHORED_BY, WANG, position=1),
    edge(P2, EdgeKind.AUTHORED_BY, WANG, position=0),
    edge(P2, EdgeKind.AUTHORED_BY, SMITH, position=1),
    edge(P3, EdgeKind.AUTHORED_BY, SMITH, position=0),
    edge(P1, EdgeKind.CITES, P2, confidence=0.9, method="doi"),
    edge(P2, EdgeKind.CITES, P3, confidence=1.0, method="doi"),
    edge(P3, EdgeKind.CITES, P4, confidence=0.5, method="title"),
    edge(P1, EdgeKind.CITES, WORK, confidence=0.7, method="title"),
    edge(P1, EdgeKind.MENTIONS, GNN, weight=0.8),
    edge(P4, EdgeKind.MENTIONS, GNN, weight=0.4),
    edge(P5, EdgeKind.MENTIONS, BIO, weight=1.0),
    edge(P1, EdgeKind.PUBLISHED_IN, NATURE),
    edge(P2, EdgeKind.PUBLISHED_IN, NATURE),
    edge(P1, EdgeKind.TAGGED, ML),
    edge(P1, EdgeKind.IN_COLLECTION, THESIS),
    edge(MUELLER, EdgeKind.CO_AUTHOR, WANG, count=1),
    edge(SMITH, EdgeKind.CO_AUTHOR, WANG, count=1),
]
DATA = GraphData(NODES, EDGES)
BY_ID = {n.id: n for n in NODES}


def expected_counts(nodes: Sequence[Node], edges: Sequence[Edge]) -> dict[str, int]:
    counts = {k.value: 0 for k in NodeKind} | {k.value: 0 for k in EdgeKind}
    for n in nodes:
        counts[n.kind.value] += 1
    for e in edges:
        counts[e.kind.value] += 1
    return counts


def sorted_edges(edges: Sequence[Edge]) -> list[Edge]:
    return sorted(edges, key=lambda e: e.key)


def edges_among(ids: Sequence[str], kinds: Sequence[EdgeKind]) -> list[Edge]:
    """The reference for the edges of a neighbourhood: every edge of those kinds between returned nodes."""
    inside = set(ids)
    return sorted_edges(
        [e for e in EDGES if e.source in inside and e.target in inside and (not kinds or e.kind in kinds)]
    )


# -- fixtures --------------------------------------------------------------------------------------


@pytest.fixture(params=["sqlite", pytest.param("neo4j", marks=pytest.mark.slow)])  # the Bolt server
def make_store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[StoreFactory]:
    """A factory of stores over one backing store (a SQLite file, or the session's Bolt server emptied
    first), so tests can open a second store object on the same data; all are closed at the end."""
    made: list[GraphStore] = []
    if request.param == "sqlite":

        def open_one() -> GraphStore:
            return SqliteGraphStore(tmp_path / "state.sqlite")
    else:
        server: BoltServer = request.getfixturevalue("bolt_server")

        def open_one() -> GraphStore:
            return Neo4jGraphStore(server.url, server.user, server.password, server.database)

    def make() -> GraphStore:
        store = open_one()
        made.append(store)
        return store

    make().replace_all(GraphData())  # the Bolt server is shared by every test: start from nothing
    yield make
    for store in made:
        store.close()


@pytest.fixture
def empty(make_store: StoreFactory) -> GraphStore:
    return make_store()


@pytest.fixture
def store(make_store: StoreFactory) -> GraphStore:
    s = make_store()
    s.upsert(DATA)
    return s


# -- writes -----------------------------------------------------------------------------------------


def test_empty_store(empty: GraphStore) -> None:
    assert empty.counts() == expected_counts([], [])
    assert not empty.has_papers()
    assert empty.find_nodes(NodeKind.PAPER) == []
    assert empty.get_nodes([P1]) == []
    assert empty.edges_of([P1]) == []
    assert empty.all_edges([]) == []
    assert empty.neighbourhood([P1], hops=2) == GraphData()


def test_has_papers_needs_a_paper_not_just_any_node(empty: GraphStore) -> None:
    others = [n for n in NODES if n.kind is not NodeKind.PAPER]
    empty.upsert(GraphData(others))
    assert not empty.has_papers()
    empty.upsert(GraphData([n for n in NODES if n.kind is NodeKind.PAPER][:1]))
    assert empty.has_papers()


def test_upsert_is_idempotent(store: GraphStore) -> None:
    before = store.counts()
    assert before == expected_counts(NODES, EDGES)
    store.upsert(DATA)
    assert store.counts() == before
    assert store.all_edges([]) == sorted_edges(EDGES)
    assert store.get_nodes([n.id for n in NODES]) == NODES


def test_upsert_in_pieces_equals_one_batch(empty: GraphStore) -> None:
    empty.upsert(GraphData(NODES[:5]))
    empty.upsert(GraphData(NODES[5:], EDGES[:6]))
    empty.upsert(GraphData([], EDGES[6:]))  # edges alone, between nodes already stored
    assert empty.counts() == expected_counts(NODES, EDGES)
    assert empty.all_edges([]) == sorted_edges(EDGES)


def test_upsert_replaces_props(store: GraphStore) -> None:
    renamed = Node(P1, NodeKind.PAPER, {"title": "Renamed", "extra": True})
    reweighted = edge(P1, EdgeKind.MENTIONS, GNN, weight=0.1)
    store.upsert(GraphData([renamed], [reweighted]))
    assert store.get_nodes([P1]) == [renamed]  # old keys (year, item_key, ...) are gone
    mentions = store.edges_of([P1], kinds=[EdgeKind.MENTIONS])
    assert mentions == [reweighted]
    assert store.counts() == expected_counts(NODES, EDGES)


def test_props_round_trip(empty: GraphStore) -> None:
    props = {
        "title": "Schrödinger: ∂ψ/∂t — 量子力学 🙂",
        "year": 2024,
        "score": 0.25,
        "flag": False,
        "aliases": ["α", "β"],
        "ids": [3, 1, 2],
        "empty": [],
        "gone": None,
        "id": "not the node id",  # names the stores use themselves must not clash
        "kind": "not the node kind",
    }
    cites = edge(P1, EdgeKind.CITES, P2, confidence=1.0, method=None, key="k", kind="weak", target="t")
    empty.upsert(GraphData([Node(P1, NodeKind.PAPER, props), Node(P2, NodeKind.PAPER)], [cites]))
    [stored] = empty.get_nodes([P1])
    assert stored.props == {k: v for k, v in props.items() if v is not None}
    assert empty.get_nodes([P2]) == [Node(P2, NodeKind.PAPER, {})]
    assert empty.all_edges([EdgeKind.CITES]) == [
        edge(P1, EdgeKind.CITES, P2, confidence=1.0, key="k", kind="weak", target="t")
    ]
    empty.replace_all(empty.neighbourhood([P1]))  # the same data through the bulk path and a reload
    assert empty.get_nodes([P1]) == [stored]
    assert empty.all_edges([]) == [
        edge(P1, EdgeKind.CITES, P2, confidence=1.0, key="k", kind="weak", target="t")
    ]


def test_edges_to_missing_nodes_are_rejected_and_nothing_is_written(store: GraphStore) -> None:
    newcomer = paper("paper:NEW", "New", 2024)
    batch = GraphData(
        [newcomer], [edge("paper:NEW", EdgeKind.CITES, P1), edge(P1, EdgeKind.CITES, "paper:GHOST")]
    )
    with pytest.raises(GraphStoreError, match="paper:GHOST"):
        store.upsert(batch)
    assert store.get_nodes(["paper:NEW"]) == []
    assert store.counts() == expected_counts(NODES, EDGES)
    with pytest.raises(GraphStoreError, match="paper:GHOST"):
        store.replace_all(GraphData([newcomer], [edge("paper:NEW", EdgeKind.CITES, "paper:GHOST")]))
    assert store.counts() == expected_counts(NODES, EDGES)


def test_delete_nodes_removes_touching_edges(store: GraphStore) -> None:
    store.delete_nodes([P2, "paper:UNKNOWN"])
    remaining = [e for e in EDGES if P2 not in (e.source, e.target)]
    assert store.get_nodes([P1, P2, P3]) == [BY_ID[P1], BY_ID[P3]]
    assert store.all_edges([]) == sorted_edges(remaining)
    assert store.edges_of([P2]) == []
    assert store.counts() == expected_counts([n for n in NODES if n.id != P2], remaining)
    store.delete_nodes([])
    assert store.counts() == expected_counts([n for n in NODES if n.id != P2], remaining)


def test_replace_out_edges_retags_papers_and_drops_tags_nobody_has(store: GraphStore) -> None:
    """A retag patched in place: P1 loses tag ml (then on no paper, so gone) and collection C1 and gains
    tag bio; P2 gains ml back under a new tag node; every other edge stays as it was."""
    reader = store  # the same object reads after the patch: its in-memory copy must not be stale
    store.edges_of([P1])  # loads whatever the store caches
    stats, nlp = "tag:stats", "tag:nlp"
    new_nodes = [Node(stats, NodeKind.TAG, {"name": "stats"}), Node(nlp, NodeKind.TAG, {"name": "nlp"})]
    new_edges = [
        edge(P1, EdgeKind.TAGGED, stats),
        edge(P2, EdgeKind.TAGGED, nlp),
        edge(P2, EdgeKind.TAGGED, stats),
    ]
    store.replace_out_edges(
        [P1, P2], [EdgeKind.TAGGED, EdgeKind.IN_COLLECTION], GraphData(new_nodes, new_edges)
    )
    kept = [
        e for e in EDGES if not (e.source in (P1, P2) and e.kind in (EdgeKind.TAGGED, EdgeKind.IN_COLLECTION))
    ]
    nodes = [n for n in NODES if n.id not in (ML, THESIS)] + new_nodes
    assert reader.all_edges([]) == sorted_edges(kept + new_edges)
    assert reader.counts() == expected_counts(nodes, kept + new_edges)
    assert reader.get_nodes([ML, THESIS, stats]) == [new_nodes[0]]  # ml and the collection: no edge left
    assert reader.edges_of([stats], direction=Direction.IN) == sorted_edges([new_edges[0], new_edges[2]])


def test_replace_out_edges_checks_its_edges_and_changes_nothing_on_error(store: GraphStore) -> None:
    with pytest.raises(GraphStoreError):  # a tag node neither in the batch nor in the store
        store.replace_out_edges(
            [P1], [EdgeKind.TAGGED], GraphData([], [edge(P1, EdgeKind.TAGGED, "tag:none")])
        )
    with pytest.raises(ValueError):  # an edge leaving another paper than the ones named
        store.replace_out_edges([P1], [EdgeKind.TAGGED], GraphData([], [edge(P2, EdgeKind.TAGGED, ML)]))
    store.replace_out_edges([], [EdgeKind.TAGGED], GraphData())
    assert store.all_edges([]) == sorted_edges(EDGES) and store.counts() == expected_counts(NODES, EDGES)


def test_replace_all_holds_exactly_the_new_graph(store: GraphStore) -> None:
    small = GraphData([BY_ID[P1], BY_ID[WANG], paper("paper:NEW", "New", 2024)],
                      [edge(P1, EdgeKind.AUTHORED_BY, WANG, position=3), edge("paper:NEW", EdgeKind.CITES, P1)])  # fmt: skip
    store.replace_all(small)
    assert store.counts() == expected_counts(small.nodes, small.edges)
    assert store.get_nodes([P2, "paper:NEW", P1]) == [small.nodes[2], BY_ID[P1]]
    assert store.all_edges([]) == sorted_edges(small.edges)
    store.replace_all(GraphData())
    assert store.counts() == expected_counts([], [])


def test_replace_all_is_seen_by_another_store_object(make_store: StoreFactory) -> None:
    """A rebuild written by update-db reaches a server that had the old graph loaded."""
    writer, reader = make_store(), make_store()
    writer.upsert(DATA)
    assert reader.counts() == expected_counts(NODES, EDGES)  # loaded now
    changed = GraphData(
        [*NODES[:-1], paper("paper:NEW", "New", 2024)],
        [e for e in EDGES if NODES[-1].id not in (e.source, e.target)]
        + [edge("paper:NEW", EdgeKind.CITES, P1)],
    )
    writer.replace_all(changed)
    for s in (reader, writer):
        assert s.counts() == expected_counts(changed.nodes, changed.edges)
        assert s.get_nodes(["paper:NEW"]) == [changed.nodes[-1]]
        assert s.all_edges([]) == sorted_edges(changed.edges)


def test_an_unchanged_rebuild_writes_nothing(tmp_path: Path) -> None:
    """The embedded store compares a rebuild with what it holds: the same graph is no write at all
    (readers keep their loaded graph), a changed one bumps the version once."""
    store = SqliteGraphStore(tmp_path / "state.sqlite")
    store.replace_all(DATA)

    def version() -> int:
        conn = connect(tmp_path / "state.sqlite")
        try:
            return int(conn.execute("SELECT value FROM graph_meta WHERE key = 'graph_version'").fetchone()[0])
        finally:
            conn.close()

    first = version()
    store.replace_all(GraphData(list(reversed(NODES)), list(reversed(EDGES))))  # the same graph, reordered
    assert version() == first
    store.replace_all(GraphData(NODES, EDGES[1:]))
    assert version() == first + 1
    assert store.all_edges([]) == sorted_edges(EDGES[1:])
    store.close()


def test_writes_above_one_batch(empty: GraphStore) -> None:
    """More rows than one UNWIND batch (1000), so the Neo4j store's batching is exercised."""
    papers = [paper(f"paper:B{i:04d}", f"Bulk {i}", 2000 + i % 20) for i in range(2100)]
    cites = [edge(papers[i].id, EdgeKind.CITES, papers[(i * 7 + 1) % 2100].id) for i in range(2100)]
    empty.upsert(GraphData(papers, cites))
    assert empty.counts()[NodeKind.PAPER.value] == 2100
    assert empty.counts()[EdgeKind.CITES.value] == 2100
    assert len(empty.get_nodes([p.id for p in papers])) == 2100
    empty.delete_nodes(p.id for p in papers[:1500])
    assert empty.counts()[NodeKind.PAPER.value] == 600


# -- reads ------------------------------------------------------------------------------------------


def test_get_nodes_in_the_order_asked(store: GraphStore) -> None:
    asked = [WORK, P3, "paper:MISSING", MUELLER, P3, P1]
    assert store.get_nodes(asked) == [BY_ID[WORK], BY_ID[P3], BY_ID[MUELLER], BY_ID[P1]]
    assert store.get_nodes([]) == []


def test_find_nodes_by_kind(store: GraphStore) -> None:
    papers = store.find_nodes(NodeKind.PAPER)
    assert [n.id for n in papers] == [P1, P2, P3, P4, P5]
    assert papers[0] == BY_ID[P1]
    assert [n.id for n in store.find_nodes(NodeKind.AUTHOR, limit=2)] == [MUELLER, SMITH]
    assert store.find_nodes(NodeKind.EXTERNAL_WORK) == [BY_ID[WORK]]


@pytest.mark.parametrize(
    ("kind", "name", "expected"),
    [
        (NodeKind.AUTHOR, "müller", [MUELLER]),
        (NodeKind.AUTHOR, "MÜLLER", [MUELLER]),
        (NodeKind.AUTHOR, "王", [WANG]),
        (NodeKind.AUTHOR, "j", [MUELLER, SMITH]),  # both names start with it: by id
        (NodeKind.PAPER, "graph", [P1, P4, P2]),  # titles: prefix matches by id, then the substring one
        (NodeKind.PAPER, "ÜBER", [P2]),
        (NodeKind.CONCEPT, "biology", [BIO]),  # kind filters: the paper "Unrelated Biology" is not a concept
        (NodeKind.EXTERNAL_WORK, "external", [WORK]),  # by title when there is no name
        (NodeKind.VENUE, "science", []),
    ],
)
def test_find_nodes_by_name(store: GraphStore, kind: NodeKind, name: str, expected: list[str]) -> None:
    assert [n.id for n in store.find_nodes(kind, name=name)] == expected


def test_find_nodes_exact_match_first(store: GraphStore) -> None:
    store.upsert(GraphData([Node("concept:gnns", NodeKind.CONCEPT, {"name": "Graph"}),
                            Node("concept:a", NodeKind.CONCEPT, {"name": "graph theory"})]))  # fmt: skip
    found = store.find_nodes(NodeKind.CONCEPT, name="graph")
    assert [n.id for n in found] == ["concept:gnns", "concept:a", GNN]
    assert [n.id for n in store.find_nodes(NodeKind.CONCEPT, name="graph", limit=1)] == ["concept:gnns"]


@pytest.mark.parametrize(
    ("ids", "kinds", "direction"),
    [
        ([P2], (), Direction.BOTH),
        ([P2], (EdgeKind.CITES,), Direction.OUT),
        ([P2], (EdgeKind.CITES,), Direction.IN),
        ([P1, P2], (EdgeKind.CITES,), Direction.BOTH),
        ([P1, P2], (EdgeKind.CITES, EdgeKind.AUTHORED_BY), Direction.OUT),
        ([WANG], (), Direction.IN),
        ([WANG], (), Direction.OUT),
        (["paper:MISSING"], (), Direction.BOTH),
    ],
)
def test_edges_of(
    store: GraphStore, ids: list[str], kinds: tuple[EdgeKind, ...], direction: Direction
) -> None:
    out = direction in (Direction.OUT, Direction.BOTH)
    into = direction in (Direction.IN, Direction.BOTH)
    expected = [e for e in EDGES if (not kinds or e.kind in kinds)
                and ((out and e.source in ids) or (into and e.target in ids))]  # fmt: skip
    assert store.edges_of(ids, kinds=kinds, direction=direction) == sorted_edges(expected)


def test_edges_of_examples(store: GraphStore) -> None:
    assert [e.key for e in store.edges_of([P2], kinds=[EdgeKind.CITES], direction=Direction.IN)] == [
        (P1, "CITES", P2)
    ]
    assert [e.target for e in store.edges_of([WANG], direction=Direction.OUT)] == []
    assert {e.source for e in store.edges_of([WANG], direction=Direction.IN)} == {P1, P2, MUELLER, SMITH}


CITES = (EdgeKind.CITES,)
NEIGHBOURHOODS = [
    # (start, kinds, direction, hops, limit, expected node ids in order)
    ([P1], CITES, Direction.OUT, 1, 500, [P1, P2, WORK]),
    ([P1], CITES, Direction.OUT, 3, 500, [P1, P2, WORK, P3, P4]),
    ([P1], CITES, Direction.OUT, 2, 500, [P1, P2, WORK, P3]),
    ([P4], CITES, Direction.IN, 2, 500, [P4, P3, P2]),
    ([P4], CITES, Direction.OUT, 2, 500, [P4]),
    ([P3], CITES, Direction.BOTH, 1, 500, [P3, P2, P4]),
    ([P3], CITES, Direction.BOTH, 2, 3, [P3, P2, P4]),  # the limit cuts before the second hop
    ([P3], CITES, Direction.BOTH, 2, 2, [P3, P2]),  # ... or inside the first, by id
    ([P1], (), Direction.BOTH, 1, 500, [P1, MUELLER, WANG, THESIS, GNN, P2, ML, NATURE, WORK]),
    ([P1], (), Direction.BOTH, 1, 4, [P1, MUELLER, WANG, THESIS]),
    (
        [MUELLER],
        (EdgeKind.AUTHORED_BY, EdgeKind.CITES),
        Direction.BOTH,
        2,
        500,
        [MUELLER, P1, WANG, P2, WORK],
    ),
    (
        [MUELLER],
        (EdgeKind.AUTHORED_BY, EdgeKind.CITES),
        Direction.BOTH,
        3,
        500,
        [MUELLER, P1, WANG, P2, WORK, SMITH, P3],
    ),
    ([MUELLER], (EdgeKind.AUTHORED_BY,), Direction.IN, 2, 500, [MUELLER, P1]),
    (["paper:MISSING", P5], (), Direction.BOTH, 2, 500, [P5, BIO]),
    ([P1, P1], (), Direction.BOTH, 2, 1, [P1]),
    ([P4, P1], CITES, Direction.OUT, 1, 500, [P4, P1, P2, WORK]),  # start nodes keep the order given
]


@pytest.mark.parametrize(("start", "kinds", "direction", "hops", "limit", "expected"), NEIGHBOURHOODS)
def test_neighbourhood(
    store: GraphStore,
    start: list[str],
    kinds: tuple[EdgeKind, ...],
    direction: Direction,
    hops: int,
    limit: int,
    expected: list[str],
) -> None:
    result = store.neighbourhood(start, kinds=kinds, direction=direction, hops=hops, limit=limit)
    assert [n.id for n in result.nodes] == expected
    assert result.nodes == [BY_ID[i] for i in expected]
    assert result.edges == edges_among(expected, kinds)


def test_neighbourhood_of_nothing(store: GraphStore) -> None:
    assert store.neighbourhood([]) == GraphData()
    assert store.neighbourhood(["paper:MISSING"], hops=3) == GraphData()


def test_all_edges(store: GraphStore) -> None:
    assert store.all_edges([]) == sorted_edges(EDGES)
    assert store.all_edges([EdgeKind.CITES]) == sorted_edges([e for e in EDGES if e.kind is EdgeKind.CITES])
    both = (EdgeKind.MENTIONS, EdgeKind.CO_AUTHOR)
    assert store.all_edges(both) == sorted_edges([e for e in EDGES if e.kind in both])


def test_counts(store: GraphStore) -> None:
    counts = store.counts()
    assert counts[NodeKind.PAPER.value] == 5
    assert counts[NodeKind.AUTHOR.value] == 3
    assert counts[EdgeKind.CITES.value] == 4
    assert counts[EdgeKind.CO_AUTHOR.value] == 2
    assert set(counts) == {k.value for k in NodeKind} | {k.value for k in EdgeKind}


# -- persistence and concurrency ----------------------------------------------------------------------


def test_a_new_store_object_sees_the_data(store: GraphStore, make_store: StoreFactory) -> None:
    store.close()
    reopened = make_store()
    assert reopened.counts() == expected_counts(NODES, EDGES)
    assert reopened.get_nodes([n.id for n in NODES]) == NODES
    assert reopened.all_edges([]) == sorted_edges(EDGES)


def test_writes_of_another_store_object_are_seen(store: GraphStore, make_store: StoreFactory) -> None:
    assert store.counts()[NodeKind.PAPER.value] == 5  # read (the embedded store caches counts from here on)
    other = make_store()
    other.upsert(
        GraphData([paper("paper:NEW", "Written elsewhere", 2024)], [edge("paper:NEW", EdgeKind.CITES, P1)])
    )
    other.delete_nodes([P5])
    assert [n.id for n in store.find_nodes(NodeKind.PAPER, name="elsewhere")] == ["paper:NEW"]
    assert store.get_nodes([P5]) == []
    assert [e.source for e in store.edges_of([P1], kinds=CITES, direction=Direction.IN)] == ["paper:NEW"]
    # ... and the first object's own write, made on top of the other's, keeps both.
    store.upsert(GraphData([paper("paper:MINE", "Mine", 2025)]))
    assert {n.id for n in other.find_nodes(NodeKind.PAPER)} == {P1, P2, P3, P4, "paper:NEW", "paper:MINE"}
    other.replace_all(GraphData())
    assert store.counts() == expected_counts([], [])


def test_embedded_tables_live_beside_the_index_state(tmp_path: Path) -> None:
    path = tmp_path / "state.sqlite"
    state = IndexState(path)
    graph = SqliteGraphStore(path)
    try:
        graph.upsert(DATA)
        state.set_meta("probe", "1")  # a write to another table: no reload, no harm
        assert graph.counts() == expected_counts(NODES, EDGES)
        assert state.get_meta("probe") == "1"
        assert state.get_meta("schema_version") is not None
    finally:
        graph.close()
        state.close()


# -- Neo4j connection errors --------------------------------------------------------------------------


def test_neo4j_unreachable_server_is_an_actionable_error() -> None:
    from tests.bolt_server import free_port

    url = f"bolt://127.0.0.1:{free_port()}"
    store = Neo4jGraphStore(url, "neo4j", "secret")
    try:
        with pytest.raises(GraphStoreError) as err:
            store.counts()
    finally:
        store.close()
    assert url in str(err.value)
    assert "docker compose up neo4j" in str(err.value)


@pytest.mark.slow
def test_neo4j_bad_credentials_are_an_actionable_error(bolt_server: BoltServer) -> None:  # noqa: F811
    store = Neo4jGraphStore(bolt_server.url, bolt_server.user, "wrong-password", bolt_server.database)
    try:
        with pytest.raises(GraphStoreError, match="neo4j_password"):
            store.counts()
    finally:
        store.close()


def test_neo4j_unsupported_url_scheme() -> None:
    with pytest.raises(GraphStoreError, match="bolt://"):
        Neo4jGraphStore("http://localhost:7474", "neo4j", "secret")
