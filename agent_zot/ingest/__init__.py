"""Attachment text extraction: page texts with page numbers, references split off, fallbacks, worker pool."""

from agent_zot.ingest.extract import (
    DEFAULT_PARSER,
    PARSERS,
    extract_attachment,
    fallback_document,
    get_parser,
)
from agent_zot.ingest.models import PageText, ParsedDocument, ParseError, Parser
from agent_zot.ingest.pool import PAGES_OVER_BUDGET, ParseJob, ParseOutcome, ParseWatch, parse_many

# Raised when a release reads files an earlier one could not (OCR of turned and two-page scans, languages):
# the first update after it reads again the files the index records as unread (services/upkeep/update_db.py).
# 3: a scan is no longer cut at the per-file limit (each OCR'd page has its own budget).
READER_VERSION = 3

__all__ = [
    "DEFAULT_PARSER",
    "PAGES_OVER_BUDGET",
    "PARSERS",
    "READER_VERSION",
    "PageText",
    "ParseError",
    "ParseJob",
    "ParseOutcome",
    "ParseWatch",
    "ParsedDocument",
    "Parser",
    "extract_attachment",
    "fallback_document",
    "get_parser",
    "parse_many",
]
