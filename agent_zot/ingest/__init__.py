"""Attachment text extraction: page texts with page numbers, references split off, fallbacks, worker pool."""

from agent_zot.ingest.extract import (
    DEFAULT_PARSER,
    PARSERS,
    extract_attachment,
    fallback_document,
    get_parser,
)
from agent_zot.ingest.models import PageText, ParsedDocument, ParseError, Parser
from agent_zot.ingest.pool import ParseJob, ParseOutcome, parse_many

# Raised when a release reads files an earlier one could not (OCR of turned and two-page scans, languages):
# the first update after it reads again the files the index records as unread (services/upkeep/update_db.py).
READER_VERSION = 2

__all__ = [
    "DEFAULT_PARSER",
    "PARSERS",
    "READER_VERSION",
    "PageText",
    "ParseError",
    "ParseJob",
    "ParseOutcome",
    "ParsedDocument",
    "Parser",
    "extract_attachment",
    "fallback_document",
    "get_parser",
    "parse_many",
]
