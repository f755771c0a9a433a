"""Author lists at the head of a reference: which tokens are names, where the list ends, and the surnames
it gives. The styles: a run of names then a year ("Iz Beltagy, Kyle Lo, and Arman Cohan. 2019."), MDPI's
";"-separated "Surname, I." lists, and the "Surname, I., Surname, I., and Surname, I." lists of ACM journals,
often in capitals ("ATTIYA, C., AND GIL, J.") or in small capitals a page's text split ("L AMPORT, L.").
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from agent_zot.text import EAST_ASIAN_CHARACTERS, STOPWORDS

MAX_AUTHORS = 20
CJK_CHAR = re.compile(f"[{EAST_ASIAN_CHARACTERS}]")

_YEAR_TOKEN = re.compile(r"\(?((?:1[89]|20)\d\d)[a-z]?(?:[–-](?:1[89]|20)?\d\d)?\)?[.,:;]?\)?[.,:;]?")

INITIAL = re.compile(r"(?:[A-Z]{1,4}|[A-Z]-[A-Z]|(?:-?[A-Z][a-z]?\.)+-?)")
_PARTICLES = frozenset(
    [
        "van",
        "von",
        "de",
        "der",
        "den",
        "da",
        "di",
        "del",
        "della",
        "la",
        "le",
        "du",
        "dos",
        "das",
        "bin",
        "ibn",
        "al",
        "el",
        "ter",
        "ten",
        "mac",
        "st",
    ]
)
_PREFIX_CHARS, _PREFIX_TOKENS = 1500, 250  # author lists run to 40+ names
_SUFFIXES = frozenset({"jr", "jr.", "sr", "sr.", "ii", "iii", "iv"})
_CONNECTORS = frozenset({"and", "&", "et", "al", "al.", "und", "y"})

# MDPI and ACS author lists: "Novak, P.; Ferreira, L.M.; van der Berg, J.-P." then the title, no year
# (not Nature's "Alian, A. A. & Shelley, K. H.", whose authors go on after the "&").
_SURNAME = r"[^\W\d_][^\W\d_'’]*(?:[-'’ ][^\W\d_][^\W\d_'’]*){0,3}"
_GIVEN_INITIALS = r"[A-Z]\.(?:\s?-?[A-Z]\.){0,3}"

# (a long list cut short closes with "; et al." or ", et al.")
SEMICOLON_AUTHORS = re.compile(
    rf"(?:{_SURNAME}, {_GIVEN_INITIALS};\s+)*(?:and\s+)?{_SURNAME}, {_GIVEN_INITIALS}(?:[,;]?\s+et\s+al\.)?(?=\s+(?!&|and\s|[A-Z]\.)\S)"
)

# ACM journals' lists (and Chicago's without a year after them): "ATTIYA, C., DOLEV, D., AND GIL, J." or
# "Lamport, L." then the title, the year at the end. A surname part of two letters or more, in capitals
# perhaps split after the first ("L AMPORT": small capitals in a web page's text), hyphenated parts, lower
# case particles before it; stopped initials after it, a suffix after them ("LEWIS, P. M., II.").
_PART = r"(?:[A-Z]\s(?=[A-Z]{2}))?(?![a-z])[^\W\d_](?:[^\W\d_]|['’](?=[^\W\d_]))+"
_PARTICLE = "(?i:" + "|".join(sorted(_PARTICLES, key=len, reverse=True)) + ")"
_INITIALS_SURNAME = rf"(?:{_PARTICLE}\s+)*{_PART}(?:-{_PART})?"
_STOPPED_INITIALS = r"[A-Z]\.(?:\s?-?[A-Z]\.){0,3}(?:,?\s(?:Jr|JR|Sr|SR|II|III|IV)\b\.?)?"
_CONNECTOR = r"(?:and|AND|&|und)\s+"
# a stop printed for the comma after a surname ("AND LYNCH. N."): taken only after another name, in
# capitals, so that a given-name-first "J. R. Smith" is never read as the surname "J"
_INITIALS_NAME = rf"(?:{_INITIALS_SURNAME},\s*{_STOPPED_INITIALS})"
_LATER_NAME = rf"(?:{_INITIALS_NAME}|(?:{_PARTICLE}\s+)*[A-Z][A-Z'’-]+\.\s{_STOPPED_INITIALS})"
INITIALS_AUTHORS = re.compile(
    rf"{_INITIALS_NAME}(?:(?:,\s*(?:{_CONNECTOR})?|\s+{_CONNECTOR}){_LATER_NAME})*(?:,?\s+et\s+al\.)?"
    # what follows is a title: not an initial, a connector (Nature's "Quist, A. B. & Lowe"), a year or
    # a colon (LNCS's "Kopp, O.: Title")
    rf"(?=\s+(?![A-Z]\.|{_CONNECTOR})[“\"‘]?[^\W\d_])"
)
_NAME_IN_LIST = re.compile(rf"(?<![^\W\d_'’-])({_INITIALS_SURNAME}|[A-Z][A-Z'’-]+)[,.]\s*{_STOPPED_INITIALS}")
_SPLIT_CAPITAL = re.compile(r"(?<![^\W\d_])([A-Z])\s(?=[A-Z]{2})")


def initials_authors(text: str) -> tuple[int, tuple[str, ...]] | None:
    """(end of the list, surnames) when ``text`` opens with an ACM-style list (``INITIALS_AUTHORS``);
    surnames in capitals come in the usual case: "L AMPORT" is "Lamport", "VAN R ENESSE" "van Renesse"."""
    found = INITIALS_AUTHORS.match(text)
    if found is None:
        return None
    names = [_SPLIT_CAPITAL.sub(r"\1", m.group(1)) for m in _NAME_IN_LIST.finditer(found.group())]
    return found.end(), tuple(_usual_case(name) for name in names[:MAX_AUTHORS])


def _usual_case(surname: str) -> str:
    if any(ch.islower() for ch in surname):
        return surname
    return " ".join(w.lower() if w.lower() in _PARTICLES else w.title() for w in surname.split())


def author_year_prefix(text: str) -> tuple[int, int, int] | None:
    """(end of the author block, year, end of the year token) when ``text`` opens with a run of name
    tokens followed by a year: "Iz Beltagy, Kyle Lo, and Arman Cohan. 2019.", "Bates DM (2003).",
    "Bar-Haim, R., Dagan, I. 2006.", "Perlmutter S et al, 1997 Astrophys."."""
    tokens = list(re.finditer(r"\S+", text[:_PREFIX_CHARS]))[:_PREFIX_TOKENS]
    names = lowercase = 0
    for i, token in enumerate(tokens):
        word = token.group()
        if _lowercase_name_part(word, i, tokens) and not lowercase:
            lowercase += 1  # "Cheng xiang Zhai": one lowercase part of a name, never a word like "of"
            continue
        year = _YEAR_TOKEN.fullmatch(word)
        if year is not None and names:
            if not _year_closes_block(text, token.start(), token.end(), word, names):
                return None
            return token.start(), int(year.group(1)), token.end()
        before_year = i + 1 < len(tokens) and _YEAR_TOKEN.fullmatch(tokens[i + 1].group()) is not None
        if not _name_token(word) or (_ends_sentence(word) and not before_year):
            return None
        names += word.strip(",;.()").lower() not in _CONNECTORS
    return None


def _lowercase_name_part(word: str, i: int, tokens: Sequence[re.Match[str]]) -> bool:
    if (
        not word.isalpha()
        or not word.islower()
        or (word in STOPWORDS and word not in _PARTICLES)
        or not 0 < i < len(tokens) - 1
    ):
        return False
    return _name_token(tokens[i - 1].group()) and tokens[i + 1].group()[:1].isupper()


def _ends_sentence(word: str) -> bool:
    """A name token that ends a sentence ("ICCSA.", "Scientometrics.") inside an author block means the
    block is the tail of one entry and the head of the next; only the token before the year may."""
    core = word.rstrip(",;")
    if (
        not core.endswith(".")
        or INITIAL.fullmatch(core)
        or core.lower() in {"al.", "jr.", "sr.", "eds.", "ed."}
    ):
        return False
    return sum(ch.isalpha() for ch in core) >= 3 and "." not in core[:-1]


def _year_closes_block(text: str, start: int, end: int, word: str, names: int) -> bool:
    """The year ends the author block: the block ended in punctuation or the year is in parentheses,
    and what follows is not running prose ("See Wang et al. (2020) for details"). A lone word before
    ", 2016." is a venue ("Database, 2016."), not an author."""
    before = text[:start].rstrip()
    if not (word.startswith("(") or before.endswith((".", ",", ":"))):
        return False
    if names == 1 and before.endswith(",") and " " not in before.strip():
        return False
    after = text[end:].lstrip()
    return not after or word[-1] in ".,:;" or not after[0].islower()


def _name_token(word: str) -> bool:
    if word.endswith(":"):  # "Collabra: Psychology (2021)." is a title, and LNCS's "Kopp, O.:" has no year
        return False
    core = word.strip(",;()")
    if core.lower() in _CONNECTORS or core.lower() in _PARTICLES or core.lower() in _SUFFIXES:
        return True
    if not core or ":" in core or any(ch.isdigit() for ch in core):
        return False
    letters = [ch for ch in core if ch.isalpha()]
    if not letters:
        return len(core) == 1  # a stray accent pdfium left alone: "Stanojevic. 2016. ´"
    return letters[0].isupper() and all(ch.isalpha() or ch in ".-'’ˇ´`¨˜" for ch in core)


def surnames(block: str) -> tuple[str, ...]:
    """Surnames from an author list in the usual forms: "Iz Beltagy, Kyle Lo, and Arman Cohan",
    "Bar-Haim, R., Dagan, I.", "Bates DM, DebRoy S", "A. Aho, R. Sethi"."""
    block = re.sub(r"\bet\s*al\b\.?|\(eds?\.?\)|\beds?\.(?=\s|$)|\beditors?\b|等$", " ", block.strip())
    unmarked = _names_without_commas(block)
    if unmarked is not None:
        return unmarked[:MAX_AUTHORS]
    parts = re.split(r"[,;]|\s+and\s+|\s*&\s*|\s+und\s+", block)
    names: list[str] = []
    for part in parts:
        tokens = [t for t in part.strip(" :").split() if t.lower().strip(".") not in _SUFFIXES]
        tokens = [t for t in tokens if any(ch.isalpha() for ch in t)]
        if not tokens or all(INITIAL.fullmatch(t) for t in tokens):
            continue
        trailing = len(tokens)
        while trailing > 1 and INITIAL.fullmatch(tokens[trailing - 1]):
            trailing -= 1
        if trailing < len(tokens):  # "Bates DM", "Sachs R K", "van Stokkum IHM"
            name = " ".join(tokens[:trailing])
        else:
            first = len(tokens) - 1
            while first > 0 and tokens[first - 1].lower() in _PARTICLES:
                first -= 1
            name = " ".join(tokens[first:])
        names.append(name.strip(".,:"))
        if len(names) >= MAX_AUTHORS:
            break
    return tuple(n for n in names if n)


def _names_without_commas(block: str) -> tuple[str, ...] | None:
    """Names a list runs together without commas, as some Chinese journals print them: full Chinese
    names ("于红英 唐德威 王建宇") or surnames each followed by bare initials ("BJELONIC M BELLICOSO C D");
    None for any other block."""
    tokens = block.split()
    if len(tokens) < 2 or re.search(r"[,;&]|\band\b", block):
        return None
    if all(CJK_CHAR.match(t) for t in tokens):
        return tuple(tokens)
    if not all(re.fullmatch(r"[A-Za-z][A-Za-z'-]*", t) for t in tokens) or len(tokens[-1]) != 1:
        return None
    names: list[str] = []
    current: list[str] = []
    for token in tokens:
        if len(token) == 1:  # an initial closes the surname before it
            if current:
                names.append(" ".join(current))
            current = []
        else:
            current.append(token)
    return tuple(names) if names and not current else None


def looks_like_authors(text: str) -> bool:
    tokens = text.split()
    return 0 < len(tokens) <= 90 and all(_name_token(t) for t in tokens)


def has_sentence_end(text: str) -> bool:
    """ "Iz Beltagy and Arman Cohan. Longformer" is authors and a title, not an author list."""
    return any(_ends_sentence(word) for word in text.split())


def leading_names(text: str) -> str:
    """The run of name tokens a title-less physics reference opens with ("Hu W., Barkana, R., &
    Gruzinov A. Phys. Rev. Lett. 85"), when it has initials (so "LuaJIT roadmap" is no author)."""
    run: list[str] = []
    for word in text.split():
        if not _name_token(word) or _ends_sentence(word):
            break
        run.append(word)
    has_initial = any(INITIAL.fullmatch(w.strip(",;&")) for w in run)
    return " ".join(run) if has_initial and len(run) < len(text.split()) else ""
