"""Sentence vectors for an index made before they were kept: its chunks embedded again from their stored
text, files not parsed again.

An index built by an older agent-zot has no sentence vectors (sentence_vectors.py), and picks passages
without them until its items are indexed again. Its chunks' text is in the store, and the vectors come from
the model's run over exactly that text, so an update embeds each such item's chunks once more and keeps only
what it lacked (the chunk vectors it has are the same). Items are done a batch at a time and each batch is
recorded as it finishes: an interrupted run loses one batch, and the next run carries on from there. A run
stops at the first item past its time budget: at ~45 chunks a second, a 100,000-item index would otherwise
hold its first update after an upgrade for hours.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from agent_zot.index.embed import EmbedsSentences
from agent_zot.index.resources import IndexResources
from agent_zot.index.sentence_vectors import embed_packed

log = logging.getLogger(__name__)

BATCH_CHUNKS = 64  # chunks embedded together (one model batch's worth, as indexing does)
# Recorded once every item has them: later updates skip the look for items without any.
DONE_META = "sentence_vectors"
DONE_VALUE = "1"


@dataclass(slots=True)
class Backfilled:
    items: int = 0
    chunks: int = 0
    left: int = 0  # items still without them: the time budget ran out first


def needs_backfill(resources: IndexResources) -> bool:
    """Whether this index may hold items without sentence vectors that its embedder could give them."""
    return (
        isinstance(resources.embedder, EmbedsSentences) and resources.state.get_meta(DONE_META) != DONE_VALUE
    )


def backfill_sentence_vectors(
    resources: IndexResources,
    keys: Sequence[str],
    *,
    budget_s: float | None = None,
    on_item: Callable[[int], None] | None = None,
) -> Backfilled:
    """Give the indexed items ``keys`` (``IndexState.items_without_sentence_vectors``) their chunks'
    sentence vectors, from their stored text, until ``budget_s`` seconds have passed (None: all of them;
    the item that passes it is finished); the index is marked done once every item has them. ``on_item``
    is told how many items are done so far."""
    done = Backfilled()
    embedder = resources.embedder
    if not isinstance(embedder, EmbedsSentences):
        return done
    state, store = resources.state, resources.store
    pending: list[tuple[str, str, str]] = []  # (item key, point id, text)
    started = time.monotonic()

    def flush() -> None:
        _, found = embed_packed(embedder, [text for _, _, text in pending], [True] * len(pending))
        by_item: dict[str, dict[str, bytes]] = {}
        for (key, point, _), data in zip(pending, found, strict=True):
            if data is not None:
                by_item.setdefault(key, {})[point] = data
        for key, packed in by_item.items():
            state.add_sentence_vectors(key, packed)
        done.chunks += len(pending)
        pending.clear()
        if on_item is not None:
            on_item(done.items)

    for n, key in enumerate(keys, 1):
        pending += [
            (key, hit.id, hit.payload.get("text", ""))
            for hit in store.get_by_item(key)
            if hit.payload.get("kind") == "chunk" and hit.payload.get("text")
        ]
        done.items += 1
        spent = budget_s is not None and time.monotonic() - started >= budget_s
        if pending and (len(pending) >= BATCH_CHUNKS or n == len(keys) or spent):
            flush()
        if spent:
            done.left = len(keys) - n
            break
    if not done.left:
        state.set_meta(DONE_META, DONE_VALUE)
    if done.items:
        log.info(
            "sentence vectors added for %d items (%d chunks), %d left", done.items, done.chunks, done.left
        )
    return done
