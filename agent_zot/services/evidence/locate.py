"""Where in a cited item a sentence or a quotation is: the item's page texts (from the index state), fuzzy
alignment of the words against each page, the item's own best chunks for the sentence, and how the draft's
page numbers (printed numbers, as citations give them, `Pages`) map to the PDF's pages; the
fuzzy score at which a quotation counts as found (`QUOTE_FOUND`).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field

from rapidfuzz import fuzz

from agent_zot.state.index import PageRecord
from agent_zot.text import STOPWORDS, fold
from agent_zot.zotero.models import Item

_HYPHEN_BREAK = re.compile(r"(\w)-\s*\n\s*(\w)")
_QUOTES = str.maketrans({"“": '"', "”": '"', "‘": "'", "’": "'", "–": "-", "—": "-", "−": "-"})
_WORD = re.compile(r"[^\W_]+")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[\"“(]?[A-Z0-9])")
QUOTE_FOUND = 90  # a quotation occurs in the item (fuzzy, 0-100: ligatures and hyphenation forgiven)


@dataclass(frozen=True, slots=True)
class Pages:
    first: int
    last: int

    def __str__(self) -> str:
        return f"p. {self.first}" if self.first == self.last else f"pp. {self.first}–{self.last}"


def normalised(text: str) -> str:
    """For fuzzy comparison: ligatures and accents folded, line-break hyphens joined, one space, lower case."""
    text = unicodedata.normalize("NFKC", text).translate(_QUOTES)
    text = _HYPHEN_BREAK.sub(r"\1\2", text)
    return " ".join(fold(text).split())


def content_terms(text: str) -> set[str]:
    """The words that carry meaning, crudely stemmed ("models" and "model" agree)."""
    terms = set()
    for word in _WORD.findall(fold(text)):
        if word in STOPWORDS or (len(word) < 3 and not word.isdigit()):
            continue
        terms.add(_stem(word))
    return terms


def _stem(word: str) -> str:
    for suffix in ("ies", "es", "s", "ed", "ing", "ly"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            return word[: -len(suffix)]
    return word


def specific_terms(text: str) -> set[str]:
    """The terms that name something (acronyms, proper names, mixed case, numbers), as ``content_terms``
    spells them. Every sentence starts with a capital, so a capitalised first word is a name only when it
    is not a common English word ("Bigtable stores …", not "Results were …")."""
    from agent_zot.ingest.ocr.words import is_common_word  # loads a word list: only audits pay for it

    found = set()
    for index, word in enumerate(_WORD.findall(text)):
        named = sum(c.isupper() for c in word) > 1 or any(c.isupper() for c in word[1:])
        named = named or any(c.isdigit() for c in word) or (index > 0 and word[:1].isupper())
        named = named or (index == 0 and word[:1].isupper() and not is_common_word(word))
        term = _stem(fold(word))
        if named and (len(term) >= 3 or term.isdigit()) and term not in STOPWORDS:
            found.add(term)
    return found


def near_coverage(sentence: str, passage: str, window: int) -> float:
    """The share of the sentence's meaningful words that one sentence of the passage holds within
    ``window`` consecutive words, where the most of them are; 0 unless those words include every name the
    sentence has. A short sentence's few words turn up in most passages somewhere: only together do they
    say it."""
    wanted = content_terms(sentence)
    if not wanted:
        return 0.0
    named = specific_terms(sentence) & wanted
    return max(_near(wanted, named, part, window) for part in _SENTENCE_END.split(passage))


def _near(wanted: set[str], named: set[str], text: str, window: int) -> float:
    words = [_stem(w) for w in _WORD.findall(fold(text))]
    inside: dict[str, int] = {}
    best = 0.0
    for end, word in enumerate(words):
        if word in wanted:
            inside[word] = inside.get(word, 0) + 1
        start = end - window
        if start >= 0 and words[start] in wanted:
            inside[words[start]] -= 1
            if not inside[words[start]]:
                del inside[words[start]]
        if named <= inside.keys():
            best = max(best, len(inside) / len(wanted))
    return best


def coverage(sentence: str, passage: str) -> float:
    """The share of the sentence's meaningful words that the passage holds (0 when it has none)."""
    wanted = content_terms(sentence)
    if not wanted:
        return 0.0
    return len(wanted & content_terms(passage)) / len(wanted)


