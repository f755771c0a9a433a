"""Works the library's papers cite but the library does not hold (the graph's external works), named the way
library papers are: the paper resolver's tables are built over the works as stand-in items, so title words,
authors ("Rowstron and Druschel"), years, title acronyms and DOIs find a work as they find a paper.

A request that names a paper is answered from the library when the library holds it. It reaches a cited
work when no library paper fits, or when a work fits words the library paper lacks ("Paxos Made Live" when
the library holds "Paxos Made Simple").
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass, field
from typing import Any
from weakref import WeakKeyDictionary

from agent_zot.errors import AmbiguousNameError, NotFoundError
from agent_zot.graph.model import EdgeKind, Node, NodeKind
from agent_zot.graph.store import Direction, GraphStore
from agent_zot.identifiers import DOI, ITEM_KEY_CHARS
from agent_zot.services.resolve.clues import REQUEST_WORDS, read_clues
from agent_zot.services.resolve.paper_index import PaperIndex, build_paper_index, paper_index, stem, words
from agent_zot.services.resolve.papers import (
    PaperMatch,
    PaperRequest,
    Scored,
    decide,
    rank,
    resolve_papers,
)
from agent_zot.text import CJK_CHARACTERS, STOPWORDS, fold
from agent_zot.zotero.models import Creator, Item, Library, ZoteroDate

WORK_PREFIX = "work:"
_YEARS = re.compile(r"(?<![\w.])((?:1[5-9]|20)\d{2})[a-z]?(?![\w.])")
_STAND_IN_TYPE = "citedWork"


@dataclass(frozen=True, slots=True)
class WorkMatch:
    """A work the library cites but does not hold, how the request named it, and the papers citing it."""

    node: Node
    how: str
    citing: tuple[str, ...]  # library item keys, in key order
    # the number each citing paper's reference list gives the work, where the list is numbered
    ref_numbers: dict[str, int] = field(default_factory=dict)

    @property
    def title(self) -> str:
        return str(self.node.props.get("title") or self.node.name)

    @property
    def year(self) -> int | None:
        year = self.node.props.get("year")
        return int(year) if isinstance(year, int | str) and str(year).isdigit() else None

    @property
    def authors(self) -> list[str]:
        listed = str(self.node.props.get("authors") or "")
        names = [a.strip() for a in listed.split(";") if a.strip()]
        first = self.node.props.get("first_author")
        return names or ([str(first)] if first else [])

    @property
    def untitled(self) -> bool:
        """The reference lists print no title for it (the "title" is the entry's text)."""
        return bool(self.node.props.get("untitled"))

    def cite_as(self) -> str:
        """How a reference list names it: "Chandra et al. (2007) Paxos Made Live"."""
        names = self.authors
        who = names[0] + (" et al." if len(names) > 2 else f" and {names[1]}" if len(names) == 2 else "")
        when = f" ({self.year})" if self.year else ""
        if self.untitled:
            venue = self.node.props.get("venue")
            return f"{who}{when}{f', {venue}' if venue else ''} (its reference lists give no title)"
        return f"{who}{when} {self.title}".strip() if names else f"{self.title}{when}"

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "id": self.node.id,
            "title": self.title,
            "year": self.year,
            "authors": self.authors,
            "how": self.how,
            "in_library": False,
        }
        if self.untitled:
            data["untitled"] = True
        for name in ("doi", "arxiv", "venue"):
            if self.node.props.get(name):
                data[name] = self.node.props[name]
        return data


@dataclass(slots=True)
class _WorksIndex:
    stamp: int
    library: Library
    index: PaperIndex
    nodes: dict[str, Node]


_lock = threading.Lock()
_latest: list[_WorksIndex] = []
# The tables each store object's graph version gave, so that an unchanged graph is not read again (reading
# and fingerprinting every work cost each citation request more than the answer); None: it holds no work.
_by_version: WeakKeyDictionary[GraphStore, tuple[int, Any, _WorksIndex | None]] = WeakKeyDictionary()


