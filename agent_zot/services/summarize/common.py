"""Pieces every one-paper summarize mode shares: the item header, and the fallback material (abstract,
notes, annotations, Zotero's text cache) when the index holds nothing for it (services/full_text.py)."""

from __future__ import annotations

from agent_zot.services.response import clip, item_line
from agent_zot.zotero.models import Annotation, Item, Library

NOTE_CHARS = 600
CACHE_EXCERPT_CHARS = 2000


def header(item: Item) -> str:
    return item_line(item)


# -- what exists without an index --------------------------------------------------------------------


def annotation_line(annotation: Annotation) -> str:
    page = f"p. {annotation.page_label}" if annotation.page_label else "no page"
    quote = (
        f'"{clip(annotation.text, 300)}"' if annotation.text.strip() else f"[{annotation.annotation_type}]"
    )
    comment = f" — {clip(annotation.comment, 200)}" if annotation.comment.strip() else ""
    return f"- ({page}) {quote}{comment}"


def fallback_material(item: Item, library: Library) -> tuple[list[str], dict[str, object]]:
    """Abstract, annotations (with page labels), notes and an excerpt of Zotero's full-text cache."""
    lines: list[str] = []
    if item.abstract.strip():
        lines += ["Abstract:", item.abstract.strip()]
    annotations = sorted(item.annotations(library), key=lambda a: (a.sort_index, a.key))
    if annotations:
        lines.append(f"Annotations ({len(annotations)}):")
        lines += [annotation_line(a) for a in annotations]
    notes = [n for n in item.notes if n.text.strip()]
    if notes:
        lines.append(f"Notes ({len(notes)}):")
        lines += [f"- [{n.key}] {clip(n.text, NOTE_CHARS)}" for n in notes]
    cache = zotero_cache_text(item)
    if cache:
        lines += ["Zotero's full-text cache (no page numbers), start:", clip(cache, CACHE_EXCERPT_CHARS)]
    # Keys and places only: the words are in the text, once (zot_manage_notes gives notes whole).
    data: dict[str, object] = {
        "abstract_chars": len(item.abstract.strip()),
        "annotations": [
            {"key": a.key, "type": a.annotation_type, "page_label": a.page_label, "color": a.color}
            for a in annotations
        ],
        "notes": [{"key": n.key, "chars": len(n.text)} for n in notes],
        "zotero_fulltext_chars": len(cache),
    }
    return lines, data


def zotero_cache_text(item: Item) -> str:
    """Zotero's own extracted text of the item's first attachment that has one, else ""."""
    for attachment in item.attachments:
        text = attachment.fulltext()
        if text and text.strip():
            return text
    return ""
