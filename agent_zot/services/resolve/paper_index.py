"""The lookup tables the paper resolver reads, built once per loaded library: title words and their stems,
surnames by author position, given names, title acronyms, venue and tag words, years, DOIs, arXiv ids, and
which items are copies of one paper."""

from __future__ import annotations

import bisect
import functools
import re
import threading
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import snowballstemmer

from agent_zot.text import CJK_CHARACTERS, STOPWORDS, fold, spaced_cjk
from agent_zot.zotero.copies import copy_groups
from agent_zot.zotero.identifier_table import IdentifierTable
from agent_zot.zotero.models import Item, Library

TOKEN = re.compile(r"\w+(?:['’]\w+)?", re.UNICODE)
ARXIV = re.compile(
    r"(?<![\w.])(\d{4}\.\d{4,5}|[a-z-]+(?:\.[A-Z]{2})?/\d{7})(?:v\d+)?(?![\w.])", re.IGNORECASE
)
_CJK = re.compile(f"[{CJK_CHARACTERS}]")
MIN_FUZZY_LEN = 5


@dataclass(slots=True)
class TitleLines:
    """One short line per title (its initials), all in one text: a search for an acronym runs at C speed
    over every title at once instead of a Python loop over 100,000 of them on each request."""

    text: str
    starts: list[int]
    keys: list[str]

    @classmethod
    def of(cls, rows: Iterable[tuple[str, str]]) -> TitleLines:
        keys, lines, starts, at = [], [], [], 0
        for key, line in rows:
            keys.append(key)
            starts.append(at)
            lines.append(line)
            at += len(line) + 1
        return cls("\n".join(lines), starts, keys)

    def matching(self, pattern: re.Pattern[str]) -> set[str]:
        """Keys of the lines ``pattern`` matches (a pattern that cannot cross a line break)."""
        found: set[str] = set()
        match = pattern.search(self.text)
        while match is not None:
            line = bisect.bisect_right(self.starts, match.start()) - 1
            found.add(self.keys[line])
            following = self.starts[line + 1] if line + 1 < len(self.starts) else len(self.text)
            match = pattern.search(self.text, following)
        return found


@dataclass(slots=True)
class PaperIndex:
    items: dict[str, Item]
    title_words: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    by_prefix: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))  # "augm" → title words
    surnames: dict[str, dict[str, int]] = field(
        default_factory=lambda: defaultdict(dict)
    )  # word → key → position
    given_names: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    # each title's word initials, for the acronyms asked (made by the warm-up or the first acronym)
    title_letters: TitleLines | None = None  # without and with function words: "content|every"
    spelled: TitleLines | None = None  # every word's initial, for loose acronyms
    acronyms: dict[str, set[str]] = field(default_factory=dict)  # acronym → titles it abbreviates, as asked
    # the initials of all the authors' surnames, in order ("flp": Fischer, Lynch and Paterson), 2-6 authors
    author_acronyms: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    other_words: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))  # venue, tags
    # words of the abstract: a paper described by what it is, not by its title (made on first use)
    abstract_words: dict[str, set[str]] | None = None
    years: dict[int, set[str]] = field(default_factory=lambda: defaultdict(set))
    ids: IdentifierTable = field(default_factory=IdentifierTable)  # DOIs, arXiv ids, citation keys
    group_of: dict[str, tuple[str, ...]] = field(default_factory=dict)  # key → every copy of that paper
    vocabulary: list[str] = field(default_factory=list)
    cite_keys: dict[str, str] | None = None  # built on the first request that carries a citation key
    exported: dict[str, str] | None = None  # item key -> the BibTeX key agent-zot's export gives it
    initials: dict[str, list[tuple[str, bool]]] | None = None  # built on the first loose acronym

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


def build_paper_index(library: Library) -> PaperIndex:
    """Tables over any set of items, kept by the caller (the cited works' index keeps its own)."""
    return _build(library)


def _build(library: Library) -> PaperIndex:
    index = PaperIndex(items=dict(library.items), ids=IdentifierTable.of(library.items.values()))
    for key, item in library.items.items():
        for word in words(item.title):
            index.title_words[word].add(key)
        initials = author_initials(item)
        if initials:
            index.author_acronyms[initials].add(key)
        for position, creator in enumerate(item.authors):
            for word in words(creator.last_name):
                if len(word) > 1:
                    index.surnames[word].setdefault(key, position)
            for word in words(creator.first_name):
                if len(word) > 1:
                    index.given_names[word].add(key)
        for word in words(" ".join([item.venue, *item.tag_names()])):
            index.other_words[word].add(key)
        if item.year:
            index.years[item.year].add(key)
    for word in index.title_words:
        if len(word) >= 4 and word.isascii():
            index.by_prefix[word[:4]].add(word)
    index.vocabulary = sorted(
        w for w in {*index.title_words, *index.surnames} if len(w) >= MIN_FUZZY_LEN and not w.isdigit()
    )
    for keys in copy_groups(library.items.values()):
        for key in keys:
            index.group_of[key] = keys
    return index


def author_initials(item: Item) -> str | None:
    """The first letters of the authors' surnames in order, for 2 to 6 authors ("Stein Shiromoto" and
    "Foreman-Mackey" give one letter each); None for other counts or a surname without a letter."""
    authors = item.authors
    if not 2 <= len(authors) <= 6:
        return None
    letters = [next((c for c in fold(a.last_name) if c.isalpha()), "") for a in authors]
    return "".join(letters) if all(letters) and "".join(letters).isascii() else None


