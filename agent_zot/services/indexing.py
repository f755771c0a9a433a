"""`agent-zot update-db`: bring the full-text index up to date with the library, incrementally.

Attachments are parsed in worker processes (a hung or hostile file is killed and reported); parsed items
are chunked and embedded in batches across items; each item's points replace its old points, and the item
is recorded in the state database only after its points are stored, so an interrupted run simply
continues next time (see agent_zot/state/index.py).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from agent_zot.errors import AgentZotError
from agent_zot.index.changes import UNPARSED, ItemWork, plan_update
from agent_zot.index.chunking import Chunk, chunk_pages, metadata_chunk
from agent_zot.index.embed import Embedder, EmbedderError
from agent_zot.index.resources import IndexResources
from agent_zot.index.store import Point
from agent_zot.ingest import ParsedDocument, ParseJob, ParseOutcome, fallback_document, parse_many
from agent_zot.ingest.references import is_references_heading
from agent_zot.state.index import AttachmentRecord, PageRecord
from agent_zot.zotero.models import Attachment, Item, Library

if TYPE_CHECKING:
    from agent_zot.graph.resources import GraphResources

log = logging.getLogger(__name__)

EMBED_BATCH_CHUNKS = 128  # chunks embedded together (across items) before their items are stored


@dataclass(frozen=True, slots=True)
class UpdateOptions:
    fulltext: bool = True
    force_rebuild: bool = False
    limit: int | None = None
    item_keys: tuple[str, ...] = ()
    parser: str = "pdfium"


@dataclass(slots=True)
class Progress:
    """A snapshot for progress displays."""

    items_done: int
    items_total: int
    pages: int
    chunks: int
    elapsed_s: float

    @property
    def rate(self) -> float:
        return self.items_done / self.elapsed_s if self.elapsed_s > 0 else 0.0

    @property
    def eta_s(self) -> float | None:
        return (self.items_total - self.items_done) / self.rate if self.rate > 0 else None


@dataclass(slots=True)
class UpdateSummary:
    indexed: int = 0
    unchanged: int = 0
    removed: int = 0
    pages: int = 0
    chunks: int = 0
    skipped: list[dict[str, str]] = field(default_factory=list)  # attachments indexed as metadata only, why
    failed: list[dict[str, str]] = field(default_factory=list)
    seconds: float = 0.0
    embed_seconds: float = 0.0  # time spent embedding (dense + sparse), model load excluded
    model: str = ""
    store: str = ""
    graph: dict[str, float] | None = None  # what the knowledge graph holds after the run, when rebuilt
    graph_error: str | None = None  # the graph could not be updated (the index update still stands)

    def to_dict(self) -> dict[str, Any]:
        return {
            "indexed": self.indexed,
            "unchanged": self.unchanged,
            "removed": self.removed,
            "pages": self.pages,
            "chunks": self.chunks,
            "skipped": self.skipped,
            "failed": self.failed,
            "seconds": round(self.seconds, 3),
            "embed_seconds": round(self.embed_seconds, 3),
            "model": self.model,
            "store": self.store,
            "graph": self.graph,
            "graph_error": self.graph_error,
        }


@dataclass(slots=True)
class _Ready:
    """An item whose attachments are all parsed, waiting for its chunks to be embedded."""

    work: ItemWork
    chunks: list[Chunk]
    records: list[AttachmentRecord]
    pages: dict[str, list[PageRecord]]


def update_index(
    library: Library,
    resources: IndexResources,
    options: UpdateOptions,
    *,
    on_progress: Callable[[Progress], None] | None = None,
    graph: GraphResources | None = None,
) -> UpdateSummary:
    """Index what changed; then, when anything changed (or the graph is still empty), rebuild the graph."""
    started = time.perf_counter()
    summary = UpdateSummary(model=resources.embedder.name, store=resources.settings.vector_store)
    state = resources.state
    if options.force_rebuild:
        resources.drop()
    resources.open()

    plan = plan_update(
        library,
        state.item_fingerprints(),
        state.attachment_fingerprints(),
        state.attachments_by_item(),
        force=options.force_rebuild,
        only=options.item_keys or None,
        limit=options.limit,
        fulltext=options.fulltext,
    )
    summary.unchanged = plan.unchanged
    if plan.work:
        _load_in_background(resources.embedder)
    if plan.removed:
        resources.store.delete_items(plan.removed)
        state.forget_items(plan.removed)
        summary.removed = len(plan.removed)

    batch: list[_Ready] = []
    total = len(plan.work)
    for ready in _parsed_items(plan.work, resources, options, summary):
        batch.append(ready)
        if sum(len(r.chunks) for r in batch) >= EMBED_BATCH_CHUNKS:
            _store_batch(batch, resources, summary)
            batch = []
            _report(on_progress, summary, total, started)
    _store_batch(batch, resources, summary)
    _report(on_progress, summary, total, started)
    if summary.indexed:
        resources.store.optimize()
    state.set_meta("model", summary.model)
    state.set_meta("store", summary.store)
    state.set_meta("updated_at", time.strftime("%Y-%m-%d %H:%M:%S"))
    if graph is not None and (summary.indexed or summary.removed or graph.is_empty()):
        _update_graph(graph, library, state, summary)
    summary.seconds = time.perf_counter() - started
    return summary


def _update_graph(graph: GraphResources, library: Library, state: Any, summary: UpdateSummary) -> None:
    started = time.perf_counter()
    try:
        summary.graph = graph.update(library, state).to_dict()
        summary.graph["seconds"] = round(time.perf_counter() - started, 3)  # type: ignore[assignment]
    except AgentZotError as err:  # e.g. Neo4j or Ollama down: the index is fine, say what failed
        summary.graph_error = str(err)
        log.warning("knowledge graph not updated: %s", err)


def _load_in_background(embedder: Embedder) -> None:
    """Load the model while the workers parse the first files, so the load costs no wall time.

    A failure is left for the first embedding call to raise again, with its message, in the main thread.
    """

    def load() -> None:
        try:
            embedder.load()
        except EmbedderError as err:
            log.debug("background model load failed (the first embedding call reports it): %s", err)

    threading.Thread(target=load, name="agent-zot-model-load", daemon=True).start()


def _report(
    callback: Callable[[Progress], None] | None, summary: UpdateSummary, total: int, started: float
) -> None:
    if callback is not None:
        callback(
            Progress(summary.indexed, total, summary.pages, summary.chunks, time.perf_counter() - started)
        )


def _parsed_items(
    work: list[ItemWork], resources: IndexResources, options: UpdateOptions, summary: UpdateSummary
) -> Iterator[_Ready]:
    """Yield items as soon as all their attachments are parsed (metadata-only items at once)."""
    waiting: dict[str, tuple[ItemWork, dict[str, ParseOutcome | None]]] = {}
    owner: dict[str, str] = {}
    jobs: list[ParseJob] = []
    for entry in work:
        files = [a for a, _ in entry.attachments] if options.fulltext else []
        if not files:
            yield _prepare(entry, {}, resources, summary)
            continue
        waiting[entry.item.key] = (entry, dict.fromkeys((a.key for a in files), None))
        for attachment in files:
            owner[attachment.key] = entry.item.key
            jobs.append(ParseJob(attachment))
    if not jobs:
        return
    settings = resources.settings
    for outcome in parse_many(
        jobs,
        workers=settings.index_workers,
        timeout_s=settings.parse_timeout_s,
        memory_mb=settings.parse_memory_mb,
        parser=options.parser,
    ):
        item_key = owner[outcome.attachment_key]
        entry, outcomes = waiting[item_key]
        outcomes[outcome.attachment_key] = outcome
        if all(o is not None for o in outcomes.values()):
            del waiting[item_key]
            yield _prepare(entry, outcomes, resources, summary)  # type: ignore[arg-type]


def _prepare(
    entry: ItemWork, outcomes: dict[str, ParseOutcome], resources: IndexResources, summary: UpdateSummary
) -> _Ready:
    item = entry.item
    chunks = [metadata_chunk(item)]
    records: list[AttachmentRecord] = []
    pages: dict[str, list[PageRecord]] = {}
    for attachment, fingerprint in entry.attachments:
        outcome = outcomes.get(attachment.key)
        if outcome is None:  # --no-fulltext: remember the file as not parsed, so a full run parses it
            records.append(
                AttachmentRecord(
                    attachment.key,
                    item.key,
                    UNPARSED,
                    "none",
                    0,
                    0,
                    "skipped",
                    reason="full text not requested",
                )
            )
            continue
        document = outcome.document or fallback_document(attachment, outcome.error or "parse failed")
        doc_chunks = _chunks_of(item, attachment, document, resources)
        chunks.extend(doc_chunks)
        pages[attachment.key] = [PageRecord(p.number, p.label, p.text) for p in document.pages]
        records.append(_record(item, attachment, fingerprint, document, outcome, doc_chunks))
        reason = outcome.error or document.fallback_reason
        if reason:
            entry_info = {"item_key": item.key, "attachment_key": attachment.key, "reason": reason}
            (summary.failed if outcome.error and not document.pages else summary.skipped).append(entry_info)
    return _Ready(entry, chunks, records, pages)


def _chunks_of(
    item: Item, attachment: Attachment, document: ParsedDocument, resources: IndexResources
) -> list[Chunk]:
    if not document.pages:
        return []
    settings = resources.settings
    return chunk_pages(
        document.pages,
        item_key=item.key,
        attachment_key=attachment.key,
        embedder=resources.embedder,
        max_tokens=settings.chunk_tokens,
        overlap_tokens=settings.chunk_overlap_tokens,
        # The references were taken out of the body, so their heading must not label the text before it.
        headings=[h for h in document.headings if not is_references_heading(h[1])],
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


def _store_batch(batch: list[_Ready], resources: IndexResources, summary: UpdateSummary) -> None:
    if not batch:
        return
    chunks = [c for ready in batch for c in ready.chunks]
    texts = [c.text for c in chunks]
    resources.embedder.load()  # waits for the background load, so its time is not counted as embedding
    started = time.perf_counter()
    dense = resources.embedder.embed_documents(texts)
    sparse = resources.sparse_documents(texts)
    summary.embed_seconds += time.perf_counter() - started
    vectors = {c.id: (dense[i], sparse[i]) for i, c in enumerate(chunks)}
    for ready in batch:
        item = ready.work.item
        points = [_point(c, item, *vectors[c.id]) for c in ready.chunks]
        # Old points go first, so a chunk that no longer exists cannot linger.
        resources.store.delete_items([item.key])
        resources.store.upsert(points)
        resources.state.record_item(
            item.key,
            ready.work.fingerprint,
            status="indexed",
            attachments=ready.records,
            pages=ready.pages,
            points=len(points),
        )
        summary.indexed += 1
        summary.chunks += len(points)
        summary.pages += sum(len(p) for p in ready.pages.values())


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
            "year": item.year,
            "item_type": item.item_type,
            "collections": list(item.collection_keys),
            "tags": item.tag_names(),
            "creators": [c.last_name for c in item.creators],
            "title": item.title,
        },
    )
