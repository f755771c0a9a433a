"""One query's vectors and the store queries made with them: the library-wide channels (dense and sparse,
fused here so each hit says which channel found it) and one paper's own best chunks."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from agent_zot.index.embed import MULTILINGUAL_EMBEDDERS
from agent_zot.index.fusion import CHANNEL_NAMES, FUSIONS, fuse, fuse_as_the_store
from agent_zot.index.passages import ChunkHit
from agent_zot.index.resources import IndexResources
from agent_zot.index.store import PAPER_KINDS, Hit, SearchFilter, SearchRequest
from agent_zot.text import has_cjk

# Candidates a paper's own query returns (more than the library-wide list gives it).
PAPER_CANDIDATES = 16
# ... for a paper read in depth (an answer's first paper): an answer worded unlike the question ("why" asked,
# "is chosen to lower the load" written) is often in a chunk the paper's query ranks past the first 16.
# Dev library questions, answering sentence in the default answer: 271 -> 277 of 315 with the why-cue of
# roles.answer_kind (32: 275; 64 and 128 as 48; 64 for every paper, without the cue: 273 at 78 % more time).
DEEP_CANDIDATES = 48


class QueryVectors:
    """One query's dense and sparse vectors, computed once and reused by every store query it makes."""

    def __init__(
        self, resources: IndexResources, query: str, fusion: str, *, dense: np.ndarray | None = None
    ) -> None:
        if fusion not in FUSIONS:
            raise ValueError(f"unknown fusion {fusion!r}")
        if fusion != "dense" and _unreadable_for(resources, query):
            fusion = "sparse"  # the embedding model cannot read this query: its vector would only add noise
        resources.open()
        self.resources, self.fusion = resources, fusion
        self.dense: np.ndarray | None = None
        if fusion != "sparse":
            self.dense = dense if dense is not None else resources.query_vector(query)
        self.sparse = resources.sparse_query(query) if fusion != "dense" else None

    def search(
        self,
        fetch: int,
        search_filter: SearchFilter | None,
        *,
        fusion: str | None = None,
        payload: Sequence[str] | None = None,
    ) -> list[ChunkHit]:
        """Chunk hits, best first, fused from the channels the fusion asks for (``payload``: only these
        fields of each hit's payload). A filter that names no kinds searches the papers' points only
        (notes and annotations share the store)."""
        asked = self.requests(fetch, search_filter, payload=payload)
        found = self.resources.store.search_batch(list(asked.values()))
        return self.fused(dict(zip(asked, found, strict=True)), fetch, fusion=fusion)

    def requests(
        self, fetch: int, search_filter: SearchFilter | None, *, payload: Sequence[str] | None = None
    ) -> dict[str, SearchRequest]:
        """The store query of each channel (``search`` sends them; a caller may batch them with others')."""
        search_filter = papers_only(search_filter)
        asked: dict[str, SearchRequest] = {}
        if self.dense is not None:
            asked["dense"] = SearchRequest(self.dense, None, fetch, search_filter, payload=payload)
        if self.sparse is not None:  # one with no terms finds nothing (the store answers it so)
            asked["sparse"] = SearchRequest(None, self.sparse, fetch, search_filter, payload=payload)
        return asked

    def fused(self, lists: dict[str, list[Hit]], fetch: int, *, fusion: str | None = None) -> list[ChunkHit]:
        """The channels' hits (``requests`` answered) as one ranking."""
        if len(lists) == 1:
            ((channel, hits),) = lists.items()
            return [ChunkHit(h, h.score, {CHANNEL_NAMES[channel]}) for h in hits]
        return fuse(lists, method=fusion or self.fusion)[:fetch]

    def within_paper(
        self, item_key: str, found: list[ChunkHit], candidates: int = PAPER_CANDIDATES
    ) -> list[ChunkHit]:
        """The paper's ``candidates`` best full-text chunks for this query, ranked within the paper, then any of ``found``
        (e.g. its metadata record) the paper query did not return. Both channels go in one store call and
        are fused as the store fuses them (``fuse_as_the_store``, the ranking the passage benchmarks were
        tuned on), a tie broken the same way every time."""
        wanted = SearchFilter(item_keys=(item_key,), kinds=("chunk",))
        asked = self.requests(candidates, wanted)
        lists = dict(zip(asked, self.resources.store.search_batch(list(asked.values())), strict=True))
        fused = fuse_as_the_store(lists) if len(lists) > 1 else self.fused(lists, candidates)
        own = fused[:candidates]
        seen = {c.hit.id for c in own}
        return own + [c for c in found if c.hit.id not in seen]


def papers_only(search_filter: SearchFilter | None) -> SearchFilter:
    """``search_filter`` limited to the papers' chunks and metadata points, unless it names its kinds."""
    if search_filter is None:
        return SearchFilter(kinds=PAPER_KINDS)
    return search_filter if search_filter.kinds else replace(search_filter, kinds=PAPER_KINDS)


def _unreadable_for(resources: IndexResources, query: str) -> bool:
    """A query mostly in Chinese or Japanese, for an English-only embedding model."""
    if resources.settings.embedder in MULTILINGUAL_EMBEDDERS:
        return False
    letters = [c for c in query if c.isalpha()]
    return bool(letters) and sum(1 for c in letters if has_cjk(c)) / len(letters) >= 0.5


def search_chunks(
    resources: IndexResources, query: str, *, fetch: int, search_filter: SearchFilter | None, fusion: str
) -> list[ChunkHit]:
    """Chunk hits, best first, fused from the channels ``fusion`` asks for."""
    return QueryVectors(resources, query, fusion).search(fetch, search_filter)
