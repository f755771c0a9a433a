"""Retrieval core: dense and sparse queries over the index's chunks, fused, grouped into papers with
their best page-cited passages and the channels that found them.

The two channels run as separate store queries (filters applied in the engine) and are fused here, which
gives the same ranking as the engine's prefetch fusion and also tells which channel found each chunk (the
provenance `zot_search` reports). Fusion: reciprocal rank (RRF, k=10, keyword channel weighted 1.2) or distribution-based score fusion
(DBSF: each list's scores normalised by mean ± 3 standard deviations, then summed); chosen by
scripts/bench_retrieval.py. Chunks are over-fetched (``CHUNKS_PER_PAPER`` per wanted paper) because one
paper usually owns several of the best chunks; a paper's score is its best chunk's score.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from agent_zot.index.rerank import Reranker
from agent_zot.index.resources import IndexResources
from agent_zot.index.store import Hit, SearchFilter

CHUNKS_PER_PAPER = 8
MIN_FETCH = 50
# Tuned on SciFact train (scripts/bench_retrieval.py), checked on both halves of the queries separately:
# k = 10 with the keyword channel weighted 1.2 beat the textbook k = 60, 1:1 by +0.013 and +0.017 nDCG@10;
# BM25 alone is the stronger channel on scientific claims (0.70 vs 0.66 for MiniLM).
RRF_K = 10
CHANNEL_WEIGHTS = {"dense": 1.0, "sparse": 1.2}
FUSIONS = ("rrf", "dbsf", "dense", "sparse")
CHANNEL_NAMES = {"dense": "vector", "sparse": "sparse"}


@dataclass(slots=True)
class Passage:
    text: str
    kind: str  # "chunk" (full text) or "metadata" (title, authors, abstract)
    attachment_key: str | None
    page_start: int | None
    page_end: int | None
    section: str | None
    score: float

    @property
    def pages(self) -> str:
        if self.page_start is None:
            return ""
        if self.page_end in (None, self.page_start):
            return f"p. {self.page_start}"
        return f"pp. {self.page_start}-{self.page_end}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "kind": self.kind,
            "attachment_key": self.attachment_key,
            "page_start": self.page_start,
            "page_end": self.page_end,
            "section": self.section,
            "score": round(self.score, 4),
        }


@dataclass(slots=True)
class PaperHit:
    item_key: str
    score: float
    passages: list[Passage] = field(default_factory=list)
    found_by: set[str] = field(default_factory=set)  # "vector", "sparse" (and later "graph", "metadata")


@dataclass(slots=True)
class ChunkHit:
    hit: Hit
    score: float
    channels: set[str]


def search_papers(
    resources: IndexResources,
    query: str,
    *,
    limit: int,
    search_filter: SearchFilter | None = None,
    passages_per_paper: int = 3,
    fusion: str = "rrf",
    reranker: Reranker | None = None,
    rerank_candidates: int = 50,
) -> list[PaperHit]:
    """The best ``limit`` papers for ``query``, each with up to ``passages_per_paper`` passages. With a
    reranker, the best ``rerank_candidates`` fused chunks are re-scored by it and reordered first."""
    fetch = max(MIN_FETCH, limit * CHUNKS_PER_PAPER)
    chunks = search_chunks(resources, query, fetch=fetch, search_filter=search_filter, fusion=fusion)
    if reranker is not None and chunks:
        chunks = rerank(reranker, query, chunks, candidates=rerank_candidates)
    return group_by_paper(chunks, limit=limit, passages_per_paper=passages_per_paper)


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


def search_chunks(
    resources: IndexResources, query: str, *, fetch: int, search_filter: SearchFilter | None, fusion: str
) -> list[ChunkHit]:
    """Chunk hits, best first, fused from the channels ``fusion`` asks for."""
    if fusion not in FUSIONS:
        raise ValueError(f"unknown fusion {fusion!r}")
    resources.open()
    lists: dict[str, list[Hit]] = {}
    if fusion != "sparse":
        dense = resources.embedder.embed_query(query)
        lists["dense"] = resources.store.search(dense, None, limit=fetch, filter=search_filter)
    if fusion != "dense":
        sparse = resources.sparse_query(query)
        lists["sparse"] = (
            resources.store.search(None, sparse, limit=fetch, filter=search_filter) if sparse.indices else []
        )
    if len(lists) == 1:
        ((channel, hits),) = lists.items()
        return [ChunkHit(h, h.score, {CHANNEL_NAMES[channel]}) for h in hits]
    return fuse(lists, method=fusion)[:fetch]


def fuse(lists: dict[str, list[Hit]], *, method: str) -> list[ChunkHit]:
    """Combine ranked lists of the same points: RRF on ranks, or DBSF on normalised scores."""
    merged: dict[str, ChunkHit] = {}
    for channel, hits in lists.items():
        raw = _rrf_scores(hits) if method == "rrf" else _dbsf_scores(hits)
        scores = [CHANNEL_WEIGHTS[channel] * s for s in raw]
        for hit, score in zip(hits, scores, strict=True):
            entry = merged.get(hit.id)
            if entry is None:
                merged[hit.id] = ChunkHit(hit, score, {CHANNEL_NAMES[channel]})
            else:
                entry.score += score
                entry.channels.add(CHANNEL_NAMES[channel])
    return sorted(merged.values(), key=lambda c: -c.score)


def _rrf_scores(hits: list[Hit]) -> list[float]:
    return [1.0 / (RRF_K + rank) for rank in range(1, len(hits) + 1)]


def _dbsf_scores(hits: list[Hit]) -> list[float]:
    if not hits:
        return []
    values = [h.score for h in hits]
    mean = sum(values) / len(values)
    spread = (sum((v - mean) ** 2 for v in values) / len(values)) ** 0.5
    low, high = mean - 3 * spread, mean + 3 * spread
    if high <= low:
        return [1.0] * len(values)
    return [min(1.0, max(0.0, (v - low) / (high - low))) for v in values]


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
            paper = papers[key] = PaperHit(key, chunk.score)
        paper.found_by |= chunk.channels
        if len(paper.passages) < passages_per_paper:
            paper.passages.append(_passage(chunk.hit, chunk.score))
    for paper in papers.values():
        paper.passages.sort(key=lambda p: (p.kind != "chunk", -p.score))
    return list(papers.values())


def _passage(hit: Hit, score: float) -> Passage:
    payload = hit.payload
    return Passage(
        text=payload.get("text", ""),
        kind=payload.get("kind", "chunk"),
        attachment_key=payload.get("attachment_key"),
        page_start=payload.get("page_start"),
        page_end=payload.get("page_end"),
        section=payload.get("section"),
        score=score,
    )
