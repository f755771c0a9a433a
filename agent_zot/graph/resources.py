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
from agent_zot.graph.facts import FactsCache, PaperFacts, current_facts, facts_keys
from agent_zot.graph.model import EdgeKind, NodeKind
from agent_zot.graph.patch import (
    FactsFor,
    GraphMemo,
    Signature,
    cited_papers,
    filing_signature,
    plan_patch,
    signatures,
)
from agent_zot.graph.store import EMBEDDED_GRAPH_STORE, GRAPH_STORES, GraphStore
from agent_zot.graph.store_sqlite import SqliteGraphStore
from agent_zot.index.stages import StageTimes
from agent_zot.state.index import IndexState
from agent_zot.zotero.copies import canonical_keys
from agent_zot.zotero.models import Item, Library

log = logging.getLogger(__name__)


class GraphResources:
    def __init__(self, settings: Settings, state_path: Path) -> None:
        self.settings = settings
        self.state_path = state_path
        self._lock = threading.Lock()
        # The memo this process last wrote, by its head's text: a process that updates again (`watch`, the
        # server's auto-update) reuses it, parsed concept ledger included, instead of reading it back.
        self._memo: tuple[str, GraphMemo] | None = None

    def for_state(self, state_path: Path) -> GraphResources:
        """The same graph settings over another state database (a rebuild's new generation)."""
        return GraphResources(self.settings, state_path)

    @cached_property
    def local(self) -> SqliteGraphStore:
        self.state_path.parent.mkdir(parents=True, exist_ok=True)
        return SqliteGraphStore(self.state_path)

    @cached_property
    def neo4j(self) -> GraphStore:
        secret = self.settings.neo4j_password
        return GRAPH_STORES.create(
            "neo4j",
            self.settings.neo4j_url,
            self.settings.neo4j_user,
            secret.get_secret_value() if secret else "",
            database=self.settings.neo4j_database,
        )

    @cached_property
    def mirrored(self) -> bool:
        """Whether the configured store is the Neo4j server, kept as a copy of the embedded graph."""
        return GRAPH_STORES.canonical(self.settings.graph_store) != EMBEDDED_GRAPH_STORE

    @property
    def store(self) -> GraphStore:
        """The store exploration reads: Neo4j when configured, else the embedded graph."""
        return self.neo4j if self.mirrored else self.local

    def is_empty(self) -> bool:
        return not self.local.has_papers()

    def update(
        self, library: Library, state: IndexState, times: StageTimes | None = None, *, rebuild: bool = False
    ) -> BuildStats:
        """Bring the graph up to date with the library and the cached per-paper facts: patched where a few
        papers changed (graph/patch.py), else (or with ``rebuild``) built again; written to the stores."""
        times = times if times is not None else StageTimes()
        with self._lock:
            cache = FactsCache(self.state_path)
            try:
                keys = facts_keys(library.items.values(), state, settings=self.settings)
                canonical = canonical_keys(library.items.values())
                now = signatures(library, keys, canonical)
                memo = self._read_memo(cache)
                if not rebuild and memo is not None and memo.graph_version == self.local.version():

                    def facts_for(wanted: Sequence[str]) -> dict[str, PaperFacts]:
                        items = [library.items[key] for key in wanted]
                        return current_facts(
                            items, state, cache, settings=self.settings, keys=keys, every_item=False
                        )

                    with times.measure("graph: patch"):
                        stats = self._patch(memo, cache, library, facts_for, now, canonical)
                    if stats is not None:
                        return stats
                with times.measure("graph: references and keyphrases"):
                    facts = current_facts(
                        library.items.values(), state, cache, settings=self.settings, keys=keys
                    )
                return self._rebuild(cache, library, facts, now, times)
            finally:
                cache.close()

    def _rebuild(
        self,
        cache: FactsCache,
        library: Library,
        facts: dict[str, PaperFacts],
        now: dict[str, Signature],
        times: StageTimes,
    ) -> BuildStats:
        with times.measure("graph: build"):
            data, stats, ledger = build_graph(library, facts)
        GraphMemo.forget(cache)  # the stores and the memo are written apart: never leave a stale one
        with times.measure("graph: write"):
            self.local.replace_all(data)
            if self.mirrored:
                self.neo4j.replace_all(data)
        stats.counts = self.local.stored_counts()
        citing = {key for key, known in facts.items() if known.references}
        memo = GraphMemo(self.local.version(), now, cited_papers(data), citing, stats.to_dict(), ledger)
        self._memo = (memo.keep(cache, with_ledger=True), memo)
        return stats

    def _read_memo(self, cache: FactsCache) -> GraphMemo | None:
        """The stored memo: the one this process wrote last when the store still holds it, else read.
        Taken out of memory while in use, so a patch that fails half-way leaves nothing stale behind."""
        kept, self._memo = self._memo, None
        text = cache.memo("head")
        if text is None:
            return None
        if kept is not None and kept[0] == text:
            return kept[1]
        return GraphMemo.from_head(text)

    def _patch(
        self,
        memo: GraphMemo,
        cache: FactsCache,
        library: Library,
        facts_for: FactsFor,
        now: dict[str, Signature],
        canonical: dict[str, str],
    ) -> BuildStats | None:
        patch = plan_patch(memo, cache, library, facts_for, now, canonical)
        if patch is None:
            return None
        GraphMemo.forget(cache)
        for write in patch.writes:
            write.apply(self.local)
            if self.mirrored:
                write.apply(self.neo4j)
        counts = self.local.stored_counts()
        stats = BuildStats.from_dict(memo.stats)
        if patch.citations is not None:
            stats.citations_in_library = patch.citations.citations_in_library
            stats.external_works = patch.citations.external_works
            memo.cited = cited_papers(next(w.data for w in patch.writes if EdgeKind.CITES in w.kinds))
        stats.concepts = counts.get(NodeKind.CONCEPT.value, 0)
        stats.edges = sum(counts.get(kind.value, 0) for kind in EdgeKind)
        stats.counts = counts
        stats.patched_papers = patch.papers
        memo.graph_version, memo.signatures, memo.stats = self.local.version(), now, stats.to_dict()
        # the ledger is written only when the patch read (and so updated) it
        self._memo = (memo.keep(cache, with_ledger=memo.ledger is not None), memo)
        return stats

    def memo_is_current(self) -> bool:
        """Whether the graph's memo describes the stored graph, so the next edit can patch it (an older
        agent-zot wrote none)."""
        with self._lock:
            cache = FactsCache(self.state_path)
            try:
                memo = GraphMemo.read(cache)
            finally:
                cache.close()
            return memo is not None and memo.graph_version == self.local.version()

    def patch_papers(self, library: Library, items: Sequence[Item]) -> dict[str, float]:
        """Bring the tags and collections of these papers up to date in place (a retag, a paper filed
        into a collection): only their TAGGED and IN_COLLECTION edges are rewritten, so the result equals
        a rebuild without its cost. Callers patch only items whose other graph inputs are unchanged."""
        sources, data = filing_edges(library, items)
        with self._lock:
            cache = FactsCache(self.state_path)
            try:
                memo = GraphMemo.read(cache)
                current = memo is not None and memo.graph_version == self.local.version()
                self.local.replace_out_edges(sources, FILING_KINDS, data)
                if self.mirrored:
                    self.neo4j.replace_out_edges(sources, FILING_KINDS, data)
                if memo is not None and current:  # the memo follows the filing it describes
                    for item in items:
                        frame, text, _ = memo.signatures.get(item.key, ("", "", ""))
                        memo.signatures[item.key] = (frame, text, filing_signature(item, library))
                    memo.graph_version = self.local.version()
                    memo.keep(cache, with_ledger=False)
            finally:
                cache.close()
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
