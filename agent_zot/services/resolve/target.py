"""Which paper a summarize request is about: an item key, a DOI, a citation key, "Lo et al. 2020", or
words of its title ("the S2ORC paper"). Ambiguity returns the candidates instead of a guess."""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Iterable
from typing import Any

from agent_zot.errors import AmbiguousNameError, InvalidArgumentError, NotFoundError
from agent_zot.export.bibtex import bibtex_keys
from agent_zot.identifiers import clean_doi
from agent_zot.services.resolve.library import author_surnames, resolve_item, resolve_paper
from agent_zot.text import fold
from agent_zot.zotero.models import Item, Library

_WORD = re.compile(r"\w+", re.UNICODE)
_ET_AL = re.compile(r"([^\W\d_][\w'’-]*)\s+et\.?\s+al\b", re.UNICODE)
# A citation key: letters, then a year-like run of digits, e.g. "lo2020s2orc", "Lo2020", "smith_2019".
_CITE_KEY = re.compile(r"\b[A-Za-z][\w:.-]*?\d{4}[\w:-]*\b")
# Words that say what to do with a paper, not which paper it is ("summarize the main findings of ...").
_REQUEST_TEXT = """
    a an the of on in at to for from by with about into and or as is are was were be been it its this
    that these those their they them what which who whom how why when where does do did can could would should
    will please me my i we our you your tell give show read summarize summarise summary summaries overview
    explain describe paper papers article articles study studies work publication document pdf text full
    whole entire page pages pp main key quick brief short detailed comprehensive comprehensively thorough
    findings finding results result method methods methodology approach conclusions conclusion limitations
    limitation contributions contribution say says said report reports reported use uses used mention
    mentions discuss discusses find found et al question questions answer depth deep dive breakdown break
    down rundown gist tldr walk through everything aspects aspect detail details verbatim raw next previous
    continue reading beginning start cover all one sentence line paragraph word"""
_REQUEST_WORDS = frozenset(_REQUEST_TEXT.split())
# "the S2ORC paper", "this BERT preprint": the words after the last "the/this" before a document noun.
_THE_X_PAPER = re.compile(
    r"\b(?:the|this|that)\s+((?:(?!\b(?:the|this|that)\b)[^,.;:?!\"“”])+?)\s+"
    r"(?:paper|article|study|preprint|thesis|book|report|chapter)\b",
    re.IGNORECASE,
)
_MAX_CANDIDATES = 8
_CLOSE_SHARE = 0.85  # a runner-up scoring this share of the best is too close to call


@dataclasses.dataclass(frozen=True, slots=True)
class Target:
    item: Item
    how: str  # what identified it, for the response ("item key", "DOI", "title words"...)


def resolve_target(library: Library, params: dict[str, Any], query: str, item_key: str | None) -> Target:
    """The one paper the request is about, tried from the most to the least specific clue."""
    if item_key and item_key.strip():
        return Target(resolve_item(library, item_key), "item key")
    keys = list(dict.fromkeys(params.get("item_keys") or []))
    if keys:
        items = [resolve_item(library, key) for key in keys]
        if len({i.key for i in items}) > 1:
            raise _ambiguous("The request names several items", items)
        return Target(items[0], "item key")
    if params.get("doi"):
        return Target(_by_doi(library, str(params["doi"])), "DOI")
    cited = _by_citation_key(library, query)
    if cited is not None:
        return Target(cited, "citation key")
    text = str(params.get("topic") if params.get("topic") is not None else query)
    years = params.get("years") or {}
    authors = list(params.get("authors") or [])
    first_author = False
    et_al = _ET_AL.search(query)
    if not authors and et_al:
        authors, first_author = [et_al.group(1)], True
        text = text.replace(et_al.group(0), " ").replace(et_al.group(1), " ")
    if authors:
        return Target(_by_authors(library, authors, years, text, first_author=first_author), "authors")
    for phrase in _named_phrases(params, query):
        try:
            return Target(_by_words(library, phrase, years), "title words")
        except (NotFoundError, InvalidArgumentError):
            continue  # a quoted or "the X paper" phrase that names nothing: fall back to all the words
    return Target(_by_words(library, text, years), "title words")


def _named_phrases(params: dict[str, Any], query: str) -> list[str]:
    """Where the request names the paper itself: quoted text, or X in "the X paper". A question such as
    "how are citation links resolved in the S2ORC paper?" then resolves by "S2ORC", not by its other words."""
    phrases = [str(q) for q in params.get("quoted") or []]
    phrases += [m.group(1) for m in _THE_X_PAPER.finditer(query)]
    return [p for p in phrases if p.strip()]


def candidate_line(item: Item) -> str:
    return f"{item.key}: {item.title or '(untitled)'} ({item.year or 'n.d.'})"


def _ambiguous(what: str, items: list[Item]) -> AmbiguousNameError:
    return AmbiguousNameError(
        f"{what}: {len(items)} papers could be meant; say which one.",
        candidates=[candidate_line(i) for i in items[:_MAX_CANDIDATES]],
        hint="Repeat the request with item_key set to one of the candidates' keys.",
    )


def _by_doi(library: Library, doi: str) -> Item:
    wanted = clean_doi(doi).casefold()
    for item in library.items.values():
        if item.doi and clean_doi(item.doi).casefold() == wanted:
            return item
    raise NotFoundError(
        f"No item with DOI {clean_doi(doi)} in this library.",
        hint="Add the paper to Zotero first, or name it by title or item key.",
    )


