"""Matching parsed references to library items: DOI, then arXiv id, then a fuzzy title with year and
first-author checks. Titles are blocked by year (±1), and within a year by their rarest words: a title
is scored only against the library titles one of whose few rarest words it contains: a few dozen, where a
year's block of a 100,000-item library holds thousands (scoring them all made the build quadratic)."""

from __future__ import annotations

import hashlib
import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from itertools import pairwise

from rapidfuzz import fuzz, process

from agent_zot.graph.references import Reference
from agent_zot.text import EAST_ASIAN_CHARACTERS, ascii_fold
from agent_zot.zotero.identifier_table import IdentifierTable
from agent_zot.zotero.models import Item

TITLE_THRESHOLD = 0.8  # confidence below which a title match is dropped: an exact title alone just passes
_MIN_TITLE_SCORE = 88.0  # rapidfuzz score (0-100) a title needs before the year/author checks
_RAW_SCORE = 95.0  # partial match of an item title inside the raw reference
_MIN_RAW_WORDS = 4  # item titles shorter than this are too common to look for inside a raw string
_HITS = 5  # best title candidates per block that go on to the year and author checks
# A library title is found by its rarest words: a reference that scores _MIN_TITLE_SCORE against it keeps
# nearly all its words, and would have to mangle all of these to be missed.
_KEYS = 4
_NON_ALNUM = re.compile(r"[^a-z0-9]+")
_CJK_RUN = re.compile(f"([{EAST_ASIAN_CHARACTERS}]+)")
_JOINERS = re.compile(r"(?<=\w)['’\-‐‑–](?=\w)")  # "Sci-BERT" and "SciBERT" are the same title


@dataclass(frozen=True, slots=True)
class Match:
    item_key: str
    confidence: float
    method: str  # "doi" | "arxiv" | "title" | "title-raw"


@dataclass(frozen=True, slots=True)
class _Entry:
    key: str
    title: str  # normalised
    year: int | None
    surnames: frozenset[str]  # normalised surnames of all authors


def title_form(text: str) -> str:
    """ASCII-folded, lower-case, words joined by hyphens glued, other punctuation as spaces. Chinese,
    Japanese and Korean characters are kept, one "word" each (their titles put no spaces between words,
    and folding to ASCII would leave nothing of them)."""
    parts = []
    for run in _CJK_RUN.split(text):
        if _CJK_RUN.fullmatch(run):
            parts.append(" ".join(run))
        elif run:
            parts.append(_NON_ALNUM.sub(" ", _JOINERS.sub("", ascii_fold(run))))
    return " ".join(" ".join(parts).split())


def surname_key(name: str) -> str:
    """A surname as a key, the one every matcher uses: its last word in `title_form` ("van der Berg" and
    "Berg" → "berg", "O'Brien" → "obrien", "Müller" → "muller"; particles vary between a citation and
    Zotero)."""
    words = title_form(name).split()
    return words[-1] if words else ""


def title_key(ref: Reference) -> str | None:
    """The external work key of a reference that has no DOI or arXiv id, when its title looks real."""
    title = title_form(ref.title)
    if len(title.split()) < 3:
        return None
    digest = hashlib.sha1(f"{title}|{ref.year or ''}".encode()).hexdigest()  # an id, not a security measure
    return f"t:{digest[:16]}"


def external_work_key(ref: Reference) -> str | None:
    """A stable key for a cited work outside the library: ``doi:…``, ``arxiv:…``, ``t:<hash>`` of its title
    and year, or for a reference list that prints no titles (astronomy's "Ma C.-P., Bertschinger E.,
    1995, ApJ, 455, 7") ``a:<hash>`` of its authors, year and venue."""
    if ref.doi:
        return f"doi:{ref.doi}"
    if ref.arxiv:
        return f"arxiv:{ref.arxiv}"
    return title_key(ref) or author_year_key(ref)


def work_keys(ref: Reference) -> list[str]:
    """Every key the reference's work may be filed under (identifier, title, authors), most specific first:
    two papers' lists may give one work with and without its DOI."""
    keys = [f"doi:{ref.doi}" if ref.doi else None, f"arxiv:{ref.arxiv}" if ref.arxiv else None]
    keys += [title_key(ref), author_year_key(ref) if not title_key(ref) else None]
    return [k for k in keys if k]


