"""Token-bounded chunks of an attachment's page texts, each citing its page range and section.

Each page is tokenised once with the embedder's fast tokenizer; the chunker then works on that token stream.
Every gap between two tokens gets a strength (paragraph > sentence > whitespace > punctuation > inside a
word), and a chunk ends at the strongest gap within its token budget, preferring the latest one. So
paragraphs stay whole when they fit, long paragraphs split between sentences, and a run of text with no
punctuation splits between words (or, as a last resort, between tokens). Consecutive chunks overlap by about
``overlap_tokens``, starting at a clean gap.
"""

from __future__ import annotations

import bisect
import hashlib
import re
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from agent_zot.ingest.models import SECTION_MARK
from agent_zot.zotero.models import Item

__all__ = ["Chunk", "PageLike", "TokenCounter", "chunk_pages", "metadata_chunk", "paragraph_at"]

_NAMESPACE = uuid.uuid5(uuid.NAMESPACE_URL, "https://github.com/agent-zot/chunk")

# Gap strengths: how good a place to cut between token i-1 and token i.
_IN_WORD, _PUNCT, _SPACE, _SENTENCE, _PARAGRAPH = 0, 1, 2, 3, 4

_BLANK_LINE = re.compile(r"\n[^\S\n]*\n")
_SENTENCE_END = frozenset(".!?")
# Capitals and opening quotes only: digits and brackets after a full stop are mostly "Fig. 3", "al. (2019)".
_SENTENCE_START = re.compile(r"[A-Z\"“‘']")


class PageLike(Protocol):
    """A page of extracted text (``agent_zot.ingest.models.PageText`` fits)."""

    @property
    def number(self) -> int: ...

    @property
    def text(self) -> str: ...


class TokenCounter(Protocol):
    """The part of an ``Embedder`` the chunker needs."""

    max_tokens: int

    def count_tokens(self, text: str) -> int: ...

    def token_spans(self, text: str) -> list[tuple[int, int]]: ...


@dataclass(frozen=True, slots=True)
class Chunk:
    id: str  # uuid5 of (item_key, attachment_key, page_start, ordinal, text hash): stable across runs
    item_key: str
    attachment_key: str | None
    kind: str  # "chunk" | "metadata"
    text: str
    page_start: int | None
    page_end: int | None
    section: str | None
    ordinal: int  # position of the chunk within its attachment
    ocr: bool = False  # some of its text was read by OCR (a page without a usable text layer)
    paragraph: int | None = None  # where it begins in its section, for a web page (which has no pages)


def chunk_id(
    item_key: str, attachment_key: str | None, page_start: int | None, ordinal: int, text: str
) -> str:
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    parts = (
        item_key,
        attachment_key or "",
        "" if page_start is None else str(page_start),
        str(ordinal),
        digest,
    )
    return str(uuid.uuid5(_NAMESPACE, "\x1f".join(parts)))


@dataclass(slots=True)
class _Stream:
    """All tokens of an attachment, in reading order, with their page and the strength of the gap before."""

    pages: list[PageLike]  # pages with at least one token
    first: list[int]  # index of each page's first token (plus a final sentinel = total tokens)
    starts: list[int]  # char offsets within the token's own page text
    ends: list[int]
    strength: list[int]

    def __len__(self) -> int:
        return len(self.starts)

    def page_index(self, token: int) -> int:
        return bisect.bisect_right(self.first, token) - 1


def _gap_strength(text: str, prev: tuple[int, int], cur: tuple[int, int]) -> int:
    gap = text[prev[1] : cur[0]]
    if not gap:
        # Zero-width or overlapping spans (some tokenizers emit them) cannot be cut cleanly.
        if prev[1] == 0 or cur[0] >= len(text):
            return _IN_WORD
        inside = text[prev[1] - 1].isalnum() and text[cur[0]].isalnum()
        return _IN_WORD if inside else _PUNCT
    if "\n" in gap and _BLANK_LINE.search(gap):
        return _PARAGRAPH
    if text[prev[1] - 1] in _SENTENCE_END and _SENTENCE_START.match(text, cur[0]):
        return _SENTENCE
    return _SPACE


def _page_start_strength(prev_text: str, prev_end: int) -> int:
    # A page break after a full sentence is a good cut; otherwise the sentence runs on to the next page.
    return _SENTENCE if prev_end and prev_text[prev_end - 1] in _SENTENCE_END else _SPACE


def _build_stream(pages: Sequence[PageLike], counter: TokenCounter) -> _Stream:
    stream = _Stream([], [], [], [], [])
    for page in pages:
        spans = counter.token_spans(page.text) if page.text.strip() else []
        if not spans:
            continue
        if stream.pages:
            prev_page = stream.pages[-1]
            stream.strength.append(_page_start_strength(prev_page.text, stream.ends[-1]))
        else:
            stream.strength.append(_PARAGRAPH)
        text = page.text
        stream.strength.extend(_gap_strength(text, spans[i - 1], spans[i]) for i in range(1, len(spans)))
        stream.first.append(len(stream.starts))
        stream.pages.append(page)
        stream.starts.extend(s for s, _ in spans)
        stream.ends.extend(e for _, e in spans)
    stream.first.append(len(stream.starts))
    return stream


