"""Retrieval core: dense and sparse queries over the index's chunks (query_vectors.py), fused, grouped into
papers with their best page-cited passages and the channels that found them.

The two channels run as separate store queries (filters applied in the engine) and are fused (fusion.py),
which gives the same ranking as the engine's prefetch fusion and also tells which channel found each chunk
(the provenance `zot_search` reports). Chunks are over-fetched (``CHUNKS_PER_PAPER`` per wanted paper) because
one paper usually owns several of the best chunks; a paper's score is its best chunk's score. Which of close
papers a question describes is weighed by coverage.py; a paper the query names by its title comes first
(titled.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from agent_zot.index.chunk_sentences import SentenceMemo
from agent_zot.index.coverage import (
    COVERAGE_PAPERS,
    asks_about_a_paper,
    by_coverage,
    described_by,
    nearest_sentences,
)
from agent_zot.index.fusion import fuse
from agent_zot.index.passages import (
    DETAILS,
    READING,
    ChunkHit,
    Passage,
    PassagePicker,
    WindowShape,
    passage_of,
)
from agent_zot.index.query_vectors import DEEP_CANDIDATES, PAPER_CANDIDATES, QueryVectors, search_chunks
from agent_zot.index.rerank import Reranker
from agent_zot.index.resources import IndexResources
from agent_zot.index.sections import KindHint
from agent_zot.index.sentences import focus_of, naming_phrase
from agent_zot.index.store import Hit, SearchFilter
from agent_zot.index.titled import channels_finding, titled, titles_requests

CHUNKS_PER_PAPER = 8
MIN_FETCH = 50
# What ranking and grouping read of a hit's payload (``lean`` rankings read no more from the store).
RANKING_FIELDS = ("item_key", "page_start")
ITEM_FIELDS = ("title", "creators", "year", "item_type")  # of item_payload: what an answer names a paper by
# Papers whose passages come from a query of their own (query_vectors.PAPER_CANDIDATES of them).
REFINED_PAPERS = 10
# A paper shown with this many passages or more is read in depth: its own query looks further (DEEP_CANDIDATES).
DEEP_PASSAGES = 8
# A paper the query names by its title leads the next by this much (no close call shares its depth).
TITLED_LEAD = 1.5

__all__ = [
    "ChunkHit",
    "Depth",
    "KindHint",
    "PaperHit",
    "Passage",
    "QueryVectors",
    "Ranking",
    "fuse",
    "group_by_paper",
    "rank_many",
    "rank_papers",
    "search_chunks",
    "search_papers",
]


@dataclass(slots=True)
class PaperHit:
    item_key: str
    score: float
    passages: list[Passage] = field(default_factory=list)
    found_by: set[str] = field(default_factory=set)  # "vector", "sparse" (and later "graph", "metadata")
    # The item as the index stores it (ITEM_FIELDS of its best chunk's payload; empty from a lean
    # ranking): what names the paper in an answer made before the library is read
    indexed: dict[str, Any] = field(default_factory=dict)
    # A deeper tier (``Depth.further``) of one of the first papers, chosen together with ``passages``: more
    # of them, some grown or followed by their next sentences; empty unless the search asked for it
    further: list[Passage] = field(default_factory=list)


def search_papers(
    resources: IndexResources,
    query: str,
    *,
    limit: int,
    search_filter: SearchFilter | None = None,
    passages_per_paper: int | Sequence[int] | Depth = 3,
    fusion: str = "rrf",
    reranker: Reranker | None = None,
    rerank_candidates: int = 50,
    detail: str = "sentences",
    shape: WindowShape = READING,
    hint: KindHint | None = None,
) -> list[PaperHit]:
    """The best ``limit`` papers for ``query`` with their passages: sentence windows that answer the query
    (``detail="sentences"``) or whole chunks (``"full"``). ``passages_per_paper`` is a count, or counts by
    rank (the last one repeats: ``(4, 2, 1)`` gives the first paper 4, the second 2, every other 1), or a
    ``Depth`` that chooses the counts once the papers' scores are known. With a
    reranker, the best ``rerank_candidates`` fused chunks are re-scored by it and reordered first. ``shape``
    is how large a sentence window grows; ``hint``, the kind of answer a question wants, weighs the
    sentences of the sections that answer that kind."""
    ranking = rank_papers(
        resources,
        query,
        limit=limit,
        search_filter=search_filter,
        fusion=fusion,
        reranker=reranker,
        rerank_candidates=rerank_candidates,
        detail=detail,
        shape=shape,
        hint=hint,
    )
    papers = ranking.papers
    if isinstance(passages_per_paper, Depth):
        counts = passages_per_paper.counts([p.score for p in papers])
    elif isinstance(passages_per_paper, int):
        counts = [passages_per_paper]
    else:
        counts = list(passages_per_paper)
    further = passages_per_paper.further if isinstance(passages_per_paper, Depth) else ()
    for rank, paper in enumerate(papers):
        count = counts[min(rank, len(counts) - 1)]
        if rank < len(further) and further[rank] > count:
            paper.passages, paper.further = ranking.passage_tiers(rank, (count, further[rank]))
        else:
            paper.passages = ranking.passages(rank, count) if count > 0 else []
    return papers


def rank_papers(
    resources: IndexResources,
    query: str,
    *,
    limit: int,
    search_filter: SearchFilter | None = None,
    fusion: str = "rrf",
    reranker: Reranker | None = None,
    rerank_candidates: int = 50,
    detail: str = "sentences",
    shape: WindowShape = READING,
    hint: KindHint | None = None,
    memo: SentenceMemo | None = None,
    dense: np.ndarray | None = None,
    lean: bool = False,
) -> Ranking:
    """The best ``limit`` papers for ``query``, best first, with no passages yet: ``Ranking.passages``
    picks them for the papers a caller keeps (``search_papers`` for all; parameters as there). ``memo``:
    the chunks' sentences as read by the other searches of this request (they are read once); ``dense``:
    the query's vector, embedded already with others (``Embedder.embed_queries``); ``lean``: read only
    the payload fields a ranking needs from the store, the rest only for the papers given passages (most
    of a store query's time is reading payloads)."""
    (ranking,) = rank_many(
        resources,
        [(query, limit)],
        search_filter=search_filter,
        fusion=fusion,
        reranker=reranker,
        rerank_candidates=rerank_candidates,
        detail=detail,
        shape=shape,
        hint=hint,
        memo=memo,
        dense=None if dense is None else [dense],
        lean=lean,
    )
    return ranking


def rank_many(
    resources: IndexResources,
    queries: Sequence[tuple[str, int]],
    *,
    search_filter: SearchFilter | None = None,
    fusion: str = "rrf",
    reranker: Reranker | None = None,
    rerank_candidates: int = 50,
    detail: str = "sentences",
    shape: WindowShape = READING,
    hint: KindHint | None = None,
    memo: SentenceMemo | None = None,
    dense: np.ndarray | Sequence[np.ndarray] | None = None,
    lean: bool = False,
) -> list[Ranking]:
    """``rank_papers`` for each (query, limit), their store queries sent as one batch (a claim check's
    variants: one engine call instead of two a variant). ``dense``: the queries' vectors, in order."""
    if detail not in DETAILS:
        raise ValueError(f"unknown detail {detail!r}")
    lean = lean and reranker is None  # a reranker reads every candidate's text
    fetches = [max(MIN_FETCH, limit * CHUNKS_PER_PAPER) for _, limit in queries]
    vectors = [
        QueryVectors(resources, query, fusion, dense=None if dense is None else dense[n])
        for n, (query, _) in enumerate(queries)
    ]
    wanted = [
        v.requests(fetch, search_filter, payload=RANKING_FIELDS if lean else None)
        for v, fetch in zip(vectors, fetches, strict=True)
    ]
    # A query that gives a paper's title names it (titled.py); a lean ranking (a claim check's) names none.
    titles = [{} if lean else titles_requests(v.dense, v.sparse, search_filter) for v in vectors]
    batch = [
        r for asked, named in zip(wanted, titles, strict=True) for r in [*asked.values(), *named.values()]
    ]
    found = iter(resources.store.search_batch(batch))
    memo = memo if memo is not None else SentenceMemo(shared=False, kept=resources.read_chunks)
    full_text: dict[str, bool] = {}  # the rankings find the same papers: each is looked up once
    rankings = []
    for (query, limit), v, fetch, asked, named in zip(queries, vectors, fetches, wanted, titles, strict=True):
        chunks = v.fused({channel: next(found) for channel in asked}, fetch)
        by_channel = {channel: next(found) for channel in named}
        records = [hit for hits in by_channel.values() for hit in hits]
        if reranker is not None and chunks:
            chunks = rerank(reranker, query, chunks, candidates=rerank_candidates)
        papers = group_by_paper(chunks, limit=limit, passages_per_paper=0)
        pools: dict[str, list[ChunkHit]] = {}
        for chunk in chunks:
            pools.setdefault(chunk.hit.payload["item_key"], []).append(chunk)
        if not lean and asks_about_a_paper(query, [p.score for p in papers]):  # which one? (coverage.py)
            papers = _covered(resources, papers, pools, query, v.dense)
        if record := titled(query, records, [p.item_key for p in papers]):
            papers = _titled_first(
                papers, pools, record, limit, channels_finding(record.payload["item_key"], by_channel)
            )
        picking = _Picking(detail, reranker, shape, hint, memo, lean, full_text)
        rankings.append(Ranking(resources, query, fusion, v, papers, pools, picking))
    return rankings


@dataclass(frozen=True, slots=True)
class _Picking:
    detail: str
    reranker: Reranker | None
    shape: WindowShape
    hint: KindHint | None
    memo: SentenceMemo
    lean: bool  # the pools' hits hold only RANKING_FIELDS of their payloads
    full_text: dict[str, bool]  # by item key, whether it has full-text chunks (``_has_full_text``)


class Ranking:
    """One query's papers, best first, and what the store returned for each: passages are picked only
    for the papers asked for (the claim check fuses several rankings and shows a part of their papers),
    with the query's vectors, picker and page texts made once for all of them."""

    def __init__(
        self,
        resources: IndexResources,
        query: str,
        fusion: str,
        vectors: QueryVectors,
        papers: list[PaperHit],
        pools: dict[str, list[ChunkHit]],
        picking: _Picking,
    ) -> None:
        self.resources, self.query, self.fusion = resources, query, fusion
        self.papers, self._pools, self._picking = papers, pools, picking
        self._query_vectors = vectors
        self._focus_vectors: QueryVectors | None = None
        self._picker: PassagePicker | None = None

    def passages(self, rank: int, count: int) -> list[Passage]:
        """Up to ``count`` passages of the paper at ``rank``: its chunks from the library-wide query, and
        for one of the first ``REFINED_PAPERS`` with full text, its own best chunks for the query."""
        return self.passage_tiers(rank, (count,))[0]

    def passage_tiers(self, rank: int, counts: Sequence[int]) -> list[list[Passage]]:
        """`passages` for each of ``counts`` (ascending), from one choice (`PassagePicker.pick_tiers`)."""
        key = self.papers[rank].item_key
        pool = self._pools.get(key, [])
        if self._picking.lean:
            whole = self._picking.memo.whole(self.resources.store, [c.hit for c in pool])
            pool = [ChunkHit(hit, c.score, c.channels) for hit, c in zip(whole, pool, strict=True)]
        picker = self._picker or self._make_picker()
        if rank < REFINED_PAPERS and self._full_text(key):
            deep = counts[-1] >= DEEP_PASSAGES
            pool = self._within_paper().within_paper(key, pool, DEEP_CANDIDATES if deep else PAPER_CANDIDATES)
        return picker.pick_tiers(pool, counts)

    def _full_text(self, key: str) -> bool:
        known = self._picking.full_text
        if key not in known:
            known[key] = _has_full_text(self.resources, key)
        return known[key]

    def lean_hits(self, rank: int) -> list[Hit]:
        """The paper's hits that came with a few payload fields only (``lean``): what ``passages`` reads
        whole first, unless the memo has them (a caller that picks for several papers reads them at once)."""
        if not self._picking.lean:
            return []
        return [c.hit for c in self._pools.get(self.papers[rank].item_key, [])]

    def _make_picker(self) -> PassagePicker:
        # Within a paper, what the question asks (not the words that named the paper) picks the passages.
        p = self._picking
        self._picker = PassagePicker(
            self.resources,
            focus_of(self.query),
            detail=p.detail,
            reranker=p.reranker,
            shape=p.shape,
            hint=p.hint,
            memo=p.memo,
            # Passages to read are also scored by meaning (a claim check's, JUDGING, keep their tuned scores),
            # by the whole question's vector: a sentence's vector carries its chunk's context, which the
            # words naming the paper match too (the focus alone: 0.622 instead of 0.711 on dev, 45 questions)
            query_vector=self._query_vectors.dense if p.shape == READING else None,
        )
        return self._picker

    def _within_paper(self) -> QueryVectors:
        if self._focus_vectors is None:
            focus = focus_of(self.query)
            same = focus == self.query
            self._focus_vectors = (
                self._query_vectors if same else QueryVectors(self.resources, focus, self.fusion)
            )
        return self._focus_vectors


@dataclass(frozen=True, slots=True)
class Depth:
    """Passages per paper by rank, chosen from the papers' scores: ``by_rank`` when the first paper stands
    out; when the next ones score within ``close`` of it (a close call between papers), ``shared`` — the
    depth is split between the first paper and up to ``len(shared) - 2`` close ones, every other paper
    keeping the last count."""

    by_rank: tuple[int, ...]
    shared: tuple[int, ...]
    close: float
    # The first papers' passages by rank for an answer that reads further (`PaperHit.further`)
    further: tuple[int, ...] = ()

    def counts(self, scores: Sequence[float]) -> list[int]:
        if len(scores) < 2 or scores[0] <= 0:
            return list(self.by_rank)
        contenders = 0
        for score in scores[1 : len(self.shared) - 1]:
            if score < self.close * scores[0]:
                break
            contenders += 1
        if not contenders:
            return list(self.by_rank)
        return [*self.shared[: contenders + 1], self.shared[-1]]


def _has_full_text(resources: IndexResources, item_key: str) -> bool:
    """Whether this item has indexed full-text chunks (a paper query for the others finds nothing)."""
    return any(r.chunks > 0 for r in resources.state.attachments_of(item_key))


def rerank(reranker: Reranker, query: str, chunks: list[ChunkHit], *, candidates: int) -> list[ChunkHit]:
    """The top ``candidates`` chunks ordered by the cross-encoder (its scores replace the fused ones);
    the rest keep their order after them."""
    head, tail = chunks[:candidates], chunks[candidates:]
    scores = reranker.score(query, [c.hit.payload.get("text", "") for c in head])
    for chunk, score in zip(head, scores, strict=True):
        chunk.score = score
        chunk.channels.add("rerank")
    head.sort(key=lambda c: -c.score)
    floor = min((c.score for c in head), default=0.0)
    for offset, chunk in enumerate(tail, 1):  # keep them below every reranked chunk
        chunk.score = floor - offset
    return head + tail


def _covered(
    resources: IndexResources,
    papers: list[PaperHit],
    pools: dict[str, list[ChunkHit]],
    query: str,
    dense: np.ndarray | None,
) -> list[PaperHit]:
    """``papers`` reordered by coverage (coverage.py): the first ones' found words, descriptions and
    nearest sentences."""
    first = [p.item_key for p in papers[:COVERAGE_PAPERS]]
    stored = (
        resources.state.sentence_vectors([c.hit.id for key in first for c in pools.get(key, ())])
        if dense is not None and len(first) > 1
        else {}
    )
    by_key = {paper.item_key: paper for paper in papers}
    # The papers' own descriptions are matched by the words that describe the paper asked about, when the
    # question has them (coverage.py, DESCRIBED_WEIGHT)
    naming = naming_phrase(query) if dense is not None and len(first) > 1 else None
    describing = resources.query_vector(naming) if naming else dense
    ordered = by_coverage(
        [(p.item_key, p.score) for p in papers],
        pools,
        query,
        described=described_by(resources.store, describing, first),
        sentences=nearest_sentences(dense, pools, stored, first),
    )
    return [replace(by_key[c.item_key], score=c.score) for c in ordered]


def _titled_first(
    papers: list[PaperHit], pools: dict[str, list[ChunkHit]], record: Hit, limit: int, channels: set[str]
) -> list[PaperHit]:
    """``papers`` with the paper the query names by its title (``record``: its metadata point, found by
    ``channels``) first and clearly leading (``TITLED_LEAD`` times the best score), brought in with its
    record when the passages left it out."""
    key = record.payload["item_key"]
    top = max((p.score for p in papers), default=record.score)
    named = next((p for p in papers if p.item_key == key), None)
    if named is None:
        indexed = {name: record.payload[name] for name in ITEM_FIELDS if name in record.payload}
        named = PaperHit(key, top, found_by=set(channels), indexed=indexed)
        pools[key] = [ChunkHit(record, record.score, set(channels))]
    rest = [p for p in papers if p.item_key != key]
    return [replace(named, score=TITLED_LEAD * top), *rest][:limit]


def group_by_paper(chunks: list[ChunkHit], *, limit: int, passages_per_paper: int) -> list[PaperHit]:
    """Chunk hits (best first) grouped by item; a paper keeps its best passages, full text before metadata,
    and every channel that found any of its chunks."""
    papers: dict[str, PaperHit] = {}
    for chunk in chunks:
        key = chunk.hit.payload["item_key"]
        paper = papers.get(key)
        if paper is None:
            if len(papers) == limit:
                continue
            payload = chunk.hit.payload
            indexed = {name: payload[name] for name in ITEM_FIELDS if name in payload}
            paper = papers[key] = PaperHit(key, chunk.score, indexed=indexed)
        paper.found_by |= chunk.channels
        if len(paper.passages) < passages_per_paper:
            paper.passages.append(passage_of(chunk.hit, chunk.score))
    for paper in papers.values():
        paper.passages.sort(key=lambda p: (p.kind != "chunk", -p.score))
    return list(papers.values())