def _by_citation_key(library: Library, query: str) -> Item | None:
    """An item whose citation key (its own, or the BibTeX key agent-zot exports) is a word of the query."""
    words = {w.casefold() for w in _CITE_KEY.findall(query)}
    if not words:
        return None
    for item in library.items.values():
        if item.citation_key and item.citation_key.casefold() in words:
            return item
    generated = bibtex_keys(list(library.items.values()))
    found = [library.items[k] for k, cite in generated.items() if cite.casefold() in words]
    return found[0] if len(found) == 1 else None


def _in_years(item: Item, years: dict[str, Any]) -> bool:
    start, end = years.get("start"), years.get("end")
    if start is None and end is None:
        return True
    year = item.year
    return year is not None and (start is None or year >= start) and (end is None or year <= end)


def _by_authors(
    library: Library, authors: list[str], years: dict[str, Any], text: str, *, first_author: bool
) -> Item:
    surname_sets = [set(author_surnames(library, name)) for name in authors]
    pool = [
        item
        for item in library.items.values()
        if _has_authors(item, surname_sets, first_author=first_author) and _in_years(item, years)
    ]
    named = " and ".join(authors) + (f" ({_years_text(years)})" if years else "")
    if not pool:
        raise NotFoundError(
            f"No paper by {named} in this library.",
            hint="Check the year, or name the paper by its title or item key.",
        )
    if len(pool) > 1:
        narrowed = _best_by_words(pool, _content_words(_strip_names(text, authors)))
        pool = narrowed or pool
    if len(pool) > 1:
        raise _ambiguous(f"Papers by {named}", sorted(pool, key=lambda i: (-(i.year or 0), i.title)))
    return pool[0]


def _has_authors(item: Item, surname_sets: list[set[str]], *, first_author: bool) -> bool:
    names = [c.last_name for c in item.authors]
    if first_author:
        return bool(names) and names[0] in surname_sets[0]
    return all(any(n in wanted for n in names) for wanted in surname_sets)


def _years_text(years: dict[str, Any]) -> str:
    start, end = years.get("start"), years.get("end")
    return str(start) if start == end else f"{start or '…'}–{end or '…'}"


def _strip_names(text: str, names: Iterable[str]) -> str:
    for name in names:
        for part in name.split():
            text = re.sub(rf"\b{re.escape(part)}\b", " ", text, flags=re.IGNORECASE)
    return text


def _content_words(text: str) -> list[str]:
    return [w for w in dict.fromkeys(fold(t) for t in _WORD.findall(text)) if w not in _REQUEST_WORDS]


def _by_words(library: Library, text: str, years: dict[str, Any]) -> Item:
    words = _content_words(text)
    if years:
        in_years = {k: i for k, i in library.items.items() if _in_years(i, years)}
        if in_years and not words:
            pool = sorted(in_years.values(), key=lambda i: i.title)
            if len(pool) == 1:
                return pool[0]
            raise _ambiguous(f"Papers from {_years_text(years)}", pool)
        library = dataclasses.replace(library, items=in_years) if in_years else library
    if not words:
        raise InvalidArgumentError(
            "Which paper? No item key, DOI, author or title words were found in the request.",
            hint="Pass item_key='ABCD2345', or name the paper, e.g. query='the S2ORC paper'.",
        )
    try:
        found = resolve_paper(library, None, " ".join(words))  # every word in its metadata, title fit first
    except NotFoundError:
        best = _best_by_words(list(library.items.values()), words)
        if len(best) == 1:
            return best[0]
        if best:
            raise _ambiguous(f"{' '.join(words)!r}", best) from None
        raise
    ties = _title_ties(library, found, words)
    if ties:
        raise _ambiguous(f"{' '.join(words)!r}", [found, *ties])
    return found


def _title_ties(library: Library, found: Item, words: list[str]) -> list[Item]:
    """Other items whose titles hold every word as well ("Neural Citation Recommendation" and "... Revisited"):
    resolve_paper takes the first of equally perfect fits; that would be a guess unless the words are
    exactly the found title."""
    wanted = set(words)
    if not wanted or _title_words(found) == wanted:
        return []
    return [i for i in library.items.values() if i.key != found.key and wanted <= _title_words(i)]


def _title_words(item: Item) -> set[str]:
    return {fold(t) for t in _WORD.findall(item.title)} - _REQUEST_WORDS


def _best_by_words(items: list[Item], words: list[str]) -> list[Item]:
    """Items whose title, authors, venue or tags share the rarest of ``words``; the best, or the few that
    tie closely with it. Words found in many items count for little (inverse document frequency)."""
    if not words or not items:
        return []
    bags = {item.key: _bag(item) for item in items}
    total = len(items)
    found = {w: sum(w in bag for bag in bags.values()) for w in words}
    # Words no item has ("breakdown") say nothing about which paper is meant; they don't count.
    weight = {w: math.log(1 + total / count) for w, count in found.items() if count}
    scored = sorted(
        ((sum(weight.get(w, 0.0) for w in words if w in bags[i.key]), i) for i in items), key=lambda p: -p[0]
    )
    top = scored[0][0]
    if top <= 0 or top < 0.5 * sum(weight.values()):  # under half the request's weight: not a match
        return []
    return [item for score, item in scored if score >= _CLOSE_SHARE * top][:_MAX_CANDIDATES]


def _bag(item: Item) -> set[str]:
    parts = [item.title, item.venue, item.citation_key or "", *(c.last_name for c in item.creators)]
    parts += item.tag_names()
    return {fold(t) for t in _WORD.findall(" ".join(parts))}