def author_year_key(ref: Reference) -> str | None:
    """The key of a reference without a usable title: two or more surnames (or one and a venue) and a year."""
    if not ref.authors or not ref.year or not (len(ref.authors) >= 2 or ref.venue):
        return None
    names = " ".join(surname_key(a) for a in ref.authors[:3])
    venue = " ".join(title_form(ref.venue).split()[:4])
    digest = hashlib.sha1(f"{names}|{ref.year}|{venue}".encode()).hexdigest()  # an id, not security
    return f"a:{digest[:16]}"


def _sorted_words(text: str) -> str:
    return " ".join(sorted(text.split()))


@dataclass(slots=True)
class _Block:
    """The titles of one year, in the parallel lists rapidfuzz's batch functions take."""

    entries: list[_Entry] = field(default_factory=list)
    sorted_titles: list[str] = field(default_factory=list)  # words sorted once: token_sort_ratio's work
    squeezed: list[str] = field(default_factory=list)
    by_word: dict[str, list[int]] = field(default_factory=dict)  # a key word -> its entries, in order

    def add(self, entry: _Entry, keys: Iterable[str]) -> None:
        for word in keys:
            self.by_word.setdefault(word, []).append(len(self.entries))
        self.entries.append(entry)
        self.sorted_titles.append(_sorted_words(entry.title))
        self.squeezed.append(entry.title.replace(" ", ""))

    def candidates(self, words: Iterable[str]) -> list[int]:
        """The entries one of whose key words is among ``words``, in the block's order (rapidfuzz breaks
        ties by position, so the few best are those a scan of the whole block finds)."""
        found: set[int] = set()
        for word in words:
            found.update(self.by_word.get(word, ()))
        return sorted(found)

    def title_hits(self, title: str, words: Iterable[str]) -> dict[int, float]:
        """Index -> best title score (0-100) of the entries scoring at least _MIN_TITLE_SCORE."""
        hits: dict[int, float] = {}
        indexes = self.candidates(words)
        if not indexes:
            return hits
        # Spaces out as well: "sci bert" (a line break) and "scibert" are the same word.
        for query, choices in (
            (_sorted_words(title), self.sorted_titles),
            (title.replace(" ", ""), self.squeezed),
        ):
            for _, score, at in process.extract(
                query,
                [choices[i] for i in indexes],
                scorer=fuzz.ratio,
                score_cutoff=_MIN_TITLE_SCORE,
                limit=_HITS,
            ):
                index = indexes[at]
                hits[index] = max(score, hits.get(index, 0.0))
        return hits

    def raw_hits(self, raw: str, words: Iterable[str]) -> dict[int, float]:
        """The item title found inside the raw reference (for entries whose parsed title is unreliable)."""
        hits: dict[int, float] = {}
        for index in self.candidates(words):
            entry = self.entries[index]
            if len(entry.title.split()) >= _MIN_RAW_WORDS:
                score = fuzz.partial_ratio(entry.title, raw, score_cutoff=_RAW_SCORE)
                if score:
                    hits[index] = score
        return hits


def _keys(title: str, papers: dict[str, int]) -> set[str]:
    """The title's _KEYS rarest words (fewest ``papers``), each also glued to its neighbours: a reference
    that prints "autonomic neuropathy" as "autonomicneuropathy" still names one of them."""
    words = title.split()
    rarest = set(sorted(set(words), key=lambda w: (papers[w], w))[:_KEYS])
    glued = {a + b for a, b in pairwise(words) if a in rarest or b in rarest}
    return rarest | glued


def _lookup_words(text: str) -> set[str]:
    """The words of a title form, and each two neighbours glued ("sci bert" finds "scibert")."""
    words = text.split()
    return {*words, *(a + b for a, b in pairwise(words))}


