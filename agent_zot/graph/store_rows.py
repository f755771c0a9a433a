"""The batch checks every graph store shares, and the embedded store's row writes (graph/store_sqlite.py).

The row functions run inside the caller's write transaction and return whether they changed anything.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Sequence
from itertools import islice
from typing import Any

from agent_zot.graph.model import Edge, EdgeKind, GraphRows, Node, NodeKind
from agent_zot.graph.store import GraphStoreError
from agent_zot.state.db import rows_in

BUMP = "UPDATE graph_meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'graph_version'"
_UPSERT_NODE = (
    "INSERT INTO graph_nodes (id, kind, props, name) VALUES (?, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET "
    "kind = excluded.kind, props = excluded.props, name = excluded.name"
)
_UPSERT_EDGE = (
    "INSERT INTO graph_edges (source, kind, target, props) VALUES (?, ?, ?, ?) "
    "ON CONFLICT(source, kind, target) DO UPDATE SET props = excluded.props"
)
# What the reads need: edges into a node by kind (covering, so a hop reads the index alone), edges of a kind
# (all_edges, counts), nodes of a kind by id and by name (find_nodes).
_INDEXES = (
    "CREATE INDEX IF NOT EXISTS graph_edges_target_kind ON graph_edges(target, kind, source)",
    "CREATE INDEX IF NOT EXISTS graph_edges_kind ON graph_edges(kind)",
    "CREATE INDEX IF NOT EXISTS graph_nodes_kind_id ON graph_nodes(kind, id)",
    "CREATE INDEX IF NOT EXISTS graph_nodes_kind_name ON graph_nodes(kind, name)",
    "DROP INDEX IF EXISTS graph_edges_target",  # superseded by graph_edges_target_kind
)
_TEMP = (
    "CREATE TEMP TABLE IF NOT EXISTS new_nodes "
    "(id TEXT PRIMARY KEY, kind TEXT NOT NULL, props TEXT NOT NULL, name TEXT NOT NULL)",
    "CREATE TEMP TABLE IF NOT EXISTS new_edges (source TEXT NOT NULL, kind TEXT NOT NULL, "
    "target TEXT NOT NULL, props TEXT NOT NULL, PRIMARY KEY (source, kind, target))",
)
STREAM = 5000  # rows per executemany while a whole graph streams in
NODE_KINDS = {k.value: k for k in NodeKind}
EDGE_KINDS = {k.value: k for k in EdgeKind}


def clean_props(props: dict[str, Any]) -> dict[str, Any]:
    """Props as every store keeps them: keys whose value is None are dropped (Neo4j cannot store null)."""
    return {key: value for key, value in props.items() if value is not None}


def dedupe_batch(graph: GraphRows) -> tuple[list[Node], list[Edge]]:
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


# -- rows ---------------------------------------------------------------------------------------------


def ensure_schema(conn: sqlite3.Connection) -> None:
    """The name column and the indexes, added once to a state file an older agent-zot wrote."""
    if "name" not in _columns(conn):
        conn.execute("BEGIN IMMEDIATE")
        completed = False
        try:
            if "name" not in _columns(conn):  # another process may have just done it
                conn.execute("ALTER TABLE graph_nodes ADD COLUMN name TEXT NOT NULL DEFAULT ''")
                _fill_names(conn)
            completed = True
        finally:
            conn.execute("COMMIT" if completed else "ROLLBACK")
    for statement in _INDEXES:
        conn.execute(statement)


def _columns(conn: sqlite3.Connection) -> set[str]:
    return {row[1] for row in conn.execute("PRAGMA table_info(graph_nodes)")}


def _fill_names(conn: sqlite3.Connection) -> None:
    last = -1
    while True:
        rows = conn.execute(
            "SELECT rowid, id, kind, props FROM graph_nodes WHERE rowid > ? ORDER BY rowid LIMIT ?",
            (last, STREAM),
        ).fetchall()
        if not rows:
            return
        conn.executemany(
            "UPDATE graph_nodes SET name = ? WHERE rowid = ?",
            [(node_of(row[1:]).name.lower(), row[0]) for row in rows],
        )
        last = rows[-1][0]


def kinds_sql(kinds: Sequence[EdgeKind]) -> str:
    """`` AND kind IN (...)`` for ``kinds`` (nothing when empty: every kind); the values are EdgeKind's own."""
    if not kinds:
        return ""
    return " AND kind IN (" + ",".join(f"'{EdgeKind(k).value}'" for k in dict.fromkeys(kinds)) + ")"


def dumps(props: dict[str, Any]) -> str:
    return json.dumps(props, ensure_ascii=False, separators=(",", ":")) if props else "{}"


def loads(text: str) -> dict[str, Any]:
    return json.loads(text) if text != "{}" else {}


def node_of(row: Sequence[Any]) -> Node:
    """A node from an (id, kind, props) row."""
    return Node(row[0], NODE_KINDS[row[1]], loads(row[2]))


def edge_of(key: tuple[str, str, str], props: str) -> Edge:
    return Edge(key[0], key[2], EDGE_KINDS[key[1]], loads(props))


