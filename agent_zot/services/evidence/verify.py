"""Checking what the assistant hands back: a cited answer (a matrix cell it filled, a verdict on a claim's
passage) must land in the library, on the page it names, in the words it quotes. The same rule the citation
audit applies to a draft (audit/checks.py), for one citation at a time: the paper is in the library, the
page is one of its indexed pages (PDF page numbers, as every answer gives them), the quoted words are on
that page (fuzzy, so ligatures and hyphenation are forgiven), and a value the answer states is among the
quoted words.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from agent_zot.services.context import AppContext
from agent_zot.services.evidence.locate import QUOTE_FOUND, ItemText
from agent_zot.services.full_text import full_text_of
from agent_zot.zotero.models import Item

MIN_QUOTE_WORDS = 3  # fewer words prove nothing: "the results" is on every page
_NUMBER = re.compile(r"(?<![\w.])[-−]?\d(?:[\d,\u2009\u00a0]*\d)?(?:\.\d+)?")


@dataclass(frozen=True, slots=True)
class Verdict:
    """Whether a citation checked out; ``reason`` says what failed (empty when it did not)."""

    verified: bool
    reason: str = ""
    found_page: int | None = None  # where the quoted words are, when on another page

    @property
    def status(self) -> str:
        return "verified" if self.verified else "unverified"

    def describe(self) -> str:
        return "verified" if self.verified else f"unverified: {self.reason}"


@dataclass(slots=True)
class CitationChecker:
    """Checks citations against the index; each cited item's page texts are read once."""

    ctx: AppContext
    _texts: dict[str, ItemText] = field(default_factory=dict)

    def text_of(self, item: Item) -> ItemText:
        if item.key not in self._texts:
            full = full_text_of(self.ctx, item)
            key = full.attachment.attachment_key if full.attachment else None
            pages = self.ctx.index().state.pages_of(key) if key and full.indexed else []
            self._texts[item.key] = ItemText(item, key, pages)
        return self._texts[item.key]

    def check(self, item_key: str, page: int | None, quote: str, value: float | None = None) -> Verdict:
        item = self.ctx.library().items.get(item_key.strip().upper())
        if item is None:
            return Verdict(False, f"no item {item_key!r} in the library")
        words = " ".join(quote.split())
        if len(words.split()) < MIN_QUOTE_WORDS:
            return Verdict(False, f"quote at least {MIN_QUOTE_WORDS} words of the passage, as printed")
        text = self.text_of(item)
        if not text.has_full_text:
            return self._check_abstract(text, page, words, value)
        numbers = {record.number for record in text.pages}
        if page is None:
            return Verdict(False, "no page given; cite the PDF page the answer shows (p. N)")
        if page not in numbers:
            return Verdict(False, f"the paper has no indexed page {page} (pages 1–{max(numbers)})")
        if text.page_score(words, range(page, page + 1)) < QUOTE_FOUND:
            elsewhere, score = text.best_page(words)
            if elsewhere is not None and score >= QUOTE_FOUND:
                return Verdict(False, f"the quoted words are on p. {elsewhere}, not p. {page}", elsewhere)
            return Verdict(False, f"the quoted words are not in the paper (best match on p. {elsewhere})")
        return _value_in(words, value)

    def _check_abstract(self, text: ItemText, page: int | None, words: str, value: float | None) -> Verdict:
        """A paper without indexed full text is answered from its abstract: the quote must be there."""
        _, score = text.best_page(words)
        if score < QUOTE_FOUND:
            return Verdict(
                False, "the paper has no indexed full text and the quoted words are not in its abstract"
            )
        return _value_in(words, value)


def _value_in(words: str, value: float | None) -> Verdict:
    if value is None:
        return Verdict(True)
    if any(abs(number - value) <= 1e-9 * max(1.0, abs(value)) for number in numbers_in(words)):
        return Verdict(True)
    return Verdict(False, f"the value {value:g} is not among the quoted words")


def numbers_in(text: str) -> list[float]:
    """The numbers written in ``text`` ("1,800", "1\u2009800", "−3.5"), as floats."""
    found = []
    for match in _NUMBER.finditer(text):
        raw = re.sub(r"[,\u2009\u00a0]", "", match.group(0)).replace("−", "-")
        try:
            found.append(float(raw))
        except ValueError:
            continue
    return found
