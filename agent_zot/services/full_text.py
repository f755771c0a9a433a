"""What the full-text index holds for one item (``FullText``): the attachment whose indexed pages answer
for it, or why there are none and what to do; its pages, and how a page is named in a citation. Read by
the one-paper summaries, the review matrix, the citation audit, the checks on cited answers and the MCP
resources."""

from __future__ import annotations

from dataclasses import dataclass, field

from agent_zot.ingest.models import SECTION_MARK
from agent_zot.services.context import AppContext
from agent_zot.state.index import AttachmentRecord, PageRecord
from agent_zot.zotero.models import Item

PDF_SOURCES = frozenset({"pdfium", "docling"})
UPDATE_DB = "`agent-zot update-db`"


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
