"""From raw page texts to a ParsedDocument: the cleaning and section steps every source shares."""

from __future__ import annotations

from collections.abc import Collection, Sequence

from agent_zot.ingest.clean import drop_listed, normalise_text, strip_running_lines, without_cover_sheet
from agent_zot.ingest.headings import find_headings
from agent_zot.ingest.ligatures import restore_words
from agent_zot.ingest.models import PageText, ParsedDocument, ParseError
from agent_zot.ingest.references import split_references

NO_TEXT_LAYER = "no text layer (scanned PDF?)"
PDF_SOURCES = frozenset({"pdfium", "docling"})


def build_document(
    attachment_key: str,
    source: str,
    raw_pages: Sequence[str],
    labels: Sequence[str | None] | None = None,
    *,
    running_lines: bool = False,
    warnings: Sequence[str] = (),
    ocr_pages: Collection[int] = (),
    drop_lines: Sequence[Sequence[str]] = (),
) -> ParsedDocument:
    """Clean each page, leave out a repository's cover sheet, drop running headers/footers
    (``running_lines``, for paginated sources), mend words broken at lost ligatures or gaps
    (ingest/ligatures.py), split off the references section and find headings. Raises ParseError when no
    page has any text.
    ``ocr_pages`` (0-based) are the pages whose raw text came from OCR: they are marked so.
    ``drop_lines`` (per page) are lines to leave out (page chrome, text inside figures: line_roles.py),
    taken out after the running headers and footers, which are found among the page's first and last
    lines as printed."""
    labels = list(labels) if labels is not None else [None] * len(raw_pages)
    texts, cover = without_cover_sheet([normalise_text(raw) for raw in raw_pages])
    if running_lines:
        texts = strip_running_lines(texts, labels)
    if drop_lines:
        texts = [drop_listed(text, drop) for text, drop in zip(texts, drop_lines, strict=True)]
    texts = restore_words(texts)  # before references and headings: "5. Reerences" is the references heading
    all_warnings = list(warnings) + (["page 1 is a repository's cover sheet: left out"] if cover else [])
    empty = sum(1 for text in texts if not text) - cover
    paginated = source in PDF_SOURCES
    if texts and empty == len(texts):
        raise ParseError(NO_TEXT_LAYER if paginated else "no text in the file")
    if empty:
        what = "no text layer" if paginated else "no text"
        all_warnings.append(f"{what} on {empty} of {len(texts)} pages")
    numbers = list(range(1, len(texts) + 1))
    doc = ParsedDocument(
        attachment_key=attachment_key,
        source=source,
        pages=[],
        page_count=len(texts),
        warnings=all_warnings,
    )
    split = split_references(texts)
    if split is not None:
        texts = split.body_pages
        doc.references_text = split.references_text
        doc.references_page = numbers[split.start_page_index]
    doc.pages = [
        PageText(n, label, text, ocr=n - 1 in ocr_pages and bool(text))
        for n, label, text in zip(numbers, labels, texts, strict=True)
    ]
    doc.headings = find_headings(texts, numbers)
    if split is not None and split.heading:
        doc.headings.append((numbers[split.start_page_index], split.heading))
        doc.headings.sort(key=lambda heading: heading[0])
    return doc
