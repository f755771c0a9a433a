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
import threading
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import snowballstemmer
from rapidfuzz import fuzz, process

from agent_zot.errors import AmbiguousNameError, InvalidArgumentError, NotFoundError
from agent_zot.identifiers import ITEM_KEY, clean_doi
from agent_zot.services.resolve.library import resolve_item
from agent_zot.services.response import quoted
from agent_zot.text import STOPWORDS, ascii_key, fold, spaced_cjk
from agent_zot.zotero.models import Item, Library

# Words that say what to do with a paper, not which paper it is. They never count against a candidate.
_REQUEST_TEXT = """
    a an the of on in at to for from by with about into and or as is are was were be been it its this that these
    those their they them what which who whom whose how why when where does do did can could would should will
    please pls me my mine i we our you your tell give show read summarize summarise summary summaries overview
    explain describe paper papers article articles study studies work works publication publications document
    documents pdf text full whole entire page pages pp main key quick brief short detailed comprehensive
    thorough findings finding results result method methods methodology approach conclusions conclusion
    limitations limitation contributions contribution say says said report reports reported use uses used
    mention mentions discuss discusses find found et al question questions answer depth deep dive breakdown
    gist tldr walk through everything anything aspects aspect detail details verbatim raw next previous
    continue reading beginning start cover all one sentence line paragraph word words cite cites cited citing
    citation citations reference references referenced referencing referred bibliography bibliographic
    build builds building built upon based follow follows followed ups up network graph related relate
    similar like connections connected neighbours neighbors notes note annotations annotation highlights
    highlight highlighted comments comment export exporting save saving dump bibtex bib markdown csl json
    file files format entry entries who's whos what's whats there here out list listing lists get got
    want need know let look looking help thanks thank hi hey also just about again any some other more
    most many much first last latest later earlier new old one's which's by's papers' author authors
    authored wrote written writer co coauthor coauthors collaborators collaborated collaborate worked
    working item items library zotero view open exactly precisely particular specific called named titled
    title abstract abstracts year years published publish venue journal conference proceedings preprint
    preprints thesis book books report reports chapter chapters review reviews theorem result one ones
    thing things stuff source sources list cites version copy copies
    """
_REQUEST_WORDS = frozenset(_REQUEST_TEXT.split()) | STOPWORDS
_DOCUMENT_NOUNS = r"(?:paper|article|study|preprint|thesis|book|report|chapter|review|result|theorem|work|one|manual|survey)"
# "the S2ORC paper", "this BERT preprint": the words between the article and the document noun.
_THE_X_PAPER = re.compile(
    r"(?:\b(?:the|this|that|his|her|their)|['’]s)\s+((?:(?!(?<=\s)(?:the|this|that)\s)[^,.;:?!\"“”()])+?)\s+"
    + _DOCUMENT_NOUNS
    + r"s?\b",
    re.IGNORECASE,
)
_QUOTED = re.compile(r"\"([^\"]{2,300})\"|“([^”]{2,300})”|«([^»]{2,300})»|(?<!\w)'([^']{3,300})'(?!\w)")
_TOKEN = re.compile(r"\w+(?:['’]\w+)?", re.UNICODE)
_YEAR = re.compile(r"^(?:1[5-9]|20)\d{2}[a-z]?$")
_ARXIV = re.compile(
    r"(?<![\w.])(\d{4}\.\d{4,5}|[a-z-]+(?:\.[A-Z]{2})?/\d{7})(?:v\d+)?(?![\w.])", re.IGNORECASE
)
_CITE_KEY = re.compile(r"\b[A-Za-z][A-Za-z_-]*\d{4}[\w:-]*\b")
_ET_AL = re.compile(r"(\w[\w'’-]*)\s+(?:et\.?\s*al|and\s+colleagues|and\s+others|&\s*al)\b", re.IGNORECASE)
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")

_MAX_CANDIDATES = 6
_CLOSE_SHARE = 0.86  # a runner-up scoring this share of the best is too close to call
_MIN_COVERAGE = 0.42  # the best candidate must explain this share of what the request's words weigh
_NAMED_BOOST = 1.6  # words inside quotes or "the X paper" name the paper; the rest may be a question
_QUESTION_SHARE = 0.45  # lower-case words outside a named phrase, when there is one
_FUZZY_CUTOFF = 85
_MIN_FUZZY_LEN = 5


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
    clues = _clues(index, request)
    if not any(not t.bonus for t in clues.tokens) and not clues.years:
        raise InvalidArgumentError(
            "Which paper? No item key, DOI, author, year or title words were found in the request.",
            hint="Pass item_key='ABCD2345', or name the paper, e.g. 'the S2ORC paper' or 'Lo et al. 2020'.",
        )
    ranked = _rank(index, clues)
    return _decide(index, clues, ranked)


