"""Bringing the graph up to date after edits to a few papers, without rebuilding it.

A build (or a patch) keeps a memo beside the graph: a signature of each item's parts and the concept ledger.
At the next update the signatures say what changed:

- *frame*: what places the paper among the others (its records' grouping into one paper, its creators, its
  reference list, its venue). A change there rebuilds the graph: authors and copies are library-wide.
- *text*: its title, abstract, other fields and keyphrases. Its node is written again, its concepts are
  merged again through the ledger (the papers and concepts that changed are rewritten), and, when a
  reference list named the paper before or may name it now, every citation is matched again.
- *filing*: its tags and collections, whose edges are rewritten.

The patch writes what a rebuild would write, and tests hold it to that. When more than a quarter of the
papers changed (and more than 20), or the memo describes another graph, the graph is rebuilt.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from agent_zot.graph.build import (
    FILING_KINDS,
    BuildStats,
    citation_edges,
    concept_text,
    filing_edges,
    paper_node,
)
from agent_zot.graph.concept_merge import ConceptChange, ConceptLedger, PaperShare, paper_share
from agent_zot.graph.facts import FACTS_VERSION, FactsCache, FactsKey, PaperFacts
from agent_zot.graph.matching import ReferenceMatcher
from agent_zot.graph.model import Edge, EdgeKind, GraphData, GraphRows, Node, NodeKind, node_id, paper_id
from agent_zot.graph.store import GraphStore
from agent_zot.zotero.models import Item, Library

PATCH_SHARE = 0.25  # more of the papers changed than this (and more than PATCH_ANY): a rebuild costs as much
PATCH_ANY = 20
MEMO_VERSION = 2
Signature = tuple[str, str, str]  # (frame, text, filing)


def _digest(value: object) -> str:
    """A hash of plain values (strings, numbers, tuples and lists of them), whose repr is stable."""
    return hashlib.blake2b(repr(value).encode(), digest_size=10).hexdigest()


def signatures(
    library: Library, keys: dict[str, FactsKey], canonical: dict[str, str]
) -> dict[str, Signature]:
    """Each item's (frame, text, filing) signature (see the module docstring), from what its facts are
    computed from (``keys``) and its own fields; ``canonical`` is `canonical_keys` of the library."""
    result = {}
    for key, item in library.items.items():
        made_from = keys[key]
        # references come from the files' text (and the parser's version); keyphrases leave names out
        frame = _digest(
            (canonical.get(key), made_from.creators, made_from.sources, FACTS_VERSION, item.venue)
        )
        # the metadata text holds title, abstract, year; the rest are what matching reads
        identifiers = (
            item.doi,
            item.extra,
            item.url,
            item.fields.get("archiveID"),
            item.fields.get("number"),
        )
        text = _digest((made_from.text, made_from.extractor, item.item_type, identifiers))
        result[key] = (frame, text, filing_signature(item, library))
    return result


def filing_signature(item: Item, library: Library) -> str:
    collections = [
        (key, library.collections[key].name, library.collections[key].path)
        for key in sorted(item.collection_keys)
        if key in library.collections
    ]
    return _digest([sorted(item.tag_names()), collections])


@dataclass(slots=True)
class GraphMemo:
    """What a build or patch leaves for the next patch (parts kept apart, so a retag reads the small one)."""

    graph_version: int
    signatures: dict[str, Signature]
    cited: set[str]  # papers a library reference list names (their CITES in-edges from papers)
    citing: set[str]  # items whose reference lists are known (the others cite nothing)
    stats: dict[str, int]
    ledger: ConceptLedger | None = None  # read on first use: it is the large part

    def head_json(self) -> str:
        return json.dumps(
            {
                "v": MEMO_VERSION,
                "graph_version": self.graph_version,
                "signatures": {k: list(v) for k, v in self.signatures.items()},
                "cited": sorted(self.cited),
                "citing": sorted(self.citing),
                "stats": self.stats,
            },
            separators=(",", ":"),
        )

    @classmethod
    def read(cls, cache: FactsCache) -> GraphMemo | None:
        text = cache.memo("head")
        return None if text is None else cls.from_head(text)

    @classmethod
    def from_head(cls, text: str) -> GraphMemo | None:
        data = json.loads(text)
        if data.get("v") != MEMO_VERSION:
            return None
        sigs = {k: (v[0], v[1], v[2]) for k, v in data["signatures"].items()}
        cited, citing = set(data["cited"]), set(data["citing"])
        return cls(int(data["graph_version"]), sigs, cited, citing, data["stats"])

    def read_ledger(self, cache: FactsCache) -> ConceptLedger | None:
        if self.ledger is None:
            text = cache.memo("concepts")
            self.ledger = ConceptLedger.from_json(text) if text else None
        return self.ledger

    def keep(self, cache: FactsCache, *, with_ledger: bool) -> str:
        """Write the memo; returns the head as written (a process that keeps the memo in memory knows it
        by that text)."""
        head = self.head_json()
        parts: dict[str, str | None] = {"head": head}
        if with_ledger and self.ledger is not None:
            parts["concepts"] = self.ledger.to_json()
        cache.keep_memo(parts)
        return head

    @staticmethod
    def forget(cache: FactsCache) -> None:
        """No memo until the next `keep` (the head names the graph version; the ledger is read only
        through a head, so an orphaned one is never used)."""
        cache.keep_memo({"head": None})


def cited_papers(data: GraphRows) -> set[str]:
    """The library papers the graph's CITES edges reach."""
    return {e.target for e in data.edges if e.kind is EdgeKind.CITES and e.target.startswith("paper:")}