def _best_cut(stream: _Stream, lo: int, hi: int) -> int:
    """The latest position in [lo, hi] with the strongest gap (cut before that token)."""
    best, best_strength = hi, -1
    for pos in range(hi, lo - 1, -1):
        if stream.strength[pos] > best_strength:
            best, best_strength = pos, stream.strength[pos]
            if best_strength == _PARAGRAPH:
                break
    return best


def _choose_end(stream: _Stream, start: int, floor: int, budget: int) -> int:
    """Where the chunk starting at ``start`` ends; ``floor`` is the first end that adds new text."""
    n = len(stream)
    hi = min(n, start + budget)
    if hi == n:
        return n
    # Ignore cuts in the first third so a strong gap near the start cannot produce a tiny chunk.
    lo = max(floor, start + budget // 3)
    if lo > hi:
        lo = min(floor, hi)
    return _best_cut(stream, lo, hi)


def _next_paragraph_end(stream: _Stream, pos: int, limit: int) -> int:
    n = len(stream)
    for p in range(pos + 1, min(n, limit + 1)):
        if stream.strength[p] == _PARAGRAPH:
            return p
    return n if limit >= n else limit + 1


def _overlap_start(stream: _Stream, start: int, end: int, overlap: int, budget: int) -> int:
    """Where the next chunk starts: about ``overlap`` tokens before ``end``, at a clean gap."""
    if overlap <= 0:
        return end
    lo, hi = max(start + 1, end - overlap * 3 // 2), end - max(1, overlap // 2)
    if lo > hi:
        return end
    target = end - overlap
    best = max(range(lo, hi + 1), key=lambda p: (stream.strength[p], -abs(p - target)))
    if stream.strength[end] == _PARAGRAPH:
        # Shrink the overlap when it would keep the next paragraph from fitting whole in one chunk.
        para_end = _next_paragraph_end(stream, end, end + budget)
        if para_end - end <= budget < para_end - best:
            best = end if para_end - budget > hi else _best_cut(stream, para_end - budget, hi)
    return best


def _chunk_text(stream: _Stream, start: int, end: int) -> str:
    """Text of tokens [start, end): the original page text, pages joined by a newline."""
    pieces = []
    for k in range(stream.page_index(start), stream.page_index(end - 1) + 1):
        lo = max(start, stream.first[k])
        hi = min(end, stream.first[k + 1]) - 1
        pieces.append(stream.pages[k].text[stream.starts[lo] : stream.ends[hi]])
    return "\n".join(pieces)


def _section_at(headings: Sequence[tuple[int, str]], page: int, page_text: str, offset: int) -> str | None:
    """The last heading before a position: headings of earlier pages, and those of this page that appear in
    its text before ``offset`` (a heading further down the page does not name what comes before it; one
    not found in the text is taken to open the page)."""
    pages = [p for p, _ in headings]
    i = bisect.bisect_right(pages, page)
    while i and headings[i - 1][0] == page:
        found = page_text.find(headings[i - 1][1])
        if found <= offset:
            return headings[i - 1][1]
        i -= 1
    return headings[i - 1][1] if i else None


def chunk_pages(
    pages: Sequence[PageLike],
    *,
    item_key: str,
    attachment_key: str,
    embedder: TokenCounter,
    max_tokens: int = 256,
    overlap_tokens: int = 32,
    headings: Sequence[tuple[int, str]] = (),
) -> list[Chunk]:
    """Split an attachment's pages into chunks of at most ``max_tokens`` model tokens (special tokens
    included, as ``embedder.count_tokens`` counts them), overlapping by about ``overlap_tokens``.

    ``headings`` are ``(page number, heading)`` pairs in the numbering of ``PageLike.number``; a chunk's
    section is the last heading before its start (earlier pages, or higher on its first page). Pages with no
    text are skipped. A web page's sections ("pages" labelled "§ heading") are chunked one by one: a chunk
    never runs from one section into the next, so it is cited by one heading and paragraph.
    """
    max_tokens = min(max_tokens, embedder.max_tokens)
    budget = max_tokens - embedder.count_tokens("")
    if budget < 1:
        raise ValueError(f"max_tokens={max_tokens} leaves no room for text")
    overlap = max(0, min(overlap_tokens, budget // 2))
    ordered = sorted(headings, key=lambda h: h[0])
    sections = any((getattr(page, "label", None) or "").startswith(SECTION_MARK) for page in pages)
    chunks: list[Chunk] = []
    for group in ([page] for page in pages) if sections else [pages]:
        stream = _build_stream(group, embedder)
        start, floor = 0, 1
        while start < len(stream):
            end = _choose_end(stream, start, floor, budget)
            text, end = _fit(stream, embedder, start, end, max_tokens)
            chunks.append(
                _make_chunk(stream, text, start, end, item_key, attachment_key, len(chunks), ordered)
            )
            if end >= len(stream):
                break
            # Strictly increasing starts guarantee termination whatever the tokenizer does.
            start = max(start + 1, _overlap_start(stream, start, end, overlap, budget))
            floor = end + 1
    return chunks


def _fit(stream: _Stream, counter: TokenCounter, start: int, end: int, max_tokens: int) -> tuple[str, int]:
    """The chunk text, shortened if re-tokenising it alone gives more tokens than the stream promised
    (possible only at a cut inside a word, where sub-word tokens merge differently)."""
    text = _chunk_text(stream, start, end)
    excess = counter.count_tokens(text) - max_tokens
    while excess > 0 and end - start > 1:
        end = max(start + 1, end - excess)
        text = _chunk_text(stream, start, end)
        excess = counter.count_tokens(text) - max_tokens
    return text, end


def _make_chunk(
    stream: _Stream,
    text: str,
    start: int,
    end: int,
    item_key: str,
    attachment_key: str,
    ordinal: int,
    headings: Sequence[tuple[int, str]],
) -> Chunk:
    first_page = stream.pages[stream.page_index(start)]
    page_start = first_page.number
    page_end = stream.pages[stream.page_index(end - 1)].number
    spanned = stream.pages[stream.page_index(start) : stream.page_index(end - 1) + 1]
    return Chunk(
        id=chunk_id(item_key, attachment_key, page_start, ordinal, text),
        item_key=item_key,
        attachment_key=attachment_key,
        kind="chunk",
        text=text,
        page_start=page_start,
        page_end=page_end,
        section=_section_at(headings, page_start, first_page.text, stream.starts[start]),
        ordinal=ordinal,
        ocr=any(getattr(page, "ocr", False) for page in spanned),  # PageLike need not say
        paragraph=paragraph_at(first_page, stream.starts[start]),
    )


def paragraph_at(page: PageLike, offset: int) -> int | None:
    """For a web page's section (labelled "§ heading"): the paragraph the offset is in, counted from 1
    after the heading line. None for real pages."""
    label = getattr(page, "label", None)
    if not label or not label.startswith(SECTION_MARK):
        return None
    lines = [line for line in page.text[:offset].split("\n")[:-1] if line.strip()]
    heading = label.removeprefix(SECTION_MARK).rstrip("…")
    if lines and lines[0].strip().startswith(heading):
        lines = lines[1:]
    return len(lines) + 1


def metadata_text(item: Item) -> str:
    """Title, authors, venue and year and abstract as one passage (what a metadata search matches).

    Tags stay out: they are the user's filing, matched by filters on the payload, and a retag then
    rewrites payloads without embedding anything again (index/changes.py)."""
    lines = [item.title or f"Untitled {item.item_type}"]
    authors = ", ".join(c.full_name for c in item.authors if c.full_name)
    if authors:
        lines.append(f"Authors: {authors}")
    published = ", ".join(part for part in (item.venue, str(item.year or "")) if part)
    if published:
        lines.append(f"Published: {published}")
    if item.abstract.strip():
        lines.append("")
        lines.append(item.abstract.strip())
    return "\n".join(lines)


# A title that names nothing ("Untitled", "No title", "[untitled document]"): boilerplate, not words.
_BOILERPLATE_TITLE = re.compile(r"^\W*(?:untitled|no\s+title|none|n/?a)(?:\s+\w+)?\W*$", re.IGNORECASE)
_CONTENT_WORD = re.compile(r"[^\W\d_]{2,}")


def has_own_words(item: Item) -> bool:
    """Whether the item says anything of its own to match or quote: an abstract, or a title that is not
    boilerplate. Authors, venue and year alone are filters, not a passage."""
    if _CONTENT_WORD.search(item.abstract):
        return True
    title = item.title.strip()
    return bool(_CONTENT_WORD.search(title)) and not _BOILERPLATE_TITLE.match(title)


def metadata_chunk(item: Item) -> Chunk | None:
    """One chunk describing the item itself, so papers without full text are still found; None for an
    item with no words of its own ("Untitled journalArticle" would be offered as evidence and found by
    any query)."""
    if not has_own_words(item):
        return None
    text = metadata_text(item)
    return Chunk(
        id=chunk_id(item.key, None, None, 0, text),
        item_key=item.key,
        attachment_key=None,
        kind="metadata",
        text=text,
        page_start=None,
        page_end=None,
        section=None,
        ordinal=0,
    )
