"""Which paper a request names, for every tool: one scorer over every clue the request gives at once.

Clues: an item key, a DOI, an arXiv id or citation key (each decides alone), then words. Each word is looked
up in the library's titles, creators' surnames (any position), title acronyms ("CAP" for "consistent,
available, partition-tolerant"), venues and tags, and weighted by how rare it is there; a year rewards the
papers of that year and penalises the others; quoted text and "the X paper" weigh more than the question
around them. Copies of one paper (same title, year and first author, or the same DOI) are one candidate,
answered from the copy with a file. The request is asked back only when the best two candidates are close.
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from rapidfuzz import fuzz

from agent_zot.errors import AmbiguousNameError, InvalidArgumentError, NotFoundError
from agent_zot.identifiers import DOI, ITEM_KEY, clean_doi
from agent_zot.services.resolve.clues import (
    REQUEST_WORDS,
    YEAR,
    Clues,
    Token,
    author_acronym,
    looks_like_name,
    read_clues,
)
from agent_zot.services.resolve.library import resolve_item
from agent_zot.services.resolve.paper_index import ARXIV, PaperIndex, citation_keys, paper_index, words
from agent_zot.services.response import quoted
from agent_zot.text import STOPWORDS, fold, holds_title
from agent_zot.zotero.models import Item, Library

_CITE_KEY = re.compile(r"\b[A-Za-z][A-Za-z_-]*\d{4}[\w:-]*\b")
_MAX_CANDIDATES = 6
_CLOSE_SHARE = 0.86  # a runner-up scoring this share of the best is too close to call
_MIN_COVERAGE = 0.42  # the best candidate must explain this share of what the request's words weigh


@dataclass(frozen=True, slots=True)
class PaperRequest:
    """What a request says about the paper it means: its words plus what the router already pulled out."""

    text: str
    item_keys: tuple[str, ...] = ()
    doi: str | None = None
    quoted: tuple[str, ...] = ()

    @classmethod
    def of(
        cls, text: str | None, params: Mapping[str, Any] | None = None, item_key: str | None = None
    ) -> PaperRequest:
        params = params or {}
        keys = [item_key.strip()] if item_key and item_key.strip() else list(params.get("item_keys") or [])
        doi = params.get("doi")
        return cls(
            text=text or "",
            item_keys=tuple(keys),
            doi=str(doi) if doi else None,
            quoted=tuple(str(q) for q in params.get("quoted") or ()),
        )


@dataclass(frozen=True, slots=True)
class PaperMatch:
    """The paper a request names, how it was recognised, and the other copies of it in the library."""

    item: Item
    how: str
    duplicates: tuple[Item, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        first = self.item.authors[0].last_name if self.item.authors else None
        data: dict[str, Any] = {
            "key": self.item.key,
            "title": self.item.title,
            "year": self.item.year,
            "first_author": first,
            "how": self.how,
        }
        if self.duplicates:
            data["duplicates"] = [d.key for d in self.duplicates]
        return data

    def note(self) -> str | None:
        """A line saying the library holds this paper more than once, or None."""
        if not self.duplicates:
            return None
        keys = ", ".join(d.key for d in self.duplicates)
        return f"Also in your library as {keys} (a duplicate of [{self.item.key}]; answered from this copy)."


def resolved_record(
    match: PaperMatch | None = None, *, direction: str | None = None, author: str | None = None
) -> dict[str, Any]:
    """The ``resolved`` entry every tool's answer carries: what the request was found to name."""
    record: dict[str, Any] = {"papers": [match.to_dict()] if match else []}
    if direction:
        record["direction"] = direction
    if author:
        record["author"] = author
    return record