def works_index(store: GraphStore, library: Library) -> _WorksIndex | None:
    """The resolver's tables over the graph's external works (built once per graph state), None when the
    graph holds none."""
    version = store.version()
    with _lock:
        kept = _by_version.get(store) if version is not None else None
    if kept is not None and kept[:2] == (version, library.identity):
        return kept[2]
    built = _works_index(store, library)
    if version is not None:
        with _lock:
            _by_version[store] = (version, library.identity, built)
    return built


def _works_index(store: GraphStore, library: Library) -> _WorksIndex | None:
    nodes = store.find_nodes(NodeKind.EXTERNAL_WORK, limit=10**9)
    if not nodes:
        return None
    stamp = _fingerprint(nodes)  # a store without a version (Neo4j): the works' content says
    with _lock:
        if _latest and _latest[0].stamp == stamp and _latest[0].library.identity == library.identity:
            return _latest[0]
    items = {n.id: _stand_in(n) for n in nodes}
    works = Library(
        data_dir=library.data_dir,
        db_path=library.db_path,
        schema_version=library.schema_version,
        libraries=[],
        items=items,
        collections={},
        standalone_notes=[],
        standalone_attachments=[],
        annotations_by_attachment={},
        identity=library.identity,
    )
    built = _WorksIndex(stamp, works, build_paper_index(works), {n.id: n for n in nodes})
    with _lock:
        _latest[:] = [built]
    return built


_READ_PROPS = ("title", "authors", "first_author", "untitled", "doi", "venue", "arxiv", "year")


def _fingerprint(nodes: list[Node]) -> int:
    """What the tables are made from: a store hands out fresh Node objects on every call, so the cache
    is keyed on the works' content, which costs far less than rebuilding the tables."""
    return hash(tuple((n.id, n.name, *(n.props.get(p) for p in _READ_PROPS)) for n in nodes))


def _stand_in(node: Node) -> Item:
    """A work as the resolver's tables read an item: its title, authors, year, venue and identifiers."""
    props = node.props
    names = [a.strip() for a in str(props.get("authors") or "").split(";") if a.strip()]
    if not names and props.get("first_author"):
        names = [str(props["first_author"])]
    fields = {"title": str(props.get("title") or node.name)}
    if props.get("untitled"):
        fields["untitled"] = "1"
    for prop, name in (("doi", "DOI"), ("venue", "publicationTitle")):
        if props.get(prop):
            fields[name] = str(props[prop])
    if props.get("arxiv"):
        fields["extra"] = f"arXiv: {props['arxiv']}"
    year = props.get("year")
    return Item(
        key=node.id,
        item_id=0,
        item_type=_STAND_IN_TYPE,
        library_id=0,
        fields=fields,
        base_fields={},
        creators=[Creator(0, "author", name) for name in names],
        date=ZoteroDate(str(year), int(year)) if isinstance(year, int) else None,
    )


def resolve_cited(library: Library, store: GraphStore, request: PaperRequest) -> PaperMatch | WorkMatch:
    """The paper a citation request names: the library's, or a work its papers cite. Raises as
    resolve_papers does when neither fits (the library's own error, which names its closest papers)."""
    try:
        match = resolve_papers(library, request)
    except (NotFoundError, AmbiguousNameError) as unsure:
        # no library paper fits, or several do about equally: a work that fits every word wins
        work = _find_work(library, store, request)
        if work is None:
            raise unsure from None
        if isinstance(unsure, AmbiguousNameError) and not (
            _fits_all(request, work) or _cited_as_named(library, request, work, unsure)
        ):
            raise unsure from None
        return work
    if match.how in ("item key", "DOI", "arXiv id", "citation key"):
        return match
    return _better_work(library, store, request, match) or match


