"""Notes and annotations by meaning: the index's dense and keyword channels over their points (written by
update-db, index/notes.py), fused by reciprocal rank with the word matches over the library's current text
(services/notes/read.py), so a note written since the last update-db is still found by its words.

A hit that only the dense channel found is kept when its similarity is near the best one's: the dense
channel ranks every note, and the tail of an unrelated list would only cost the assistant tokens.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from agent_zot.index.store import Hit, SearchFilter

if TYPE_CHECKING:
    from agent_zot.index.resources import IndexResources
    from agent_zot.services.context import AppContext

RRF_K = 10  # as for papers (index/retrieval.py)
# A note found by meaning alone must reach this fraction of the best dense similarity. MiniLM gives a
# one-word query flat scores (0.28 for the note on it, 0.20-0.22 for unrelated highlights); a phrase
# separates better (0.59 against 0.31 and below).
DENSE_ONLY_SHARE = 0.8
# ...and, with MiniLM (the models measured), this similarity: a note on a one-word topic scored 0.27-0.28,
# the best unrelated note for a topic no note is about ("consensus or fault tolerance") 0.20. Without it
# the best of unrelated notes is always "near the best". Other models' scales differ: the share alone.
DENSE_ONLY_FLOOR = {"minilm": 0.25, "minilm-st": 0.25, "minilm-onnx": 0.25}
NO_NOTES_INDEXED = (
    "the index holds no notes or annotations yet; `agent-zot update-db` indexes them for search by meaning"
)


@dataclass(slots=True)
class MeaningHit:
    key: str  # the note's or annotation's key
    text: str  # its best-matching point's text (a long note has several)
    channels: set[str] = field(default_factory=set)


class MeaningSearch:
    """The index's notes and annotations for one request; ``ready`` is False (and ``reason`` says why)
    when the index is missing or holds none."""

    def __init__(self, resources: IndexResources | None, reason: str = "") -> None:
        self.resources = resources
        self.reason = reason

    @property
    def ready(self) -> bool:
        return self.resources is not None

    @classmethod
    def of(cls, ctx: AppContext) -> MeaningSearch:
        resources = ctx.index()
        if not resources.exists():
            return cls(None, "there is no index yet; `agent-zot update-db` builds it")
        if not sum(resources.state.note_counts().values()):
            return cls(None, NO_NOTES_INDEXED)
        return cls(resources)

    def rank(
        self, text: str, *, keys: Sequence[str] | None, kinds: tuple[str, ...], fetch: int
    ) -> list[MeaningHit]:
        """Notes and annotations (of ``keys`` only, when given) best first."""
        from agent_zot.index.retrieval import (
            QueryVectors,  # the index stack loads on the first search
        )

        if self.resources is None or (keys is not None and not keys):
            return []  # no keys would mean no filter at all
        vectors = QueryVectors(self.resources, text, "rrf")
        wanted = SearchFilter(kinds=kinds, item_keys=tuple(keys or ()))
        store = self.resources.store
        lists: dict[str, list[Hit]] = {}
        if vectors.dense is not None:
            lists["dense"] = store.search(vectors.dense, None, limit=fetch, filter=wanted)
        if vectors.sparse is not None and vectors.sparse.indices:
            lists["sparse"] = store.search(None, vectors.sparse, limit=fetch, filter=wanted)
        return _per_note(lists, DENSE_ONLY_FLOOR.get(self.resources.settings.embedder, 0.0))


def _per_note(lists: dict[str, list[Hit]], least: float = 0.0) -> list[MeaningHit]:
    """Points fused by rank and grouped by note: a note ranks by its best point in each channel (a long
    note's many chunks do not add up). Dense-only hits below the floor (near the best, and ``least``) are
    cut."""
    dense = lists.get("dense", [])
    floor = max(DENSE_ONLY_SHARE * dense[0].score, least) if dense else 0.0
    scores: dict[str, float] = {}
    found: dict[str, MeaningHit] = {}
    for channel in ("sparse", "dense"):  # keyword hits first: they keep a weak dense hit of the same note
        rank = 0
        for hit in lists.get(channel, []):
            key = hit.payload["item_key"]
            entry = found.get(key)
            if entry is not None and channel in entry.channels:
                continue
            if channel == "dense" and entry is None and hit.score < floor:
                continue
            rank += 1
            if entry is None:
                entry = found[key] = MeaningHit(key, hit.payload.get("text", ""))
            entry.channels.add(channel)
            scores[key] = scores.get(key, 0.0) + 1.0 / (RRF_K + rank)
    return sorted(found.values(), key=lambda m: -scores[m.key])


def fuse_ranks(rankings: Sequence[Sequence[str]]) -> dict[str, float]:
    """Reciprocal-rank fusion of several best-first key lists."""
    scores: dict[str, float] = {}
    for ranking in rankings:
        for rank, key in enumerate(ranking, 1):
            scores[key] = scores.get(key, 0.0) + 1.0 / (RRF_K + rank)
    return scores