def resolve_papers(library: Library, request: PaperRequest) -> PaperMatch:
    """The one paper ``request`` names. AmbiguousNameError lists ranked candidates when two are close;
    NotFoundError names the closest titles; InvalidArgumentError when the request names no paper at all."""
    index = paper_index(library)
    direct = _direct(library, index, request)
    if direct is not None:
        return direct
    clues = read_clues(index, request.text, request.quoted)
    if not any(not t.bonus for t in clues.tokens) and not clues.years:
        raise InvalidArgumentError(
            "Which paper? No item key, DOI, author, year or title words were found in the request.",
            hint="Pass item_key='ABCD2345', or name the paper, e.g. 'the S2ORC paper' or 'Lo et al. 2020'.",
        )
    ranked = rank(index, clues)
    return decide(index, clues, ranked)


def resolve_named_paper(library: Library, request: PaperRequest) -> PaperMatch | None:
    """The paper ``request`` names, or None when it names none but a topic, a collection or the whole
    library ("export my papers on attention", "notes about calibration"). A request names a paper with a
    key, DOI, arXiv id or citation key, quoted or "the X paper" words, an author with a year or a
    possessive, an acronym, or a whole title; a named paper that is not there is NotFoundError."""
    index = paper_index(library)
    direct = _direct(library, index, request)
    if direct is not None:
        return direct
    clues = read_clues(index, request.text, request.quoted)
    ranked = rank(index, clues)
    if not _names_a_paper(index, clues, ranked):
        return None
    return decide(index, clues, ranked)


def _names_a_paper(index: PaperIndex, clues: Clues, ranked: list[Scored]) -> bool:
    """Whether the words name one paper rather than a topic: quoted or "the X paper" words, an author with
    a year or a possessive, a capitalised name or acronym the library has, a whole title, or most of one
    title's words (with "paper" or "book" in the singular, more than half of what the request says)."""
    if clues.phrases or any(t.author_shaped for t in clues.tokens):
        return True
    if any(t.hits and not t.bonus and looks_like_name(t, clues.text) for t in clues.tokens):
        return True
    if not ranked:
        return False
    text = fold(clues.text)
    title = fold(index.items[ranked[0].keys[0]].title)
    if len(title) >= 12 and holds_title(text, title):
        return True
    total = sum(t.weight for t in clues.tokens if not t.bonus)
    if _ONE_DOCUMENT.search(clues.text) and ranked[0].score >= 0.6 * total:
        return True
    title_words = {w for w in words(title) if w not in STOPWORDS}
    said = [t for t in clues.tokens if t.hits.get(ranked[0].keys[0]) and not t.bonus]
    return len(title_words) >= 3 and len(said) >= 0.5 * len(title_words) and ranked[0].score >= 0.75 * total


def _labels_a_paper(index: PaperIndex, word: str) -> bool:
    """Whether ``word`` is the authors' initials and year of a library paper (an alphabetic citation label)."""
    return bool(author_acronym(index, word.casefold()))


_ONE_DOCUMENT = re.compile(
    r"\b(?:paper|article|book|study|preprint|thesis|chapter|report|manual)\b", re.IGNORECASE
)


def _direct(library: Library, index: PaperIndex, request: PaperRequest) -> PaperMatch | None:
    """A key, DOI, arXiv id or citation key: each names one paper by itself."""
    keys = list(dict.fromkeys(k.strip().upper() for k in request.item_keys if k and k.strip()))
    keys = keys or ITEM_KEY.findall(request.text)
    # a key-shaped word that is no key may be a citation label ("who cites AWBHHL22?"), which the router
    # took for a key
    keys = [k for k in keys if k in library.items or not _labels_a_paper(index, k)]
    if keys:
        items = {item.key: item for item in (resolve_item(library, k) for k in keys)}
        if len(items) > 1:
            raise AmbiguousNameError(
                f"The request names {len(items)} items; which one?",
                candidates=[candidate_line(i) for i in items.values()],
                hint="Repeat the request with item_key set to one of them.",
            )
        return _match(library, index, next(iter(items.values())), "item key")
    doi = request.doi or _doi_in(request.text)
    if doi:
        keys = index.ids.with_doi(doi)
        if not keys:
            raise NotFoundError(
                f"No item with DOI {clean_doi(doi).rstrip('.,;)?!')} in this library.",
                hint="Add the paper to Zotero first, or name it by title or item key.",
            )
        key = keys[-1]  # the last copy added, as before the table was shared
        return _match(library, index, library.items[key], "DOI")
    pubmed = _PUBMED.search(request.text)
    if pubmed:
        pmid, pmcid = pubmed.group(1), pubmed.group(2)
        held = index.ids.pmids.get(pmid) if pmid else index.ids.pmcids.get(pmcid.upper())
        if not held:
            raise NotFoundError(
                f"No item with {'PMID ' + pmid if pmid else 'PMCID ' + pmcid.upper()} in this library.",
                hint="Add the paper to Zotero first, or name it by title or item key.",
            )
        return _match(library, index, library.items[held[-1]], "PMID" if pmid else "PMCID")
    for found in ARXIV.findall(request.text):
        held = index.ids.arxiv.get(found.casefold())
        if held:
            return _match(library, index, library.items[held[-1]], "arXiv id")
    cited = _by_citation_key(library, index, request.text)
    return _match(library, index, cited, "citation key") if cited is not None else None


