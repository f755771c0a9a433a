"""Notes and annotations: per item, recent, and text search over both."""

from __future__ import annotations

import re

from agent_zot.errors import InvalidArgumentError
from agent_zot.services.resolve.library import resolve_item
from agent_zot.services.response import ToolResponse, more_line, quoted
from agent_zot.zotero.models import Annotation, Library, Note

_SNIPPET = 160
_WORD = re.compile(r"\w+", re.UNICODE)


def list_notes(library: Library, *, item_key: str | None, limit: int) -> ToolResponse:
    if item_key:
        item = resolve_item(library, item_key)
        notes = sorted(item.notes, key=lambda n: n.date_added)
        scope = f"{item.title} [{item.key}]"
    else:
        notes = sorted(library.notes, key=lambda n: n.date_modified, reverse=True)
        scope = "the library (most recently changed first)"
    if not notes:
        return ToolResponse(f"No notes in {scope}.", {"notes": [], "total": 0})
    shown = notes[:limit]
    blocks = [_note_block(n) for n in shown]
    more = more_line(len(notes), limit)
    return ToolResponse(
        f"{len(notes)} notes in {scope}:\n\n" + "\n\n".join(blocks) + more,
        {"notes": [_note_row(n) for n in shown], "total": len(notes)},
    )


# The structured rows say which notes and annotations were shown and where; their words are in the text,
# once.
def _note_row(note: Note) -> dict[str, object]:
    row = note.to_dict()
    return {k: v for k, v in row.items() if k != "text"} | {"chars": len(note.text)}


def _annotation_row(annotation: Annotation) -> dict[str, object]:
    return {k: v for k, v in annotation.to_dict().items() if k not in ("text", "comment")}


def _note_block(note: Note) -> str:
    parent = f" on {note.parent_key}" if note.parent_key else " (standalone)"
    return f"[{note.key}]{parent}, {note.date_modified[:10]}\n{note.text}"


def list_annotations(library: Library, *, item_key: str | None, limit: int) -> ToolResponse:
    if item_key:
        item = resolve_item(library, item_key)
        annotations = item.annotations(library)
        scope = f"{item.title} [{item.key}]"
    else:
        annotations = sorted(library.annotations, key=lambda a: a.date_modified, reverse=True)
        scope = "the library (most recent first)"
    if not annotations:
        return ToolResponse(f"No annotations in {scope}.", {"annotations": [], "total": 0})
    shown = annotations[:limit]
    lines: list[str] = []
    current = None
    for ann in shown:
        if ann.attachment_key != current:
            current = ann.attachment_key
            lines.append(f"Attachment {current}:")
        lines.append(_annotation_line(ann))
    more = more_line(len(annotations), limit)
    return ToolResponse(
        f"{len(annotations)} annotations in {scope}:\n" + "\n".join(lines) + more,
        {"annotations": [_annotation_row(a) for a in shown], "total": len(annotations)},
    )


def _annotation_line(ann: Annotation) -> str:
    page = f"p. {ann.page_label}" if ann.page_label else "page ?"
    body = f'"{ann.text}"' if ann.text else ""
    comment = f" — {ann.comment}" if ann.comment else ""
    return f"  [{ann.key}] {ann.annotation_type} ({page}) {body}{comment}".rstrip()


def search_notes(library: Library, text: str, *, limit: int) -> ToolResponse:
    """Notes and annotations containing every word of ``text`` (case-insensitive), best matches first."""
    terms = [t.casefold() for t in _WORD.findall(text)]
    if not terms:
        raise InvalidArgumentError("Nothing to search for.", hint="Give words that appear in your notes.")
    hits: list[tuple[float, dict[str, object], str]] = []
    for note in library.notes:
        score = _score(note.text, terms)
        if score:
            snippet = _snippet(note.text, terms)
            hits.append(
                (
                    score,
                    {"kind": "note", "key": note.key, "parent_key": note.parent_key},
                    f"[{note.key}] note on {note.parent_key or '—'}: {snippet}",
                )
            )
    for ann in library.annotations:
        body = f"{ann.text}\n{ann.comment}"
        score = _score(body, terms)
        if score:
            snippet = _snippet(body, terms)
            hits.append(
                (
                    score,
                    {
                        "kind": "annotation",
                        "key": ann.key,
                        "parent_key": ann.parent_item_key,
                        "attachment_key": ann.attachment_key,
                        "page_label": ann.page_label,
                    },
                    f"[{ann.key}] {ann.annotation_type} on {ann.parent_item_key or ann.attachment_key}"
                    f" (p. {ann.page_label or '?'}): {snippet}",
                )
            )
    hits.sort(key=lambda h: -h[0])
    if not hits:
        return ToolResponse(f"No notes or annotations contain {quoted(text)}.", {"matches": [], "total": 0})
    shown = hits[:limit]
    return ToolResponse(
        f"{len(hits)} notes/annotations match {quoted(text)}:\n" + "\n".join(h[2] for h in shown),
        {"matches": [h[1] for h in shown], "total": len(hits)},
    )


def _score(body: str, terms: list[str]) -> float:
    """0 unless every term occurs; then more occurrences (relative to length) rank higher."""
    folded = body.casefold()
    counts = [folded.count(t) for t in terms]
    if not all(counts):
        return 0.0
    return sum(counts) / (1 + len(folded) / 2000)


def _snippet(body: str, terms: list[str]) -> str:
    flat = " ".join(body.split())
    at = flat.casefold().find(terms[0])
    start = max(0, at - _SNIPPET // 3)
    piece = flat[start : start + _SNIPPET]
    return ("…" if start else "") + piece + ("…" if start + _SNIPPET < len(flat) else "")
