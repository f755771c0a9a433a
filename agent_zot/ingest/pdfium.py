"""The default PDF parser: pypdfium2 text per page, page labels, OCR of pages without a usable text layer
(``ingest/ocr``, when configured), then the shared cleaning steps.

pdfium is not thread-safe; each worker process parses one document at a time, and every pdfium object
(document, page, text page) is closed as soon as it is done with.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

from agent_zot.ingest.document import build_document
from agent_zot.ingest.models import ParsedDocument, ParseError
from agent_zot.ingest.ocr import OcrConfig
from agent_zot.ingest.text_geometry import TextLine, text_lines

if TYPE_CHECKING:
    from agent_zot.ingest.ocr.pages import OcrResult

_OPEN_ERRORS = {
    pdfium_c.FPDF_ERR_FILE: "the file could not be opened",
    pdfium_c.FPDF_ERR_FORMAT: "not a valid PDF (corrupt or truncated file)",
    pdfium_c.FPDF_ERR_PASSWORD: "encrypted PDF (a password is needed to open it)",
    pdfium_c.FPDF_ERR_SECURITY: "encrypted PDF (unsupported security handler)",
    pdfium_c.FPDF_ERR_PAGE: "the PDF's page tree is damaged",
}


HTML_NOT_PDF = "not a PDF but a web page (often a failed or paywalled download)"


def _looks_like_html(path: Path) -> bool:
    try:
        with path.open("rb") as fh:
            head = fh.read(1024).lstrip().lower()
    except OSError:
        return False
    return head.startswith((b"<!doctype html", b"<html")) or b"<html" in head


def open_pdf(path: Path) -> pdfium.PdfDocument:
    """Open a PDF or raise ParseError saying why it cannot be read."""
    try:
        size = path.stat().st_size
    except FileNotFoundError as err:
        raise ParseError(f"file not found: {path}") from err
    except OSError as err:
        raise ParseError(f"cannot read {path.name}: {err.strerror or err}") from err
    if size == 0:
        raise ParseError("empty file (0 bytes)")
    try:
        return pdfium.PdfDocument(path)
    except pdfium.PdfiumError as err:
        if err.err_code == pdfium_c.FPDF_ERR_FORMAT and _looks_like_html(path):
            raise ParseError(HTML_NOT_PDF) from err
        reason = _OPEN_ERRORS.get(err.err_code or -1, f"pdfium could not open it ({err})")
        raise ParseError(reason) from err
    except OSError as err:  # pypdfium2 checks the path itself before pdfium sees it
        raise ParseError(f"cannot read {path.name}: {err.strerror or err}") from err


def _page_lines(pdf: pdfium.PdfDocument, index: int) -> tuple[str, list[TextLine], tuple[float, float]]:
    """The page's raw text, its lines with their geometry, and the page's size; PdfiumError when pdfium
    cannot read it."""
    page = pdf[index]
    try:
        textpage = page.get_textpage()
        try:
            size = (page.get_width(), page.get_height())
            return (*text_lines(textpage, size[1]), size)
        finally:
            textpage.close()
    finally:
        page.close()


def _set_aside(pages: list[list[TextLine]], sizes: list[tuple[float, float]]) -> list[tuple[int, str, str]]:
    """The lines that are page chrome or text inside a figure (line_roles.py), as (page, role, text)."""
    from agent_zot.ingest.line_roles import SET_ASIDE, document_roles  # imports figures.py, which imports us

    return [
        (number, role, line.text)
        for number, (lines, roles) in enumerate(zip(pages, document_roles(pages, sizes), strict=True), 1)
        for line, role in zip(lines, roles, strict=True)
        if role in SET_ASIDE
    ]


def read_lines(path: Path) -> tuple[list[list[TextLine]], list[tuple[float, float]]]:
    """The lines of every page of the PDF at ``path`` with their geometry, and each page's size (a page
    pdfium cannot read has none); ParseError when the file cannot be opened."""
    pdf = open_pdf(path)
    try:
        read = [_page_or_none(pdf, index) or ("", [], (0.0, 0.0)) for index in range(len(pdf))]
    finally:
        pdf.close()
    return [lines for _, lines, _ in read], [size for _, _, size in read]


def _page_or_none(
    pdf: pdfium.PdfDocument, index: int
) -> tuple[str, list[TextLine], tuple[float, float]] | None:
    """``_page_lines``, or None for a page pdfium cannot read."""
    try:
        return _page_lines(pdf, index)
    except pdfium.PdfiumError:
        return None


def read_pages(
    path: Path, ocr: OcrConfig | None = None, aside: list[tuple[int, str, str]] | None = None
) -> tuple[OcrResult, list[str | None], list[str]]:
    """Text and label of every page (pages without a usable text layer read by OCR when ``ocr`` is
    given), plus warnings for pages that could not be read. With ``aside`` given, the lines that are page
    chrome or text inside a figure are added to it as (page, role, text); build_document leaves them out."""
    pdf = open_pdf(path)
    texts: list[str] = []
    pages: list[list[TextLine]] = []
    sizes: list[tuple[float, float]] = []
    labels: list[str | None] = []
    unreadable: list[int] = []
    try:
        for index in range(len(pdf)):
            labels.append(pdf.get_page_label(index) or None)
            read = _page_or_none(pdf, index)
            if read is None:
                unreadable.append(index + 1)
            raw, lines, size = read or ("", [], (0.0, 0.0))
            texts.append(raw)
            pages.append(lines)
            sizes.append(size)
        if aside is not None:
            aside.extend(_set_aside(pages, sizes))
        from agent_zot.ingest.ocr.pages import ocr_pages  # OCR's modules and numpy: loaded when a PDF is read

        result = ocr_pages(pdf, texts, ocr)
    finally:
        pdf.close()
    warnings = [f"pages that could not be read: {', '.join(map(str, unreadable))}"] if unreadable else []
    return result, labels, warnings + result.warnings


class PdfiumParser:
    """Fast, page-aware text extraction; content-stream order (right for most two-column papers).
    With ``ocr``, pages that have no usable text layer are read by OCR (ingest/ocr/pages.py)."""

    name = "pdfium"

    def __init__(self, ocr: OcrConfig | None = None) -> None:
        self.ocr = ocr

    def parse(self, path: Path, attachment_key: str) -> ParsedDocument:
        aside: list[tuple[int, str, str]] = []
        result, labels, warnings = read_pages(path, self.ocr, aside)
        aside = [entry for entry in aside if entry[0] - 1 not in result.pages]  # OCR read those pages anew
        drop: list[list[str]] = [[] for _ in result.texts]
        for number, _, text in aside:
            drop[number - 1].append(text)
        doc = build_document(
            attachment_key,
            self.name,
            result.texts,
            labels,
            running_lines=True,
            warnings=warnings,
            ocr_pages=result.pages,
            drop_lines=drop,
        )
        doc.set_aside = aside
        if result.pages:
            doc.ocr_engine, doc.ocr_seconds = result.engine, result.seconds
        return doc
