"""Numbers with a meaning: publication years, "last N days", result limits and page ranges."""

from __future__ import annotations

import datetime
import re
from typing import Any

from agent_zot.services.catalog import MAX_DAYS
from agent_zot.text import STOPWORDS

from .scan import HAS_DIGIT, Scan

# Years ago that "recent"/"recently" means.
RECENT_YEARS = 3

_NUMBER_WORDS: dict[str, int] = {
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "fifteen": 15,
    "twenty": 20,
    "thirty": 30,
    "few": 3,
    "couple": 2,
    "couple of": 2,
    "several": 5,
}
_NUM = (
    r"(?:\d{1,3}|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty"
    r"|(?:a\s+)?few|(?:a\s+)?couple(?:\s+of)?|several)"
)

_Y = r"(?:19\d{2}|20\d{2}|2100)"
# A year must be a whole token: not part of a DOI, an arXiv id, a key or a longer number.
_YB = r"(?<![\w./:-])"
_YA = r"(?![\w]|[./-]\d)"

_RANGE_RE = re.compile(
    rf"(?i:\b(?:between|from)\s+)?{_YB}({_Y})(?:\s*[-–—]\s*"
    rf"|\s+(?i:to|and|until|through|thru|or)\s+)({_Y}){_YA}"
)
_DECADE_RE = re.compile(rf"{_YB}(?:(?i:the)\s+)?((?:19|20)\d0)['’]?s\b")
# (regex, offset applied to the start year, offset applied to the end year); None = not that side.
_OPEN_RES: tuple[tuple[re.Pattern[str], int | None, int | None], ...] = (
    (
        re.compile(rf"(?i:\bfrom)\s+({_Y})\s*(?i:on(?:wards?)?\b|forward\b|and\s+later\b|or\s+later\b|\+)"),
        0,
        None,
    ),
    (
        re.compile(
            rf"{_YB}({_Y})\s*(?i:onwards?\b|and\s+later\b|or\s+later\b|or\s+newer\b|and\s+after\b|\+)"
        ),
        0,
        None,
    ),
    (
        re.compile(
            rf"(?i:\b(?:since|starting(?:\s+(?:in|from))?|as\s+of|beginning(?:\s+in)?))\s+({_Y}){_YA}"
        ),
        0,
        None,
    ),
    (re.compile(rf"(?i:\b(?:after|post|later\s+than|newer\s+than))[-\s]+({_Y}){_YA}"), 1, None),
    (re.compile(rf"(?i:\b(?:before|prior\s+to|pre|earlier\s+than|older\s+than))[-\s]+({_Y}){_YA}"), None, -1),
    (re.compile(rf"(?i:\b(?:until|till|up\s+to|through|thru|no\s+later\s+than))\s+({_Y}){_YA}"), None, 0),
    (re.compile(rf"{_YB}({_Y})\s+(?i:or|and)\s+(?i:earlier|before|older)\b"), None, 0),
)
_RELATIVE_RE = re.compile(
    rf"(?i:\b(?:(?:with)?in\s+)?(?:the\s+)?(?:last|past|previous)\s+(?:({_NUM})\s+)?(years?|decades?)\b)"
)
_THIS_YEAR_RE = re.compile(r"(?i:\bthis\s+year\b)")
_RECENT_RE = re.compile(r"(?i:\b(?:in\s+)?recent(?:ly)?(?:\s+years)?\b)")
# "recently added", "recent items": about when things entered the library, not publication years.
_NOT_PUBLICATION = re.compile(
    r"(?i:\s{1,3}(?:added|modified|imported|saved|changed|created|additions?|items?|changes|uploads?|notes?|"
    r"annotations?|entries|activity|highlights?|tags?))\b"
)
_BARE_YEAR_RE = re.compile(rf"{_YB}({_Y}){_YA}")
# The words after a year or decade: "2029 transit predictions", "the 1970s knowledge-based systems" describe
# the content, not when a paper appeared — unless one is what a library holds ("2019 papers"). The first
# must follow at once (a decade may take a possessive: "the 1990s' expert systems"); a comma ends the phrase.
_WORD_AFTER_RE = re.compile(r"[^\W\d_][\w-]*")
_NEXT_WORD_RE = re.compile(r"['’]?\s+[^\W\d_]")
PHRASE_WORDS = 3  # how far after the year a noun like "paper" still makes it a publication year
_PREVIOUS_WORD_RE = re.compile(r"\b([^\W\d_]+)\s+$")
_PUBLICATION_NOUNS = frozenset(
    [
        "paper",
        "papers",
        "article",
        "articles",
        "study",
        "studies",
        "work",
        "works",
        "publication",
        "publications",
        "item",
        "items",
        "preprint",
        "preprints",
        "review",
        "reviews",
        "book",
        "books",
        "thesis",
        "theses",
        "report",
        "reports",
    ]
)
# "Deutsch et al. (2021)", "(Wang et al., 2022)", "Smith and Jones 2019": a work the request cites.
_CITED_WORK_RE = re.compile(
    rf"\(?\b[^\W\d_][\w'’-]*\s+(?:et\s+al\.?|(?:and|&)\s+[^\W\d_][\w'’-]*),?\s*\(?{_Y}\)?"
)
_WORD_RE = re.compile(r"[^\W\d_]{3,}")
CITED_WORK_CONTEXT = 4  # words besides the citation that make it a question citing a work

