"""The title block of a paper's first page, from pdfium's characters and their boxes: the title (the
largest type near the top), the lines under it where the authors are, and a year the page prints.

Type size is read from each character's loose box (its font's ascent to descent), not from the font size
pdfium reports: many PDFs set every font at 1 pt and scale the text matrix, so that number says nothing.
Superscripts (footnote marks, affiliation numbers) are smaller and raised: they become separators, so
"Bolejko1,2 and Andersson3" reads as two names.
"""

from __future__ import annotations

import re
import statistics
from dataclasses import dataclass, field
from typing import Any

import pypdfium2.raw as pdfium_c

from agent_zot.ingest.clean import join_accents

SUPERSCRIPT = "|"  # stands in for a raised, smaller character (a footnote or affiliation mark)
_TOP_SHARE = 0.6  # the title starts in the top part of the page
_BELOW_TITLE = 0.35  # the author lines end within this share of the page height below the title
_MIN_TITLE_RATIO = 1.12  # the title's type is at least this much larger than the page's body text
_SAME_SIZE = 0.08  # lines of a title differ in size by at most this share
_COLUMN_GAP = 1.5  # a gap this many line heights wide separates two blocks on one line (columns)
_VENUE = re.compile(
    r"\b(?:journal|proceedings|conference|transactions|symposium|workshop|volume|vol\.|issue|arxiv|preprint"
    r"|published|copyright|licen[cs]e)\b",
    re.IGNORECASE,
)
# A section heading set large is no title ("1 Introduction", "II. METHODS", "Abstract")
_HEADING = re.compile(
    r"^(?:\d{1,2}(?:\.\d{1,2})*\.?|[IVX]{1,5}\.)\s+\S|^(?:abstract|introduction|contents|references)\b",
    re.IGNORECASE,
)


@dataclass(slots=True)
class Line:
    """One run of text on one baseline, left to right; ``text`` marks superscripts with SUPERSCRIPT."""

    text: str
    size: float  # median character height (points)
    top: float  # from the page's top
    bottom: float
    left: float
    right: float
    vertical: bool = False  # turned text (an arXiv stamp in the margin)

    @property
    def plain(self) -> str:
        """The text without its superscripts."""
        return " ".join(self.text.replace(SUPERSCRIPT, " ").split())


@dataclass(slots=True)
class _Char:
    ch: str
    box: tuple[float, float, float, float] | None  # left, bottom, right, top (PDF points, y up)


@dataclass(slots=True)
class TitleBlock:
    title: str
    author_lines: list[Line] = field(default_factory=list)


def fix_accents(text: str) -> str:
    """TeX's spacing accents as pdfium reads them ("Gr´egory", "Franc¸ois") joined to their letters; in a
    title block's lines also one space away from them ("M ´ uller")."""
    return join_accents(text, spaced=True)


def page_lines(page: Any, textpage: Any) -> list[Line]:
    """The lines of a pypdfium2 page in reading order (top to bottom, then left to right)."""
    height = page.get_height()
    runs: list[list[_Char]] = [[]]
    for index in range(textpage.count_chars()):
        ch = chr(pdfium_c.FPDFText_GetUnicode(textpage.raw, index))
        if ch in "\r\n":
            runs.append([])
            continue
        box = None if ch.isspace() else textpage.get_charbox(index, loose=True)
        runs[-1].append(_Char(ch, box))
    lines = [line for run in runs for line in _split_columns(run, height)]
    lines.sort(key=lambda line: (round(line.top), line.left))
    return _merge_rows(lines)


def _split_columns(run: list[_Char], page_height: float) -> list[Line]:
    """A run of characters as lines, cut where a gap as wide as a column gap separates two blocks."""
    boxed = [c.box for c in run if c.box is not None and c.box[3] > c.box[1]]
    if not boxed:
        return []
    size = statistics.median(b[3] - b[1] for b in boxed)
    pieces: list[list[_Char]] = [[]]
    last_right: float | None = None
    for char in run:
        if char.box is not None and last_right is not None and char.box[0] - last_right > _COLUMN_GAP * size:
            pieces.append([])
        pieces[-1].append(char)
        if char.box is not None:
            last_right = char.box[2]
    return [line for piece in pieces if (line := _line(piece, page_height)) is not None]


def _line(chars: list[_Char], page_height: float) -> Line | None:
    boxes = [c.box for c in chars if c.box is not None and c.box[3] > c.box[1]]
    if not boxes:
        return None
    size = statistics.median(b[3] - b[1] for b in boxes)
    bottom = statistics.median(b[1] for b in boxes)
    text = []
    for char in chars:
        box = char.box
        raised = box is not None and box[3] - box[1] < 0.8 * size and box[1] > bottom + 0.25 * size
        text.append(SUPERSCRIPT if raised else char.ch)
    left, right = min(b[0] for b in boxes), max(b[2] for b in boxes)
    low, high = min(b[1] for b in boxes), max(b[3] for b in boxes)
    vertical = len(boxes) > 3 and (high - low) > 2 * (right - left)
    joined = fix_accents(re.sub(r"\s+", " ", "".join(text)).strip())
    return Line(joined, size, page_height - high, page_height - low, left, right, vertical)


