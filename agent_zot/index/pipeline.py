"""The indexing loop for parsed items: chunk → embed (in batches across items) → store → record.

`services/upkeep/update_db.py` plans the update and `services/upkeep/parsing.py` parses the files; this
module turns each parsed item into chunks, embeds a batch of items' chunks at once, replaces each item's
points in the vector store and only then records the item in the state database, so an interrupted run
re-indexes it next time.
``refresh`` updates items in place whose files did not change (a retag, a new title).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from agent_zot.index.changes import METADATA, ItemWork, item_fingerprint
from agent_zot.index.chunking import Chunk, chunk_pages, metadata_chunk
from agent_zot.index.embed import EmbedsSentences
from agent_zot.index.heap import release_free_heap
from agent_zot.index.resources import IndexResources
from agent_zot.index.sentence_vectors import embed_packed
from agent_zot.index.stages import StageTimes
from agent_zot.index.store import Point, SearchFilter, SparseVector, item_payload
from agent_zot.ingest import ParsedDocument, ParseOutcome, fallback_document
from agent_zot.ingest.references import is_references_heading
from agent_zot.ingest.section_kinds import section_kind
from agent_zot.state.index import UNPARSED, AttachmentRecord, PageRecord
from agent_zot.zotero.file_metadata import FrontMatter, apply_front_matter
from agent_zot.zotero.models import Attachment, Item

if TYPE_CHECKING:
    import numpy as np


RELEASE_STAGE = "free memory returned"  # the stage that hands freed heap back (index/heap.py)


@dataclass(slots=True)
class ParsedItem:
    """An item whose attachments are all parsed and chunked, waiting for its chunks to be embedded."""

    work: ItemWork
    chunks: list[Chunk]
    records: list[AttachmentRecord]
    pages: dict[str, list[PageRecord]]
    failed: list[dict[str, str]] = field(default_factory=list)  # files with no text, and why
    skipped: list[dict[str, str]] = field(default_factory=list)  # files indexed from a fallback, and why
    ocr_pages: int = 0  # pages of its files read by OCR
    ocr_seconds: float = 0.0
    front_matter: dict[str, FrontMatter] = field(default_factory=dict)  # read from its PDF, by attachment


@dataclass(slots=True)
class StoredBatch:
    items: int = 0
    chunks: int = 0
    pages: int = 0
    embed_seconds: float = 0.0
    ocr_pages: int = 0
    ocr_seconds: float = 0.0


class IndexPipeline:
    def __init__(self, resources: IndexResources, times: StageTimes | None = None) -> None:
        self.resources = resources
        self.times = times if times is not None else StageTimes()

    def prepare(self, entry: ItemWork, outcomes: dict[str, ParseOutcome]) -> ParsedItem:
        """The item's chunks (its metadata record, then each parsed file's) and what to record about it.
        An attachment without an outcome was not parsed (--no-fulltext) and is recorded as such, so a
        later full run parses it."""
        item = entry.item
        ready = ParsedItem(entry, [], [], {})
        for attachment, fingerprint in entry.attachments:
            outcome = outcomes.get(attachment.key)
            if outcome is None:
                ready.records.append(_unparsed(item, attachment))
                continue
            document = outcome.document or fallback_document(attachment, outcome.error or "parse failed")
            if document.front_matter is not None:
                ready.front_matter[attachment.key] = document.front_matter
            doc_chunks = self._chunks_of(item, attachment, document)
            ready.ocr_pages += len(document.ocr_pages)
            ready.ocr_seconds += document.ocr_seconds
            ready.chunks.extend(doc_chunks)
            ready.pages[attachment.key] = [
                PageRecord(p.number, p.label, p.text, p.ocr) for p in document.pages
            ]
            ready.records.append(_record(item, attachment, fingerprint, document, outcome, doc_chunks))
            reason = outcome.error or document.fallback_reason
            if reason:
                problem = {
                    "item_key": item.key,
                    "attachment_key": attachment.key,
                    "reason": reason,
                    "indexed_from": _INDEXED_FROM.get(document.source, document.source)
                    if document.pages
                    else "metadata only",
                }
                (ready.failed if outcome.error and not document.pages else ready.skipped).append(problem)
        for found in ready.front_matter.values():  # its points and fingerprint carry what the PDF says
            item = apply_front_matter(item, found)
        if item is not entry.item:
            ready.work = replace(entry, item=item, fingerprint=item_fingerprint(item))
        described = metadata_chunk(item)
        if described is not None:
            ready.chunks.insert(0, described)
        return ready

    def store(self, batch: list[ParsedItem]) -> StoredBatch:
        """Embed the batch's chunks together, then for each item replace its points and record it."""
        stats = StoredBatch()
        if not batch:
            return stats
        resources = self.resources
        chunks = [c for ready in batch for c in ready.chunks]
        texts = [c.text for c in chunks]
        times = self.times
        dense, sparse, sentences = self._embed(texts, stats, sentences_of=chunks)
        vectors = {c.id: (dense[i], sparse[i]) for i, c in enumerate(chunks)}
        for ready in batch:
            item = ready.work.item
            points = [_point(c, item, *vectors[c.id]) for c in ready.chunks]
            with times.measure("vector store writes"):
                # Old points go first, so a chunk that no longer exists cannot linger.
                resources.store.delete_items([item.key])
                resources.store.upsert(points)
            with times.measure("state writes"):
                resources.state.record_item(
                    item.key,
                    ready.work.fingerprint,
                    status="indexed",
                    attachments=ready.records,
                    pages=ready.pages,
                    points=len(points),
                    front_matter=ready.front_matter,
                    sentence_vectors={c.id: sentences[c.id] for c in ready.chunks if c.id in sentences},
                )
            stats.items += 1
            stats.chunks += len(points)
            stats.pages += sum(len(p) for p in ready.pages.values())
            stats.ocr_pages += ready.ocr_pages
            stats.ocr_seconds += ready.ocr_seconds
        return stats

    def _embed(
        self, texts: list[str], stats: StoredBatch, sentences_of: Sequence[Chunk] = ()
    ) -> tuple[np.ndarray, list[SparseVector], dict[str, bytes]]:
        """Dense and sparse vectors of ``texts``, each stage timed; the time spent embedding goes to
        ``stats``. ``sentences_of``: the chunks of ``texts`` (in order), whose full-text ones also get
        their sentence vectors, packed by chunk id, where the embedder gives them."""
        times, resources = self.times, self.resources
        with times.measure("model load (waited for)"):
            resources.embedder.load()  # a background load: only the wait is counted, not as embedding
        started = time.perf_counter()
        packed: dict[str, bytes] = {}
        with times.measure("embed (dense)"):
            embedder = resources.embedder
            if sentences_of and isinstance(embedder, EmbedsSentences):
                dense, found = embed_packed(embedder, texts, [c.kind == "chunk" for c in sentences_of])
                packed = {c.id: data for c, data in zip(sentences_of, found, strict=True) if data is not None}
            else:
                dense = embedder.embed_documents(texts)
        with times.measure("embed (sparse)"):
            sparse = resources.sparse_documents(texts)
        stats.embed_seconds = time.perf_counter() - started
        with times.measure(RELEASE_STAGE):
            release_free_heap()  # the batch's tensors, freed in torch's threads' arenas (index/heap.py)
        return dense, sparse, packed

    def refresh(self, entries: list[ItemWork]) -> StoredBatch:
        """Update indexed items in place whose files did not change (index/changes.py): embed their
        metadata point again where its text changed, rewrite every point's payload, record the new
        fingerprints. An interrupted run leaves the old fingerprints, so the next run does it again."""
        stats = StoredBatch()
        if not entries:
            return stats
        resources, times = self.resources, self.times
        retext = [w for w in entries if w.scope == METADATA]
        described = [(w, metadata_chunk(w.item)) for w in retext]
        # An item whose title and abstract were cleared has no metadata point any more.
        emptied = [w.item.key for w, c in described if c is None]
        if emptied:
            with times.measure("vector store writes"):
                resources.store.delete_items(emptied, kinds=["metadata"])
        pairs = [(w, c) for w, c in described if c is not None]
        # A point's id hashes its text: one already stored has that text (an index from before the
        # fingerprint kept its parts tells no more than "something changed")
        stored = resources.store.existing_ids([c.id for _, c in pairs])
        retext = [w for w, c in pairs if c.id not in stored]
        chunks = [c for _, c in pairs if c.id not in stored]
        if retext:
            dense, sparse, _ = self._embed([c.text for c in chunks], stats)
            points = [
                _point(c, w.item, dense[i], sparse[i])
                for i, (c, w) in enumerate(zip(chunks, retext, strict=True))
            ]
            with times.measure("vector store writes"):
                resources.store.delete_items([w.item.key for w in retext], kinds=["metadata"])
                resources.store.upsert(points)
            stats.chunks = len(points)
        with times.measure("vector store writes"):
            resources.store.set_payloads({w.item.key: item_payload(w.item) for w in entries})
        # A metadata point may have come or gone (an item gained or lost its title): the state's count of
        # the item's points follows what the store holds, as the integrity check compares them.
        recount = [*emptied, *(w.item.key for w in retext)]
        counts = {key: resources.store.count(SearchFilter(item_keys=(key,))) for key in recount}
        with times.measure("state writes"):
            resources.state.update_fingerprints({w.item.key: w.fingerprint for w in entries})
            resources.state.update_points(counts)
        stats.items = len(entries)
        return stats

    def _chunks_of(self, item: Item, attachment: Attachment, document: ParsedDocument) -> list[Chunk]:
        if not document.pages:
            return []
        settings = self.resources.settings
        return chunk_pages(
            document.pages,
            item_key=item.key,
            attachment_key=attachment.key,
            embedder=self.resources.embedder,
            max_tokens=settings.chunk_tokens,
            overlap_tokens=settings.chunk_overlap_tokens,
            # The references were taken out of the body, so their heading must not label the text before it.
            headings=[h for h in document.headings if not is_references_heading(h[1])],
        )


