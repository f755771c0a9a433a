"""The clues in one request's words: each word looked up in the library's tables (title words, stems,
surnames, acronyms, venues, close spellings) and weighed by how rare it is there; years; quoted and "the X
paper" phrases, which weigh more than the question around them; author-shaped words ("Okafor 2019",
"Rossi's", "by Lee")."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from rapidfuzz import fuzz, process

from agent_zot.services.resolve.paper_index import (
    MIN_FUZZY_LEN,
    TOKEN,
    PaperIndex,
    abstract_words,
    loose_acronym,
    same_stem,
    title_acronym,
    words,
)
from agent_zot.text import STOPWORDS, fold

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
REQUEST_WORDS = frozenset(_REQUEST_TEXT.split()) | STOPWORDS
_DOCUMENT_NOUNS = r"(?:paper|article|study|preprint|thesis|book|report|chapter|review|result|theorem|work|one|manual|survey)"
# "the S2ORC paper", "this BERT preprint": the words between the article and the document noun.
_THE_X_PAPER = re.compile(
    r"(?:\b(?:the|this|that|his|her|their)|['’]s)\s+((?:(?!(?<=\s)(?:the|this|that)\s)[^,.;:?!\"“”()])+?)\s+"
    + _DOCUMENT_NOUNS
    + r"s?\b",
    re.IGNORECASE,
)
_QUOTED = re.compile(r"\"([^\"]{2,300})\"|“([^”]{2,300})”|«([^»]{2,300})»|(?<!\w)'([^']{3,300})'(?!\w)")
YEAR = re.compile(r"^(?:1[5-9]|20)\d{2}[a-z]?$")
_ET_AL = re.compile(r"(\w[\w'’-]*)\s+(?:et\.?\s*al|and\s+colleagues|and\s+others|&\s*al)\b", re.IGNORECASE)

_NAMED_BOOST = 1.6  # words inside quotes or "the X paper" name the paper; the rest may be a question
_QUESTION_SHARE = 0.45  # lower-case words outside a named phrase, when there is one
_FUZZY_CUTOFF = 85
_ABSTRACT_FIT = 0.5  # a word only the abstract holds points at the paper, less surely than its title


@dataclass(slots=True)
class Token:
    word: str  # folded
    raw: str  # as typed
    named: bool  # inside quotes or "the X paper"
    first_author: bool  # followed by "et al."
    author_shaped: bool = False  # "Okafor 2019", "Rossi's", "by Lee": a surname, if it is anything
    quoted: bool = False  # inside quotes: a title's words, never matched in an abstract
    bonus: bool = False  # a request word ("overview", "network") that a title may also hold: it only adds
    weight: float = 0.0
    hits: dict[str, float] = field(default_factory=dict)  # key → how well it fits (0-1)


@dataclass(slots=True)
class Clues:
    tokens: list[Token]
    years: list[int]
    phrases: list[str]
    text: str


# A request names its paper in its first sentences; what follows a long way after is pasted material, and
# reading it all would only cost time (a 12,000-character request took a second).
MAX_CHARS = 1000


def read_clues(index: PaperIndex, text: str, quoted: tuple[str, ...] = ()) -> Clues:
    """The clues of a request (its first MAX_CHARS characters), looked up and weighed against ``index``."""
    if len(text) > MAX_CHARS:
        cut = text.rfind(" ", 0, MAX_CHARS)
        text = text[: cut if cut > 0 else MAX_CHARS]
    phrases = [p.strip() for p in quoted if p.strip()]
    phrases += [next(g for g in m.groups() if g) for m in _QUOTED.finditer(text)]
    phrases += [m.group(1) for m in _THE_X_PAPER.finditer(text)]
    named_spans = [m.span() for m in _QUOTED.finditer(text)] + [
        m.span(1) for m in _THE_X_PAPER.finditer(text)
    ]
    tokens, years = _tokens(text, named_spans)
    quoted_spans = [m.span() for m in _QUOTED.finditer(text)]
    for token in tokens:
        token.quoted = any(token.raw in text[a:b] for a, b in quoted_spans)
    clues = Clues(tokens, list(dict.fromkeys(years)), phrases, text)
    for token in tokens:
        _look_up(index, token)
        # "kass and raftery 1995" is an author in any case; a lower-case stranger before a year is not
        token.author_shaped &= token.raw[:1].isupper() or any(
            key in index.surnames.get(token.word, {}) for key in token.hits
        )
    _weigh(index, clues)
    return clues


def _tokens(text: str, named_spans: list[tuple[int, int]]) -> tuple[list[Token], list[int]]:
    """The request's words as clues, each once, and the years it names. Request words ("summarize",
    "network") are kept only as bonus clues, which a title may hold but no candidate is faulted for lacking."""
    et_al_names = {fold(m.group(1)) for m in _ET_AL.finditer(text)}
    tokens: list[Token] = []
    years: list[int] = []
    seen: set[str] = set()
    for m in TOKEN.finditer(text):
        possessive = bool(re.search(r"['’]s$", m.group(0)))
        raw = re.sub(r"['’]s?$", "", m.group(0))
        if YEAR.match(raw):
            years.append(int(raw[:4]))
            continue
        numeral = raw == "I" and m.start() > 0 and bool(_ROMAN_I.search(text, 0, m.start()))
        named = any(start <= m.start() < end for start, end in named_spans)
        shaped = possessive or bool(_AUTHOR_SHAPE.match(text, m.end())) or _after_by(text, m.start())
        for word in ["i"] if numeral else words(raw):
            if word in seen or (len(word) < 2 and not word.isdigit() and not numeral):
                continue
            seen.add(word)
            token = Token(word, raw, named, word in et_al_names)
            token.author_shaped = shaped and word not in REQUEST_WORDS and not word.isdigit()
            token.bonus = word in REQUEST_WORDS and not token.author_shaped and not numeral
            if not (token.bonus and (word in STOPWORDS or len(word) < 3)):
                tokens.append(token)
    return tokens, years


_ROMAN_I = re.compile(r"[A-Z][\w-]*\s+$")  # "Conditioning I": the numeral, not the pronoun
_AUTHOR_SHAPE = re.compile(
    r"\s*(?:,\s*|\()?(?:1[5-9]|20)\d{2}\b|\s+et\.?\s*al\b|\s*(?:and|&)\s+\w+(?:\s*,?\s*\(?(?:1[5-9]|20)\d{2}\b)",
    re.IGNORECASE,
)
_BY = re.compile(r"\b(?:by|from|with)\s+(?:[A-Z][\w'’.-]*\s+)?$", re.IGNORECASE)


def _after_by(text: str, start: int) -> bool:
    """After "by" ("by Lee", "by Kyle Lo")."""
    return bool(_BY.search(text[max(0, start - 30) : start]))


def looks_like_name(token: Token, text: str) -> bool:
    """Capitalised or an acronym, and not merely the first word of the request."""
    raw = token.raw
    if not raw[:1].isupper():
        return False
    return sum(c.isupper() for c in raw) >= 2 or not text.lstrip().startswith(raw)


def _look_up(index: PaperIndex, token: Token) -> None:
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
        # a title's acronym first (BFT), then the authors' initials (FLP; "AHF12" with the year's two
        # digits), then a title's looser acronym
        found = title_acronym(index, word) or author_acronym(index, word) or loose_acronym(index, word)
        for key in found:
            hits[key] = 0.85
    if hits:
        return
    for key in same_stem(index, word):  # "augmentation" for "Augmenting"
        hits[key] = 0.85
    if hits:
        return
    for key in index.given_names.get(word, ()):
        hits[key] = 0.3
    for key in index.other_words.get(word, ()):  # a word of the venue or a tag only: it still points there
        hits[key] = max(hits.get(key, 0.0), 0.7)
    if hits:
        return
    for key in () if token.quoted else abstract_words(index).get(word, ()):  # described by what it is
        hits[key] = _ABSTRACT_FIT
    if hits or len(word) < MIN_FUZZY_LEN or word.isdigit():
        return
    for close, score, _ in process.extract(
        word, index.vocabulary, scorer=fuzz.ratio, limit=3, score_cutoff=_FUZZY_CUTOFF
    ):
        fit = 0.8 * score / 100
        for key in index.title_words.get(close, ()):
            hits[key] = max(hits.get(key, 0.0), fit)
        for key in index.surnames.get(close, {}):
            hits[key] = max(hits.get(key, 0.0), fit)


_ACRONYM_YEAR = re.compile(r"([a-z]{2,6})(\d{2})")
LABEL = re.compile(
    r"[A-Z]{2,6}\+?\d{2}"
)  # "CHW21" as written: a citation label, the authors' initials and a year


def author_acronym(index: PaperIndex, word: str) -> set[str]:
    """Papers whose authors' initials spell ``word``; "ahf12": those initials, of a paper from ('')12."""
    found = index.author_acronyms.get(word)
    if found:
        return found
    dated = _ACRONYM_YEAR.fullmatch(word)
    if not dated:
        return set()
    letters, year = dated.group(1), int(dated.group(2))
    return {
        key for key in index.author_acronyms.get(letters, ()) if (index.items[key].year or -1) % 100 == year
    }


def _weigh(index: PaperIndex, clues: Clues) -> None:
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
        elif token.author_shaped or LABEL.fullmatch(token.raw):
            # a named author, or a citation label, the library does not have: the paper is not there
            token.weight = 1.5 * unknown
        elif looks_like_name(token, clues.text) or token.named:
            token.weight = unknown
        if token.hits and looks_like_name(token, clues.text):
            token.weight *= 1.3  # "CiteSee" names a paper more surely than "plain" in "in plain words"
        if token.named:
            token.weight *= _NAMED_BOOST
        elif has_named and not token.raw[:1].isupper() and not token.word.isdigit():
            token.weight *= _QUESTION_SHARE
