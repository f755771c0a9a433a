"""Text of one attachment, choosing the reader by file type, with a fallback chain.

PDFs: the selected parser, then pdfium (when another was selected), then Zotero's full-text cache, then a
``source="none"`` document whose ``fallback_reason`` says why, so the caller indexes metadata only.
pdfium reads pages without a usable text layer by OCR when an ``OcrConfig`` is given. For a scan (at least
half its pages OCR'd) Zotero's cache still wins when it is at least as good: when it has at least as many
known English words (``ocr.words.word_score``) as the OCR'd document, body and references together. A
mostly born-digital PDF with a page or two OCR'd keeps its own text (the cache would cost every page number).
Other types: their reader, then the cache. A missing file (including an unreachable network path) goes
straight to the cache.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import suppress
from dataclasses import replace
from functools import partial
from pathlib import Path

from agent_zot.errors import InvalidArgumentError
from agent_zot.ingest.docling_parser import DoclingParser
from agent_zot.ingest.formats import EpubParser, HtmlParser, TextParser, fulltext_cache_document
from agent_zot.ingest.front_matter import read_front_matter
from agent_zot.ingest.models import ParsedDocument, ParseError, Parser
from agent_zot.ingest.ocr import OcrConfig
from agent_zot.ingest.ocr.words import word_score
from agent_zot.ingest.pdfium import PdfiumParser
from agent_zot.zotero.models import Attachment, LinkMode

# PDF parsers by name. Factories must be importable top-level callables: pool workers get them pickled.
PARSERS: dict[str, Callable[[], Parser]] = {"pdfium": PdfiumParser, "docling": DoclingParser}
DEFAULT_PARSER = "pdfium"

_CONTENT_TYPES = {
    "application/pdf": "pdf",
    "application/x-pdf": "pdf",
    "text/html": "html",
    "application/xhtml+xml": "html",
    "application/epub+zip": "epub",
    "text/plain": "text",
    "text/markdown": "text",
    "text/x-markdown": "text",
}
_SUFFIXES = {
    ".pdf": "pdf",
    ".html": "html",
    ".htm": "html",
    ".xhtml": "html",
    ".epub": "epub",
    ".txt": "text",
    ".text": "text",
    ".md": "text",
}
_READERS: dict[str, Callable[[], Parser]] = {"html": HtmlParser, "epub": EpubParser, "text": TextParser}
_NETWORK_PREFIXES = ("\\\\", "//", "smb://", "afp://", "nfs://", "file://")


def parser_factory(name: str, ocr: OcrConfig | None = None) -> Callable[[], Parser]:
    """What makes the parser ``name`` (picklable, for pool workers); pdfium gets the OCR settings."""
    factory = PARSERS.get(name)
    if factory is None:
        known = ", ".join(sorted(PARSERS))
        raise InvalidArgumentError(f"unknown PDF parser {name!r}", hint=f"Use one of: {known}.")
    if ocr is not None and factory is PdfiumParser:
        return partial(PdfiumParser, ocr=ocr)
    return factory


def get_parser(name: str, ocr: OcrConfig | None = None) -> Parser:
    """A new parser by name; unknown names get an error listing the known ones."""
    return parser_factory(name, ocr)()


def file_kind(attachment: Attachment) -> str | None:
    """Which reader fits ("pdf", "html", "epub", "text"): by content type, extension, first bytes."""
    content_type = attachment.content_type.split(";", 1)[0].strip().lower()
    kind = _CONTENT_TYPES.get(content_type)
    if kind is None and attachment.path is not None:
        kind = _SUFFIXES.get(attachment.path.suffix.lower())
    if kind is None and attachment.path is not None:
        kind = _sniff(attachment.path)
    return kind


def _sniff(path: Path) -> str | None:
    try:
        with path.open("rb") as fh:
            head = fh.read(1024)
    except OSError:
        return None
    if head.startswith(b"%PDF-"):
        return "pdf"
    if b"<html" in head.lower():
        return "html"
    return None


def missing_reason(attachment: Attachment) -> str | None:
    """Why the attachment has no readable file, or None when it has one."""
    if attachment.link_mode == LinkMode.LINKED_URL:
        return "no file (a link to a web page)"
    if attachment.path is None:
        return "no file"
    if attachment.exists:
        return None
    raw = attachment.raw_path or str(attachment.path)
    if raw.lower().startswith(_NETWORK_PREFIXES):
        return f"file missing (network path not reachable: {raw})"
    return "file missing"


def fallback_document(attachment: Attachment, reason: str) -> ParsedDocument:
    """Zotero's full-text cache when there is one, else an empty ``source="none"`` document."""
    try:
        cached = attachment.fulltext()
    except OSError:
        cached = None
    if cached and cached.strip():
        try:
            doc = fulltext_cache_document(attachment.key, cached)
        except ParseError:  # only whitespace and junk characters
            pass
        else:
            doc.fallback_reason = reason
            return doc
    return ParsedDocument(attachment_key=attachment.key, source="none", pages=[], fallback_reason=reason)


