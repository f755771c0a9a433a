"""Finding the references section in cleaned page texts and taking it out of the body.

The start is the last "References"-like heading line (numbered or not, several languages) that is not in
the first fifth of the text and is followed by lines that look like references (years, "et al.", "[12]",
"12."). Papers without such a heading (some physics styles) are recognised by a run "[1]", "[2]", "[3]"
in the latter half. The section ends at an Appendix/Supplementary/Checklist heading, at a lettered
"A Title" heading followed by text that does not look like references, or at the end of the document.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

_REFERENCE_HEADING = re.compile(
    r"(?:(?:\d{1,2}|[IVXL]{1,5}|[A-Z])\.?\s+)?"
    r"(?:references?(?:\s+and\s+notes)?|bibliography|works\s+cited|literature\s+cited|cited\s+literature"
    r"|références|bibliographie|literatur(?:verzeichnis)?|referencias|bibliografía|参\s*考\s*文\s*献)\s*[:：]?",
    re.IGNORECASE,
)
_NAMED_END = re.compile(
    r"(?:(?:[A-Z]|\d{1,2})\.?\s+)?(?:appendix|appendices|supplementary\s+(?:material|information|data)"
    r"|supplemental\s+(?:material|information)|checklist)\b[^.]{0,80}",
    re.IGNORECASE,
)
_LETTERED_END = re.compile(r"A\.?\s+[A-Z]\D{2,70}")  # "A Background & Terminology", "A. Proofs"
# A Chinese journal prints the paper's English title, abstract and keywords on its last page, among the
# references ("Abstract:" … "Keywords:" … then "[6] MUIR P F …"): that abstract is the paper's own words.
_ABSTRACT_LINE = re.compile(r"abstract\s*(?:[:：].*)?", re.IGNORECASE)  # not "Abstract algebra. Springer"
_ENTRY_START = re.compile(r"\[\d{1,4}\]")
_FIRST_ENTRY = re.compile(r"\[1\]\s")
_ENTRY = re.compile(r"\[(\d{1,4})\]")
# What a line of a reference list usually has: a numbered start, a year, "et al.".
_REFERENCE_LIKE = re.compile(r"^(?:\[\d{1,4}\]|\d{1,4}\.\s)|\b(?:1[89]|20)\d{2}[a-z]?\b|\bet al\b")
_SAMPLE_LINES = 40  # lines after a start looked at for the plausibility check
_MIN_REFERENCE_LINES = 3
_MIN_REFERENCE_SHARE = 0.15
_APPENDIX_SAMPLE = 10  # lines after a lettered heading; fewer than 20% reference-like means body text
_EARLIEST_HEADING = 0.2  # share of the text before which a "References" line is a table of contents
_EARLIEST_RUN = 0.5
_MAX_HEADING_WORDS = 10
_HEADER_LINES = 3  # a running header is among a page's first lines


@dataclass(frozen=True, slots=True)
class _Line:
    page: int  # index into the pages
    text: str


@dataclass(slots=True)
class ReferenceSplit:
    body_pages: list[str]
    references_text: str
    start_page_index: int
    heading: str  # the heading line, "" when the list had none


def _flatten(pages: Sequence[str]) -> list[_Line]:
    return [_Line(p, line) for p, page in enumerate(pages) for line in page.split("\n")]


def _reference_share(lines: Sequence[_Line]) -> tuple[int, float]:
    filled = [line.text for line in lines if line.text.strip()]
    hits = sum(1 for text in filled if _REFERENCE_LIKE.search(text))
    return hits, hits / len(filled) if filled else 0.0


def _plausible(lines: Sequence[_Line], first: int) -> bool:
    hits, share = _reference_share(lines[first : first + _SAMPLE_LINES])
    return hits >= _MIN_REFERENCE_LINES and share >= _MIN_REFERENCE_SHARE


def _offsets(lines: Sequence[_Line]) -> tuple[list[int], int]:
    offsets: list[int] = []
    total = 0
    for line in lines:
        offsets.append(total)
        total += len(line.text) + 1
    return offsets, total


def _heading_start(lines: Sequence[_Line], offsets: Sequence[int], total: int) -> int | None:
    """Index of the last plausible references heading."""
    for i in range(len(lines) - 1, -1, -1):
        if offsets[i] < _EARLIEST_HEADING * total:
            return None
        text = lines[i].text.strip()
        if len(text) <= 40 and _REFERENCE_HEADING.fullmatch(text) and _plausible(lines, i + 1):
            return _first_of_running_headers(lines, i)
    return None


def _first_of_running_headers(lines: Sequence[_Line], i: int) -> int:
    """The first page's heading when ``i`` repeats it as a running header (theses print "参考文献" atop
    the pages of the list, some only atop every other page): the same line among the first lines of one
    of the two pages before, and so on back to the start."""
    text, start = lines[i].text.strip(), i
    while True:
        earlier = _header_above(lines, start, text)
        if earlier is None:
            return start
        start = earlier


def _header_above(lines: Sequence[_Line], i: int, text: str) -> int | None:
    """Line ``text`` among the first lines of the page before line ``i``'s, or of the page before that."""
    top = _page_top(lines, i)
    for _ in range(2):
        before = top - 1
        if before < 0 or lines[before].page < lines[i].page - 2:
            return None
        top = _page_top(lines, before)
        for j in range(top, min(top + _HEADER_LINES, before + 1)):
            if lines[j].text.strip() == text:
                return j
    return None


