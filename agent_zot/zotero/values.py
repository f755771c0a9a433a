"""Decoding Zotero's stored values: dates, note HTML, Extra lines, relation URIs, retraction records."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from html.parser import HTMLParser

from agent_zot.identifiers import ITEM_KEY_CHARS
from agent_zot.zotero.models import Retraction, ZoteroDate

# Zotero stores dates as "YYYY-MM-DD original text", with 00 for unknown parts ("2016-00-00 2016").
_STORED_DATE = re.compile(r"^(\d{4})-(\d{2})-(\d{2})(?: (.*))?$", re.DOTALL)
_YEAR_IN_TEXT = re.compile(r"(?<!\d)(1[5-9]\d\d|20\d\d|21\d\d)(?!\d)")
_ITEM_URI = re.compile(rf"/items/([{ITEM_KEY_CHARS}]{{8}})$")
_CITATION_KEY_LINE = re.compile(r"^\s*citation key\s*:\s*(\S+)\s*$", re.IGNORECASE | re.MULTILINE)


def parse_zotero_date(stored: str | None) -> ZoteroDate | None:
    """Split Zotero's stored date into year/month/day and the user's original text."""
    if not stored:
        return None
    match = _STORED_DATE.match(stored)
    if match is None:
        # Not in the stored form (some imports): keep the text, find a year if one is there.
        found = _YEAR_IN_TEXT.search(stored)
        return ZoteroDate(original=stored, year=int(found.group(1)) if found else None)
    year, month, day, original = match.groups()
    return ZoteroDate(
        original=original if original is not None else stored,
        year=int(year) or None,
        month=int(month) or None,
        day=int(day) or None,
    )


def citation_key_from_extra(extra: str) -> str | None:
    """Better BibTeX and Zotero 7 both honour a ``Citation Key: ...`` line in Extra."""
    match = _CITATION_KEY_LINE.search(extra or "")
    return match.group(1) if match else None


def unix_time_text(seconds: object) -> str:
    """A Unix time as stored (Zotero 9's ``lastRead``) -> "YYYY-MM-DD HH:MM:SS" UTC, the form of
    ``dateAdded``; "" for none or a value that is no time."""
    if not isinstance(seconds, int | float) or seconds <= 0:
        return ""
    if seconds > 100_000_000_000:  # milliseconds, should a writer have stored them
        seconds /= 1000
    try:
        return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%d %H:%M:%S")
    except (OverflowError, OSError, ValueError):
        return ""


def item_key_from_uri(uri: str) -> str | None:
    """``http://zotero.org/users/123/items/ABCD2345`` -> ``ABCD2345`` (relations point at items this way)."""
    match = _ITEM_URI.search(uri.strip())
    return match.group(1) if match else None


_BLOCK_TAGS = frozenset(
    {
        "p",
        "div",
        "br",
        "li",
        "ul",
        "ol",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "tr",
        "blockquote",
        "pre",
        "table",
        "hr",
    }
)
_SKIP_TAGS = frozenset({"script", "style"})


class _TextExtractor(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._skip = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _SKIP_TAGS:
            self._skip += 1
        elif tag in _BLOCK_TAGS:
            self.parts.append("\n")
        if tag == "li":
            self.parts.append("- ")

    def handle_endtag(self, tag: str) -> None:
        if tag in _SKIP_TAGS:
            self._skip = max(0, self._skip - 1)
        elif tag in _BLOCK_TAGS:
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if not self._skip:
            self.parts.append(data)


def html_to_text(html: str) -> str:
    """Plain text of a Zotero note: block elements become line breaks, blank runs collapse."""
    if not html:
        return ""
    parser = _TextExtractor()
    parser.feed(html)
    parser.close()
    lines = [" ".join(line.split()) for line in "".join(parser.parts).splitlines()]
    text = "\n".join(lines)
    return re.sub(r"\n{3,}", "\n\n", text).strip()


# retractedItems.flag (Zotero's Retractions.FLAG_*): shown, hidden by the user, shown but no warning on citing
RETRACTION_HIDDEN = 1
RETRACTION_NO_WARNING = 2


def retraction_from(raw: str | None, *, warn: bool = True) -> Retraction:
    """A ``retractedItems.data`` JSON value: Zotero keeps the retraction API's result, with the notice's DOI
    or PMID in ``doi``/``pmid``, ``date`` as YYYY-MM-DD (or null), and ``reasons`` and ``urls`` lists.
    Anything unreadable still counts as a retraction, without details."""
    try:
        data = json.loads(raw or "{}")
    except ValueError:
        data = {}
    if not isinstance(data, dict):
        data = {}

    def strings(value: object) -> tuple[str, ...]:
        return tuple(str(v) for v in value if v) if isinstance(value, list) else ()

    date = data.get("date")
    return Retraction(
        date=str(date)[:10] if date else None,
        reasons=strings(data.get("reasons")),
        notice_doi=str(data["doi"]) if data.get("doi") else None,
        notice_pmid=str(data["pmid"]) if data.get("pmid") else None,
        urls=strings(data.get("urls")),
        citation_warning=warn,
    )