def _merge_rows(lines: list[Line]) -> list[Line]:
    """Pieces pdfium broke off one visual line ("Gal∗, " + "Brendan Eich∗") joined again; blocks a column
    gap apart stay apart."""
    merged: list[Line] = []
    for line in lines:
        last = merged[-1] if merged else None
        if (
            last is not None
            and not line.vertical
            and not last.vertical
            and abs(line.bottom - last.bottom) < 0.3 * last.size
            and abs(line.size - last.size) < 0.15 * last.size
            and -0.5 * last.size < line.left - last.right < _COLUMN_GAP * last.size
        ):
            space = " " if line.left - last.right > 0.15 * last.size else ""
            last.text = f"{last.text}{space}{line.text}"
            last.right = max(last.right, line.right)
            last.top, last.bottom = min(last.top, line.top), max(last.bottom, line.bottom)
            continue
        merged.append(line)
    return merged


def body_size(lines: list[Line]) -> float:
    """The type size most of the page's characters are set in."""
    sizes = [round(line.size, 1) for line in lines for _ in range(len(line.text))]
    return statistics.median(sizes) if sizes else 0.0


def _title_candidate(line: Line, page_height: float) -> bool:
    letters = sum(ch.isalpha() for ch in line.plain)
    return (
        not line.vertical
        and line.top < _TOP_SHARE * page_height
        and letters >= 3
        and _VENUE.search(line.plain) is None
        and _HEADING.search(line.plain) is None
    )


def title_block(lines: list[Line], page_height: float) -> TitleBlock | None:
    """The title (its lines joined) and the lines below it down to the abstract, or None when no line
    near the top is set clearly larger than the body text."""
    body = body_size(lines)
    candidates = [line for line in lines if _title_candidate(line, page_height)]
    if not candidates or body <= 0:
        return None
    largest = max(line.size for line in candidates)
    if largest < _MIN_TITLE_RATIO * body:
        return None
    first = next(line for line in candidates if line.size >= (1 - _SAME_SIZE) * largest)
    start = lines.index(first)
    title = [first]
    rest = lines[start + 1 :]
    for line in rest:
        previous = title[-1]
        same_size = abs(line.size - first.size) <= _SAME_SIZE * first.size
        overlaps = line.left < max(t.right for t in title) and line.right > min(t.left for t in title)
        if not same_size or not overlaps or line.vertical or line.top - previous.bottom > 1.2 * first.size:
            break
        title.append(line)
    text = _join_title(title)
    if sum(ch.isalpha() for ch in text) < 3:
        return None
    bottom = title[-1].bottom
    below = [
        line
        for line in lines[start + len(title) :]
        if not line.vertical and bottom - 2 < line.top < bottom + _BELOW_TITLE * page_height
    ]
    return TitleBlock(text, below)


def _join_title(lines: list[Line]) -> str:
    text = ""
    for line in lines:
        part = line.plain.strip(" *∗†‡§¶")
        text = text[:-1] + part if text.endswith("-") else f"{text} {part}".strip()
    return " ".join(text.split())


_COPYRIGHT_YEAR = re.compile(r"(?:©|\(c\)|\bcopyright\b|^c)\s*((?:19|20)\d\d)\b", re.IGNORECASE)
_YEAR = re.compile(r"(?<![\d.\-/])((?:19|20)\d\d)(?![\d\-/])")
_MONTH = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?"
_DATED = re.compile(
    rf"\b{_MONTH}\s+(?:\d{{1,2}}(?:st|nd|rd|th)?(?:\s*[-–]\s*\d{{1,2}})?,?\s+)?((?:19|20)\d\d)\b"
    rf"|\b\d{{1,2}}\s+{_MONTH},?\s+((?:19|20)\d\d)\b",
    re.IGNORECASE,
)


def printed_year(lines: list[Line], latest: int) -> int | None:
    """A year the first page prints on a copyright, venue or date line (not in running text), or None."""
    for pattern_kind in ("copyright", "venue", "date"):
        for line in lines:
            text = line.plain
            if len(text.split()) > 25 or "et al" in text:  # running text, citations: not this paper's
                continue
            if pattern_kind == "copyright":
                found = _COPYRIGHT_YEAR.search(text)
            elif pattern_kind == "venue":
                found = _YEAR.search(text) if _VENUE.search(text) or re.search(r"\(\d{4}\)", text) else None
            else:
                found = _DATED.search(text)
            year = found and int(next(g for g in found.groups() if g))
            if year and 1900 <= year <= latest:
                return year
    return None
