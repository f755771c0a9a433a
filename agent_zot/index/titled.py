"""A query that gives a paper's title names that paper: it comes first, whatever its passages score.

Typed or pasted, a title is the surest way a researcher names a paper, yet in a library of one field every
paper shares its words ("Blood Pressure Estimation Using Photoplethysmography Only" was 14th among 37 papers on
blood pressure and PPG; "The Elements of Statistical Learning" second after "An Introduction to Statistical
Learning"; a paper second after "Algorithms used in the paper <its title>"). The papers' own records (their
metadata points: title, authors, abstract) are searched by the query alone, and a record whose title the
query is or holds whole, or whose main title (before a colon) it is, names the paper.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from rapidfuzz import fuzz

from agent_zot.index.fusion import CHANNEL_NAMES
from agent_zot.index.query_vectors import QueryVectors
from agent_zot.index.resources import IndexResources
from agent_zot.index.store import DenseVector, Hit, SearchFilter, SearchRequest, SparseVector
from agent_zot.text import STOPWORDS, fold, holds_title, words

# Records searched for a title, by the query's words and by its meaning apart. On the four shared libraries'
# 383 titles and main titles, words alone find 381 in their first 10 (a paper with a long structured abstract
# missed), meaning alone 360; the two together all in their first 5 but two one-word main titles.
TITLE_CANDIDATES = 10
# Content words a title needs to name a paper: the query is the title or main title (before the colon),
# or holds it within other words. Fewer are a topic's words ("Deep Learning"), not a paper's name; a main
# title held within a request needs more ("CARMENES input catalogue of M dwarfs" begins eight titles).
MAIN_TITLE_WORDS = 2
WHOLE_TITLE_WORDS = 3
MAIN_TITLE_HELD_WORDS = 4
SAME_TEXT = 95  # rapidfuzz ratio: the query is this title, give or take a typo or a dash

_MAIN_TITLE = re.compile(r"[:?]\s")
_EDGES = " \t\n\"'“”‘’.?!"


def titles_requests(
    dense: DenseVector | None, sparse: SparseVector | None, search_filter: SearchFilter | None
) -> dict[str, SearchRequest]:
    """The store queries for the records a query finds, by its meaning ("dense") and by its words
    ("sparse") apart (``search_filter`` narrowed to records); none for a search that is not of papers."""
    if search_filter is not None and search_filter.kinds and "metadata" not in search_filter.kinds:
        return {}  # a search of notes or annotations
    wanted = replace(search_filter or SearchFilter(), kinds=("metadata",))
    requests = {} if dense is None else {"dense": SearchRequest(dense, None, TITLE_CANDIDATES, wanted)}
    if sparse is not None and sparse.indices:
        requests["sparse"] = SearchRequest(None, sparse, TITLE_CANDIDATES, wanted)
    return requests


def channels_finding(key: str, records: dict[str, list[Hit]]) -> set[str]:
    """The channels ("vector", "sparse") whose records include paper ``key``'s."""
    return {
        CHANNEL_NAMES[c] for c, hits in records.items() if any(h.payload["item_key"] == key for h in hits)
    }


def titled(query: str, records: list[Hit], ranked: Sequence[str] = (), *, alone: bool = False) -> Hit | None:
    """The record (of ``records``) whose paper the query names by its title (``alone``: the query is the
    title or the main title, nothing more), or None. A whole title names a paper before a main title does
    ("Kepler Data Processing Handbook" is that book, not "Kepler Data Processing Handbook: Transiting Planet
    Search"); of two, the longer (the more the query says: "Deep Learning for Biosignals: a Survey", not
    "Deep Learning for Biosignals"); of copies under one title, the one ranked first (``ranked``: the papers'
    keys, best first), whose passages the query found."""
    text = fold(query).strip(_EDGES)
    place = {key: n for n, key in enumerate(ranked)}
    best: tuple[int, int, int] | None = None
    chosen = None
    for record in records:
        title = str(record.payload.get("title") or "")
        how = _names(text, fold(title).strip(_EDGES), alone)
        if how:
            fit = (how, len(title), -place.get(record.payload["item_key"], len(place)))
            if best is None or fit > best:
                best, chosen = fit, record
    return chosen


_WHOLE, _MAIN = 2, 1  # how a query names a paper: by its whole title, or by its main title


def _names(text: str, title: str, alone: bool) -> int:
    """How ``text`` names the paper of ``title`` (both folded): `_WHOLE`, `_MAIN` or 0 (not)."""
    words_in_title = _content_words(title)
    if words_in_title >= MAIN_TITLE_WORDS and fuzz.ratio(text, title) >= SAME_TEXT:
        return _WHOLE
    if not alone and words_in_title >= WHOLE_TITLE_WORDS and holds_title(text, title):
        return _WHOLE
    main = _MAIN_TITLE.split(title, maxsplit=1)[0].strip(_EDGES)
    if main == title:
        return 0
    content = _content_words(main)
    if content >= MAIN_TITLE_WORDS and fuzz.ratio(text, main) >= SAME_TEXT:
        return _MAIN
    held = not alone and content >= MAIN_TITLE_HELD_WORDS and holds_title(text, main)
    return _MAIN if held else 0


def _content_words(text: str) -> int:
    return sum(1 for word in words(text) if word not in STOPWORDS)


def title_named(
    resources: IndexResources,
    query: str,
    search_filter: SearchFilter | None,
    fusion: str,
    *,
    alone: bool = False,
) -> str | None:
    """The key of the paper ``query`` names by its title (``alone``: is, nothing more), looked up on its own:
    before a query that reads as several ("Photoplethysmography and Deep Learning: Enhancing Hypertension Risk
    Stratification") is split into its parts, or one that reads as a claim is checked."""
    vectors = QueryVectors(resources, query, fusion)
    requests = list(titles_requests(vectors.dense, vectors.sparse, search_filter).values())
    found = resources.store.search_batch(requests) if requests else []
    record = titled(query, [hit for hits in found for hit in hits], alone=alone)
    return None if record is None else str(record.payload["item_key"])
