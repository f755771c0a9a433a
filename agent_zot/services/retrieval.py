"""Retrieval core: a hybrid (dense + sparse) query over the index's chunks, grouped into papers with their
best page-cited passages.

Chunks are over-fetched (``CHUNKS_PER_PAPER`` per wanted paper) because one paper usually owns several of
the best chunks; a paper's score is its best chunk's score. The store fuses the dense and sparse prefetch
(RRF by default) and applies the filters in the engine.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from agent_zot.index.resources import IndexResources
from agent_zot.index.store import Hit, SearchFilter

CHUNKS_PER_PAPER = 8
MIN_FETCH = 50


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


def search_papers(
    resources: IndexResources,
    query: str,
    *,
    limit: int,
    search_filter: SearchFilter | None = None,
    passages_per_paper: int = 3,
    fusion: str = "rrf",
) -> list[PaperHit]:
    """The best ``limit`` papers for ``query``, each with up to ``passages_per_paper`` passages."""
    resources.open()
    fetch = max(MIN_FETCH, limit * CHUNKS_PER_PAPER)
    hits = resources.store.search(
        resources.embedder.embed_query(query),
        resources.sparse_query(query),
        limit=fetch,
        filter=search_filter,
        fusion=fusion,
        prefetch=max(100, fetch * 2),
    )
    return group_by_paper(hits, limit=limit, passages_per_paper=passages_per_paper)


def group_by_paper(hits: list[Hit], *, limit: int, passages_per_paper: int) -> list[PaperHit]:
    """Hits (best first) grouped by item; a paper keeps its best passages, full text before metadata."""
    papers: dict[str, PaperHit] = {}
    for hit in hits:
        key = hit.payload["item_key"]
        paper = papers.get(key)
        if paper is None:
            if len(papers) == limit:
                continue
            paper = papers[key] = PaperHit(key, hit.score)
        if len(paper.passages) < passages_per_paper:
            paper.passages.append(_passage(hit))
    for paper in papers.values():
        paper.passages.sort(key=lambda p: (p.kind != "chunk", -p.score))
    return list(papers.values())


def _passage(hit: Hit) -> Passage:
    payload = hit.payload
    return Passage(
        text=payload.get("text", ""),
        kind=payload.get("kind", "chunk"),
        attachment_key=payload.get("attachment_key"),
        page_start=payload.get("page_start"),
        page_end=payload.get("page_end"),
        section=payload.get("section"),
        score=hit.score,
    )