def _find_work(library: Library, store: GraphStore, request: PaperRequest) -> WorkMatch | None:
    works = works_index(store, library)
    if works is None:
        return None
    in_text = DOI.search(request.text)
    doi = request.doi or (in_text.group(0) if in_text else None)
    if doi:
        keys = works.index.ids.with_doi(doi)
        return _work(store, works, [keys[-1]], "DOI") if keys else None
    clues = read_clues(works.index, request.text, request.quoted)
    if not any(not t.bonus for t in clues.tokens):
        return None
    ranked = _one_work_once(works.index, rank(works.index, clues))
    try:
        found = decide(works.index, clues, ranked, line=_work_line)
    except NotFoundError:
        return None
    work = _work(store, works, [found.item.key, *(d.key for d in found.duplicates)], found.how)
    # A cited work is reached by its own words, not by a close spelling of one ("Attention" is not
    # "Attenuation"): most of what the request names must be in its title, authors or venue.
    said = _content_words(request.text)
    # Named by its first author and year ("Kokori et al. 2021"), the rest of the request may be a title
    # the reference lists never printed: it cannot be checked.
    cited_by_name = found.how.startswith("author and year")
    if said and len(said & _words_of(found.item)) < _WORK_COVER * len(said) and not cited_by_name:
        # a Chinese or Japanese title given whole, beside an English gloss of it, names the work
        title = found.item.title.replace(" ", "")
        if not any(len(run) >= _WHOLE_CJK_TITLE and run in title for run in _CJK_RUN.findall(request.text)):
            return None
    return work


_CJK_RUN = re.compile(f"[{CJK_CHARACTERS}]+")
_WHOLE_CJK_TITLE = 6  # characters


_WORK_COVER = 0.75


def _fits_all(request: PaperRequest, work: WorkMatch) -> bool:
    said = _content_words(request.text)
    return bool(said) and not said - _words_of(_stand_in(work.node))


def _cited_as_named(
    library: Library, request: PaperRequest, work: WorkMatch, unsure: AmbiguousNameError
) -> bool:
    """Whether the request cites the work as a reference list would, by its first author and its year,
    where the library papers it could also mean have another year ("ExoClock I (Kokori et al. 2021)" when
    the library holds Kokori's 2022 and 2023 papers)."""
    years = {int(y) for y in _YEARS.findall(request.text)}
    first = work.authors[0] if work.authors else ""
    if (
        not years
        or work.year not in years
        or not first
        or stem(fold(first)) not in _content_words(request.text)
    ):
        return False
    keys = [m.group(1) for c in unsure.candidates if (m := _CANDIDATE_KEY.match(c))]
    return bool(keys) and all(k in library.items and library.items[k].year not in years for k in keys)


_CANDIDATE_KEY = re.compile(rf"\s*([{ITEM_KEY_CHARS}]{{8}}):")


def _better_work(
    library: Library, store: GraphStore, request: PaperRequest, match: PaperMatch
) -> WorkMatch | None:
    """A cited work that fits the request where the library paper does not: every content word the request
    names is in the work's title or authors and some are not in the paper's, or the year names the work's."""
    said = _content_words(request.text)
    if not said:
        return None
    missing = said - _words_of(match.item) - _fitted_words(library, request, match)
    years = {int(y) for y in _YEARS.findall(request.text)}
    year_wrong = bool(years) and match.item.year not in years
    if not missing and not year_wrong:
        return None
    try:
        work = _find_work(library, store, request)
    except AmbiguousNameError:
        return None  # several outside works fit alike: none beats the library paper that fits
    if work is None:
        return None
    stand_in = _stand_in(work.node)
    if said - _words_of(stand_in):
        return None
    if years and work.year not in years:
        return None
    return work