def words(text: str) -> list[str]:
    """Folded words; runs of Chinese or Japanese characters also as their character pairs."""
    if not text:
        return []
    folded = fold(text)
    if _CJK.search(folded):
        folded = spaced_cjk(folded)
    return TOKEN.findall(folded.replace("'", " ").replace("’", " "))


_STEMMER = snowballstemmer.stemmer("english")


@functools.lru_cache(maxsize=65_536)
def stem(word: str) -> str:
    return _STEMMER.stemWord(word) if word.isascii() else word


def same_stem(index: PaperIndex, word: str) -> set[str]:
    """Items whose title has a word with the stem of ``word`` ("augmentation" finds "Augmenting"). Only title
    words that begin alike are stemmed, at the first request that needs them, not the whole library's."""
    if len(word) < 4 or not word.isascii():
        return set()
    wanted = stem(word)
    found: set[str] = set()
    for other in index.by_prefix.get(word[:4], ()):
        if stem(other) == wanted:
            found |= index.title_words[other]
    return found


def title_acronym(index: PaperIndex, acronym: str) -> set[str]:
    """Titles whose initials hold ``acronym`` (2-6 letters) as a run of consecutive words, function
    words skipped or kept ("bft": Byzantine Fault Tolerance). Found by a scan of every title's initials
    on the first request that carries the acronym, then kept: a table of every run of every title cost
    each process seconds at start on a large library, for the rare request that names a paper this way."""
    if not 2 <= len(acronym) <= 6:
        return set()
    if acronym not in index.acronyms:
        if index.title_letters is None:
            index.title_letters = TitleLines.of(
                (key, "|".join(_title_initials(item.title))) for key, item in index.items.items()
            )
        index.acronyms[acronym] = index.title_letters.matching(re.compile(re.escape(acronym)))
    return index.acronyms[acronym]


def _title_initials(title: str) -> tuple[str, str]:
    """The initials of a title's words without and with its function words; a hyphenated word gives one
    per part ("Fault-Tolerant" → "ft")."""
    words = [w for w in re.findall(r"[^\W\d_][\w-]*", title) if w]
    parts: list[str] = []
    for word in words:
        parts.extend(p for p in word.split("-") if p)
    content = [p for p in parts if p.lower() not in STOPWORDS]
    return "".join(p[0].lower() for p in content), "".join(p[0].lower() for p in parts)


def loose_acronym(index: PaperIndex, acronym: str) -> set[str]:
    """Titles whose word initials spell a 4-6 letter acronym in order, function words skipped freely and at
    most one other word ("ISLR": Introduction to Statistical Learning with Applications in R)."""
    if not 4 <= len(acronym) <= 6 or not acronym.isalpha():
        return set()
    initials = title_initials(index)
    if index.spelled is None:
        index.spelled = TitleLines.of(
            (key, "".join(letter for letter, _ in letters)) for key, letters in initials.items()
        )
    # the acronym's letters in order within one title, found at C speed; then spelled out properly
    in_order = re.compile("[^\n]*".join(map(re.escape, acronym)))
    return {key for key in index.spelled.matching(in_order) if _spells(acronym, initials[key])}


def abstract_words(index: PaperIndex) -> dict[str, set[str]]:
    """Abstract word → items, made on the first request whose words no title, author, venue or tag holds:
    on a 5,183-item library it took most of the tables' build time, which every other request is spared."""
    if index.abstract_words is None:
        found: dict[str, set[str]] = defaultdict(set)
        for key, item in index.items.items():
            for word in set(words(item.abstract)):
                if len(word) >= 3 and word not in STOPWORDS and not word.isdigit():
                    found[word].add(key)
        index.abstract_words = found
    return index.abstract_words


def title_initials(index: PaperIndex) -> dict[str, list[tuple[str, bool]]]:
    """Each title's word initials, made on the first loose acronym a request carries."""
    if index.initials is None:
        index.initials = {key: _initials(item.title) for key, item in index.items.items()}
    return index.initials


def exported_keys(index: PaperIndex) -> dict[str, str]:
    """Item key -> the BibTeX key agent-zot's export gives it (items out of the trash), made on first use."""
    if index.exported is None:
        from agent_zot.formats.bibtex import bibtex_keys

        index.exported = bibtex_keys([i for i in index.items.values() if not i.deleted])
    return index.exported


def citation_keys(index: PaperIndex) -> dict[str, str]:
    """Citation key (folded) → item key: the items' own keys and the BibTeX keys agent-zot exports, made on
    the first request that carries something shaped like one."""
    if index.cite_keys is None:
        generated = {cite.casefold(): key for key, cite in exported_keys(index).items()}
        own = {cite: keys[-1] for cite, keys in index.ids.citation_keys.items()}
        index.cite_keys = {**generated, **own}
    return index.cite_keys


def warm_paper_index(library: Library, pause: Callable[[], None] = lambda: None) -> None:
    """Everything the resolver reads, made now (the server's warm-up) rather than in a first request;
    ``pause`` is called between tables (the warm-up lets requests go first)."""
    pause()
    index = paper_index(library)
    for make in (
        title_initials,
        lambda i: title_acronym(i, "aa"),  # makes the tables of titles' initials
        lambda i: loose_acronym(i, "aaaa"),
        citation_keys,
    ):
        pause()
        make(index)


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