def resolve_named_paper(library: Library, request: PaperRequest) -> PaperMatch | None:
    """The paper ``request`` names, or None when it names none but a topic, a collection or the whole
    library ("export my papers on attention", "notes about calibration"). A request names a paper with a
    key, DOI, arXiv id or citation key, quoted or "the X paper" words, an author with a year or a
    possessive, an acronym, or a whole title; a named paper that is not there is NotFoundError."""
    index = paper_index(library)
    direct = _direct(library, index, request)
    if direct is not None:
        return direct
    clues = _clues(index, request)
    ranked = _rank(index, clues)
    if not _names_a_paper(index, clues, ranked):
        return None
    return _decide(index, clues, ranked)


def _names_a_paper(index: PaperIndex, clues: _Clues, ranked: list[_Scored]) -> bool:
    """Whether the words name one paper rather than a topic: quoted or "the X paper" words, an author with
    a year or a possessive, a capitalised name or acronym the library has, a whole title, or most of one
    title's words (with "paper" or "book" in the singular, more than half of what the request says)."""
    if clues.phrases or any(t.author_shaped for t in clues.tokens):
        return True
    if any(t.hits and not t.bonus and _looks_like_name(t, clues.text) for t in clues.tokens):
        return True
    if not ranked:
        return False
    text = fold(clues.text)
    title = fold(index.items[ranked[0].keys[0]].title)
    if len(title) >= 12 and len(title) <= len(text) + 2 and fuzz.partial_ratio(title, text) >= 95:
        return True
    total = sum(t.weight for t in clues.tokens if not t.bonus)
    if _ONE_DOCUMENT.search(clues.text) and ranked[0].score >= 0.6 * total:
        return True
    title_words = {w for w in _words(title) if w not in STOPWORDS}
    said = [t for t in clues.tokens if t.hits.get(ranked[0].keys[0]) and not t.bonus]
    return len(title_words) >= 3 and len(said) >= 0.5 * len(title_words) and ranked[0].score >= 0.75 * total


_ONE_DOCUMENT = re.compile(
    r"\b(?:paper|article|book|study|preprint|thesis|chapter|report|manual)\b", re.IGNORECASE
)


# --- the library's lookup tables, built once per loaded library ---------------------------------------------


@dataclass(slots=True)
class PaperIndex:
    items: dict[str, Item]
    title_words: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    title_stems: dict[str, set[str]] = field(
        default_factory=lambda: defaultdict(set)
    )  # "augment" ← augmenting
    surnames: dict[str, dict[str, int]] = field(
        default_factory=lambda: defaultdict(dict)
    )  # word → key → position
    given_names: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    acronyms: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    other_words: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))  # venue, tags
    years: dict[int, set[str]] = field(default_factory=lambda: defaultdict(set))
    dois: dict[str, str] = field(default_factory=dict)
    arxiv: dict[str, str] = field(default_factory=dict)
    group_of: dict[str, tuple[str, ...]] = field(default_factory=dict)  # key → every copy of that paper
    vocabulary: list[str] = field(default_factory=list)
    cite_keys: dict[str, str] | None = None  # built on the first request that carries a citation key

    @property
    def size(self) -> int:
        return max(1, len(self.items))


_lock = threading.Lock()
_latest: tuple[Library, PaperIndex] | None = None  # only the current snapshot's index is kept


def paper_index(library: Library) -> PaperIndex:
    """The lookup tables of ``library`` (built on first use, kept while it is the current snapshot)."""
    global _latest
    with _lock:
        if _latest is not None and _latest[0] is library:
            return _latest[1]
    index = _build(library)
    with _lock:
        _latest = (library, index)
    return index