# "PMID 31452104", "PMID: 31452104", "pubmed 31452104"; "PMC6712345" (PubMed Central) stands alone.
_PUBMED = re.compile(r"\b(?:pmid|pubmed(?:\s+id)?)\s*:?\s*(\d{1,9})\b|\b(PMC\d{3,9})\b", re.IGNORECASE)


def _doi_in(text: str) -> str | None:
    found = DOI.search(text)
    return found.group(0) if found else None


def _by_citation_key(library: Library, index: PaperIndex, text: str) -> Item | None:
    typed = {w.casefold() for w in _CITE_KEY.findall(text) if not YEAR.match(w)}
    if not typed:
        return None
    keys = citation_keys(index)
    found = {keys[w] for w in typed if w in keys}
    return library.items[found.pop()] if len(found) == 1 else None


def _match(library: Library, index: PaperIndex, item: Item, how: str) -> PaperMatch:
    copies = index.group_of.get(item.key, ())  # a key names that copy; the others are listed
    return PaperMatch(item, how, tuple(library.items[k] for k in copies if k != item.key))


# --- scoring and the decision --------------------------------------------------------------------------------


@dataclass(slots=True)
class Scored:
    keys: tuple[str, ...]  # the copies of one paper, preferred first
    score: float


def rank(index: PaperIndex, clues: Clues) -> list[Scored]:
    """The candidates the clues point at, best first (any index: the library's, or the cited works')."""
    scores: dict[str, float] = defaultdict(float)
    for token in clues.tokens:
        for key, fit in token.hits.items():
            scores[key] += token.weight * fit
    if clues.years:
        in_years = set().union(*(index.years.get(y, set()) for y in clues.years))
        weight = _year_weight(index, clues.years)
        for key in list(scores) if scores else in_years:
            year = index.items[key].year
            if key in in_years:
                scores[key] += weight
            elif year:
                scores[key] -= weight
    for phrase in clues.phrases:
        _phrase_fit(index, phrase, scores)
    _title_cover(index, clues, scores)
    _whole_title(index, clues, scores)
    _named_authors(index, clues, scores)
    _author_lists(index, clues, scores)
    groups: dict[tuple[str, ...], float] = {}
    for key, score in scores.items():
        copies = index.group_of.get(key, (key,))
        groups[copies] = max(groups.get(copies, float("-inf")), score)
    ranked = [Scored(keys, score) for keys, score in groups.items() if score > 0]
    ranked.sort(key=lambda s: (-s.score, index.items[s.keys[0]].title))
    return ranked


def _year_weight(index: PaperIndex, years: list[int]) -> float:
    count = sum(len(index.years.get(y, ())) for y in years)
    return math.log(1 + index.size / max(1, count))


