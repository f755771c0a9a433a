"""The embedded graph store: a networkx ``MultiDiGraph`` in memory, persisted in the state database.

The tables ``graph_nodes``, ``graph_edges`` and ``graph_meta`` live in the same SQLite file as the index
state but are opened through this store's own connection. Every write goes to SQLite in one transaction
and bumps ``graph_version`` in ``graph_meta``; reads first check (cheaply: ``PRAGMA data_version`` tells
whether any other connection committed at all) that the version is still the one loaded, and reload the
whole graph when another process wrote it. Edges are keyed by their kind, so a (source, kind, target)
triple exists at most once; an edge's attribute dict is its props (no wrapper dict: ~25 MB less for 130k
edges).
"""

from __future__ import annotations

import functools
import json
import sqlite3
import threading
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Concatenate, ParamSpec, TypeVar

import networkx as nx

from agent_zot.graph.model import Edge, EdgeKind, GraphData, Node, NodeKind, paper_id
from agent_zot.graph.store import Direction, GraphStoreError
from agent_zot.state.db import connect, rows_in

_UPSERT_NODE = (
    "INSERT INTO graph_nodes VALUES (?, ?, ?) "
    "ON CONFLICT(id) DO UPDATE SET kind = excluded.kind, props = excluded.props"
)
_UPSERT_EDGE = (
    "INSERT INTO graph_edges VALUES (?, ?, ?, ?) "
    "ON CONFLICT(source, kind, target) DO UPDATE SET props = excluded.props"
)
_BUMP = "UPDATE graph_meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'graph_version'"


def clean_props(props: dict[str, Any]) -> dict[str, Any]:
    """Props as every store keeps them: keys whose value is None are dropped (Neo4j cannot store null)."""
    return {key: value for key, value in props.items() if value is not None}


def dedupe_batch(graph: GraphData) -> tuple[list[Node], list[Edge]]:
    """The batch's nodes by id and edges by key, the last occurrence winning, props cleaned."""
    nodes = {n.id: Node(n.id, NodeKind(n.kind), clean_props(n.props)) for n in graph.nodes}
    edges = {e.key: Edge(e.source, e.target, EdgeKind(e.kind), clean_props(e.props)) for e in graph.edges}
    return list(nodes.values()), list(edges.values())


def missing_endpoints(
    edges: Iterable[Edge], known: Iterable[str], exists: set[str] | None = None
) -> list[str]:
    """Ids that edges name but neither ``known`` (the batch) nor ``exists`` (the store) holds, sorted."""
    present = set(known) | (exists or set())
    return sorted({end for e in edges for end in (e.source, e.target)} - present)


def dangling_error(missing: Sequence[str]) -> GraphStoreError:
    shown = ", ".join(missing[:5]) + (f" and {len(missing) - 5} more" if len(missing) > 5 else "")
    return GraphStoreError(
        f"Edges name {len(missing)} node(s) that do not exist: {shown}. Nothing was written.",
        hint="Write the nodes in the same batch or before their edges.",
    )


def name_rank(name: str, query: str) -> int:
    """0 for an exact (case-insensitive) match, 1 for a prefix, 2 for any other substring."""
    return 0 if name == query else 1 if name.startswith(query) else 2


P = ParamSpec("P")
R = TypeVar("R")


def _locked(
    method: Callable[Concatenate[NetworkxGraphStore, P], R],
) -> Callable[Concatenate[NetworkxGraphStore, P], R]:
    """Reads hold the lock throughout: a write from another thread must not change the graph mid-walk."""

    @functools.wraps(method)
    def locked(self: NetworkxGraphStore, *args: P.args, **kwargs: P.kwargs) -> R:
        with self._lock:
            return method(self, *args, **kwargs)

    return locked


def _dumps(props: dict[str, Any]) -> str:
    return json.dumps(props, ensure_ascii=False, separators=(",", ":")) if props else "{}"


def _loads(text: str) -> dict[str, Any]:
    return json.loads(text) if text != "{}" else {}


