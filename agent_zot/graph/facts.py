"""Per-paper graph facts (parsed references, keyphrases), computed once per indexed version of an item.

They are the expensive part of the graph (parsing reference lists, running YAKE over the body), so they
are cached in the index state database next to the page texts they come from, keyed by the item's index
fingerprint: an item re-indexed by update-db gets new facts, the others are reused. Assembling the graph
from the facts of every item (matching, merging, co-authors) is cheap and runs after each update.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent_zot.config import Settings
from agent_zot.graph.concepts import extract_keyphrases
from agent_zot.graph.references import Reference, parse_references
from agent_zot.hardware import worker_count
from agent_zot.index.changes import creators_fingerprint, text_fingerprint
from agent_zot.state.db import connect, rows_in
from agent_zot.state.index import IndexState
from agent_zot.zotero.models import Item

FACTS_VERSION = 6  # bump when extraction or the cache key changes, so cached facts are recomputed
BODY_CHARS = 30_000  # keyphrases come from the title, the abstract and the start of the body
PARALLEL_MIN = 200  # papers needing keyphrases before worker processes pay off


@dataclass(slots=True)
class PaperFacts:
    item_key: str
    references: list[Reference] = field(default_factory=list)
    keyphrases: list[tuple[str, float]] = field(default_factory=list)

    def to_json(self) -> str:
        return json.dumps(
            {
                "v": FACTS_VERSION,
                "references": [r.to_dict() for r in self.references],
                "keyphrases": self.keyphrases,
            }
        )

    @classmethod
    def from_json(cls, item_key: str, text: str) -> PaperFacts | None:
        data = json.loads(text)
        if data.get("v") != FACTS_VERSION:
            return None
        references = [_reference(r) for r in data["references"]]
        keyphrases = [(str(p), float(w)) for p, w in data["keyphrases"]]
        return cls(item_key, references, keyphrases)


def _reference(data: dict[str, Any]) -> Reference:
    return Reference(
        raw=data["raw"],
        authors=tuple(data.get("authors") or ()),
        year=data.get("year"),
        title=data.get("title") or "",
        venue=data.get("venue") or "",
        doi=data.get("doi"),
        arxiv=data.get("arxiv"),
    )


class FactsCache:
    """The ``graph_facts`` and ``graph_memo`` tables in the state database (its own connection; WAL like the
    state DB)."""

    def __init__(self, path: Path) -> None:
        self._conn = connect(path, autocommit=False)
        self._lock = threading.Lock()

    def load(self, keys: Sequence[str] | None = None) -> dict[str, tuple[str, PaperFacts | None]]:
        """The cached facts of ``keys`` (all of them when None), with the fingerprint each was made for."""
        with self._lock:
            if keys is None:
                rows = self._conn.execute("SELECT item_key, fingerprint, facts FROM graph_facts").fetchall()
            else:
                query = "SELECT item_key, fingerprint, facts FROM graph_facts WHERE item_key IN ({})"
                rows = rows_in(self._conn, query, list(keys))
        return {key: (fp, PaperFacts.from_json(key, facts)) for key, fp, facts in rows}

    def save(self, facts: Iterable[tuple[PaperFacts, str]]) -> None:
        rows = [(f.item_key, fingerprint, f.to_json()) for f, fingerprint in facts]
        with self._lock, self._conn:
            self._conn.executemany("INSERT OR REPLACE INTO graph_facts VALUES (?, ?, ?)", rows)

    def copy_from(self, other: Path) -> int:
        """Take over another state database's cached facts (they are keyed by item fingerprint, so only
        those of unchanged items are ever used); the number of rows."""
        with self._lock:
            self._conn.execute("ATTACH DATABASE ? AS other", (str(other),))
            try:
                with self._conn:
                    cursor = self._conn.execute(
                        "INSERT OR REPLACE INTO graph_facts SELECT * FROM other.graph_facts"
                    )
                return cursor.rowcount
            finally:
                self._conn.execute("DETACH DATABASE other")

    def memo(self, name: str) -> str | None:
        """A part of the graph memo (graph/patch.py), kept in the same database."""
        with self._lock:
            row = self._conn.execute("SELECT value FROM graph_memo WHERE name = ?", (name,)).fetchone()
        return row[0] if row else None

    def keep_memo(self, parts: dict[str, str | None]) -> None:
        """Write memo parts in one transaction; None removes a part."""
        with self._lock, self._conn:
            for name, value in parts.items():
                if value is None:
                    self._conn.execute("DELETE FROM graph_memo WHERE name = ?", (name,))
                else:
                    self._conn.execute("INSERT OR REPLACE INTO graph_memo VALUES (?, ?)", (name, value))

    def forget(self, keep: set[str]) -> None:
        with self._lock:
            stored = [k for (k,) in self._conn.execute("SELECT item_key FROM graph_facts")]
        gone = [(k,) for k in stored if k not in keep]
        with self._lock, self._conn:
            self._conn.executemany("DELETE FROM graph_facts WHERE item_key = ?", gone)

    def close(self) -> None:
        self._conn.close()


# (title, abstract, body, names to leave out) -> [(normalised phrase, weight in (0, 1])]
KeyphraseFn = Callable[[str, str, str, list[str]], list[tuple[str, float]]]


def yake_keyphrases(title: str, abstract: str, body: str, exclude: list[str]) -> list[tuple[str, float]]:
    return extract_keyphrases(title, abstract, body, exclude=exclude)


def keyphrase_extractor(settings: Settings) -> tuple[str, KeyphraseFn]:
    """The configured extractor and a name for it (part of the cache key, so switching recomputes)."""
    if settings.concept_extractor == "ollama":
        from agent_zot.graph.concepts_llm import OllamaConceptExtractor

        llm = OllamaConceptExtractor(settings.ollama_url, settings.concept_model)

        def ask(title: str, abstract: str, body: str, exclude: list[str]) -> list[tuple[str, float]]:
            return llm.keyphrases(title, abstract, body)

        return f"ollama:{settings.concept_model}", ask
    return "yake", yake_keyphrases


KeyphraseInput = tuple[str, str, str, list[str]]  # what a KeyphraseFn takes


def _paper_sources(item: Item, state: IndexState) -> tuple[list[Reference], KeyphraseInput]:
    """The parsed references of an item and what its keyphrases are extracted from."""
    references: list[Reference] = []
    body: list[str] = []
    for record in state.attachments_of(item.key):
        if record.references_text:
            references.extend(parse_references(record.references_text))
        size = sum(len(t) for t in body)
        for page in state.pages_of(record.attachment_key):
            if size >= BODY_CHARS:
                break
            body.append(page.text)
            size += len(page.text)
    text = "\n".join(body)[:BODY_CHARS]
    names = [n for c in item.creators for n in (c.last_name, c.first_name) if n]
    return references, (item.title, item.abstract, text, names)


def _yake_one(source: KeyphraseInput) -> list[tuple[str, float]]:
    return yake_keyphrases(*source)


def _all_keyphrases(
    sources: list[KeyphraseInput], keyphrases: KeyphraseFn, *, parallel: bool, workers: int
) -> list[list[tuple[str, float]]]:
    """Keyphrases of many papers. YAKE is pure CPU (about 30 ms an abstract, far more for a long body),
    so a first graph of a large library spreads it over worker processes; a few papers stay in-process,
    where starting workers would cost more than it saves."""
    if not parallel or workers < 2 or len(sources) < PARALLEL_MIN:
        return [keyphrases(*source) for source in sources]
    from concurrent.futures import ProcessPoolExecutor
    from multiprocessing import get_context

    chunk = max(8, min(64, len(sources) // (workers * 8)))
    with ProcessPoolExecutor(max_workers=workers, mp_context=get_context("spawn")) as pool:
        return list(pool.map(_yake_one, sources, chunksize=chunk))


@dataclass(frozen=True, slots=True)
class FactsKey:
    """What an item's facts are computed from: its metadata text, its creators (left out of keyphrases),
    the files its text came from, and the keyphrase extractor. The cache is keyed by all of it."""

    text: str
    creators: str
    sources: str
    extractor: str

    def __str__(self) -> str:
        return f"{self.text}|{self.creators}|{self.sources}|{self.extractor}"


def facts_keys(items: Iterable[Item], state: IndexState, *, settings: Settings) -> dict[str, FactsKey]:
    extractor = keyphrase_extractor(settings)[0]
    files = state.text_fingerprints()
    owned = state.attachments_by_item()
    return {
        item.key: FactsKey(
            text_fingerprint(item),
            creators_fingerprint(item),
            ",".join(f"{key}={files.get(key, '')}" for key in sorted(owned.get(item.key, ()))),
            extractor,
        )
        for item in items
    }


def current_facts(
    items: Iterable[Item],
    state: IndexState,
    cache: FactsCache,
    *,
    settings: Settings,
    keys: dict[str, FactsKey] | None = None,
    every_item: bool = True,
) -> dict[str, PaperFacts]:
    """Facts for ``items``: cached where what they are computed from is unchanged, else computed.

    The key covers the item's metadata text (not its tags or collections: a retag reuses the facts) *and*
    the files its text came from: a file parsed for the first time (after `update-db --no-fulltext`),
    repaired or replaced changes its attachment fingerprint, so the references and keyphrases are read
    again from the new text. With ``every_item`` (``items`` is the whole library) the cached facts of
    items no longer in it are dropped."""
    items = list(items)
    _, keyphrases = keyphrase_extractor(settings)
    keys = keys if keys is not None else facts_keys(items, state, settings=settings)
    cached = cache.load(None if every_item else [item.key for item in items])
    result: dict[str, PaperFacts] = {}
    todo: list[tuple[Item, str]] = []
    for item in items:
        fingerprint = str(keys[item.key])
        stored_fp, stored = cached.get(item.key, ("", None))
        if stored is not None and stored_fp == fingerprint:
            result[item.key] = stored
        else:
            todo.append((item, fingerprint))
    inputs = [_paper_sources(item, state) for item, _ in todo]
    phrases = _all_keyphrases(
        [source for _, source in inputs],
        keyphrases,
        parallel=keys[todo[0][0].key].extractor == "yake" if todo else False,
        workers=worker_count(settings.index_workers),
    )
    fresh: list[tuple[PaperFacts, str]] = []
    for (item, fingerprint), (references, _), found in zip(todo, inputs, phrases, strict=True):
        facts = PaperFacts(item.key, references, found)
        result[item.key] = facts
        fresh.append((facts, fingerprint))
    cache.save(fresh)
    if every_item:
        cache.forget(set(result))
    return result