# Any count of days, weeks...: a long window ("the last 10000 days") is still a window, never a name.
_DAYS_RE = re.compile(
    rf"(?i:\b(?:(?:with)?in\s+)?(?:the\s+)?(?:last|past"
    rf"|previous)\s+(\d+|{_NUM})\s+(days?|weeks?|months?|hours?)\b)"
)
_DAYS_WORD_RE = re.compile(
    r"(?i:\b(?:(?:in\s+)?(?:this|last|past|the\s+past|the\s+last)\s+(week"
    r"|month|fortnight)|(today)|(?:since\s+)?(yesterday))\b)"
)
_HAS_YEAR_DIGITS = re.compile(r"(?:19|20)\d\d|2100")
_HAS_YEAR_WORD = re.compile(r"(?i:year|decade|recent)")
_HAS_DAY_WORD = re.compile(r"(?i:day|week|month|hour|fortnight)")
_UNIT_DAYS = {"day": 1, "week": 7, "fortnight": 14, "month": 30}

# "top-5 error", "top-1 and top-5 test accuracy": a ranking measure the request asks about, not how many
# papers to show ("the top 5 papers on ..." is).
_RANKING_MEASURE = (
    r"(?!(?:\s*(?:and|or|/|,)\s*top[-\s]?\d{1,4})?(?:[\s-]+(?!papers|articles|studies|results|items)[\w-]+){0,2}?"
    r"[\s-]+(?:errors?|accurac(?:y|ies)|rates?|scores?|recall|precision|performance|classification|predictions?"
    r"|labels?|guesses|test|validation|retrieval)\b)"
)
_LIMIT_RES: tuple[re.Pattern[str], ...] = (
    re.compile(rf"(?i:\btop[-\s]?(\d{{1,4}})\b){_RANKING_MEASURE}"),
    re.compile(r"(?i:\b(?:first|last)\s+(\d{1,4})\b)(?!\s*(?i:years?|days?|weeks?|months?|hours?|pages?)\b)"),
    re.compile(r"(?<![\w.])(\d{1,4})(?=\s+(?i:most|latest|newest|recent|best|highest|top)\b)"),
    re.compile(r"(?i:\b(?:most\s+recent|latest|newest)\s+(\d{1,3})\b)"),
    re.compile(r"(?i:\blimit(?:ed)?(?:\s+(?:to|of)|\s*[=:])?\s*(\d{1,4})\b)"),
    re.compile(
        r"(?i:\b(?:show|list|give|get|find|return|fetch)(?:\s+me)?(?:\s+the)?\s+(\d{1,3})\s+(?=[a-z]))"
    ),
)

_PAGES_START_RE = re.compile(r"(?i:\b(?:from|starting\s+(?:at|from|on)|after)\s+(?:page|p\.)\s*(\d{1,4})\b)")
_PAGES_RE = re.compile(r"(?i:\b(?:pages?|pp?\.)\s*(\d{1,4})(?:\s*(?:-|–|to|through|thru)\s*(\d{1,4}))?\b)")