def _phrase_fit(index: PaperIndex, phrase: str, scores: dict[str, float]) -> None:
    """A quoted or named phrase that is (nearly) a run of a candidate's title adds to it: it tells "What is
    a norm?" from another paper that only shares the word "norm". A long quoted phrase that is nowhere in
    a candidate's title counts against it."""
    named = [w for w in words(phrase) if w not in REQUEST_WORDS]
    if len(named) < 2:
        return
    wanted = fold(phrase)
    for key in list(scores):
        fit = fuzz.partial_ratio(wanted, fold(index.items[key].title))
        if fit >= 90:
            scores[key] += 1.0 + 0.5 * len(named)
        elif fit < 70 and len(named) >= 3:
            scores[key] -= 0.5 * len(named)


def _title_cover(index: PaperIndex, clues: Clues, scores: dict[str, float]) -> None:
    """Of two titles holding the named words, the one those words cover more of is the one named:
    "CARMENES instrument overview" is that paper, not "CARMENES as an Instrument for Exoplanet Research"."""
    named = {t.word for t in clues.tokens}
    for key in list(scores):
        title = {w for w in words(index.items[key].title) if w not in STOPWORDS}
        if title:
            scores[key] += 1.5 * len(title & named) / len(title)


def _whole_title(index: PaperIndex, clues: Clues, scores: dict[str, float]) -> None:
    """A request that holds a candidate's whole title (give or take a typo) names that paper, not another
    whose title merely contains the same words ("Algorithms used in the paper <title>")."""
    if not scores:
        return
    text = fold(clues.text)
    top = sorted(scores, key=lambda k: -scores[k])[:_MAX_CANDIDATES]
    for key in top:
        title = fold(index.items[key].title)
        long_enough = len([w for w in words(title) if w not in STOPWORDS]) >= 3
        if long_enough and holds_title(text, title):
            scores[key] += 0.3 * scores[key]


def _named_authors(index: PaperIndex, clues: Clues, scores: dict[str, float]) -> None:
    """When the request names an author the library has ("Quintana 2014"), a paper without any named author
    is not the one meant, however well its title words fit."""
    authors = [t for t in clues.tokens if t.author_shaped and t.word in index.surnames]
    if not authors:
        return
    for key in scores:
        if not any(t.hits.get(key, 0.0) >= 0.5 for t in authors):
            scores[key] *= 0.5


_NOT_FIRST = 0.6  # "Luque et al." when another candidate has Luque first
_INCOMPLETE = 0.7  # "Luque and Pallé 2022" for a paper with more authors, when another has just those


def _author_lists(index: PaperIndex, clues: Clues, scores: dict[str, float]) -> None:
    """Authors as citations write them decide between candidates that share them: "A et al." has A first
    and at least two others;
    "A and B 2008", "A, B and C (2015)" or "A 2013" (a year, no "et al.") names every author. A candidate
    that does not fit loses only to one that does: "Quintana 2014" still reaches Quintana et al. 2014 when
    no one-author Quintana paper of 2014 competes."""
    named = [t for t in clues.tokens if t.author_shaped and t.word in index.surnames]
    if not named or len(scores) < 2:
        return
    first = [t.word for t in named if t.first_author]
    if first:  # "et al." stands for two or more others
        fits = {
            k
            for k in scores
            if any(index.surnames[w].get(k) == 0 for w in first) and len(index.items[k].authors) >= 3
        }
        penalty = _NOT_FIRST
    elif clues.years:
        fits = {k for k in scores if _names_every_author(index, named, k)}
        penalty = _INCOMPLETE
    else:
        return
    if fits and len(fits) < len(scores):
        for key in scores:
            if key not in fits:
                scores[key] *= penalty


def _names_every_author(index: PaperIndex, named: list[Token], key: str) -> bool:
    authors = index.items[key].authors
    positions = {index.surnames[t.word][key] for t in named if key in index.surnames[t.word]}
    return bool(authors) and len(positions) == len(authors)