class NetworkxGraphStore:
    """Thread-safe; one instance per process is enough, several (even across processes) stay consistent."""

    name = "networkx"

    def __init__(self, db_path: Path) -> None:
        self.db_path = db_path
        self._conn: sqlite3.Connection | None = None
        self._graph: nx.MultiDiGraph | None = None
        self._version = -1  # graph_version the in-memory graph reflects
        self._data_version = -1  # PRAGMA data_version when that was last confirmed
        self._edges_by_kind: dict[EdgeKind, list[Edge]] = {}
        self._edges_stamp: tuple[int, int] | None = None
        self._names_by_kind: dict[NodeKind, list[tuple[str, str]]] = {}
        self._names_stamp: tuple[int, int] | None = None
        self._lock = threading.RLock()

    # -- connection and loading ---------------------------------------------------------------

    def _connection(self) -> sqlite3.Connection:
        if self._conn is None:
            try:
                conn = connect(self.db_path)
            except (OSError, sqlite3.Error) as exc:
                raise self._error("open", exc) from exc
            self._conn = conn
        return self._conn

    def _error(self, action: str, exc: Exception) -> GraphStoreError:
        return GraphStoreError(
            f"Cannot {action} the graph in {self.db_path}: {exc}.",
            hint="Check that the agent-zot data directory is writable (setting data_dir).",
        )

    def _read_version(self, conn: sqlite3.Connection) -> int:
        row = conn.execute("SELECT value FROM graph_meta WHERE key = 'graph_version'").fetchone()
        return int(row[0]) if row else 0

    def _load(self, conn: sqlite3.Connection) -> None:
        """Build the graph from the tables; the caller holds a transaction so the rows are one snapshot."""
        graph = nx.MultiDiGraph()
        for node_id, kind, props in conn.execute("SELECT id, kind, props FROM graph_nodes"):
            graph.add_node(node_id, kind=NodeKind(kind), props=_loads(props))
        kinds = {k.value: k for k in EdgeKind}
        rows = conn.execute("SELECT source, kind, target, props FROM graph_edges")
        # 4-tuples, not add_edge(**props): a prop named "key" must not clash with the argument.
        graph.add_edges_from(
            (source, target, kinds[kind], _loads(props)) for source, kind, target, props in rows
        )
        self._graph = graph
        self._version = self._read_version(conn)

    def _fresh(self) -> nx.MultiDiGraph:
        """The in-memory graph, reloaded first if another connection changed it since it was loaded."""
        with self._lock:
            conn = self._connection()
            try:
                data_version = conn.execute("PRAGMA data_version").fetchone()[0]
                if self._graph is not None and data_version == self._data_version:
                    return self._graph
                conn.execute("BEGIN")
                try:
                    if self._graph is None or self._read_version(conn) != self._version:
                        self._load(conn)
                finally:
                    conn.execute("COMMIT")
            except sqlite3.Error as exc:
                raise self._error("read", exc) from exc
            self._data_version = data_version
            assert self._graph is not None
            return self._graph

    @contextmanager
    def _writing(self) -> Iterator[tuple[sqlite3.Connection, nx.MultiDiGraph]]:
        """One write transaction, with the graph as of its start (reloaded if another process wrote).
        The version is bumped on success; the caller changes the in-memory graph after the block."""
        with self._lock:
            conn = self._connection()
            committed = False
            try:
                conn.execute("BEGIN IMMEDIATE")
                try:
                    if self._graph is None or self._read_version(conn) != self._version:
                        self._load(conn)
                    assert self._graph is not None
                    yield conn, self._graph
                    conn.execute(_BUMP)
                    committed = True
                finally:  # commit only what completed; anything else (even Ctrl-C) rolls back
                    conn.execute("COMMIT" if committed else "ROLLBACK")
            except sqlite3.Error as exc:
                self._graph = None  # memory may be ahead of or behind the file now: reload next time
                raise self._error("write", exc) from exc
            self._version += 1
            self._data_version = conn.execute("PRAGMA data_version").fetchone()[0]

    # -- writes -------------------------------------------------------------------------------

    def upsert(self, graph: GraphData) -> None:
        nodes, edges = dedupe_batch(graph)
        if not nodes and not edges:
            return
        with self._lock:
            if self._graph is None:  # not loaded (update-db): write the rows, never load the graph for it
                self._write_tables(lambda conn: _upsert_rows(conn, nodes, edges))
                return
            with self._writing() as (conn, current):
                missing = missing_endpoints(edges, (n.id for n in nodes), set(current.nodes))
                if missing:
                    raise dangling_error(missing)
                conn.executemany(_UPSERT_NODE, [(n.id, n.kind.value, _dumps(n.props)) for n in nodes])
                conn.executemany(
                    _UPSERT_EDGE, [(e.source, e.kind.value, e.target, _dumps(e.props)) for e in edges]
                )
            _add(current, nodes, edges)

    def delete_nodes(self, node_ids: Iterable[str]) -> None:
        wanted = sorted(set(node_ids))
        if not wanted:
            return
        with self._lock:
            with self._writing() as (conn, current):
                gone = [(node_id,) for node_id in wanted if node_id in current]
                conn.executemany("DELETE FROM graph_edges WHERE source = ?", gone)
                conn.executemany("DELETE FROM graph_edges WHERE target = ?", gone)
                conn.executemany("DELETE FROM graph_nodes WHERE id = ?", gone)
            current.remove_nodes_from(row[0] for row in gone)

    def replace_out_edges(self, sources: Sequence[str], kinds: Sequence[EdgeKind], graph: GraphData) -> None:
        nodes, edges = dedupe_batch(graph)
        wanted, kind_values = sorted(set(sources)), [k.value for k in kinds]
        if not wanted or not kind_values:
            return
        outside = sorted({e.source for e in edges} - set(wanted))
        if outside or any(e.kind not in kinds for e in edges):
            raise ValueError(
                f"edges must leave {wanted} with kinds {kind_values}: {outside or 'other kinds'}"
            )
        self._write_tables(lambda conn: _replace_out_edges(conn, wanted, kind_values, nodes, edges))

    def replace_all(self, graph: GraphData) -> None:
        """Make the stored graph equal to ``graph``, writing only the rows that differ: a rebuild after a
        few changed items rewrites a few rows, and the old graph is compared as stored text, not loaded."""
        nodes, edges = dedupe_batch(graph)
        missing = missing_endpoints(edges, (n.id for n in nodes))
        if missing:
            raise dangling_error(missing)
        new_nodes = {n.id: (n.kind.value, _dumps(n.props)) for n in nodes}
        new_edges = {(e.source, e.kind.value, e.target): _dumps(e.props) for e in edges}
        self._write_tables(lambda conn: _write_difference(conn, new_nodes, new_edges))

    def _write_tables(self, write: Callable[[sqlite3.Connection], bool]) -> None:
        """One transaction of ``write`` on the tables, without loading the graph (a rebuild or a patch in
        update-db, which usually never reads it); when it reports a change, the version is bumped and the
        graph is loaded again from the tables on the next read."""
        with self._lock:
            conn = self._connection()
            try:
                conn.execute("BEGIN IMMEDIATE")
                completed = changed = False
                try:
                    changed = write(conn)
                    if changed:
                        conn.execute(_BUMP)
                    completed = True
                finally:  # as in _writing: anything that did not complete (even Ctrl-C) rolls back
                    conn.execute("COMMIT" if completed else "ROLLBACK")
            except sqlite3.Error as exc:
                self._graph = None
                raise self._error("write", exc) from exc
            if changed:
                self._graph, self._version, self._data_version = None, -1, -1

    # -- reads --------------------------------------------------------------------------------

    @_locked
    def get_nodes(self, node_ids: Sequence[str]) -> list[Node]:
        graph = self._fresh()
        return [_node(graph, node_id) for node_id in dict.fromkeys(node_ids) if node_id in graph]

    @_locked
    def find_nodes(self, kind: NodeKind, *, name: str | None = None, limit: int = 50) -> list[Node]:
        graph = self._fresh()
        named = self._names_of(graph, kind)
        if name is None:
            return [_node(graph, node_id) for node_id, _ in named[:limit]]
        query = name.lower()
        ranked = sorted(
            (name_rank(lowered, query), node_id) for node_id, lowered in named if query in lowered
        )
        return [_node(graph, node_id) for _, node_id in ranked[:limit]]

    def _names_of(self, graph: nx.MultiDiGraph, kind: NodeKind) -> list[tuple[str, str]]:
        """(id, lower-cased name) of every node of a kind, by id; cached like ``all_edges`` until the graph
        changes (an author lookup read all 200,000 nodes of a large library on every request)."""
        stamp = (id(graph), self._version)
        if stamp != self._names_stamp:
            self._names_by_kind, self._names_stamp = {}, stamp
        if kind not in self._names_by_kind:
            self._names_by_kind[kind] = sorted(
                (node_id, Node(node_id, kind, data["props"]).name.lower())  # a view: no copy
                for node_id, data in graph.nodes(data=True)
                if data["kind"] == kind
            )
        return self._names_by_kind[kind]

    @_locked
    def edges_of(
        self,
        node_ids: Sequence[str],
        *,
        kinds: Sequence[EdgeKind] = (),
        direction: Direction = Direction.BOTH,
    ) -> list[Edge]:
        graph = self._fresh()
        wanted = _kind_filter(kinds)
        ids = [node_id for node_id in dict.fromkeys(node_ids) if node_id in graph]
        found: dict[tuple[str, str, str], Edge] = {}
        if direction in (Direction.OUT, Direction.BOTH):
            for source, target, kind, props in graph.out_edges(ids, keys=True, data=True):
                found[(source, kind, target)] = Edge(source, target, kind, dict(props))
        if direction in (Direction.IN, Direction.BOTH):
            for source, target, kind, props in graph.in_edges(ids, keys=True, data=True):
                found[(source, kind, target)] = Edge(source, target, kind, dict(props))
        return [found[key] for key in sorted(found) if wanted is None or found[key].kind in wanted]

    @_locked
    def neighbourhood(
        self,
        start: Sequence[str],
        *,
        kinds: Sequence[EdgeKind] = (),
        direction: Direction = Direction.BOTH,
        hops: int = 1,
        limit: int = 500,
    ) -> GraphData:
        graph = self._fresh()
        wanted = _kind_filter(kinds)
        reached = [node_id for node_id in dict.fromkeys(start) if node_id in graph][:limit]
        seen = set(reached)
        frontier = reached
        for _ in range(hops):
            if not frontier or len(reached) >= limit:
                break
            found = {m for n in frontier for m in _adjacent(graph, n, wanted, direction)} - seen
            frontier = sorted(found)[: limit - len(reached)]  # one hop's nodes, by id: deterministic
            seen.update(frontier)
            reached.extend(frontier)
        edges = [
            Edge(source, target, kind, dict(props))
            for source in reached
            for _, target, kind, props in graph.out_edges(source, keys=True, data=True)
            if target in seen and (wanted is None or kind in wanted)
        ]
        edges.sort(key=lambda e: e.key)
        return GraphData([_node(graph, node_id) for node_id in reached], edges)

    @_locked
    def all_edges(self, kinds: Sequence[EdgeKind]) -> list[Edge]:
        """Cached per kind until the graph changes: graph-wide ranking (PageRank, venues) asks for the same
        tens of thousands of edges on every call. The Edge objects are shared: treat them as read-only."""
        graph = self._fresh()
        stamp = (id(graph), self._version)
        if stamp != self._edges_stamp:
            self._edges_by_kind, self._edges_stamp = {}, stamp
        wanted = list(kinds) or list(EdgeKind)
        for kind in wanted:
            if kind not in self._edges_by_kind:
                self._edges_by_kind[kind] = sorted(
                    (
                        Edge(s, t, k, dict(props))
                        for s, t, k, props in graph.edges(keys=True, data=True)
                        if k == kind
                    ),
                    key=lambda e: e.key,
                )
        edges = [e for kind in wanted for e in self._edges_by_kind[kind]]
        if len(wanted) > 1:
            edges.sort(key=lambda e: e.key)
        return edges

    def version(self) -> int:
        """The stored graph's version: every write raises it (a memo of the graph checks it is current)."""
        with self._lock:
            return self._read_version(self._connection())

    @_locked
    def stored_counts(self) -> dict[str, int]:
        """Node and edge counts straight from the tables, without loading the graph (for status lines and
        the cheap "is there a graph yet?" check of a no-change update-db)."""
        result = {k.value: 0 for k in NodeKind} | {k.value: 0 for k in EdgeKind}
        with self._lock:
            conn = self._connection()
            for query in (
                "SELECT kind, COUNT(*) FROM graph_nodes GROUP BY kind",
                "SELECT kind, COUNT(*) FROM graph_edges GROUP BY kind",
            ):
                result.update(dict(conn.execute(query).fetchall()))
        return result

    @_locked
    def has_papers(self) -> bool:
        """Whether a graph with papers is stored: one lookup in the id index (counting the tables, as
        `stored_counts` does, cost a search 28 ms on 51,000 edges)."""
        low = paper_id("")
        high = low[:-1] + chr(ord(low[-1]) + 1)  # every id that starts "paper:", and none other
        query = "SELECT 1 FROM graph_nodes WHERE id >= ? AND id < ? AND kind = ? LIMIT 1"
        return self._connection().execute(query, (low, high, NodeKind.PAPER.value)).fetchone() is not None

    def counts(self) -> dict[str, int]:
        graph = self._fresh()
        result = {k.value: 0 for k in NodeKind} | {k.value: 0 for k in EdgeKind}
        result.update(Counter(kind.value for _, kind in graph.nodes(data="kind")))
        result.update(Counter(kind.value for _, _, kind in graph.edges(keys=True)))
        return result

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None
            self._graph = None


