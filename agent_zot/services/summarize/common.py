"""Pieces every summarize mode shares: the token estimate, the item header, what the index holds for an
item, and the fallback material (abstract, notes, annotations, Zotero's text cache) when it holds nothing."""

from __future__ import annotations

from dataclasses import dataclass, field

from agent_zot.ingest.models import SECTION_MARK
from agent_zot.services.context import AppContext
from agent_zot.services.response import clip, item_line
from agent_zot.state.index import AttachmentRecord, PageRecord
from agent_zot.zotero.models import Annotation, Item, Library

PDF_SOURCES = frozenset({"pdfium", "docling"})
UPDATE_DB = "`agent-zot update-db`"
NOTE_CHARS = 600
CACHE_EXCERPT_CHARS = 2000


def header(item: Item) -> str:
    return item_line(item)


@dataclass(slots=True)
class FullText:
    """What the full-text index holds for one item."""

    status: str  # "indexed" | "no_index" | "not_indexed" | "no_text"
    message: str = ""  # why there is no full text and what to do, when status != "indexed"
    attachment: AttachmentRecord | None = None  # the attachment whose pages we read
    others: list[AttachmentRecord] = field(default_factory=list)

    @property
    def indexed(self) -> bool:
        return self.status == "indexed"

    def to_dict(self) -> dict[str, object]:
        main = self.attachment
        return {
            "status": self.status,
            "message": self.message or None,
            "attachment_key": main.attachment_key if main else None,
            "source": main.source if main else None,
            "pages": main.pages if main else 0,
            "other_attachments": [a.attachment_key for a in self.others],
        }


def full_text_of(ctx: AppContext, item: Item) -> FullText:
    if not ctx.index_ready():
        return FullText(
            "no_index",
            f"The full-text index has not been built yet: run {UPDATE_DB} to get page-cited passages "
            "and the full text. Showing what Zotero itself has.",
        )
    state = ctx.index().state
    if item.key not in state.item_fingerprints():
        return FullText(
            "not_indexed",
            f"This item is not in the full-text index yet (added or changed since the last update): run "
            f"{UPDATE_DB}. Showing what Zotero itself has.",
        )
    records = state.attachments_of(item.key)
    usable = [r for r in records if r.status == "indexed" and r.pages > 0]
    if not usable:
        return FullText("no_text", _no_text_message(item, records), others=records)
    # The main text: a parsed PDF before other formats, then the longest.
    usable.sort(key=lambda r: (r.source not in PDF_SOURCES, -r.pages, r.attachment_key))
    return FullText("indexed", attachment=usable[0], others=usable[1:])


def _no_text_message(item: Item, records: list[AttachmentRecord]) -> str:
    if not item.attachments:
        why = "it has no PDF or other file attached"
    elif not records:
        why = "none of its attachments is a file agent-zot can read"
    else:
        reasons = sorted({r.reason for r in records if r.reason}) or ["no text could be extracted"]
        why = "; ".join(reasons)
    return f"No full text for this item ({why}). Showing what Zotero itself has."


def pages_of(ctx: AppContext, attachment: AttachmentRecord) -> list[PageRecord]:
    return ctx.index().state.pages_of(attachment.attachment_key)


def page_name(number: int, label: str | None) -> str:
    """ "p. 3" or "p. 3 [103]" when the PDF labels its pages differently from their position; a web
    page's section by its heading ("§ Methods")."""
    if label and label.startswith(SECTION_MARK):
        return label
    return f"p. {number}" + (f" [{label}]" if label and label != str(number) else "")


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