# --- planning a patch ---------------------------------------------------------------------------------------


@dataclass(slots=True)
class Write:
    """One store write of a patch: an upsert, or the out-edges of some kinds of some sources replaced."""

    data: GraphData
    sources: list[str] = field(default_factory=list)
    kinds: tuple[EdgeKind, ...] = ()

    def apply(self, store: GraphStore) -> None:
        if self.kinds:
            store.replace_out_edges(self.sources, self.kinds, self.data)
        else:
            store.upsert(self.data)


@dataclass(slots=True)
class GraphPatch:
    writes: list[Write]
    papers: int  # papers whose text or filing changed
    concepts: int  # concepts written again
    citations: BuildStats | None = None  # what matching every citation again found (None: not done)


FactsFor = Callable[[Sequence[str]], dict[str, PaperFacts]]  # the facts of some items, made if need be


def plan_patch(
    memo: GraphMemo,
    cache: FactsCache,
    library: Library,
    facts_for: FactsFor,
    now: dict[str, Signature],
    canonical: dict[str, str],
) -> GraphPatch | None:
    """The writes that bring the graph from the memo's library to ``library``; None when only a rebuild can
    (see the module docstring). Only the edited papers' facts are read, and the reference lists when an
    edit may move a citation."""
    before = memo.signatures
    if now.keys() != before.keys() or any(now[k][0] != before[k][0] for k in now):
        return None
    text = sorted(k for k in now if now[k][1] != before[k][1])
    filing = sorted(k for k in now if now[k][2] != before[k][2])
    if len(set(text) | set(filing)) > max(PATCH_ANY, PATCH_SHARE * len(now)):
        return None
    if any(k in canonical for k in text):
        return None  # a record with copies: its paper's facts and text come from several records
    writes: list[Write] = []
    items = [library.items[k] for k in text]
    if items:
        writes.append(Write(GraphData([paper_node(item) for item in items], [])))
    if filing:
        sources, data = filing_edges(library, [library.items[k] for k in filing])
        writes.append(Write(data, sources, FILING_KINDS))
    citations = None
    references = facts_for(sorted(memo.citing)) if items and memo.citing else {}
    if items and _citations_may_move(memo, items, references):
        sources, data, citations = citation_edges(library, references)
        writes.append(Write(data, sources, (EdgeKind.CITES,)))
    change = ConceptChange({}, {})
    if items:
        ledger = memo.read_ledger(cache)
        if ledger is None:
            return None
        edited = facts_for(text)
        change = ledger.update({item.key: _share(item, edited) for item in items})
        writes.append(_mention_writes(change))
    return GraphPatch(writes, len(set(text) | set(filing)), len(change.concepts), citations)


def _share(item: Item, facts: dict[str, PaperFacts]) -> PaperShare | None:
    known = facts.get(item.key)
    if known is None or not known.keyphrases:
        return None
    return paper_share(known.keyphrases, concept_text(item))


def _citations_may_move(memo: GraphMemo, items: Iterable[Item], facts: dict[str, PaperFacts]) -> bool:
    """Whether an edit to ``items`` may change which paper a reference names: one named them before, or
    one names them now. Otherwise each reference names what it named."""
    edited = list(items)
    if any(paper_id(item.key) in memo.cited for item in edited):
        return True
    matcher = ReferenceMatcher(edited)
    return any(
        matcher.match(reference, citing_key=key) is not None
        for key, known in facts.items()
        for reference in known.references
    )


def _mention_writes(change: ConceptChange) -> Write:
    """The MENTIONS edges of the changed papers, and the concept nodes that changed. An edge may reach a
    concept that did not change: its node is already stored."""
    nodes: dict[str, Node] = {}
    edges: list[Edge] = []
    for paper, found in change.per_paper.items():
        for key, weight in found:
            cid = node_id(NodeKind.CONCEPT, key)
            concept = change.concepts.get(key)
            if concept is not None and cid not in nodes:
                props = {
                    "name": concept.name,
                    "type": concept.type.value,
                    "aliases": sorted(concept.aliases),
                    "papers": concept.doc_freq,
                }
                nodes[cid] = Node(
                    cid, NodeKind.CONCEPT, {k: v for k, v in props.items() if v not in (None, "")}
                )
            edges.append(Edge(paper_id(paper), cid, EdgeKind.MENTIONS, {"weight": round(weight, 4)}))
    sources = [paper_id(p) for p in change.per_paper]
    return Write(GraphData(list(nodes.values()), edges), sources, (EdgeKind.MENTIONS,))
