"""The graph's parts, built from Settings on first use: the store to explore and the facts cache.

The embedded networkx store in the index state database is always kept current by update-db; with
``graph_store = "neo4j"`` the same graph is also pushed to the Neo4j server and exploration reads there.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from functools import cached_property
from pathlib import Path

from agent_zot.config import Settings
from agent_zot.graph.build import FILING_KINDS, BuildStats, build_graph, filing_edges
from agent_zot.graph.facts import FactsCache, current_facts
from agent_zot.graph.store import GraphStore
from agent_zot.graph.store_nx import NetworkxGraphStore
from agent_zot.index.stages import StageTimes
from agent_zot.state.index import IndexState
from agent_zot.zotero.models import Item, Library

log = logging.getLogger(__name__)


class GraphResources:
    def __init__(self, settings: Settings, state_path: Path) -> None:
        self.settings = settings
        self.state_path = state_path
        self._lock = threading.Lock()

    def for_state(self, state_path: Path) -> GraphResources:
        """The same graph settings over another state database (a rebuild's new generation)."""
        return GraphResources(self.settings, state_path)

    @cached_property
    def local(self) -> NetworkxGraphStore:
        self.state_path.parent.mkdir(parents=True, exist_ok=True)
        return NetworkxGraphStore(self.state_path)

    @cached_property
    def neo4j(self) -> GraphStore:
        from agent_zot.graph.store_neo4j import Neo4jGraphStore

        secret = self.settings.neo4j_password
        return Neo4jGraphStore(
            self.settings.neo4j_url,
            self.settings.neo4j_user,
            secret.get_secret_value() if secret else "",
            database=self.settings.neo4j_database,
        )

    @property
    def store(self) -> GraphStore:
        """The store exploration reads: Neo4j when configured, else the embedded graph."""
        return self.neo4j if self.settings.graph_store == "neo4j" else self.local

    def is_empty(self) -> bool:
        return not self.local.stored_counts().get("Paper")

    def update(self, library: Library, state: IndexState, times: StageTimes | None = None) -> BuildStats:
        """Rebuild the graph from the library and the cached per-paper facts; write it to the stores."""
        times = times if times is not None else StageTimes()
        with self._lock:
            cache = FactsCache(self.state_path)
            try:
                with times.measure("graph: references and keyphrases"):
                    facts = current_facts(library.items.values(), state, cache, settings=self.settings)
            finally:
                cache.close()
            with times.measure("graph: build"):
                data, stats = build_graph(library, facts)
            with times.measure("graph: write"):
                self.local.replace_all(data)
                if self.settings.graph_store == "neo4j":
                    self.neo4j.replace_all(data)
            stats.counts = self.local.stored_counts()
            return stats

    def patch_papers(self, library: Library, items: Sequence[Item]) -> dict[str, float]:
        """Bring the tags and collections of these papers up to date in place (a retag, a paper filed
        into a collection): only their TAGGED and IN_COLLECTION edges are rewritten, so the result equals
        a rebuild without its cost. Callers patch only items whose other graph inputs are unchanged."""
        sources, data = filing_edges(library, items)
        with self._lock:
            self.local.replace_out_edges(sources, FILING_KINDS, data)
            if self.settings.graph_store == "neo4j":
                self.neo4j.replace_out_edges(sources, FILING_KINDS, data)
        return {"papers_patched": len(items), "edges": len(data.edges)}

    def sync(self) -> dict[str, int]:
        """Push the embedded graph to the Neo4j server (``agent-zot graph sync``)."""
        from agent_zot.graph.model import GraphData, NodeKind

        nodes = [n for kind in NodeKind for n in self.local.find_nodes(kind, limit=10**9)]
        edges = self.local.edges_of([n.id for n in nodes]) if nodes else []
        self.neo4j.replace_all(GraphData(nodes, edges))
        return self.neo4j.counts()

    def close(self) -> None:
        for name in ("local", "neo4j"):
            if name in self.__dict__:
                self.__dict__[name].close()