def _write_difference(
    conn: sqlite3.Connection,
    nodes: dict[str, tuple[str, str]],
    edges: dict[tuple[str, str, str], str],
) -> bool:
    """Delete, insert and update rows so the tables hold exactly ``nodes`` and ``edges`` (props as JSON
    text); True when anything changed."""
    old_edges = {
        (s, k, t): p for s, k, t, p in conn.execute("SELECT source, kind, target, props FROM graph_edges")
    }
    old_nodes = {i: (k, p) for i, k, p in conn.execute("SELECT id, kind, props FROM graph_nodes")}
    gone_edges = [key for key in old_edges if key not in edges]
    gone_nodes = [(node_id,) for node_id in old_nodes if node_id not in nodes]
    put_nodes = [(i, k, p) for i, (k, p) in nodes.items() if old_nodes.get(i) != (k, p)]
    put_edges = [(*key, p) for key, p in edges.items() if old_edges.get(key) != p]
    conn.executemany("DELETE FROM graph_edges WHERE source = ? AND kind = ? AND target = ?", gone_edges)
    conn.executemany("DELETE FROM graph_nodes WHERE id = ?", gone_nodes)
    conn.executemany(_UPSERT_NODE, put_nodes)
    conn.executemany(_UPSERT_EDGE, put_edges)
    return bool(gone_edges or gone_nodes or put_nodes or put_edges)