_INDEXED_FROM = {"ft-cache": "Zotero's full-text cache"}


def _unparsed(item: Item, attachment: Attachment) -> AttachmentRecord:
    return AttachmentRecord(
        attachment.key, item.key, UNPARSED, "none", 0, 0, "skipped", reason="full text not requested"
    )


def _record(
    item: Item,
    attachment: Attachment,
    fingerprint: str,
    document: ParsedDocument,
    outcome: ParseOutcome,
    chunks: list[Chunk],
) -> AttachmentRecord:
    status = "indexed" if document.pages else ("failed" if outcome.error else "skipped")
    return AttachmentRecord(
        attachment_key=attachment.key,
        item_key=item.key,
        fingerprint=fingerprint,
        source=document.source,
        pages=len(document.pages),
        chunks=len(chunks),
        status=status,
        reason=outcome.error or document.fallback_reason,
        references_text=document.references_text,
        references_page=document.references_page,
    )


def _point(chunk: Chunk, item: Item, dense: Any, sparse: Any) -> Point:
    return Point(
        id=chunk.id,
        dense=dense,
        sparse=sparse,
        payload={
            "item_key": item.key,
            "attachment_key": chunk.attachment_key,
            "kind": chunk.kind,
            "text": chunk.text,
            "page_start": chunk.page_start,
            "page_end": chunk.page_end,
            "section": chunk.section,
            "section_kind": section_kind(chunk.section),  # decided once here; older indexes compute it
            **({"ocr": True} if chunk.ocr else {}),  # only where true: most chunks are not OCR'd
            **({"paragraph": chunk.paragraph} if chunk.paragraph is not None else {}),  # web pages
            **{key: value for key, value in item_payload(item).items() if value is not None},
        },
    )
