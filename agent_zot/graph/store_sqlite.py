"""The embedded graph store: the knowledge graph in indexed SQLite tables of the state database, read with SQL.

(Named store_sqlite, formerly store_nx: it no longer loads the graph into networkx. A networkx graph of a
100,000-item library held 1.9 million edges as Python objects, several GB, and took ~25 s to load.)

``graph_nodes`` (id, kind, props as JSON, name: the lower-cased ``Node.name`` name lookups search) and
``graph_edges`` (source, kind, target, props; keyed by (source, kind, target), indexed by (target, kind,
source) and by kind) live in the same file as the index state, opened through this store's own connection.
Reads are queries (a traversal is one batched query per hop), each request one read transaction, so a new
process answers without loading anything. Every write is one transaction and bumps ``graph_version``; what
is cached (edge lists of a kind, counts) is kept per version, so another process's writes are seen.
"""

from __future__ import annotations

import functools
import json
import sqlite3
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Concatenate, ParamSpec, TypeVar

from agent_zot.graph.model import Edge, EdgeKind, GraphData, GraphRows, Node, NodeKind, paper_id
from agent_zot.graph.store import Direction, GraphStoreError
from agent_zot.graph.store_rows import (
    BUMP,
    dedupe_batch,
    edge_of,
    ensure_schema,
    kinds_sql,
    name_rank,
    node_of,
    replace_all_rows,
    replace_out_edge_rows,
    upsert_rows,
)
from agent_zot.state.db import connect

BATCH = 500  # ids per IN (...) list: SQLite caps a statement's parameters


P = ParamSpec("P")
R = TypeVar("R")


def _reading(
    method: Callable[Concatenate[SqliteGraphStore, sqlite3.Connection, P], R],
) -> Callable[Concatenate[SqliteGraphStore, P], R]:
    """One read transaction per request: its several queries see one snapshot, whoever writes meanwhile."""

    @functools.wraps(method)
    def read(self: SqliteGraphStore, *args: P.args, **kwargs: P.kwargs) -> R:
        with self._read() as conn:
            return method(self, conn, *args, **kwargs)

    return read


