"""What the exploration modes need from a graph store; one contract suite tests every implementation.

Implementations: ``store_sqlite.SqliteGraphStore`` (embedded default: indexed tables in the state
database, answered with SQL) and ``store_neo4j.Neo4jGraphStore`` (the official neo4j driver; any Bolt
server speaking standard Cypher). Exploration is written once over these primitives; ranking (PageRank)
runs on compact arrays over the edges the store returns (graph/rank.py).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from enum import StrEnum
from typing import Protocol

from agent_zot.backends import Backends
from agent_zot.errors import AgentZotError, ConfigError
from agent_zot.graph.model import Edge, EdgeKind, GraphData, GraphRows, Node, NodeKind


class GraphStoreError(AgentZotError):
    """The graph store cannot be reached or read; the message says what to do."""


class Direction(StrEnum):
    OUT = "out"  # follow edges from source to target
    IN = "in"  # follow edges backwards
    BOTH = "both"


class GraphStore(Protocol):
    name: str

    def replace_all(self, graph: GraphRows) -> None:
        """Make the store hold exactly ``graph`` (nodes and edges not in it are removed). An edge naming a
        node not in ``graph`` raises GraphStoreError and leaves the store as it was. Its nodes and edges are
        iterated once, in order (a built graph makes its edges as they are read)."""
        ...

    def upsert(self, graph: GraphData) -> None:
        """Add or update nodes (by id; props replaced) and edges (by source, kind, target; props replaced).
        Edges may only name nodes that exist after the call: otherwise GraphStoreError, and nothing of the
        batch is written. Props whose value is None are not kept (Neo4j has no null properties). A node's
        kind is part of its id (its prefix) and is not expected to change."""
        ...

    def replace_out_edges(self, sources: Sequence[str], kinds: Sequence[EdgeKind], graph: GraphData) -> None:
        """Make the ``kinds`` edges leaving ``sources`` exactly those in ``graph`` (its nodes are upserted
        with them, and its edges must leave ``sources``). A node such an edge reached before that no edge
        touches now is removed. For a metadata edit (a retag) patched without rebuilding the graph."""
        ...

    def delete_nodes(self, node_ids: Iterable[str]) -> None:
        """Remove nodes and every edge touching them; unknown ids are ignored."""
        ...

    def get_nodes(self, node_ids: Sequence[str]) -> list[Node]:
        """The nodes that exist among ``node_ids``, in the order asked."""
        ...

    def find_nodes(self, kind: NodeKind, *, name: str | None = None, limit: int = 50) -> list[Node]:
        """Nodes of a kind; with ``name``, those whose name/title contains it (case-insensitive): exact
        matches first, then prefix matches, then the others, each by id. Without ``name``, by id."""
        ...

    def edges_of(
        self,
        node_ids: Sequence[str],
        *,
        kinds: Sequence[EdgeKind] = (),
        direction: Direction = Direction.BOTH,
    ) -> list[Edge]:
        """Edges touching any of ``node_ids`` (all kinds when ``kinds`` is empty), each once, sorted by
        (source, kind, target). OUT: edges whose source is asked; IN: whose target is; BOTH: either."""
        ...

    def neighbourhood(
        self,
        start: Sequence[str],
        *,
        kinds: Sequence[EdgeKind] = (),
        direction: Direction = Direction.BOTH,
        hops: int = 1,
        limit: int = 500,
    ) -> GraphData:
        """The subgraph reached from ``start`` in up to ``hops`` steps along ``kinds`` edges (start nodes
        included; at most ``limit`` nodes, nearest first; edges among the returned nodes of those kinds).
        Order: the existing start nodes as given, then each hop's new nodes by id; edges sorted by
        (source, kind, target), whatever their direction."""
        ...

    def all_edges(self, kinds: Sequence[EdgeKind]) -> list[Edge]:
        """Every edge of the given kinds, all kinds when empty (for graph-wide ranking such as PageRank
        over CITES); sorted by (source, kind, target)."""
        ...

    def has_papers(self) -> bool:
        """Whether any paper is stored (cheap: asked before every graph request, unlike ``counts``)."""
        ...

    def counts(self) -> dict[str, int]:
        """Node counts by kind value and edge counts by kind value, one flat mapping (every kind, 0 too)."""
        ...

    def version(self) -> int | None:
        """A stamp that changes whenever the stored graph changes (what is computed from the graph is
        cached on it); None when the store cannot tell cheaply, and then nothing is cached."""
        ...

    def close(self) -> None: ...


# The embedded store is always kept current; a server store named by ``graph_store`` mirrors it and
# exploration reads there. Strings: the stores import this module, and the Neo4j driver loads only when used.
EMBEDDED_GRAPH_STORE = "sqlite"
GRAPH_STORES: Backends[GraphStore] = Backends(
    "graph store",
    {
        EMBEDDED_GRAPH_STORE: "agent_zot.graph.store_sqlite:SqliteGraphStore",
        "neo4j": "agent_zot.graph.store_neo4j:Neo4jGraphStore",
    },
    aliases={"networkx": EMBEDDED_GRAPH_STORE},  # the setting's name from before the store moved into SQLite
    error=ConfigError,
)