def _build(library: Library) -> PaperIndex:
    index = PaperIndex(items=dict(library.items))
    for key, item in library.items.items():
        for word in _words(item.title):
            index.title_words[word].add(key)
            index.title_stems[_stem(word)].add(key)
        for acronym in _title_acronyms(item.title):
            index.acronyms[acronym].add(key)
        for position, creator in enumerate(item.authors):
            for word in _words(creator.last_name):
                if len(word) > 1:
                    index.surnames[word].setdefault(key, position)
            for word in _words(creator.first_name):
                if len(word) > 1:
                    index.given_names[word].add(key)
        for word in _words(" ".join([item.venue, *item.tag_names()])):
            index.other_words[word].add(key)
        if item.year:
            index.years[item.year].add(key)
        if item.doi:
            index.dois[clean_doi(item.doi).casefold()] = key
        for found in _ARXIV.findall(" ".join([item.doi, item.url, item.extra, item.field("archiveID")])):
            index.arxiv[found.casefold()] = key
    index.vocabulary = sorted(
        w for w in {*index.title_words, *index.surnames} if len(w) >= _MIN_FUZZY_LEN and not w.isdigit()
    )
    _group_copies(library, index)
    return index


def _words(text: str) -> list[str]:
    """Folded words; runs of Chinese or Japanese characters also as their character pairs."""
    if not text:
        return []
    folded = fold(text)
    if _CJK.search(folded):
        folded = spaced_cjk(folded)
    return _TOKEN.findall(folded.replace("'", " ").replace("’", " "))


_STEMMER = snowballstemmer.stemmer("english")


def _stem(word: str) -> str:
    return _STEMMER.stemWord(word) if word.isascii() else word


def _title_acronyms(title: str) -> set[str]:
    """Initials of runs of 3-6 consecutive title words (function words skipped or kept), and of the
    capitalised parts of a word ("MapReduce" → "mr")."""
    words = [w for w in re.findall(r"[^\W\d_][\w-]*", title) if w]
    parts: list[str] = []
    for word in words:
        parts.extend(p for p in word.split("-") if p)
    content = [p for p in parts if p.lower() not in STOPWORDS]
    found: set[str] = set()
    for sequence in (content, parts):
        initials = "".join(p[0].lower() for p in sequence)
        for size in range(2, 7):
            found.update(initials[i : i + size] for i in range(len(initials) - size + 1))
    return found


# What a web capture adds to a title: "… | Request PDF", "… - ScienceDirect", "(PDF) …".
_CAPTURE_NOISE = re.compile(
    r"\s*[|–—-]\s*(?:request pdf|sciencedirect|springerlink|ieee xplore|researchgate|semantic scholar|arxiv"
    r"|wiley online library|taylor\s*&\s*francis online|jstor|pubmed|google scholar)\s*$|^\(pdf\)\s*",
    re.IGNORECASE,
)


def _copy_key(item: Item) -> str | None:
    plain = _CAPTURE_NOISE.sub("", item.title)
    title = ascii_key(plain) or fold(plain).replace(" ", "")
    return title if len(title) >= 12 else None


def _group_copies(library: Library, index: PaperIndex) -> None:
    """Items that are one paper entered twice: the same title with no conflicting year or first author,
    or the same DOI."""
    by_title: dict[str, list[Item]] = defaultdict(list)
    for item in library.items.values():
        key = _copy_key(item)
        if key:
            by_title[key].append(item)
    groups: list[list[Item]] = []
    for items in by_title.values():
        while items:
            head, rest = items[0], items[1:]
            same = [head, *(i for i in rest if _compatible(head, i))]
            groups.append(same)
            items = [i for i in rest if i not in same]
    for group in groups:
        if len(group) > 1:
            keys = tuple(i.key for i in _by_preference(group))
            for key in keys:
                index.group_of[key] = keys
    by_doi: dict[str, list[str]] = defaultdict(list)
    for key, item in library.items.items():
        if item.doi:
            by_doi[clean_doi(item.doi).casefold()].append(key)
    for keys in by_doi.values():
        if len(keys) > 1 and not any(k in index.group_of for k in keys):
            ordered = tuple(i.key for i in _by_preference([library.items[k] for k in keys]))
            for key in ordered:
                index.group_of[key] = ordered


def _compatible(a: Item, b: Item) -> bool:
    if a.year and b.year and a.year != b.year:
        return False
    first_a = ascii_key(a.authors[0].last_name) if a.authors else ""
    first_b = ascii_key(b.authors[0].last_name) if b.authors else ""
    return not (first_a and first_b and first_a != first_b)


