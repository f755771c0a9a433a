"""Keyphrases of new items without files, extracted in one background process while update-db embeds.

Such an item's keyphrase text (title, abstract) is known before it is indexed, and on a first index of a
metadata-heavy library YAKE over every abstract would otherwise start only after the embedding (about a
fifth of the run). The extraction shares the cores with the model, whose threads leave some idle. When the
graph is built, batches not started are cancelled and the graph computes them as before (facts.py), so
a fast embedding (a GPU) never waits for the prefetch.
"""

from __future__ import annotations

import logging
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from multiprocessing import get_context
from pathlib import Path

from agent_zot.graph.facts import (
    PARALLEL_MIN,
    FactsCache,
    KeyphraseInput,
    PaperFacts,
    facts_key,
    metadata_sources,
    yake_keyphrases,
)
from agent_zot.zotero.models import Item

log = logging.getLogger(__name__)
BATCH = 64  # items per task: large enough to amortise the hand-over, small enough to stop promptly


def _yake_batch(sources: list[KeyphraseInput]) -> list[list[tuple[str, float]]]:
    return [yake_keyphrases(*source) for source in sources]


class KeyphrasePrefetch:
    """Started with the items about to be indexed (and the item fingerprints update-db will record for
    them); ``finish()`` stores what was extracted where the graph build finds it."""

    def __init__(self, state_path: Path, items: list[tuple[Item, str]]) -> None:
        self.state_path = state_path
        self.items = items
        self._pool: ProcessPoolExecutor | None = None
        self._tasks: list[tuple[list[tuple[Item, str]], Future[list[list[tuple[str, float]]]]]] = []

    @classmethod
    def worth_starting(cls, items: list[tuple[Item, str]]) -> bool:
        return len(items) >= PARALLEL_MIN

    def start(self) -> None:
        self._pool = ProcessPoolExecutor(max_workers=1, mp_context=get_context("spawn"))
        for first in range(0, len(self.items), BATCH):
            batch = self.items[first : first + BATCH]
            self._tasks.append(
                (batch, self._pool.submit(_yake_batch, [metadata_sources(i) for i, _ in batch]))
            )

    def finish(self) -> int:
        """Cancel the batches not started, wait for the one in progress, cache every item done; the
        number of items cached."""
        if self._pool is None:
            return 0
        for _, task in self._tasks:
            task.cancel()
        done: list[tuple[PaperFacts, str]] = []
        for batch, task in self._tasks:
            if task.cancelled():
                continue
            try:
                found = task.result()
            except BrokenProcessPool as err:  # the worker died (killed, out of memory): the graph redoes it
                log.debug("keyphrase prefetch stopped: %s", err)
                continue
            for (item, fingerprint), phrases in zip(batch, found, strict=True):
                done.append((PaperFacts(item.key, [], phrases), facts_key(fingerprint, "", "yake")))
        self._pool.shutdown()
        self._pool = None
        cache = FactsCache(self.state_path)
        try:
            cache.save(done)
        finally:
            cache.close()
        return len(done)
