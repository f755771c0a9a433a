"""Citations in a draft, with the exact characters they occupy: Pandoc (`[@key, p. 5]`, `@key [p. 5]`),
LaTeX (`\\cite{a,b}`, `\\citep[see][p.~5]{key}`, any `\\...cite...` command), DOIs (`[doi:10.1/x, p. 5]`)
and author-year (`(Smith et al., 2020, p. 5)`, `Smith and Lee (2019)`). Each cited work is a `CiteRef`
holding what identifies it and its page locator, with spans so a fix can replace just those characters.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from agent_zot.services.evidence.locate import Pages

Span = tuple[int, int]


@dataclass(slots=True)
class CiteRef:
    """One cited work: a key (Pandoc, LaTeX), a DOI, or authors and a year."""

    kind: str  # "key" | "doi" | "author_year"
    key: str  # as written: "smith2020", "10.1000/xyz", "Smith et al. 2020"
    key_span: Span
    pages: Pages | None = None
    pages_span: Span | None = None  # the page numbers themselves
    surnames: tuple[str, ...] = ()  # author-year only
    year: str = ""  # author-year only, "2020a" kept as written

    def describe(self) -> str:
        where = f", {self.pages}" if self.pages else ""
        return f"{self.key}{where}"


@dataclass(slots=True)
class Citation:
    start: int
    end: int
    style: str  # "pandoc" | "latex" | "doi" | "author_year"
    refs: list[CiteRef] = field(default_factory=list)


# Page locators: "p. 5", "pp. 5-7", "page 5", "p.~5", or a bare "5" / "5-7" where a locator is expected.
_PAGES = re.compile(
    r"(?:\b(?:pp?|pages?|pg)\.?\s*~?\s*|^\s*,?\s*)(?P<first>\d{1,5})(?:\s*(?:-{1,2}|–|—)\s*(?P<last>\d{1,5}))?\b",
    re.IGNORECASE,
)
_PANDOC_KEY = r"(?:\{(?P<braced>[^{}\s]+)\}|(?P<key>[\w][\w:.#$%&+?<>~/-]*[\w]|\w))"
_PANDOC_BRACKET = re.compile(r"\[(?P<body>[^\[\]\n]*?@[^\[\]\n]*)\]")
_PANDOC_ITEM = re.compile(rf"-?@{_PANDOC_KEY}")
_PANDOC_INTEXT = re.compile(rf"(?<![\w@.\[])@{_PANDOC_KEY}(?:\s*\[(?P<locator>[^\[\]\n@]*)\])?")
_LATEX_CITE = re.compile(
    r"\\(?P<command>[a-zA-Z]*cite[a-zA-Z]*|nocite)\*?\s*(?:\[(?P<opt1>[^\]]*)\])?\s*(?:\[(?P<opt2>[^\]]*)\])?"
    r"\s*\{(?P<keys>[^{}]*)\}"
)
_DOI_BRACKET = re.compile(
    r"[\[(]\s*doi:\s*(?P<doi>10\.\d{4,9}/[^\s\]),;]+)(?P<rest>[^\])]*)[\])]", re.IGNORECASE
)

_PARTICLE = r"(?:(?:van|von|de|der|den|del|della|da|di|du|la|le|bin|al|el)\s+)*"
_NAME = rf"{_PARTICLE}[A-Z][\w'’-]*[a-z][\w'’-]*"
_AUTHORS = rf"{_NAME}(?:\s+et\s+al\.?|(?:,\s*{_NAME})*,?\s+(?:&|and)\s+{_NAME})?"
_YEAR = r"(?:(?:1[6-9]|20)\d{2}[a-z]?|n\.\s?d\.)"
_AY_PART = re.compile(
    rf"^(?P<pre>(?i:see\s+(?:also\s+)?|e\.g\.,?\s*|cf\.\s*|i\.e\.,?\s*|as\s+in\s+)?)"
    rf"(?P<authors>{_AUTHORS}),?\s+(?P<year>{_YEAR})(?P<rest>.*)$"
)
_AY_PAREN = re.compile(r"\((?P<body>[^()\n]*?\b" + _YEAR + r"(?!\w)[^()\n]*)\)")
_AY_NARRATIVE = re.compile(rf"(?P<authors>{_AUTHORS})\s+\((?P<year>{_YEAR})(?P<rest>[^()\n]*)\)")
# Capitalised words that open "(Table 2, 2019)"-like brackets but are no author.
_NOT_NAMES = frozenset(
    [
        "table",
        "figure",
        "fig",
        "section",
        "chapter",
        "eq",
        "equation",
        "appendix",
        "january",
        "february",
        "march",
        "april",
        "may",
        "june",
        "july",
        "august",
        "september",
        "october",
        "november",
        "december",
        "spring",
        "summer",
        "autumn",
        "winter",
        "the",
        "in",
        "on",
        "at",
        "since",
        "from",
        "see",
    ]
)


def find_citations(text: str, kind: str, masked: Callable[[int, int], bool]) -> list[Citation]:
    """Every citation outside masked (non-prose) spans, in text order; overlapping finds keep the first
    style tried (LaTeX, then Pandoc, DOIs, author-year)."""
    found: list[Citation] = []
    taken: list[Span] = []

    def keep(citation: Citation | None) -> None:
        if citation is None or not citation.refs or masked(citation.start, citation.start + 1):
            return
        if any(a < citation.end and citation.start < b for a, b in taken):
            return
        taken.append((citation.start, citation.end))
        found.append(citation)

    for match in _LATEX_CITE.finditer(text):
        keep(_latex(match))
    for match in _DOI_BRACKET.finditer(text):
        keep(_doi(match))
    for match in _PANDOC_BRACKET.finditer(text):
        keep(_pandoc_bracket(match))
    if kind != "latex":
        for match in _PANDOC_INTEXT.finditer(text):
            keep(_pandoc_intext(match))
    for match in _AY_PAREN.finditer(text):
        keep(_author_year_paren(match))
    for match in _AY_NARRATIVE.finditer(text):
        keep(_author_year_narrative(match))
    return sorted(found, key=lambda c: c.start)


def pages_in(text: str, offset: int, *, bare: bool = True) -> tuple[Pages | None, Span | None]:
    """The page locator in a citation's note, with the span of its numbers (``offset`` = where ``text``
    starts in the draft). A bare number counts only where a locator is expected (``bare``)."""
    for match in _PAGES.finditer(text):
        if not bare and not re.match(r"\s*(?:pp?|pages?|pg)", match.group(), re.IGNORECASE):
            continue
        first = int(match.group("first"))
        last = int(match.group("last") or first)
        if last < first:  # "pp. 123-9": the short form of 123-129
            digits = len(match.group("last"))
            last = (
                int(str(first)[: -digits or None] + match.group("last"))
                if digits < len(str(first))
                else first
            )
        start = offset + match.start("first")
        end = offset + match.end("last" if match.group("last") else "first")
        return Pages(first, max(first, last)), (start, end)
    return None, None


def _latex(match: re.Match[str]) -> Citation:
    note = match.group("opt2") if match.group("opt2") is not None else match.group("opt1")
    note_start = match.start("opt2") if match.group("opt2") is not None else match.start("opt1")
    pages, pages_span = pages_in(note, note_start) if note else (None, None)
    refs = []
    body, base = match.group("keys"), match.start("keys")
    for part in re.finditer(r"[^,\s]+", body):
        kind = "doi" if part.group().lower().startswith(("doi:", "10.")) else "key"
        key = part.group()[4:] if part.group().lower().startswith("doi:") else part.group()
        refs.append(CiteRef(kind, key, (base + part.start(), base + part.end()), pages, pages_span))
    return Citation(match.start(), match.end(), "latex", refs)


def _doi(match: re.Match[str]) -> Citation:
    doi = match.group("doi").rstrip(".")
    pages, span = pages_in(match.group("rest"), match.start("rest"))
    ref = CiteRef("doi", doi, (match.start("doi"), match.start("doi") + len(doi)), pages, span)
    return Citation(match.start(), match.end(), "doi", [ref])


def _pandoc_bracket(match: re.Match[str]) -> Citation | None:
    body, base = match.group("body"), match.start("body")
    refs = []
    position = 0
    for part in body.split(";"):
        items = list(_PANDOC_ITEM.finditer(part))
        if len(items) != 1:
            position += len(part) + 1
            if items:
                return None  # "@a @b" without a semicolon is not Pandoc citation syntax
            continue
        item = items[0]
        key_group = "braced" if item.group("braced") else "key"
        key = item.group(key_group)
        start = base + position + item.start(key_group)
        locator = part[item.end() :]
        pages, span = pages_in(locator, base + position + item.end())
        kind = "doi" if key.lower().startswith(("doi:", "10.")) else "key"
        if key.lower().startswith("doi:"):
            key, start = key[4:], start + 4
        refs.append(CiteRef(kind, key, (start, start + len(key)), pages, span))
        position += len(part) + 1
    return Citation(match.start(), match.end(), "pandoc", refs) if refs else None


def _pandoc_intext(match: re.Match[str]) -> Citation:
    key_group = "braced" if match.group("braced") else "key"
    key = match.group(key_group)
    pages, span = (None, None)
    if match.group("locator") is not None:
        pages, span = pages_in(match.group("locator"), match.start("locator"))
    ref = CiteRef("key", key, match.span(key_group), pages, span)
    return Citation(match.start(), match.end(), "pandoc", [ref])


def _author_year_paren(match: re.Match[str]) -> Citation | None:
    body, base = match.group("body"), match.start("body")
    refs = []
    position = 0
    for part in body.split(";"):
        stripped = len(part) - len(part.lstrip())
        parsed = _AY_PART.match(part.strip())
        if parsed is not None:
            ref = _author_year_ref(parsed, base + position + stripped)
            if ref is not None:
                refs.append(ref)
        position += len(part) + 1
    return Citation(match.start(), match.end(), "author_year", refs) if refs else None


def _author_year_narrative(match: re.Match[str]) -> Citation | None:
    ref = _author_year_ref(match, 0)
    return Citation(match.start(), match.end(), "author_year", [ref]) if ref else None


def _author_year_ref(parsed: re.Match[str], base: int) -> CiteRef | None:
    authors = parsed.group("authors")
    surnames = _surnames(authors)
    if not surnames:
        return None
    # "(August 2020)" is a date, but "(August et al., 2022)" an author.
    if surnames[0].split()[-1].casefold() in _NOT_NAMES and len(surnames) == 1 and "et al" not in authors:
        return None
    year = parsed.group("year")
    # Only "p. 5" counts here: in "(Smith 2020, 2021)" a bare number is another year.
    pages, span = pages_in(parsed.group("rest"), base + parsed.start("rest"), bare=False)
    key_span = (base + parsed.start("authors"), base + parsed.end("year"))
    label = f"{' '.join(authors.split())} {year}"
    return CiteRef("author_year", label, key_span, pages, span, surnames, year)


def _surnames(authors: str) -> tuple[str, ...]:
    """ "Smith et al." → (Smith,); "Smith, Lee and Chen" → (Smith, Lee, Chen)."""
    cleaned = re.sub(r"\s+et\s+al\.?", "", authors, flags=re.IGNORECASE)
    parts = re.split(r"\s*,\s*|\s+(?:&|and)\s+", cleaned)
    return tuple(" ".join(p.split()) for p in parts if p.strip())