def decide(
    index: PaperIndex, clues: Clues, ranked: list[Scored], line: Callable[[Item], str] | None = None
) -> PaperMatch:
    """The best candidate when it explains enough of the request and no other comes close; else
    NotFoundError naming the closest, or AmbiguousNameError listing the close ones (each as ``line``
    writes it)."""
    line = line or candidate_line
    total = sum(t.weight for t in clues.tokens if not t.bonus) + (
        _year_weight(index, clues.years) if clues.years else 0.0
    )
    said = requested(clues)
    if not ranked or total <= 0 or ranked[0].score < _MIN_COVERAGE * total:
        raise _not_found(index, said, ranked, line)
    best = ranked[0]
    close = [s for s in ranked[1:] if s.score >= _CLOSE_SHARE * best.score]
    named = _main_title_named(index, clues, [best, *close]) if close else None
    if named is not None:
        best, close = named, []
    if close:
        shown = [best, *close][:_MAX_CANDIDATES]
        raise AmbiguousNameError(
            f"{len(shown)} papers fit {quoted(said)} about equally well; say which one.",
            candidates=[
                _with_reason(line(index.items[s.keys[0]]), clues, index.items[s.keys[0]]) for s in shown
            ],
            hint="Repeat the request with item_key set to one of the candidates' keys, or add the year "
            "or an author.",
        )
    item = index.items[best.keys[0]]
    how = _how(clues, item)
    return PaperMatch(item, how, tuple(index.items[k] for k in best.keys[1:]))


def _main_title_named(index: PaperIndex, clues: Clues, candidates: list[Scored]) -> Scored | None:
    """The one candidate whose main title (before a colon) the request names word for word, among close
    ones: "Saaty's analytic hierarchy process book" is "The Analytic Hierarchy Process: Planning, …", not
    "Decision Making for Leaders: The Analytic Hierarchy Process …"."""
    said = {t.word for t in clues.tokens}
    fits = []
    for scored in candidates:
        main = re.split(r"[:?]\s", index.items[scored.keys[0]].title, maxsplit=1)[0]
        content = {w for w in words(main) if w not in STOPWORDS}
        if len(content) >= _MAIN_TITLE_WORDS and content <= said:
            fits.append(scored)
    return fits[0] if len(fits) == 1 else None


_MAIN_TITLE_WORDS = 2


def _how(clues: Clues, item: Item) -> str:
    """What identified the paper, for the answer: "author and year", "title words"..."""
    title = set(words(item.title))
    surnames = {w for c in item.authors for w in words(c.last_name)}
    matched = [t for t in clues.tokens if t.hits.get(item.key)]
    parts = []
    if any(t.word in surnames for t in matched):
        parts.append("author")
    if clues.years and item.year in clues.years:
        parts.append("year")
    if any(t.word in title for t in matched):
        parts.append("title words")
    elif matched and not parts:
        parts.append("acronym or close words")
    return " and ".join(parts) or "title words"


def _with_reason(line: str, clues: Clues, item: Item) -> str:
    """A close candidate with what in the request it fits, so that the reader can choose."""
    fits = [t.raw for t in clues.tokens if t.hits.get(item.key) and not t.bonus]
    fits += [str(y) for y in clues.years if y == item.year]
    return f"{line} — fits: {', '.join(fits)}" if fits else line


def requested(clues: Clues) -> str:
    """What the request said to name its paper, for messages: its named words and years."""
    return " ".join([*(t.raw for t in clues.tokens if t.weight > 0 and not t.bonus), *map(str, clues.years)])


def _not_found(
    index: PaperIndex, said: str, ranked: list[Scored], line: Callable[[Item], str]
) -> NotFoundError:
    near = [line(index.items[s.keys[0]]) for s in ranked[:3]]
    hint = ("Closest: " + "; ".join(near) + ".") if near else "Try the item key, the DOI or more title words."
    return NotFoundError(f"No paper in the library matches {quoted(said)}.", hint=hint)


def candidate_line(item: Item) -> str:
    """A candidate as the answer lists it: key, title, year and first author."""
    first = item.authors[0].last_name if item.authors else "no author"
    suffix = " et al." if len(item.authors) > 1 else ""
    return f"{item.key}: {item.title or '(untitled)'} ({item.year or 'n.d.'}, {first}{suffix})"