@dataclass(slots=True)
class ItemText:
    """What the index holds of one item's text: its main attachment's pages (empty when it has no
    indexed full text), and the abstract as a fallback."""

    item: Item
    attachment_key: str | None
    pages: list[PageRecord] = field(default_factory=list)
    _normalised: list[str] | None = None

    @property
    def has_full_text(self) -> bool:
        return bool(self.pages)

    def normalised_pages(self) -> list[str]:
        if self._normalised is None:
            self._normalised = [normalised(p.text) for p in self.pages]
        return self._normalised

    def best_page(self, text: str) -> tuple[int | None, float]:
        """The PDF page (1-based) whose text best contains ``text`` (fuzzy, 0-100), or the abstract's
        score with page None when there is no full text."""
        wanted = normalised(text)
        if not wanted:
            return None, 0.0
        if not self.pages:
            return None, fuzz.partial_ratio(wanted, normalised(f"{self.item.title}. {self.item.abstract}"))
        best, score = None, 0.0
        for record, page in zip(self.pages, self.normalised_pages(), strict=True):
            found = fuzz.partial_ratio(wanted, page, score_cutoff=score)
            if found > score:
                best, score = record.number, found
        return best, score

    def page_score(self, text: str, pages: range) -> float:
        """How well ``text`` is contained in the given PDF pages (fuzzy, 0-100)."""
        wanted = normalised(text)
        texts = [t for r, t in zip(self.pages, self.normalised_pages(), strict=True) if r.number in pages]
        return max((fuzz.partial_ratio(wanted, t) for t in texts), default=0.0)

    # -- page numbers ---------------------------------------------------------------------------

    def to_pdf(self, cited: Pages) -> tuple[range | None, str]:
        """The PDF pages a citation's page numbers stand for, and which numbering they were read in:
        the PDF's own page labels, the printed range in the item's Pages field, or plain PDF pages.
        None when no page of the item has those numbers."""
        labels = {(r.label or "").strip(): r.number for r in self.pages if r.label}
        if str(cited.first) in labels and str(cited.last) in labels:
            return range(labels[str(cited.first)], labels[str(cited.last)] + 1), "labels"
        printed = self.printed_range()
        count = len(self.pages)
        if printed and printed[0] > 1 and printed[0] <= cited.first <= cited.last <= printed[1]:
            offset = self.printed_offset(printed)
            return range(cited.first - offset, cited.last - offset + 1), "printed"
        if 1 <= cited.first <= cited.last <= count:
            return range(cited.first, cited.last + 1), "pdf"
        return None, ""

    def numbering(self) -> str:
        """How this item's pages are best numbered in a citation: its PDF page labels, its printed range,
        or PDF pages."""
        if any(r.label and r.label != str(r.number) for r in self.pages):
            return "labels"
        printed = self.printed_range()
        return "printed" if printed and printed[0] > 1 else "pdf"

    def to_cited(self, pdf_page: int, numbering: str) -> str:
        """A PDF page written as the draft numbers its pages."""
        if numbering == "labels":
            for record in self.pages:
                if record.number == pdf_page and record.label:
                    return record.label
        if numbering == "printed":
            printed = self.printed_range()
            if printed:
                return str(pdf_page + self.printed_offset(printed))
        return str(pdf_page)

    def printed_range(self) -> tuple[int, int] | None:
        match = re.fullmatch(r"\s*(\d+)\s*[-–—]+\s*(\d+)\s*", self.item.field("pages"))
        if not match:
            return None
        first, last = int(match.group(1)), int(match.group(2))
        return (first, last) if last >= first else None

    def printed_offset(self, printed: tuple[int, int]) -> int:
        """Printed page = PDF page + offset; extra PDF pages beyond the printed range (a cover sheet) are
        taken to come first."""
        extra = max(0, len(self.pages) - (printed[1] - printed[0] + 1))
        return printed[0] - 1 - extra


def quotations(text: str) -> list[str]:
    """The quoted passages of at least three words in a sentence: "…", “…”, ``…'' (LaTeX), ‘…’."""
    found = []
    for match in re.finditer(r"\"([^\"\n]{6,600})\"|“([^”]{6,600})”|``(.{6,600}?)''|‘([^’]{12,600})’", text):
        quote = next(g for g in match.groups() if g)
        if len(quote.split()) >= 3:
            found.append(" ".join(quote.split()))
    return found