def _by_preference(copies: Iterable[Item]) -> list[Item]:
    """The copy to answer from first: one with a file on disk, then the fuller record, then the oldest."""

    def rank(item: Item) -> tuple[int, int, int, str]:
        has_file = any(a.exists and a.path is not None for a in item.attachments)
        return (-int(has_file), -len(item.creators), -len(item.fields), item.date_added or "~")

    return sorted(copies, key=rank)


# --- clues of one request ------------------------------------------------------------------------------------


@dataclass(slots=True)
class _Token:
    word: str  # folded
    raw: str  # as typed
    named: bool  # inside quotes or "the X paper"
    possessive: bool
    first_author: bool  # followed by "et al."
    author_shaped: bool = False  # "Okafor 2019", "Rossi's", "by Lee": a surname, if it is anything
    bonus: bool = False  # a request word ("overview", "network") that a title may also hold: it only adds
    weight: float = 0.0
    hits: dict[str, float] = field(default_factory=dict)  # key → how well it fits (0-1)


@dataclass(slots=True)
class _Clues:
    tokens: list[_Token]
    years: list[int]
    phrases: list[str]
    text: str


def _direct(library: Library, index: PaperIndex, request: PaperRequest) -> PaperMatch | None:
    """A key, DOI, arXiv id or citation key: each names one paper by itself."""
    keys = list(dict.fromkeys(k.strip().upper() for k in request.item_keys if k and k.strip()))
    keys = keys or ITEM_KEY.findall(request.text.upper() if request.text.isupper() else request.text)
    if keys:
        items = {resolve_item(library, k).key: resolve_item(library, k) for k in keys}
        if len(items) > 1:
            raise AmbiguousNameError(
                f"The request names {len(items)} items; which one?",
                candidates=[candidate_line(i) for i in items.values()],
                hint="Repeat the request with item_key set to one of them.",
            )
        return _match(library, index, next(iter(items.values())), "item key")
    doi = request.doi or _doi_in(request.text)
    if doi:
        key = index.dois.get(clean_doi(doi).casefold().rstrip(".,;)"))
        if key is None:
            raise NotFoundError(
                f"No item with DOI {clean_doi(doi)} in this library.",
                hint="Add the paper to Zotero first, or name it by title or item key.",
            )
        return _match(library, index, library.items[key], "DOI")
    for found in _ARXIV.findall(request.text):
        key = index.arxiv.get(found.casefold())
        if key is not None:
            return _match(library, index, library.items[key], "arXiv id")
    cited = _by_citation_key(library, index, request.text)
    return _match(library, index, cited, "citation key") if cited is not None else None


def _doi_in(text: str) -> str | None:
    from agent_zot.identifiers import DOI

    found = DOI.search(text)
    return found.group(0) if found else None


def _by_citation_key(library: Library, index: PaperIndex, text: str) -> Item | None:
    words = {w.casefold() for w in _CITE_KEY.findall(text) if not _YEAR.match(w)}
    if not words:
        return None
    if index.cite_keys is None:
        from agent_zot.export.bibtex import bibtex_keys

        generated = {cite.casefold(): key for key, cite in bibtex_keys(list(library.items.values())).items()}
        own = {i.citation_key.casefold(): k for k, i in library.items.items() if i.citation_key}
        index.cite_keys = {**generated, **own}
    found = {index.cite_keys[w] for w in words if w in index.cite_keys}
    return library.items[found.pop()] if len(found) == 1 else None


def _match(library: Library, index: PaperIndex, item: Item, how: str) -> PaperMatch:
    copies = index.group_of.get(item.key, ())
    if item.key in copies and copies[0] != item.key and how == "title and authors":
        item = library.items[copies[0]]
    return PaperMatch(item, how, tuple(library.items[k] for k in copies if k != item.key))


def _clues(index: PaperIndex, request: PaperRequest) -> _Clues:
    text = request.text
    phrases = [p.strip() for p in request.quoted if p.strip()]
    phrases += [next(g for g in m.groups() if g) for m in _QUOTED.finditer(text)]
    phrases += [m.group(1) for m in _THE_X_PAPER.finditer(text)]
    named_spans = [m.span() for m in _QUOTED.finditer(text)] + [
        m.span(1) for m in _THE_X_PAPER.finditer(text)
    ]
    tokens, years = _tokens(text, named_spans)
    clues = _Clues(tokens, list(dict.fromkeys(years)), phrases, text)
    for token in tokens:
        _look_up(index, token)
        # "kass and raftery 1995" is an author in any case; a lower-case stranger before a year is not
        token.author_shaped &= token.raw[:1].isupper() or any(
            key in index.surnames.get(token.word, {}) for key in token.hits
        )
    _weigh(index, clues)
    return clues