def _upsert_rows(conn: sqlite3.Connection, nodes: Sequence[Node], edges: Sequence[Edge]) -> bool:
    """``upsert`` on the tables, without loading the graph."""
    missing = missing_endpoints(edges, (n.id for n in nodes), _ids_in(conn, edges))
    if missing:
        raise dangling_error(missing)
    conn.executemany(_UPSERT_NODE, [(n.id, n.kind.value, _dumps(n.props)) for n in nodes])
    conn.executemany(_UPSERT_EDGE, [(e.source, e.kind.value, e.target, _dumps(e.props)) for e in edges])
    return True


def _replace_out_edges(
    conn: sqlite3.Connection,
    sources: list[str],
    kinds: list[str],
    nodes: Sequence[Node],
    edges: Sequence[Edge],
) -> bool:
    """``replace_out_edges`` on the tables, without loading the graph. True: something was written."""
    missing = missing_endpoints(edges, (n.id for n in nodes), _ids_in(conn, edges))
    if missing:
        raise dangling_error(missing)
    leaving = rows_in(conn, "SELECT source, kind, target FROM graph_edges WHERE source IN ({})", sources)
    old = [row for row in leaving if row[1] in kinds]
    conn.executemany("DELETE FROM graph_edges WHERE source = ? AND kind = ? AND target = ?", old)
    conn.executemany(_UPSERT_NODE, [(n.id, n.kind.value, _dumps(n.props)) for n in nodes])
    conn.executemany(_UPSERT_EDGE, [(e.source, e.kind.value, e.target, _dumps(e.props)) for e in edges])
    for (target,) in {(t,) for _, _, t in old}:
        touched = conn.execute(
            "SELECT 1 FROM graph_edges WHERE source = ? OR target = ? LIMIT 1", (target, target)
        ).fetchone()
        if touched is None:
            conn.execute("DELETE FROM graph_nodes WHERE id = ?", (target,))
    return bool(old or nodes or edges)