def _fitted_words(library: Library, request: PaperRequest, match: PaperMatch) -> set[str]:
    """The request's words the library paper fits surely other than by its title's words: its title's or
    authors' acronym ("GFS"), another form of a title word. A work whose title spells such a word out
    does not fit better for it (a word only its abstract or a close spelling fits may still name a work)."""
    keys = {match.item.key, *(d.key for d in match.duplicates)}
    clues = read_clues(paper_index(library), request.text, request.quoted)
    return {
        stem(t.word)
        for t in clues.tokens
        if not t.bonus and max((t.hits.get(k, 0.0) for k in keys), default=0.0) >= _SURE_FIT
    }


_SURE_FIT = 0.85  # an acronym's or a word form's fit (clues.py); close spellings and abstracts fit less


def _content_words(text: str) -> set[str]:
    return {
        stem(w)
        for w in words(text)
        if w not in REQUEST_WORDS and w not in STOPWORDS and not w.isdigit() and len(w) > 1
    }


def _words_of(item: Item) -> set[str]:
    names = " ".join(c.last_name for c in item.authors)
    return {stem(w) for w in words(f"{item.title} {names} {item.venue}")}


def _one_work_once(index: PaperIndex, ranked: list[Scored]) -> list[Scored]:
    """The candidates with the entries of one work merged into the best of them: reference lists spell
    a work differently (a preprint's year, a title one list prints and another does not), and the
    graph may keep such entries apart. One work: the same first author, and the same year or title."""
    if not ranked:
        return ranked
    best, rest = ranked[0], ranked[1:]
    same = [s for s in rest if s.score >= _SAME_SHARE * best.score and _same_work(index, best, s)]
    keys = [*best.keys, *(k for s in same for k in s.keys)]
    keys.sort(key=lambda k: _unfit_title(index.items[k]))  # a titled entry speaks for it
    return [Scored(tuple(keys), best.score), *(s for s in rest if s not in same)]


_SAME_SHARE = 0.7
# A "title" holding "et al." or a year is two reference entries the list's layout ran together
_RUN_TOGETHER = re.compile(r"\bet al\b|(?<!\d)(?:1[89]|20)\d\d(?!\d)")


def _unfit_title(item: Item) -> bool:
    return bool(item.fields.get("untitled")) or bool(_RUN_TOGETHER.search(item.title))


def _same_work(index: PaperIndex, a: Scored, b: Scored) -> bool:
    first, second = index.items[a.keys[0]], index.items[b.keys[0]]
    names = [fold(i.authors[0].last_name) if i.authors else "" for i in (first, second)]
    if not names[0] or names[0] != names[1]:
        return False
    untitled = first.fields.get("untitled") or second.fields.get("untitled")
    titles = sorted((fold(first.title), fold(second.title)), key=len)
    same_title = titles[0] in titles[1]  # one list cut the title short ("Components of …")
    return bool(untitled) or same_title or (first.year is not None and first.year == second.year)


def _work(store: GraphStore, works: _WorksIndex, keys: list[str], how: str) -> WorkMatch:
    """The work (its first entry) and the library papers citing any of its entries, or any entry the
    tables count as a copy of one (a title two reference lists spell alike)."""
    copies = list(dict.fromkeys(k for key in keys for k in works.index.group_of.get(key, (key,))))
    key = keys[0]
    edges = store.edges_of(copies, kinds=[EdgeKind.CITES], direction=Direction.IN)
    cites = [e for e in edges if e.source.startswith("paper:")]
    citing = tuple(sorted({e.source.removeprefix("paper:") for e in cites}))
    numbers = {
        e.source.removeprefix("paper:"): int(e.props["ref_number"])
        for e in cites
        if isinstance(e.props.get("ref_number"), int)
    }
    return WorkMatch(works.nodes[key], how, citing, numbers)


def _work_line(item: Item) -> str:
    """A cited work as a candidate list names it (no key: it is not a library item)."""
    first = item.authors[0].last_name if item.authors else "no author"
    suffix = " et al." if len(item.authors) > 1 else ""
    return f"{item.title or '(untitled)'} ({item.year or 'n.d.'}, {first}{suffix}; not in your library)"