def _tokens(text: str, named_spans: list[tuple[int, int]]) -> tuple[list[_Token], list[int]]:
    """The request's words as clues, each once, and the years it names. Request words ("summarize",
    "network") are kept only as bonus clues, which a title may hold but no candidate is faulted for lacking."""
    et_al_names = {fold(m.group(1)) for m in _ET_AL.finditer(text)}
    tokens: list[_Token] = []
    years: list[int] = []
    seen: set[str] = set()
    for m in _TOKEN.finditer(text):
        possessive = bool(re.search(r"['’]s$", m.group(0)))
        raw = re.sub(r"['’]s?$", "", m.group(0))
        if _YEAR.match(raw):
            years.append(int(raw[:4]))
            continue
        numeral = raw == "I" and m.start() > 0 and bool(_ROMAN_I.search(text, 0, m.start()))
        named = any(start <= m.start() < end for start, end in named_spans)
        shaped = possessive or bool(_AUTHOR_SHAPE.match(text, m.end())) or _after_by(text, m.start())
        for word in ["i"] if numeral else _words(raw):
            if word in seen or (len(word) < 2 and not word.isdigit() and not numeral):
                continue
            seen.add(word)
            token = _Token(word, raw, named, possessive, word in et_al_names)
            token.author_shaped = shaped and word not in _REQUEST_WORDS and not word.isdigit()
            token.bonus = word in _REQUEST_WORDS and not token.author_shaped and not numeral
            if not (token.bonus and (word in STOPWORDS or len(word) < 3)):
                tokens.append(token)
    return tokens, years


_ROMAN_I = re.compile(r"[A-Z][\w-]*\s+$")  # "Conditioning I": the numeral, not the pronoun
_AUTHOR_SHAPE = re.compile(
    r"\s*(?:,\s*|\()?(?:1[5-9]|20)\d{2}\b|\s+et\.?\s*al\b|\s*(?:and|&)\s+\w+(?:\s*,?\s*\(?(?:1[5-9]|20)\d{2}\b)",
    re.IGNORECASE,
)
_BY = re.compile(r"\b(?:by|from|with)\s+$", re.IGNORECASE)


def _after_by(text: str, start: int) -> bool:
    return bool(_BY.search(text[max(0, start - 6) : start]))


def _looks_like_name(token: _Token, text: str) -> bool:
    """Capitalised or an acronym, and not merely the first word of the request."""
    raw = token.raw
    if not raw[:1].isupper():
        return False
    return sum(c.isupper() for c in raw) >= 2 or not text.lstrip().startswith(raw)


def _look_up(index: PaperIndex, token: _Token) -> None:
    word, hits = token.word, token.hits
    # "Rossi's ..." names an author: a title that merely mentions Rossi fits it a little
    title_fit = 0.3 if token.author_shaped and word in index.surnames else 1.0
    for key in index.title_words.get(word, ()):
        hits[key] = title_fit
    for key, position in index.surnames.get(word, {}).items():
        fit = 1.0 if position == 0 or not token.first_author else 0.5
        hits[key] = max(hits.get(key, 0.0), fit)
    if hits or token.bonus:
        return
    capitals = sum(c.isupper() for c in token.raw)
    if capitals >= 2 and (len(word) >= 3 or token.raw.isupper()) and word.isalnum():
        for key in index.acronyms.get(word, ()) or _loose_acronym(index, word):
            hits[key] = 0.85
    if hits:
        return
    for key in index.title_stems.get(_stem(word), ()):  # "augmentation" for "Augmenting"
        hits[key] = 0.85
    if hits:
        return
    for key in index.given_names.get(word, ()):
        hits[key] = 0.3
    for key in index.other_words.get(word, ()):  # a word of the venue or a tag only: it still points there
        hits[key] = max(hits.get(key, 0.0), 0.7)
    if hits or len(word) < _MIN_FUZZY_LEN or word.isdigit():
        return
    for close, score, _ in process.extract(
        word, index.vocabulary, scorer=fuzz.ratio, limit=3, score_cutoff=_FUZZY_CUTOFF
    ):
        fit = 0.8 * score / 100
        for key in index.title_words.get(close, ()):
            hits[key] = max(hits.get(key, 0.0), fit)
        for key in index.surnames.get(close, {}):
            hits[key] = max(hits.get(key, 0.0), fit)


