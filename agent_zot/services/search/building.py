"""Searching while the first full-text build runs.

A first `update-db` of a large library takes minutes to hours. Until its first batch is stored the index
answers nothing, and afterwards it holds only some of the papers. So while a build runs, a topic search
that the index cannot answer is answered from what Zotero already has: titles, abstracts and tags, ranked
by the request's words (stemmed, rarer words weighing more). Every such answer says how far the build is.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass

import snowballstemmer

from agent_zot.index.integrity import update_running
from agent_zot.services.context import AppContext
from agent_zot.services.response import ToolResponse, clip, item_line, plural
from agent_zot.text import words
from agent_zot.zotero.models import Item, Library

TITLE_WEIGHT = 2.0
ABSTRACT_CHARS = 220
_STEMMER = snowballstemmer.stemmer("english")


@dataclass(frozen=True, slots=True)
class BuildProgress:
    """A build of the index in progress: how many of the library's papers have full text so far."""

    indexed: int
    total: int

    def note(self) -> str:
        return (
            f"The full-text index is being built: {self.indexed:,} of {self.total:,} papers have full text so "
            "far."
        )

    def to_dict(self) -> dict[str, int]:
        return {"indexed": self.indexed, "total": self.total}


def build_progress(ctx: AppContext, library: Library) -> BuildProgress | None:
    """The first build of this index, when one is running now (an update-db in any process); None once a
    run has completed (later updates are incremental: the index answers meanwhile)."""
    resources = ctx.index_resources()
    if not update_running(resources.folder):
        return None
    if not resources.exists():
        return BuildProgress(0, len(library.items))
    state = resources.state
    if state.get_meta("updated_at") is not None:  # written when a run completes
        return None
    return BuildProgress(state.counts().items_indexed, len(library.items))


def _stems(text: str) -> list[str]:
    return [_STEMMER.stemWord(w) for w in words(text)]


def metadata_answer(
    library: Library, candidates: list[Item], query_words: list[str], limit: int, progress: BuildProgress
) -> ToolResponse:
    """The candidates ranked by the query's stems in their titles (counting double), abstracts and tags."""
    wanted = set(_stems(" ".join(query_words)))
    documents = {
        item.key: (set(_stems(item.title)), set(_stems(f"{item.abstract} {' '.join(item.tag_names())}")))
        for item in candidates
    }
    frequency = Counter(stem for title, rest in documents.values() for stem in (title | rest) & wanted)
    idf = {stem: math.log(1 + len(candidates) / (1 + frequency[stem])) for stem in wanted}
    scored = []
    for item in candidates:
        title, rest = documents[item.key]
        score = sum(idf[s] * (TITLE_WEIGHT if s in title else 1.0) for s in wanted if s in title or s in rest)
        if score > 0:
            scored.append((score, item))
    scored.sort(key=lambda pair: (-pair[0], pair[1].title.casefold()))
    found = [item for _, item in scored[:limit]]
    lines = [
        f"[Note: {progress.note()} Until it is done, these come from titles, abstracts and tags, without "
        "pages; ask again later for page-cited passages.]",
        f"{plural(len(scored), 'paper')} match by title, abstract or tags:",
    ]
    for number, item in enumerate(found, 1):
        lines.append(f"{number}. {item_line(item)}")
        if item.abstract.strip():
            lines.append(f"   {clip(item.abstract, ABSTRACT_CHARS)}")
    if not found:
        lines.append("None yet: no title, abstract or tag has these words.")
    data = {
        "papers": [item.to_summary() | {"found_by": ["metadata"], "passages": []} for item in found],
        "total": len(scored),
        "building": progress.to_dict(),
    }
    return ToolResponse("\n".join(lines), data)