def _page_top(lines: Sequence[_Line], i: int) -> int:
    """The first line of line ``i``'s page."""
    while i > 0 and lines[i - 1].page == lines[i].page:
        i -= 1
    return i


def _run_start(lines: Sequence[_Line], offsets: Sequence[int], total: int) -> int | None:
    """Index of a "[1]" line in the latter half followed by "[2]" and "[3]" (a list without heading)."""
    for i in range(len(lines) - 1, -1, -1):
        if offsets[i] < _EARLIEST_RUN * total:
            return None
        if not _FIRST_ENTRY.match(lines[i].text):
            continue
        # "[2]" and "[3]" need not start lines: two-column OCR text interleaves the columns.
        numbers = {int(n) for line in lines[i : i + _SAMPLE_LINES] for n in _ENTRY.findall(line.text)}
        if {2, 3} <= numbers and _plausible(lines, i):
            return i
    return None


def _is_end(lines: Sequence[_Line], i: int) -> bool:
    text = lines[i].text.strip()
    if len(text.split()) > _MAX_HEADING_WORDS:
        return False
    if _NAMED_END.fullmatch(text):
        return True
    if not _LETTERED_END.fullmatch(text):
        return False
    # A wrapped reference title can look like "A Survey of ..."; appendix text reads like body text.
    _, share = _reference_share(lines[i + 1 : i + 1 + _APPENDIX_SAMPLE])
    return share < 0.2


def _abstracts_among(lines: Sequence[_Line], first: int, end: int) -> set[int]:
    """The lines of ``lines[first:end]`` (a reference list) that are an abstract set among the entries (see
    ``_ABSTRACT_LINE``): from its "Abstract" line to the next entry's number."""
    inside: set[int] = set()
    i = first
    while i < end:
        if _ABSTRACT_LINE.fullmatch(lines[i].text.strip()) and not _ENTRY_START.match(lines[i].text.strip()):
            j = next((k for k in range(i + 1, end) if _ENTRY_START.match(lines[k].text.strip())), end)
            inside.update(range(i, j))
            i = j
        else:
            i += 1
    return inside


def split_references(pages: Sequence[str]) -> ReferenceSplit | None:
    """Take the references section out of the pages, or None when no plausible one is found."""
    lines = _flatten(pages)
    offsets, total = _offsets(lines)
    heading = _heading_start(lines, offsets, total)
    start = heading if heading is not None else _run_start(lines, offsets, total)
    if start is None:
        return None
    first = start + 1 if heading is not None else start
    heading_text = lines[start].text.strip() if heading is not None else None
    end = next((i for i in range(first, len(lines)) if _is_end(lines, i)), len(lines))
    inside = _abstracts_among(lines, first, end)
    body: list[list[str]] = [[] for _ in pages]
    for i, line in enumerate(lines):
        if i < start or i >= end or i in inside:
            body[line.page].append(line.text)
    return ReferenceSplit(
        body_pages=["\n".join(page).strip() for page in body],
        # a running header repeating the heading on the list's later pages is no part of an entry
        references_text="\n".join(
            line.text
            for i, line in enumerate(lines[first:end], first)
            if line.text.strip() and line.text.strip() != heading_text and i not in inside
        ),
        start_page_index=lines[start].page,
        heading=heading_text or "",
    )


def is_references_heading(line: str) -> bool:
    """Whether a heading names the references section ("References", "7 Bibliography", "Literatur")."""
    return bool(_REFERENCE_HEADING.fullmatch(line.strip()))