class SqliteGraphStore:
    """Thread-safe; one instance per process is enough, several (even across processes) stay consistent."""

    name = "sqlite"

    def __init__(self, db_path: Path) -> None:
        self.db_path = db_path
        self._conn: sqlite3.Connection | None = None
        self._lock = threading.RLock()
        self._cache_version = -1  # the graph_version the caches below describe
        self._edges_by_kind: dict[EdgeKind, list[Edge]] = {}
        self._counts: dict[str, int] | None = None

    # -- connection ---------------------------------------------------------------------------

    def _connection(self) -> sqlite3.Connection:
        if self._conn is None:
            try:
                conn = connect(self.db_path)
                ensure_schema(conn)
            except (OSError, sqlite3.Error) as exc:
                raise self._error("open", exc) from exc
            self._conn = conn
        return self._conn

    def _error(self, action: str, exc: Exception) -> GraphStoreError:
        return GraphStoreError(
            f"Cannot {action} the graph in {self.db_path}: {exc}.",
            hint="Check that the agent-zot data directory is writable (setting data_dir).",
        )

    @staticmethod
    def _read_version(conn: sqlite3.Connection) -> int:
        row = conn.execute("SELECT value FROM graph_meta WHERE key = 'graph_version'").fetchone()
        return int(row[0]) if row else 0

    @contextmanager
    def _read(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            conn = self._connection()
            try:
                conn.execute("BEGIN")
                try:
                    version = self._read_version(conn)
                    if version != self._cache_version:
                        self._edges_by_kind, self._counts, self._cache_version = {}, None, version
                    yield conn
                finally:
                    conn.execute("COMMIT")
            except sqlite3.Error as exc:
                raise self._error("read", exc) from exc

    def _write_tables(self, write: Callable[[sqlite3.Connection], bool]) -> None:
        """One transaction of ``write``; when it reports a change the version is bumped (and so every
        reader's caches are dropped at its next read)."""
        with self._lock:
            conn = self._connection()
            try:
                conn.execute("BEGIN IMMEDIATE")
                completed = False
                try:
                    if write(conn):
                        conn.execute(BUMP)
                    completed = True
                finally:  # commit only what completed; anything else (even Ctrl-C) rolls back
                    conn.execute("COMMIT" if completed else "ROLLBACK")
            except sqlite3.Error as exc:
                raise self._error("write", exc) from exc

    # -- writes -------------------------------------------------------------------------------

    def upsert(self, graph: GraphData) -> None:
        nodes, edges = dedupe_batch(graph)
        if nodes or edges:
            self._write_tables(lambda conn: upsert_rows(conn, nodes, edges))

    def delete_nodes(self, node_ids: Iterable[str]) -> None:
        wanted = sorted(set(node_ids))
        if wanted:
            self._write_tables(lambda conn: _delete_rows(conn, wanted))

    def replace_out_edges(self, sources: Sequence[str], kinds: Sequence[EdgeKind], graph: GraphData) -> None:
        nodes, edges = dedupe_batch(graph)
        wanted, kind_values = sorted(set(sources)), [EdgeKind(k).value for k in kinds]
        if not wanted or not kind_values:
            return
        outside = sorted({e.source for e in edges} - set(wanted))
        if outside or any(e.kind not in kinds for e in edges):
            raise ValueError(
                f"edges must leave {wanted} with kinds {kind_values}: {outside or 'other kinds'}"
            )
        self._write_tables(lambda conn: replace_out_edge_rows(conn, wanted, kind_values, nodes, edges))

    def replace_all(self, graph: GraphRows) -> None:
        """Make the stored graph equal to ``graph``, writing only the rows that differ. The batch streams
        into temporary tables and is compared there in SQL: no second copy of the graph in memory."""
        self._write_tables(lambda conn: replace_all_rows(conn, graph))

    # -- reads --------------------------------------------------------------------------------

    @_reading
    def get_nodes(self, conn: sqlite3.Connection, node_ids: Sequence[str]) -> list[Node]:
        return _get_nodes(conn, list(dict.fromkeys(node_ids)))

    @_reading
    def find_nodes(
        self, conn: sqlite3.Connection, kind: NodeKind, *, name: str | None = None, limit: int = 50
    ) -> list[Node]:
        kind_value = NodeKind(kind).value
        if name is None:
            query = "SELECT id, kind, props FROM graph_nodes WHERE kind = ? ORDER BY id LIMIT ?"
            return [node_of(row) for row in conn.execute(query, (kind_value, limit))]
        wanted = name.lower()
        # instr over the (kind, name) index: a scan of one kind's short names, no JSON decoded
        found = conn.execute(
            "SELECT id, name FROM graph_nodes WHERE kind = ? AND instr(name, ?) > 0", (kind_value, wanted)
        )
        ranked = sorted((name_rank(lowered, wanted), node_id) for node_id, lowered in found)
        return _get_nodes(conn, [node_id for _, node_id in ranked[:limit]])

    @_reading
    def edges_of(
        self,
        conn: sqlite3.Connection,
        node_ids: Sequence[str],
        *,
        kinds: Sequence[EdgeKind] = (),
        direction: Direction = Direction.BOTH,
    ) -> list[Edge]:
        ids = list(dict.fromkeys(node_ids))
        found: dict[tuple[str, str, str], str] = {}
        ends = []
        if direction in (Direction.OUT, Direction.BOTH):
            ends.append("source")
        if direction in (Direction.IN, Direction.BOTH):
            ends.append("target")
        for end in ends:
            query = (
                f"SELECT source, kind, target, props FROM graph_edges WHERE {end} IN ({{}}){kinds_sql(kinds)}"  # noqa: S608 (placeholders, EdgeKind values)
            )
            for source, kind, target, props in _rows_in(conn, query, ids):
                found[(source, kind, target)] = props
        return [edge_of(key, found[key]) for key in sorted(found)]

    @_reading
    def neighbourhood(
        self,
        conn: sqlite3.Connection,
        start: Sequence[str],
        *,
        kinds: Sequence[EdgeKind] = (),
        direction: Direction = Direction.BOTH,
        hops: int = 1,
        limit: int = 500,
    ) -> GraphData:
        """Hop by hop: one batched query per hop and direction on the covering indexes (ids only)."""
        asked = list(dict.fromkeys(start))
        present = {row[0] for row in _rows_in(conn, "SELECT id FROM graph_nodes WHERE id IN ({})", asked)}
        reached = [node_id for node_id in asked if node_id in present][:limit]
        seen = set(reached)
        frontier = reached
        only = kinds_sql(kinds)
        queries = []
        if direction in (Direction.OUT, Direction.BOTH):
            queries.append(f"SELECT target FROM graph_edges WHERE source IN ({{}}){only}")  # noqa: S608 (placeholders, EdgeKind values)
        if direction in (Direction.IN, Direction.BOTH):
            queries.append(f"SELECT source FROM graph_edges WHERE target IN ({{}}){only}")  # noqa: S608 (placeholders, EdgeKind values)
        for _ in range(hops):
            if not frontier or len(reached) >= limit:
                break
            found = {row[0] for query in queries for row in _rows_in(conn, query, frontier)} - seen
            frontier = sorted(found)[: limit - len(reached)]  # one hop's nodes, by id: deterministic
            seen.update(frontier)
            reached.extend(frontier)
        # Both ends among the reached nodes, in SQL: a popular author's thousands of co-author edges that
        # leave the set are not turned into Python rows (json_each: one parameter, however many ids; the
        # unary + keeps the planner on the source index, not one probe per source and target pair).
        inside = json.dumps(reached)
        rows = conn.execute(
            "SELECT source, kind, target, props FROM graph_edges WHERE source IN "  # noqa: S608 (EdgeKind values)
            f"(SELECT value FROM json_each(?)) AND +target IN (SELECT value FROM json_each(?)){only}",
            (inside, inside),
        )
        edges = sorted((edge_of((s, k, t), props) for s, k, t, props in rows), key=lambda e: e.key)
        return GraphData(_get_nodes(conn, reached), edges)

    @_reading
    def all_edges(self, conn: sqlite3.Connection, kinds: Sequence[EdgeKind]) -> list[Edge]:
        """Cached per kind until the graph changes: graph-wide ranking (PageRank, venues) asks for the same
        edges on every call. The Edge objects are shared: treat them as read-only."""
        wanted = [EdgeKind(k) for k in kinds] or list(EdgeKind)
        for kind in wanted:
            if kind not in self._edges_by_kind:
                rows = conn.execute(
                    "SELECT source, kind, target, props FROM graph_edges WHERE kind = ?", (kind.value,)
                )
                edges = [edge_of((s, k, t), props) for s, k, t, props in rows]
                edges.sort(key=lambda e: e.key)
                self._edges_by_kind[kind] = edges
        edges = [e for kind in wanted for e in self._edges_by_kind[kind]]
        if len(wanted) > 1:
            edges.sort(key=lambda e: e.key)
        return edges

    def version(self) -> int:
        """The stored graph's version: every write raises it (caches of the graph are keyed on it)."""
        with self._lock:
            try:
                return self._read_version(self._connection())
            except sqlite3.Error as exc:
                raise self._error("read", exc) from exc

    def stored_counts(self) -> dict[str, int]:
        """Node and edge counts (kept for callers written against the loading store: ``counts`` is now
        as cheap, from the kind indexes)."""
        return self.counts()

    @_reading
    def has_papers(self, conn: sqlite3.Connection) -> bool:
        """Whether a graph with papers is stored: one lookup in the id index."""
        low = paper_id("")
        high = low[:-1] + chr(ord(low[-1]) + 1)  # every id that starts "paper:", and none other
        query = "SELECT 1 FROM graph_nodes WHERE id >= ? AND id < ? AND kind = ? LIMIT 1"
        return conn.execute(query, (low, high, NodeKind.PAPER.value)).fetchone() is not None

    @_reading
    def counts(self, conn: sqlite3.Connection) -> dict[str, int]:
        if self._counts is None:
            result = {k.value: 0 for k in NodeKind} | {k.value: 0 for k in EdgeKind}
            for query in (
                "SELECT kind, COUNT(*) FROM graph_nodes GROUP BY kind",
                "SELECT kind, COUNT(*) FROM graph_edges GROUP BY kind",
            ):
                result.update(dict(conn.execute(query).fetchall()))
            self._counts = result
        return dict(self._counts)

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None
            self._edges_by_kind, self._counts, self._cache_version = {}, None, -1


def _rows_in(conn: sqlite3.Connection, query: str, values: Sequence[str]) -> Iterator[tuple[Any, ...]]:
    """``query`` with its ``IN ({})`` over ``values``, a batch at a time, rows streamed."""
    for start in range(0, len(values), BATCH):
        batch = values[start : start + BATCH]
        yield from conn.execute(query.format(",".join("?" * len(batch))), batch)


def _get_nodes(conn: sqlite3.Connection, ids: list[str]) -> list[Node]:
    """The nodes among ``ids`` (distinct), in that order."""
    rows = {
        row[0]: row for row in _rows_in(conn, "SELECT id, kind, props FROM graph_nodes WHERE id IN ({})", ids)
    }
    return [node_of(rows[node_id]) for node_id in ids if node_id in rows]


def _delete_rows(conn: sqlite3.Connection, ids: list[str]) -> bool:
    before = conn.total_changes
    for start in range(0, len(ids), BATCH):
        batch = ids[start : start + BATCH]
        marks = ",".join("?" * len(batch))
        conn.execute(f"DELETE FROM graph_edges WHERE source IN ({marks})", batch)  # noqa: S608 (placeholders, EdgeKind values)
        conn.execute(f"DELETE FROM graph_edges WHERE target IN ({marks})", batch)  # noqa: S608 (placeholders, EdgeKind values)
        conn.execute(f"DELETE FROM graph_nodes WHERE id IN ({marks})", batch)  # noqa: S608 (placeholders, EdgeKind values)
    return conn.total_changes != before