def _loose_acronym(index: PaperIndex, acronym: str) -> set[str]:
    """Titles whose word initials spell a 4-6 letter acronym in order, function words skipped freely and at
    most one other word ("ISLR": Introduction to Statistical Learning with Applications in R)."""
    if not 4 <= len(acronym) <= 6 or not acronym.isalpha():
        return set()
    return {key for key, item in index.items.items() if _spells(acronym, _initials(item.title))}


def _initials(title: str) -> list[tuple[str, bool]]:
    """(initial, is a function word) of each word of a title."""
    return [(w[0].lower(), w.lower() in STOPWORDS) for w in re.findall(r"[^\W\d_]\w*", title)]


def _spells(acronym: str, initials: list[tuple[str, bool]]) -> bool:
    for start, (letter, _) in enumerate(initials):
        if letter != acronym[0]:
            continue
        position, skipped, matched = start, 0, 1
        for wanted in acronym[1:]:
            position += 1
            while position < len(initials) and initials[position][0] != wanted:
                skipped += not initials[position][1]
                position += 1
            if position >= len(initials) or skipped > 1:
                break
            matched += 1
        if matched == len(acronym):
            return True
    return False


def _weigh(index: PaperIndex, clues: _Clues) -> None:
    """Rare words weigh more (inverse document frequency). A word the library lacks weighs only when it
    looks like a name (a paper or author that is not there); lower-case strangers are the question's words."""
    has_named = any(t.named for t in clues.tokens)
    unknown = 0.7 * math.log(1 + index.size)
    for token in clues.tokens:
        if token.hits:
            token.weight = math.log(1 + index.size / len(token.hits))
            if token.bonus:
                token.weight *= 0.25
                continue
        elif token.bonus:
            continue
        elif token.author_shaped:
            token.weight = 1.5 * unknown  # a named author the library does not have: the paper is not there
        elif _looks_like_name(token, clues.text) or token.named:
            token.weight = unknown
        if token.hits and _looks_like_name(token, clues.text):
            token.weight *= 1.3  # "CiteSee" names a paper more surely than "plain" in "in plain words"
        if token.named:
            token.weight *= _NAMED_BOOST
        elif has_named and not token.raw[:1].isupper() and not token.word.isdigit():
            token.weight *= _QUESTION_SHARE


# --- scoring and the decision --------------------------------------------------------------------------------


@dataclass(slots=True)
class _Scored:
    keys: tuple[str, ...]  # the copies of one paper, preferred first
    score: float


def _rank(index: PaperIndex, clues: _Clues) -> list[_Scored]:
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
    _named_authors(clues, scores)
    groups: dict[tuple[str, ...], float] = {}
    for key, score in scores.items():
        copies = index.group_of.get(key, (key,))
        groups[copies] = max(groups.get(copies, float("-inf")), score)
    ranked = [_Scored(keys, score) for keys, score in groups.items() if score > 0]
    ranked.sort(key=lambda s: (-s.score, index.items[s.keys[0]].title))
    return ranked


def _year_weight(index: PaperIndex, years: list[int]) -> float:
    count = sum(len(index.years.get(y, ())) for y in years)
    return math.log(1 + index.size / max(1, count))


def _phrase_fit(index: PaperIndex, phrase: str, scores: dict[str, float]) -> None:
    """A quoted or named phrase that is (nearly) a run of a candidate's title adds to it: it tells "What is
    a norm?" from another paper that only shares the word "norm". A long quoted phrase that is nowhere in
    a candidate's title counts against it."""
    words = [w for w in _words(phrase) if w not in _REQUEST_WORDS]
    if len(words) < 2:
        return
    wanted = fold(phrase)
    for key in list(scores):
        fit = fuzz.partial_ratio(wanted, fold(index.items[key].title))
        if fit >= 90:
            scores[key] += 1.0 + 0.5 * len(words)
        elif fit < 70 and len(words) >= 3:
            scores[key] -= 0.5 * len(words)