def number(word: str) -> int:
    """Digits or a number word ("five", "a few") as an int."""
    word = " ".join(word.lower().split()).removeprefix("a ")
    return int(word) if word.isdigit() else _NUMBER_WORDS[word]


def extract_days(scan: Scan, params: dict[str, Any]) -> None:
    if not _HAS_DAY_WORD.search(scan.masked):
        return
    m = _DAYS_RE.search(scan.masked)
    if m:
        unit = m.group(2).lower().rstrip("s")
        n = number(m.group(1))
        days = max(1, -(-n // 24)) if unit == "hour" else n * _UNIT_DAYS[unit]
        params["days"] = min(days, MAX_DAYS)
        scan.consume([m.span()])
        return
    m = _DAYS_WORD_RE.search(scan.masked)
    if m:
        if m.group(1):
            params["days"] = _UNIT_DAYS[m.group(1).lower()]
        else:
            params["days"] = 1 if m.group(2) else 2
        scan.consume([m.span()])


def extract_limit(scan: Scan, params: dict[str, Any]) -> None:
    if not HAS_DIGIT.search(scan.masked):
        return
    for pattern in _LIMIT_RES:
        m = pattern.search(scan.masked)
        if m and 0 < int(m.group(1)) <= 1000:
            params["limit"] = int(m.group(1))
            scan.consume([m.span()])
            return


def extract_pages(scan: Scan, params: dict[str, Any]) -> None:
    if not HAS_DIGIT.search(scan.masked):
        return
    m = _PAGES_START_RE.search(scan.masked)
    if m:
        params["pages"] = {"start": int(m.group(1)), "end": None}
        scan.consume([m.span()])
        return
    m = _PAGES_RE.search(scan.masked)
    if m:
        start = int(m.group(1))
        end = int(m.group(2)) if m.group(2) else start
        params["pages"] = {"start": min(start, end), "end": max(start, end)}
        scan.consume([m.span()])


def hide_cited_works(scan: Scan) -> None:
    """In a question that cites a work ("how does it differ from Deutsch et al. (2021)?"), the citation's
    year and names are what the question is about, not a publication-year or author filter: they stay in
    the topic and are hidden from the year and name extractors. A request that is little more than the
    citation ("Lo et al. 2020") still names a paper by its year."""
    found = [m.span() for m in _CITED_WORK_RE.finditer(scan.masked)]
    if not found:
        return
    rest = scan.masked
    for start, end in reversed(found):
        rest = rest[:start] + rest[end:]
    if len(_WORD_RE.findall(rest)) >= CITED_WORK_CONTEXT:
        scan.consume(found, drop=False)


def extract_years(scan: Scan, params: dict[str, Any], *, recent_means_years: bool = True) -> None:
    """Fill params["years"] = {"start", "end"} from ranges, open bounds, relative phrases or bare years."""
    bounds: list[tuple[int | None, int | None]] = []
    bare: list[int] = []
    if _HAS_YEAR_DIGITS.search(scan.masked):
        _absolute_years(scan, bounds)
    if _HAS_YEAR_WORD.search(scan.masked):
        _relative_years(scan, bounds, datetime.date.today().year, recent_means_years)
    if _HAS_YEAR_DIGITS.search(scan.masked):
        found = [
            (m.span(), int(m.group(1)))
            for m in _BARE_YEAR_RE.finditer(scan.masked)
            if not _describes_content(scan.masked, m.start(), m.end())
            and not _names_an_event(scan.masked, m.start(), m.end())
        ]
        scan.consume(span for span, _ in found)
        bare = [year for _, year in found]
    years = _combine(bounds, bare)
    if years:
        params["years"] = years


def _describes_content(text: str, start: int, end: int) -> bool:
    """A year or decade (``text[start:end]``) opening a phrase and modifying the content words right after
    it ("in 2029 transit predictions", "the 2008 financial crisis", "of the 1970s knowledge-based systems",
    "1980s neural network hardware"): what the request is about, not a publication year. "Smith 2019
    attention" (a name before it), "the 2017 transformer paper" (a publication noun after it), "from the
    1990s on X" and "in the 1970s" (no content word right after) keep their year."""
    if text[:start].strip():
        before = _PREVIOUS_WORD_RE.search(text, 0, start)
        if before is None or before.group(1).casefold() not in STOPWORDS:
            return False
    if not _NEXT_WORD_RE.match(text, end):
        return False
    following = [w.casefold() for w in _WORD_AFTER_RE.findall(text, end)[:PHRASE_WORDS]]
    if following[0] in STOPWORDS:
        return False
    return not any(word in _PUBLICATION_NOUNS for word in following)


# "the CNN that won ILSVRC 2012", "at SemEval 2017": an event's edition; "ICML 2022 papers", "papers at CVPR
# 2019", "the PLDI 2009 paper" (a publication noun beside it) name when the paper appeared.
# An acronym holds two capitals in a row ("ILSVRC", "NeurIPS"); a name ("McDonald 2019") does not.
_ACRONYM_BEFORE_RE = re.compile(r"\b[A-Za-z]*[A-Z]{2}[A-Za-z]*\s+$")


def _names_an_event(text: str, start: int, end: int) -> bool:
    """A year right after an acronym ("ILSVRC 2012") with no publication noun in the words around it."""
    acronym = _ACRONYM_BEFORE_RE.search(text, max(0, start - 20), start)
    if acronym is None:
        return False
    before = _WORD_AFTER_RE.findall(text, max(0, acronym.start() - 40), acronym.start())[-PHRASE_WORDS:]
    following = _WORD_AFTER_RE.findall(text, end)[:PHRASE_WORDS]
    return not any(word.casefold() in _PUBLICATION_NOUNS for word in [*before, *following])


def _absolute_years(scan: Scan, bounds: list[tuple[int | None, int | None]]) -> None:
    """Ranges, decades and open bounds ("since 2019"), in that order."""
    spans: list[tuple[int, int]] = []
    for m in _RANGE_RE.finditer(scan.masked):
        a, b = int(m.group(1)), int(m.group(2))
        bounds.append((min(a, b), max(a, b)))
        spans.append(m.span())
    for m in _DECADE_RE.finditer(scan.masked):
        if _describes_content(scan.masked, m.start(1), m.end()):  # "the" before it opens the phrase
            continue
        decade = int(m.group(1))
        bounds.append((decade, decade + 9))
        spans.append(m.span())
    scan.consume(spans)
    spans = []

    for pattern, start_off, end_off in _OPEN_RES:
        for m in pattern.finditer(scan.masked):
            year = int(m.group(1))
            start = None if start_off is None else year + start_off
            end = None if end_off is None else year + end_off
            bounds.append((start, end))
            spans.append(m.span())
        scan.consume(spans)
        spans = []


def _relative_years(
    scan: Scan, bounds: list[tuple[int | None, int | None]], this_year: int, recent_means_years: bool
) -> None:
    spans: list[tuple[int, int]] = []
    for m in _RELATIVE_RE.finditer(scan.masked):
        n = number(m.group(1)) if m.group(1) else 1
        if m.group(2).lower().startswith("decade"):
            n *= 10
        bounds.append((this_year - n, None))
        spans.append(m.span())
    for m in _THIS_YEAR_RE.finditer(scan.masked):
        bounds.append((this_year, this_year))
        spans.append(m.span())
    scan.consume(spans)
    if not recent_means_years:
        return
    for m in _RECENT_RE.finditer(scan.masked):
        before = scan.text[max(0, m.start() - 5) : m.start()].lower()
        if before == "most " or _NOT_PUBLICATION.match(scan.text, m.end()):
            continue
        bounds.append((this_year - RECENT_YEARS, None))
        scan.consume([m.span()])
        return


def _combine(bounds: list[tuple[int | None, int | None]], bare: list[int]) -> dict[str, int | None] | None:
    """Explicit bounds win (first one per side); bare years alone give their min..max."""
    if bounds:
        start = next((s for s, _ in bounds if s is not None), None)
        end = next((e for _, e in bounds if e is not None), None)
        if start is not None and end is not None and start > end:
            start, end = end, start
        return {"start": start, "end": end}
    if bare:
        return {"start": min(bare), "end": max(bare)}
    return None