class ReferenceMatcher:
    """Library items indexed by DOI, arXiv id and normalised title (blocked by year, then by rare words)."""

    def __init__(self, items: Iterable[Item]) -> None:
        items = list(items)
        self._ids = IdentifierTable.of(items)
        self._blocks: dict[int | None, _Block] = defaultdict(_Block)
        # Exact titles regardless of year: a year more than one off only matches an identical title.
        self._by_title: dict[str, list[_Entry]] = defaultdict(list)
        entries = [entry for entry in map(_entry, items) if entry is not None]
        papers: dict[str, int] = defaultdict(int)  # a word -> the titles that have it
        for entry in entries:
            for word in set(entry.title.split()):
                papers[word] += 1
        for entry in entries:
            self._blocks[entry.year].add(entry, _keys(entry.title, papers))
            self._by_title[entry.title.replace(" ", "")].append(entry)

    def __len__(self) -> int:
        return sum(len(block.entries) for block in self._blocks.values())

    def match(self, ref: Reference, *, citing_key: str | None = None) -> Match | None:
        """The library item ``ref`` cites, or None; never ``citing_key`` itself."""
        if ref.doi:
            key = _first(self._ids.dois.get(ref.doi))
            if key is not None and key != citing_key:
                return Match(key, 1.0, "doi")
        if ref.arxiv:
            key = _first(self._ids.arxiv.get(ref.arxiv))
            if key is not None and key != citing_key:
                return Match(key, 0.98, "arxiv")
        return self._match_title(ref, citing_key)

    def _candidate_blocks(self, year: int | None) -> list[_Block]:
        if year is None:
            return list(self._blocks.values())
        years = (year - 1, year, year + 1, None)
        return [self._blocks[y] for y in years if y in self._blocks]

    def _match_title(self, ref: Reference, citing_key: str | None) -> Match | None:
        title = title_form(ref.title)
        # A title of fewer than three words is more often a venue or a fragment than the title.
        use_raw = len(title.split()) < 3
        raw = title_form(ref.raw) if use_raw else ""
        words = _lookup_words(raw if use_raw else title)
        first = surname_key(ref.authors[0]) if ref.authors else ""
        best: Match | None = None
        for block in self._candidate_blocks(ref.year):
            hits = block.raw_hits(raw, words) if use_raw else block.title_hits(title, words)
            for index, score in hits.items():
                entry = block.entries[index]
                if entry.key == citing_key:
                    continue
                method = "title-raw" if use_raw else "title"
                confidence = _confidence(entry, score, method, ref.year, first)
                if confidence >= TITLE_THRESHOLD and (best is None or confidence > best.confidence):
                    best = Match(entry.key, round(confidence, 3), method)
        if best is None and not use_raw:
            best = self._exact_title(title, ref.year, first, citing_key)
        return best

    def _exact_title(self, title: str, year: int | None, first: str, citing_key: str | None) -> Match | None:
        best: Match | None = None
        for entry in self._by_title.get(title.replace(" ", ""), ()):
            confidence = _confidence(entry, 100.0, "title", year, first)
            better = best is None or confidence > best.confidence
            if entry.key != citing_key and confidence >= TITLE_THRESHOLD and better:
                best = Match(entry.key, round(confidence, 3), "title")
        return best


def _entry(item: Item) -> _Entry | None:
    title = title_form(item.title)
    if not title:
        return None
    surnames = frozenset(s for s in (surname_key(c.last_name) for c in item.authors) if s)
    return _Entry(item.key, title, item.year, surnames)


def _confidence(entry: _Entry, score: float, method: str, year: int | None, first: str) -> float:
    """From the title score (0-100), the year gap and the first author to a confidence in 0-0.97."""
    floor = _RAW_SCORE if method == "title-raw" else _MIN_TITLE_SCORE
    confidence = 0.6 + 0.2 * (score - floor) / (100.0 - floor)
    confidence += _year_adjustment(year, entry.year) + _author_adjustment(first, entry.surnames)
    if method == "title-raw":
        confidence -= 0.05
    # Short titles ("Introduction", "Grobid") are shared by many works, unless a title of three words or
    # more is printed exactly ("Paxos made simple"): a list without years then still names the paper.
    if len(entry.title.split()) < 4 and not (method == "title" and score >= 100.0):
        confidence -= 0.1
    return min(confidence, 0.97)


def _year_adjustment(ref_year: int | None, item_year: int | None) -> float:
    if ref_year is None or item_year is None:
        return 0.0
    gap = abs(ref_year - item_year)
    # Preprints and proceedings are often a year apart; more than that is a typo or another version.
    return 0.08 if gap == 0 else 0.04 if gap == 1 else -0.06


def _author_adjustment(first: str, surnames: frozenset[str]) -> float:
    if not first or not surnames:
        return 0.0
    if first in surnames or any(fuzz.ratio(first, s) >= 85 for s in surnames):
        return 0.08
    return -0.15


def _first(keys: list[str] | None) -> str | None:
    """The first item with an identifier (a copy added later does not take its citations)."""
    return keys[0] if keys else None