def _title_cover(index: PaperIndex, clues: _Clues, scores: dict[str, float]) -> None:
    """Of two titles holding the named words, the one those words cover more of is the one named:
    "CARMENES instrument overview" is that paper, not "CARMENES as an Instrument for Exoplanet Research"."""
    named = {t.word for t in clues.tokens}
    for key in list(scores):
        words = {w for w in _words(index.items[key].title) if w not in STOPWORDS}
        if words:
            scores[key] += 1.5 * len(words & named) / len(words)


def _whole_title(index: PaperIndex, clues: _Clues, scores: dict[str, float]) -> None:
    """A request that holds a candidate's whole title (give or take a typo) names that paper, not another
    whose title merely contains the same words ("Algorithms used in the paper <title>")."""
    if not scores:
        return
    text = fold(clues.text)
    top = sorted(scores, key=lambda k: -scores[k])[:_MAX_CANDIDATES]
    for key in top:
        title = fold(index.items[key].title)
        long_enough = len([w for w in _words(title) if w not in STOPWORDS]) >= 3
        if long_enough and len(title) <= len(text) + 2 and fuzz.partial_ratio(title, text) >= 95:
            scores[key] += 0.3 * scores[key]


def _named_authors(clues: _Clues, scores: dict[str, float]) -> None:
    """When the request names an author the library has ("Quintana 2014"), a paper without any named author
    is not the one meant, however well its title words fit."""
    authors = [t for t in clues.tokens if t.author_shaped and t.hits]
    if not authors:
        return
    for key in scores:
        if not any(t.hits.get(key, 0.0) >= 0.5 for t in authors):
            scores[key] *= 0.5


def _decide(index: PaperIndex, clues: _Clues, ranked: list[_Scored]) -> PaperMatch:
    total = sum(t.weight for t in clues.tokens if not t.bonus) + (
        _year_weight(index, clues.years) if clues.years else 0.0
    )
    words = " ".join([*(t.raw for t in clues.tokens if t.weight > 0 and not t.bonus), *map(str, clues.years)])
    if not ranked or total <= 0 or ranked[0].score < _MIN_COVERAGE * total:
        raise _not_found(index, words, ranked)
    best = ranked[0]
    close = [s for s in ranked[1:] if s.score >= _CLOSE_SHARE * best.score]
    if close:
        shown = [best, *close][:_MAX_CANDIDATES]
        raise AmbiguousNameError(
            f"{len(shown)} papers fit {quoted(words)} about equally well; say which one.",
            candidates=[candidate_line(index.items[s.keys[0]]) for s in shown],
            hint="Repeat the request with item_key set to one of the candidates' keys, or add the year "
            "or an author.",
        )
    item = index.items[best.keys[0]]
    how = _how(clues, item)
    return PaperMatch(item, how, tuple(index.items[k] for k in best.keys[1:]))


def _how(clues: _Clues, item: Item) -> str:
    """What identified the paper, for the answer: "author and year", "title words"..."""
    parts = []
    if any(
        t.hits.get(item.key) and t.word in {w for c in item.authors for w in _words(c.last_name)}
        for t in clues.tokens
    ):
        parts.append("author")
    if clues.years and item.year in clues.years:
        parts.append("year")
    if any(t.hits.get(item.key) and t.word in set(_words(item.title)) for t in clues.tokens):
        parts.append("title words")
    elif any(t.hits.get(item.key) for t in clues.tokens if t.word not in set(_words(item.title))):
        parts.append("acronym or close words") if "author" not in parts else None
    return " and ".join(parts) or "title words"


def _not_found(index: PaperIndex, words: str, ranked: list[_Scored]) -> NotFoundError:
    near = [candidate_line(index.items[s.keys[0]]) for s in ranked[:3]]
    hint = ("Closest: " + "; ".join(near) + ".") if near else "Try the item key, the DOI or more title words."
    return NotFoundError(f"No paper in the library matches {quoted(words)}.", hint=hint)


def candidate_line(item: Item) -> str:
    """A candidate as the answer lists it: key, title, year and first author."""
    first = item.authors[0].last_name if item.authors else "no author"
    suffix = " et al." if len(item.authors) > 1 else ""
    return f"{item.key}: {item.title or '(untitled)'} ({item.year or 'n.d.'}, {first}{suffix})"
