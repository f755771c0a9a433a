"""Notes and annotations in the vector index, so zot_manage_notes can search them by meaning.

Each note and each annotation with words in it becomes one point (a long note one per chunk) of kind "note"
or "annotation" in the papers' store. Its text is the note's text, or the annotation's highlighted text and
comment; its payload says whose it is (``item_key`` is its own key, ``parent_key`` the paper's) and where
(attachment, page label and index, colour). The update is incremental like the items': a fingerprint of
what the points hold is kept in the state database, so an unchanged note is not embedded again, a changed
one is replaced and a deleted one (or one moved to the trash) is removed.
"""

from __future__ import annotations

import hashlib
import time
import uuid
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from agent_zot.index.chunking import Chunk, chunk_pages
from agent_zot.index.store import Point
from agent_zot.zotero.models import Annotation, Library

if TYPE_CHECKING:  # the tools read NoteDoc without loading the index stack
    from agent_zot.index.resources import IndexResources

_NAMESPACE = uuid.uuid5(uuid.NAMESPACE_URL, "https://github.com/agent-zot/note")
EMBED_BATCH = 256  # notes and annotations embedded (and stored) together


@dataclass(frozen=True, slots=True)
class NoteDoc:
    """A note or an annotation as the index holds it."""

    key: str
    kind: str  # "note" | "annotation"
    text: str  # what is embedded
    parent_key: str | None  # the regular item it belongs to (None: a standalone note)
    attachment_key: str | None = None
    page_label: str = ""
    page_index: int | None = None
    color: str = ""
    annotation_type: str = ""

    @property
    def fingerprint(self) -> str:
        parts = (
            self.kind,
            self.text,
            self.parent_key or "",
            self.attachment_key or "",
            self.page_label,
            "" if self.page_index is None else str(self.page_index),
            self.color,
            self.annotation_type,
        )
        return hashlib.sha1("\x1f".join(parts).encode("utf-8"), usedforsecurity=False).hexdigest()[:16]


def annotation_text(annotation: Annotation) -> str:
    """What an annotation says: the highlighted text, then the reader's comment."""
    return "\n".join(part for part in (annotation.text.strip(), annotation.comment.strip()) if part)


def note_docs(library: Library) -> list[NoteDoc]:
    """Every note and annotation of the library that has words (image and ink annotations have none)."""
    docs: dict[str, NoteDoc] = {}
    for note in library.notes:
        text = note.text.strip()
        if text and note.key not in docs:  # a key in two libraries: the first wins, as for items
            docs[note.key] = NoteDoc(note.key, "note", text, note.parent_key)
    for ann in library.annotations:
        text = annotation_text(ann)
        if text and ann.key not in docs:
            docs[ann.key] = NoteDoc(
                ann.key,
                "annotation",
                text,
                ann.parent_item_key,
                attachment_key=ann.attachment_key,
                page_label=ann.page_label,
                page_index=ann.page_index,
                color=ann.color,
                annotation_type=ann.annotation_type,
            )
    return list(docs.values())


@dataclass(slots=True)
class NotesUpdate:
    indexed: int = 0
    unchanged: int = 0
    removed: int = 0
    points: int = 0
    embed_seconds: float = 0.0
    seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "indexed": self.indexed,
            "unchanged": self.unchanged,
            "removed": self.removed,
            "points": self.points,
            "embed_seconds": round(self.embed_seconds, 3),
            "seconds": round(self.seconds, 3),
        }


def update_notes(
    library: Library,
    resources: IndexResources,
    *,
    only_items: Collection[str] | None = None,
    on_progress: Callable[[int, int], None] | None = None,
) -> NotesUpdate:
    """Bring the index's notes and annotations up to date with the library. With ``only_items`` (an
    update of some items), only theirs are looked at and nothing else is removed. ``on_progress(done,
    total)`` follows the embedding, batch by batch."""
    started = time.perf_counter()
    update = NotesUpdate()
    state = resources.state
    docs = note_docs(library)
    if only_items is not None:
        wanted = {key.upper() for key in only_items}
        docs = [d for d in docs if d.parent_key in wanted]
    known = state.note_fingerprints()
    changed = [d for d in docs if known.get(d.key) != d.fingerprint]
    update.unchanged = len(docs) - len(changed)
    if only_items is None:
        gone = sorted(set(known) - {d.key for d in docs})
        if gone:
            resources.store.delete_items(gone)
            state.forget_notes(gone)
            update.removed = len(gone)
    for start in range(0, len(changed), EMBED_BATCH):
        if on_progress is not None:
            on_progress(start, len(changed))
        _store(resources, changed[start : start + EMBED_BATCH], update)
    if on_progress is not None and changed:
        on_progress(len(changed), len(changed))
    update.seconds = time.perf_counter() - started
    return update


def _store(resources: IndexResources, docs: list[NoteDoc], update: NotesUpdate) -> None:
    """Embed a batch, replace each doc's points, then record them (a crash before that re-embeds them)."""
    resources.embedder.load()  # waits for a background load, so its time is not counted as embedding
    pieces = [(doc, chunk) for doc in docs for chunk in _chunks(resources, doc)]
    texts = [chunk.text for _, chunk in pieces]
    started = time.perf_counter()
    dense = resources.embedder.embed_documents(texts)
    sparse = resources.sparse_documents(texts)
    update.embed_seconds += time.perf_counter() - started
    points = [_point(doc, chunk, dense[i], sparse[i]) for i, (doc, chunk) in enumerate(pieces)]
    # Old points go first: a note that shrank to fewer chunks must not keep its old tail.
    resources.store.delete_items([doc.key for doc in docs])
    resources.store.upsert(points)
    counts: dict[str, int] = {}
    for doc, _ in pieces:
        counts[doc.key] = counts.get(doc.key, 0) + 1
    resources.state.record_notes([(d.key, d.kind, d.fingerprint, counts.get(d.key, 0)) for d in docs])
    update.indexed += len(docs)
    update.points += len(points)


@dataclass(frozen=True, slots=True)
class _Page:
    number: int
    text: str


def _chunks(resources: IndexResources, doc: NoteDoc) -> Iterator[Chunk]:
    """Most notes and annotations fit one chunk; a long note is cut like a page of a paper."""
    settings = resources.settings
    yield from chunk_pages(
        [_Page(1, doc.text)],
        item_key=doc.key,
        attachment_key=doc.attachment_key or doc.key,
        embedder=resources.embedder,
        max_tokens=settings.chunk_tokens,
        overlap_tokens=settings.chunk_overlap_tokens,
    )


def _point(doc: NoteDoc, chunk: Chunk, dense: Any, sparse: Any) -> Point:
    page = doc.page_index + 1 if doc.page_index is not None else None
    return Point(
        id=str(uuid.uuid5(_NAMESPACE, f"{doc.kind}\x1f{doc.key}\x1f{chunk.ordinal}")),
        dense=dense,
        sparse=sparse,
        payload={
            "item_key": doc.key,
            "kind": doc.kind,
            "parent_key": doc.parent_key,
            "attachment_key": doc.attachment_key,
            "text": chunk.text,
            "chunk_index": chunk.ordinal,
            "page_start": page,
            "page_end": page,
            "page_label": doc.page_label or None,
            "page_index": doc.page_index,
            "color": doc.color or None,
            "annotation_type": doc.annotation_type or None,
        },
    )