def node_row(node: Node) -> tuple[str, str, str, str]:
    """A cleaned node as a row; ``name`` is what find_nodes searches: Node.name, lower-cased."""
    return (node.id, node.kind.value, dumps(node.props), node.name.lower())


def edge_row(edge: Edge) -> tuple[str, str, str, str]:
    return (edge.source, edge.kind.value, edge.target, dumps(edge.props))


def upsert_rows(conn: sqlite3.Connection, nodes: Sequence[Node], edges: Sequence[Edge]) -> bool:
    missing = missing_endpoints(edges, (n.id for n in nodes), _ids_in(conn, edges))
    if missing:
        raise dangling_error(missing)
    conn.executemany(_UPSERT_NODE, [node_row(n) for n in nodes])
    conn.executemany(_UPSERT_EDGE, [edge_row(e) for e in edges])
    return True


def replace_out_edge_rows(
    conn: sqlite3.Connection,
    sources: list[str],
    kinds: list[str],
    nodes: Sequence[Node],
    edges: Sequence[Edge],
) -> bool:
    """``replace_out_edges``: the old edges of those kinds go, the new come; a target left untouched by
    any edge goes too."""
    missing = missing_endpoints(edges, (n.id for n in nodes), _ids_in(conn, edges))
    if missing:
        raise dangling_error(missing)
    leaving = rows_in(conn, "SELECT source, kind, target FROM graph_edges WHERE source IN ({})", sources)
    old = [row for row in leaving if row[1] in kinds]
    conn.executemany("DELETE FROM graph_edges WHERE source = ? AND kind = ? AND target = ?", old)
    conn.executemany(_UPSERT_NODE, [node_row(n) for n in nodes])
    conn.executemany(_UPSERT_EDGE, [edge_row(e) for e in edges])
    for (target,) in {(t,) for _, _, t in old}:
        touched = conn.execute(
            "SELECT 1 FROM graph_edges WHERE source = ? OR target = ? LIMIT 1", (target, target)
        ).fetchone()
        if touched is None:
            conn.execute("DELETE FROM graph_nodes WHERE id = ?", (target,))
    return bool(old or nodes or edges)


def replace_all_rows(conn: sqlite3.Connection, graph: GraphRows) -> bool:
    """Make the tables hold exactly ``graph``. It streams into temporary tables (a batch of rows at a
    time; the last occurrence of a node or edge wins), is checked and compared there, and only the rows
    that differ are written: a rebuild after a few changed items rewrites a few rows."""
    for statement in _TEMP:
        conn.execute(statement)
    try:
        for chunk in _chunks(graph.nodes):
            rows = [node_row(Node(n.id, NodeKind(n.kind), clean_props(n.props))) for n in chunk]
            conn.executemany("INSERT OR REPLACE INTO temp.new_nodes VALUES (?, ?, ?, ?)", rows)
        for chunk in _chunks(graph.edges):
            rows = [edge_row(Edge(e.source, e.target, EdgeKind(e.kind), clean_props(e.props))) for e in chunk]
            conn.executemany("INSERT OR REPLACE INTO temp.new_edges VALUES (?, ?, ?, ?)", rows)
        missing = [
            row[0]
            for row in conn.execute(
                "SELECT ref FROM (SELECT source AS ref FROM temp.new_edges UNION "
                "SELECT target FROM temp.new_edges) WHERE ref NOT IN (SELECT id FROM temp.new_nodes) ORDER BY ref"
            )
        ]
        if missing:
            raise dangling_error(missing)
        before = conn.total_changes
        conn.execute(
            "DELETE FROM graph_edges WHERE NOT EXISTS (SELECT 1 FROM temp.new_edges AS n WHERE "
            "n.source = graph_edges.source AND n.kind = graph_edges.kind AND n.target = graph_edges.target)"
        )
        conn.execute("DELETE FROM graph_nodes WHERE id NOT IN (SELECT id FROM temp.new_nodes)")
        conn.execute(
            "INSERT INTO graph_nodes (id, kind, props, name) SELECT id, kind, props, name "
            "FROM temp.new_nodes WHERE true ORDER BY id ON CONFLICT(id) DO UPDATE SET kind = excluded.kind, "
            "props = excluded.props, name = excluded.name WHERE kind != excluded.kind OR "
            "props != excluded.props OR name != excluded.name"
        )
        conn.execute(
            "INSERT INTO graph_edges (source, kind, target, props) SELECT source, kind, target, props "
            "FROM temp.new_edges WHERE true ORDER BY source, kind, target "
            "ON CONFLICT(source, kind, target) DO UPDATE SET props = excluded.props "
            "WHERE props != excluded.props"
        )
        return conn.total_changes != before
    finally:
        conn.execute("DELETE FROM temp.new_nodes")
        conn.execute("DELETE FROM temp.new_edges")


def _chunks(rows: Iterable[Any]) -> Iterable[Sequence[Any]]:
    iterator = iter(rows)
    while chunk := list(islice(iterator, STREAM)):
        yield chunk


def _ids_in(conn: sqlite3.Connection, edges: Sequence[Edge]) -> set[str]:
    ends = sorted({end for e in edges for end in (e.source, e.target)})
    return {row[0] for row in rows_in(conn, "SELECT id FROM graph_nodes WHERE id IN ({})", ends)}