def _pdf_chain(parser: str | Parser, ocr: OcrConfig | None, language: str) -> list[Parser]:
    if ocr is not None and language:
        ocr = replace(ocr, language=language)
        if isinstance(parser, PdfiumParser) and parser.ocr is not None:
            parser = PdfiumParser(replace(parser.ocr, language=language))
    selected = get_parser(parser, ocr) if isinstance(parser, str) else parser
    return [selected] if selected.name == DEFAULT_PARSER else [selected, get_parser(DEFAULT_PARSER, ocr)]


def _parse_with(chain: list[Parser], path: Path, key: str) -> tuple[ParsedDocument | None, list[str]]:
    """The first parser's document that has text, and why the ones before it failed."""
    reasons: list[str] = []
    for parser in chain:
        try:
            doc = parser.parse(path, key)
        except ParseError as err:
            reasons.append(str(err) if len(chain) == 1 else f"{parser.name}: {err}")
            continue
        if doc.has_text:
            return doc, reasons
        reasons.append("no text" if len(chain) == 1 else f"{parser.name}: no text")
    return None, reasons


def extract_attachment(
    attachment: Attachment,
    *,
    parser: str | Parser = DEFAULT_PARSER,
    ocr: OcrConfig | None = None,
    language: str = "",
    front_matter: bool = False,
) -> ParsedDocument:
    """Text with page numbers for one attachment; never raises ParseError (see the module docstring).
    ``ocr`` applies to a parser named by ``parser`` and to the pdfium fallback of another one; scanned
    pages are read in ``language`` (the item's Language field) when OCR has it. With ``front_matter``, a
    PDF's title, authors and year are read too (ingest/front_matter.py), whatever source its text is from."""
    doc = _extract(attachment, parser, ocr, language)
    if front_matter and attachment.path is not None and attachment.exists and file_kind(attachment) == "pdf":
        with suppress(ParseError):  # the text's own fallback already says why the file is unreadable
            doc.front_matter = read_front_matter(attachment.path)
    return doc


def _extract(
    attachment: Attachment, parser: str | Parser, ocr: OcrConfig | None, language: str
) -> ParsedDocument:
    missing = missing_reason(attachment)
    if missing is not None or attachment.path is None:
        return fallback_document(attachment, missing or "no file")
    kind = file_kind(attachment)
    if kind is None:
        what = attachment.content_type or attachment.path.suffix or "unknown"
        return fallback_document(attachment, f"unsupported file type ({what})")
    chain = _pdf_chain(parser, ocr, language) if kind == "pdf" else [_READERS[kind]()]
    doc, reasons = _parse_with(chain, attachment.path, attachment.key)
    if doc is None:
        return fallback_document(attachment, "; ".join(reasons))
    if reasons:  # a later parser in the chain succeeded
        doc.fallback_reason = "; ".join(reasons)
    if len(doc.ocr_pages) * 2 >= len(doc.pages) > 0:
        return _cache_if_better(attachment, doc)
    return doc


def _cache_if_better(attachment: Attachment, doc: ParsedDocument) -> ParsedDocument:
    """Zotero's full-text cache instead of an OCR'd document when it reads at least as well (it then costs
    the page numbers, so a tie is the least it must reach)."""
    try:
        cached = attachment.fulltext()
    except OSError:
        return doc
    if not cached or word_score(cached) < word_score(doc.text + "\n" + doc.references_text):
        return doc
    pages = len(doc.ocr_pages)
    cache = fallback_document(attachment, f"Zotero's full-text cache reads better than OCR of {pages} pages")
    return cache if cache.source == "ft-cache" else doc