def _ids_in(conn: sqlite3.Connection, edges: Sequence[Edge]) -> set[str]:
    ends = sorted({end for e in edges for end in (e.source, e.target)})
    return {row[0] for row in rows_in(conn, "SELECT id FROM graph_nodes WHERE id IN ({})", ends)}


# -- helpers over the in-memory graph -------------------------------------------------------------


def _add(graph: nx.MultiDiGraph, nodes: Sequence[Node], edges: Sequence[Edge]) -> None:
    for n in nodes:
        graph.add_node(n.id, kind=n.kind, props=n.props)  # replaces both attributes
    for e in edges:
        graph.add_edge(e.source, e.target, key=e.kind)
        data = graph.succ[e.source][e.target][e.kind]
        data.clear()  # props replaced, not merged
        data.update(e.props)


def _node(graph: nx.MultiDiGraph, node_id: str) -> Node:
    data = graph.nodes[node_id]
    return Node(node_id, data["kind"], dict(data["props"]))


def _kind_filter(kinds: Sequence[EdgeKind]) -> set[EdgeKind] | None:
    return {EdgeKind(k) for k in kinds} if kinds else None


def _adjacent(
    graph: nx.MultiDiGraph, node_id: str, wanted: set[EdgeKind] | None, direction: Direction
) -> Iterator[str]:
    if direction in (Direction.OUT, Direction.BOTH):
        for target, by_kind in graph.succ[node_id].items():
            if wanted is None or not wanted.isdisjoint(by_kind):
                yield target
    if direction in (Direction.IN, Direction.BOTH):
        for source, by_kind in graph.pred[node_id].items():
            if wanted is None or not wanted.isdisjoint(by_kind):
                yield source
