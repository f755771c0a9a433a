"""Where a passage's words lie in its paper's page texts: the pages a window of a chunk spans, the start
of the sentence a window begins inside of, a web page's paragraph. Each attachment's pages are read from
the index state once per picker."""

from __future__ import annotations

import re

from agent_zot.index.chunking import paragraph_at
from agent_zot.index.resources import IndexResources
from agent_zot.index.store import Hit
from agent_zot.ingest.sentence_roles import reading
from agent_zot.state.index import PageRecord

# Where a sentence starts in running text: after an end mark (and a closing quote or bracket).
_SENTENCE_START = re.compile(r"[.!?][\"')\]]?\s+(?=[A-Z(\[\"])")
# Characters looked back for that sentence's start: passages are clipped at 1,000 characters, and a longer
# run before the cut is more likely a table or a list than half a sentence.
SENTENCE_REACH = 250


class PageTexts:
    """One picker's page texts, by attachment, read on first use."""

    def __init__(self, resources: IndexResources | None) -> None:
        self.resources = resources
        self._pages: dict[str, dict[int, str]] = {}
        self._records: dict[str, dict[int, PageRecord]] = {}

    def cut_start(self, hit: Hit, text: str) -> str:
        """The words before ``text``, a window of ``hit``'s chunk that begins inside a sentence, that start
        that sentence on the page (empty when they are not found nearby)."""
        payload = hit.payload
        page, key = payload.get("page_start"), payload.get("attachment_key")
        if page is None or not key:
            return ""
        return self.sentence_start(key, page, text, payload.get("paragraph") is None)  # a web page: no turns

    def paragraph_of(self, attachment_key: str, number: int, text: str) -> int | None:
        """The paragraph of a web page's section where a window of a chunk begins (the chunk's own
        paragraph is where the chunk begins, often the heading)."""
        if attachment_key not in self._records:
            self._records[attachment_key] = {p.number: p for p in self._read(attachment_key)}
        page = self._records[attachment_key].get(number)
        words = text.split()[:8]
        if page is None or not words:
            return None
        found = re.search(r"\s+".join(map(re.escape, words)), page.text)
        return paragraph_at(page, found.start()) if found else None

    def sentence_start(self, attachment_key: str, page: int, text: str, turn: bool = True) -> str:
        """The words of the sentence a window begins inside of (a chunk cut mid-sentence: "respectively
        (Table 4). Artifacts …"), taken from the page text before it, the previous page's end included
        when the window opens its page and ``turn`` (a PDF's); empty when they are not found nearby."""
        pages = self.texts(attachment_key)
        words = pages.get(page, "")
        at = words.find(" ".join(text.split()[:8]))
        if turn and 0 <= at < SENTENCE_REACH and page - 1 in pages:  # a sentence cut by the page's turn
            words, at = f"{pages[page - 1]} {words}", at + len(pages[page - 1]) + 1
        if at <= 0:
            return ""
        before = words[max(0, at - SENTENCE_REACH) : at]
        starts = list(_SENTENCE_START.finditer(before))
        if not starts:
            return ""
        words = before[starts[-1].end() :]
        # a footnote or an address the page text holds between the halves is no part of the sentence
        return words if reading(words) is None else ""

    def texts(self, attachment_key: str) -> dict[int, str]:
        """The attachment's page texts by page number, whitespace collapsed."""
        if attachment_key not in self._pages:
            self._pages[attachment_key] = {
                p.number: " ".join(p.text.split()) for p in self._read(attachment_key)
            }
        return self._pages[attachment_key]

    def _read(self, attachment_key: str) -> list[PageRecord]:
        # a picker given no index (the scoring's own tests) has no page texts to widen a window from
        return list(self.resources.state.pages_of(attachment_key)) if self.resources is not None else []

    def pages_of(self, attachment_key: str, text: str, first: int, last: int) -> tuple[int, int]:
        """The pages a window of a chunk spanning ``first``..``last`` lies on, found in the page texts."""
        pages = self.texts(attachment_key)
        words = text.split()
        head, tail = " ".join(words[:8]), " ".join(words[-8:])
        span = range(first, last + 1)
        start = next((n for n in span if head in pages.get(n, "")), first)
        end = next((n for n in reversed(span) if tail in pages.get(n, "")), last)
        return start, max(start, end)
