"""What a parser returns: page texts with page numbers, the references section, headings, and why."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from agent_zot.errors import AgentZotError
from agent_zot.zotero.file_metadata import FrontMatter

SOURCES = ("pdfium", "docling", "ft-cache", "html", "epub", "text", "none")


class ParseError(AgentZotError):
    """A file could not be turned into text; the message says why, in words a user understands."""


# A web page's "page" is a section, labelled with its heading after this mark ("§ Methods"): it has no page
# numbers, so its passages are cited by section and paragraph (ingest/formats.py, index/chunking.py).
SECTION_MARK = "§ "


@dataclass(frozen=True, slots=True)
class PageText:
    number: int  # 1-based physical page number in the file
    label: str | None  # the PDF's page label when it has one ("iv", "4969"), else None
    text: str  # cleaned body text (no running headers/footers/page numbers)
    ocr: bool = False  # the text was read by OCR (the page had no usable text layer)


@dataclass(slots=True)
class ParsedDocument:
    """One attachment's text.

    ``pages`` holds one entry per page of the file, in order; a page's ``text`` is empty when the page has
    no text layer or held only the references section (whose text is in ``references_text`` instead).
    """

    attachment_key: str
    source: str  # one of SOURCES
    pages: list[PageText]
    references_text: str = ""
    references_page: int | None = None
    headings: list[tuple[int, str]] = field(default_factory=list)  # (page number, heading)
    page_count: int = 0
    warnings: list[str] = field(default_factory=list)
    fallback_reason: str | None = None  # why a fallback source was used
    ocr_engine: str | None = None  # the engine that read the pages marked ``ocr``
    ocr_seconds: float = 0.0  # time spent on OCR (rendering, layout, recognition)
    front_matter: FrontMatter | None = None  # asked for (a PDF without a parent item) and found
    # lines of the text layer kept out of the page texts, as (page, role, text): role "chrome" (stamps,
    # licence lines, margin text) or "figure_text" (labels inside a drawing); ingest/line_roles.py
    set_aside: list[tuple[int, str, str]] = field(default_factory=list)

    @property
    def ocr_pages(self) -> list[int]:
        """Numbers of the pages whose text was read by OCR."""
        return [page.number for page in self.pages if page.ocr]

    @property
    def has_text(self) -> bool:
        return any(page.text.strip() for page in self.pages)

    @property
    def text(self) -> str:
        """The body text of all pages, pages separated by a blank line."""
        return "\n\n".join(page.text for page in self.pages if page.text)


class Parser(Protocol):
    """Turns one file into a ParsedDocument or raises ParseError."""

    name: str

    def parse(self, path: Path, attachment_key: str) -> ParsedDocument: ...
