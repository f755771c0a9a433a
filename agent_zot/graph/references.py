"""Reference lists: splitting a references section into entries and parsing each entry.

Splitting tries every style it knows (blank-line blocks, "[12]", "12.", "12 " numbering that runs up by
one, and author-year entries whose author list is followed by the year) and keeps the most plausible
split; text where none is plausible gives no entries, since a wrong citation costs more than a missing
one. Parsing is heuristic and never raises: authors' surnames, year, title, venue, DOI and arXiv id.
"""

from __future__ import annotations

import itertools
import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass

from agent_zot.identifiers import DOI, find_arxiv, find_doi
from agent_zot.text import STOPWORDS

MAX_AUTHORS = 20
MIN_ENTRY, MAX_ENTRY = 20, 800

_BRACKET = re.compile(r"\s*\[(\d{1,4})\]\s*")
# GB/T 7714's mark of a journal article, conference paper, thesis, book, report, patent, standard…
_GBT_KIND = re.compile(r"\[(?:J|C|D|M|R|P|S|N|A|G|Z|EB|DB|CP)(?:/OL)?\]")
# ... or the same letters where a PDF lost the brackets, a space left on each side: "分析 J . 学报" (an
# initial has its stop right after it: "Daniel S. Weld")
_GBT_BARE_KIND = re.compile(r"(?<=\S)\s(?:J|C|D|M|R|P|S|N|A|Z|EB/OL)\s[.．]\s")
_GBT_AUTHORS_END = re.compile(r"[.．。](?:\s+|(?=[\u3400-\u9fff]))")
_CJK_CHAR = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af\uf900-\ufaff]")
# "van der Berg JH", "Hahn J-O"
_VANCOUVER_NAME = r"[A-Z][\w'’-]+(?:\s[a-z]{1,3})?(?:\s[A-Z][\w'’-]+)*\s(?:[A-Z]-[A-Z]|[A-Z]{1,4})"
_VANCOUVER_AUTHORS = re.compile(rf"({_VANCOUVER_NAME}(?:,\s*{_VANCOUVER_NAME})*(?:,?\s*et\s+al)?)\.\s+")
_CJK_BREAK = re.compile(
    r"(?<=[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af\uf900-\ufaff])\n(?=[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af\uf900-\ufaff])"
)
_WIDE_OR_LIGATURE = re.compile(r"[\u3000\uff01-\uff5e\ufb00-\ufb06]")
_ENTRY_NUMBER = re.compile(r"\s*\[(\d{1,4})\]|\s*(\d{1,4})[.)]\s")
_DOTTED = re.compile(r"\s*(\d{1,4})\.\s+(?=\S)")
_PLAIN = re.compile(r"\s*(\d{1,4})\s+(?=[^\W\d_])")
_MARKER = re.compile(r"\s*(?:\[\d{1,4}\]|\d{1,4}\.(?=\s)|\d{1,4}(?=\s+[^\W\d_]))\s*")
_YEAR = re.compile(r"(?<![\d/.:])(1[89]\d\d|20\d\d|2100)(?:[a-z](?![a-z]))?(?![\d])")
_YEAR_TOKEN = re.compile(r"\(?((?:1[89]|20)\d\d)[a-z]?(?:[–-](?:1[89]|20)?\d\d)?\)?[.,:;]?\)?[.,:;]?")
# (a closing mark opening the title too: ”Title”, as some word processors print it)
_QUOTED = re.compile(r"[“\"«”]\s*(.{8,400}?)\s*[”\"»“]|``\s*(.{8,400}?)\s*''|‘‘\s*(.{8,400}?)\s*’’")
_SENTENCE_END = re.compile(r"[.?!](?=\s+\S)")
_INITIAL = re.compile(r"(?:[A-Z]{1,4}|[A-Z]-[A-Z]|(?:-?[A-Z][a-z]?\.)+-?)")
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
_PREFIX_CHARS, _PREFIX_TOKENS, _WINDOW_LINES = 1500, 250, 14  # author lists run to 40+ names
_SUFFIXES = frozenset({"jr", "jr.", "sr", "sr.", "ii", "iii", "iv"})
_CONNECTORS = frozenset({"and", "&", "et", "al", "al.", "und", "y"})
# Where a venue ends: volume, pages, a year or a number that is not an ordinal ("the 2019 Conference").
_VENUE_CUT = re.compile(
    r",\s*(?:pp?\.|pages?\b|vol(?:ume)?\b|no\.|\d)|\(\d|:\s*\d|\bpp?\.\s*\d|\bpages\s+\d|(?<!the)\s\d|\.\s(?=[A-Z][a-z]{3,}(?![a-z.]))",
    re.IGNORECASE,
)
# Accents pdfium split off their letter ("P ´ erez", "Pleba´nski") and stray ones ("2016. ´ Results").
_SPLIT_ACCENT = re.compile(r"(?<=[^\W\d_]) ?[´`¨˜ˇ˘] ?(?=[^\W\d_A-Z])")
_STRAY_ACCENT = re.compile(r"(?:^|(?<=\s))[´`¨˜ˇ˘](?:\s+|$)")
_URL = re.compile(r"(?:https?://|www\.)\S+", re.IGNORECASE)
_HYPHEN_BREAK = re.compile(r"([^\W\d_])-\n(?=[a-z])")
_LINE_END_OK = re.compile(r"(?:[.)\]>/]|\d|https?://\S+)$")
_ENDS_WITH_INITIAL = re.compile(r"(?:^|[\s.,-])[A-Z]\.$")
# MDPI and ACS author lists: "Novak, P.; Ferreira, L.M.; van der Berg, J.-P." then the title, no year
# (not Nature's "Alian, A. A. & Shelley, K. H.", whose authors go on after the "&").
_SURNAME = r"[^\W\d_][^\W\d_'’]*(?:[-'’ ][^\W\d_][^\W\d_'’]*){0,3}"
_GIVEN_INITIALS = r"[A-Z]\.(?:\s?-?[A-Z]\.){0,3}"
_JOURNAL_YEAR = re.compile(r"(?!In\s)(.{2,150}?)\s(?:1[89]|20)\d\d,\s*\d")
_SEMICOLON_AUTHORS = re.compile(
    rf"(?:{_SURNAME}, {_GIVEN_INITIALS};\s+)*(?:and\s+)?{_SURNAME}, {_GIVEN_INITIALS}(?:,?\s+et\s+al\.)?(?=\s+(?!&|and\s|[A-Z]\.)\S)"
)


@dataclass(frozen=True, slots=True)
class Reference:
    raw: str
    authors: tuple[str, ...] = ()
    year: int | None = None
    title: str = ""
    venue: str = ""
    doi: str | None = None
    arxiv: str | None = None

    def to_dict(self) -> dict[str, object]:
        data = asdict(self)
        data["authors"] = list(self.authors)
        return data


# ---------------------------------------------------------------------------------------------- splitting


def _tidy(text: str) -> str:
    return _STRAY_ACCENT.sub("", _SPLIT_ACCENT.sub("", text))


def _join_lines(lines: Sequence[str]) -> str:
    """One entry from its lines: "exam-/ple" joined without the hyphen, other breaks become spaces."""
    text = _HYPHEN_BREAK.sub(r"\1", "\n".join(line.strip() for line in lines))
    text = _CJK_BREAK.sub("", text)  # Chinese wraps mid-word: no space where a line broke
    return re.sub(r"\s+", " ", text).strip()


def _numbered_starts(lines: Sequence[str], pattern: re.Pattern[str], max_step: int) -> list[int]:
    """Lines whose number continues the list (1, 2, 3...; a step of up to ``max_step`` allows for a lost
    line); numbers that do not continue it ("2072. CEUR-WS.org") are continuation lines."""
    starts: list[int] = []
    last = 0
    for i, line in enumerate(lines):
        match = pattern.match(line)
        if match is None:
            continue
        number = int(match.group(1))
        if (not starts and 1 <= number <= 3) or (starts and last < number <= last + max_step):
            starts.append(i)
            last = number
    return starts


def _author_year_prefix(text: str) -> tuple[int, int, int] | None:
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
        or _INITIAL.fullmatch(core)
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


def _author_year_starts(lines: Sequence[str]) -> list[int]:
    starts: list[int] = []
    for i in range(len(lines)):
        if i and (not _LINE_END_OK.search(lines[i - 1]) or _ENDS_WITH_INITIAL.search(lines[i - 1])):
            continue
        window = _join_lines(lines[i : i + _WINDOW_LINES])
        if _author_year_prefix(window) is not None:
            starts.append(i)
    return starts


def _entries_from_starts(lines: Sequence[str], starts: Sequence[int]) -> list[str]:
    bounds = [*starts, len(lines)]
    return [_join_lines(lines[a:b]) for a, b in itertools.pairwise(bounds)]


def _quality(entries: Sequence[str]) -> float:
    """Characters in entries of a plausible length that carry a year (0 when the split is implausible)."""
    if len(entries) < 2:
        return 0.0
    good = [e for e in entries if MIN_ENTRY <= len(e) <= MAX_ENTRY]
    dated = [e for e in entries if _YEAR.search(e)]
    if len(good) < 0.7 * len(entries) or len(dated) < 0.5 * len(entries):
        return 0.0
    return float(sum(len(e) for e in good if _YEAR.search(e)))


# A web encyclopedia's list: each entry opens with "^" (its link back to the text), then the letters of
# further links when it is cited more than once ("^ a b c Russell, Stuart; ...").
_CARET = re.compile(r"^\^\s+(?:[a-z]\s+)*")


def _caret_starts(lines: Sequence[str]) -> list[int]:
    starts = [i for i, line in enumerate(lines) if line.startswith("^ ")]
    return starts if len(starts) >= 3 else []


_STYLES: tuple[tuple[str, Callable[[Sequence[str]], list[int]]], ...] = (
    ("caret", _caret_starts),
    ("bracket", lambda lines: _numbered_starts(lines, _BRACKET, 3)),
    ("dotted", lambda lines: _numbered_starts(lines, _DOTTED, 2)),
    ("plain", lambda lines: _numbered_starts(lines, _PLAIN, 1)),
    ("author-year", _author_year_starts),
    # Physics lists that group several references under one number ("[2] Hinshaw G et al, 2008 ...",
    # then "Tegmark M et al, 2006 ..." on the next line): each grouped reference starts a line.
    ("bracket+author-year", lambda lines: _grouped_starts(lines)),
)


def _grouped_starts(lines: Sequence[str]) -> list[int]:
    numbered = _numbered_starts(lines, _BRACKET, 3)
    extra = set(_author_year_starts(lines)) - set(numbered)
    # One or two stray name runs in a numbered list are continuation lines, not grouped references.
    if not numbered or len(extra) < max(2, len(numbered) // 10):
        return []
    return sorted({*numbered, *extra})


_STYLE_WEIGHT = {"author-year": 1.0, "bracket+author-year": 1.3, "caret": 1.3}


def split_references_styled(text: str) -> tuple[str, list[str]]:
    """(style, entries) of the most plausible split; ("", []) when none is plausible."""
    blocks = [b for b in re.split(r"\n[ \t]*\n", text.strip()) if b.strip()]
    if len(blocks) >= 2:
        entries = [_join_lines(b.split("\n")) for b in blocks]
        if _quality(entries):
            return "blocks", entries
    lines = [_tidy(line) for line in text.split("\n") if line.strip()]
    best: tuple[float, str, list[str]] = (0.0, "", [])
    for style, finder in _STYLES:
        starts = finder(lines)
        if not starts:
            continue
        entries = _entries_from_starts(lines, starts)
        if style == "caret":
            entries = [_CARET.sub("", entry) for entry in entries]
        # Numbered lists win ties: their markers are less ambiguous than name runs.
        score = _quality(entries) * _STYLE_WEIGHT.get(style, 1.2)
        if score > best[0]:
            best = (score, style, entries)
    return best[1], best[2]


def split_references(text: str) -> list[str]:
    """The entries of a reference section (one string each, line breaks joined), [] when no style fits."""
    return split_references_styled(text)[1]


# ----------------------------------------------------------------------------------------------- parsing


def _find_year(text: str) -> int | None:
    """A year in parentheses, else the first one set off by punctuation (", 2019.", "2007a."), else the
    first one."""
    parenthesised = re.search(r"\((1[89]\d\d|20\d\d)[a-z]?\)", text)
    if parenthesised:  # "(2018)" is a year, "vol. 2072." may not be
        return int(parenthesised.group(1))
    for match in _YEAR.finditer(text):
        before = text[match.start() - 1] if match.start() else " "
        after = text[match.end()] if match.end() < len(text) else "."
        if before in "( ,.;:" and after in ").,;: ":
            return int(match.group(1))
    match = _YEAR.search(text)
    return int(match.group(1)) if match else None


def _sentences(text: str) -> list[str]:
    """Split at ". " except after an initial ("A. Aho") or "et al."-like abbreviations."""
    parts: list[str] = []
    start = 0
    for match in _SENTENCE_END.finditer(text):
        word = text[start : match.end()].split()[-1] if text[start : match.end()].split() else ""
        if _INITIAL.fullmatch(word.lstrip("(")) or word.lower() in {"al.", "eds.", "ed.", "vs.", "st."}:
            continue
        parts.append(text[start : match.end()].strip())
        start = match.end()
    parts.append(text[start:].strip())
    return [p for p in parts if p]


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
        if not tokens or all(_INITIAL.fullmatch(t) for t in tokens):
            continue
        trailing = len(tokens)
        while trailing > 1 and _INITIAL.fullmatch(tokens[trailing - 1]):
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
    if all(_CJK_CHAR.match(t) for t in tokens):
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


def _looks_like_authors(text: str) -> bool:
    tokens = text.split()
    return 0 < len(tokens) <= 90 and all(_name_token(t) for t in tokens)


def _has_sentence_end(text: str) -> bool:
    """ "Iz Beltagy and Arman Cohan. Longformer" is authors and a title, not an author list."""
    return any(_ends_sentence(word) for word in text.split())


def _clean_title(title: str) -> str:
    title = _URL.sub("", title).strip(" .,;:“”\"'‘’`")
    title = re.sub(r"^(?:In:?\s+)", "", title)
    title = re.sub(r",?\s*\(?(?:1[89]|20)\d\d[a-z]?\)?$", "", title).rstrip(" .,;:")  # "..., 2006"
    words = title_words(title)
    # One word, or mostly numbers and abbreviations, is a venue or a page range, not a title.
    if len(words) < 2 or sum(1 for w in words if any(ch.isdigit() for ch in w)) > len(words) / 2:
        return ""
    return title[:400]


def title_words(text: str) -> list[str]:
    """The words of a title; each Chinese, Japanese or Korean character counts as one."""
    return _CJK_CHAR.sub(r" \g<0> ", text).split()


def _venue(rest: str) -> str:
    rest = _URL.sub("", rest).strip(" .,;:")
    rest = re.sub(r"^In:?\s+", "", rest)
    cut = _VENUE_CUT.search(rest)
    venue = rest[: cut.start()] if cut else rest
    return venue.strip(" .,;:(")[:200]


def _title_and_venue(rest: str) -> tuple[str, str]:
    """Title and venue from the text after the authors (and year): a quoted title, else the first
    sentence."""
    quoted = _QUOTED.search(rest[:500])
    if quoted and quoted.start() < 40:
        title = next(g for g in quoted.groups() if g)
        return _clean_title(title), _venue(rest[quoted.end() :])
    sentences = _sentences(rest)
    if not sentences:
        return "", ""
    return _clean_title(sentences[0]), _venue(" ".join(sentences[1:]))


def _title_before_publisher(rest: str) -> tuple[str, str]:
    """MDPI's title: the first sentence, up to a book's "; Publisher: City" (so the city is no title)."""
    sentences = _sentences(rest)
    if not sentences:
        return "", ""
    first, later = sentences[0], sentences[1:]
    cut = first.find("; ")
    if cut > 0:
        first, later = first[:cut], [first[cut + 2 :], *later]
    # The venue ends at "; " (editors, publisher) or, for a journal, at "Year, Volume".
    venue = " ".join(later).split("; ")[0]
    journal = _JOURNAL_YEAR.match(venue)
    return _clean_title(first), journal.group(1).strip(" .,") if journal else _venue(venue)


def _strip_marker(text: str) -> str:
    match = _MARKER.match(text)
    return text[match.end() :] if match else text


def _split_fields(text: str) -> tuple[str, str, str]:
    """(author block, title, venue) by the first pattern that fits."""
    standard = _gbt_fields(text) or _vancouver_fields(text)
    if standard is not None:
        return standard
    prefix = _author_year_prefix(text)
    if prefix is not None:
        block_end, _, year_end = prefix
        year_word = text[block_end:year_end]
        if not year_word.rstrip(")").endswith((".", ":", ",")) and not year_word.endswith(")"):
            return text[:block_end], "", _venue(text[year_end:])  # "Perlmutter S, 1997 Astrophys. J."
        return (text[:block_end], *_title_and_venue(text[year_end:]))
    listed = _SEMICOLON_AUTHORS.match(text)
    if listed is not None:
        return (text[: listed.end()], *_title_before_publisher(text[listed.end() :]))
    quoted = _QUOTED.search(text)
    title = _clean_title(next(g for g in quoted.groups() if g)) if quoted else ""
    if quoted and title and _looks_like_authors(text[: quoted.start()].rstrip(" ,:")):
        return text[: quoted.start()], title, _venue(text[quoted.end() :])
    colon = text.find(": ")
    if (
        0 < colon < 400 and _looks_like_authors(text[:colon]) and not _has_sentence_end(text[:colon])
    ):  # "Kopp, O., Zimmermann, O.: Title. In: ..."
        return (text[:colon], *_title_and_venue(text[colon + 2 :]))
    sentences = _sentences(text)
    if len(sentences) >= 2 and _looks_like_authors(sentences[0]):
        return sentences[0], _clean_title(sentences[1]), _venue(" ".join(sentences[2:]))
    return _leading_names(text), "", ""


def _gbt_fields(text: str) -> tuple[str, str, str] | None:
    """The fields of a GB/T 7714 entry, the Chinese standard, which marks the kind of work after the title:
    "余鹏, 唐东峰, 王英. 平面五杆机构运动学和动力学特性分析[J]. 机械设计与制造, 2007(5): 12-14." or
    "Barron J L, Fleet D J. Performance of Optical Flow Techniques[J]. IJCV, 1994". Its initials carry no
    stops, so the first full stop ends the authors."""
    kind = _GBT_KIND.search(text) or _GBT_BARE_KIND.search(text)
    if kind is None:
        return None
    head = text[: kind.start()]
    stop = _GBT_AUTHORS_END.search(head)
    if stop is None or not _clean_title(head[stop.end() :]):
        return None
    return head[: stop.start()], _clean_title(head[stop.end() :]), _venue(text[kind.end() :].lstrip(".。 /"))


def _vancouver_fields(text: str) -> tuple[str, str, str] | None:
    """The fields of a Vancouver entry, medicine's style, whose initials carry no stops: "Vaswani A,
    Shazeer N, et al. Attention is all you need. In: NeurIPS. 2017." The first stop ends the authors."""
    authors = _VANCOUVER_AUTHORS.match(text)
    # one name with one initial is as likely a first name and a middle initial ("Tom B. Brown, ...")
    if authors is None or ("," not in authors.group(1) and re.search(r"\s[A-Z]$", authors.group(1))):
        return None
    rest = text[authors.end() :]
    stop = re.search(r"[.?!](?=\s|$)", rest)
    title = _clean_title(rest[: stop.end()] if stop else rest)
    if not title:
        return None
    return authors.group(1), title, _venue(rest[stop.end() :] if stop else "")


def _leading_names(text: str) -> str:
    """The run of name tokens a title-less physics reference opens with ("Hu W., Barkana, R., &
    Gruzinov A. Phys. Rev. Lett. 85"), when it has initials (so "LuaJIT roadmap" is no author)."""
    run: list[str] = []
    for word in text.split():
        if not _name_token(word) or _ends_sentence(word):
            break
        run.append(word)
    has_initial = any(_INITIAL.fullmatch(w.strip(",;&")) for w in run)
    return " ".join(run) if has_initial and len(run) < len(text.split()) else ""


def parse_reference(raw: str) -> Reference:
    """Parse one reference entry; fields that cannot be found are left empty. Never raises."""
    raw = raw if isinstance(raw, str) else ""
    text = _tidy(re.sub(r"\s+", " ", _compatible(raw)).strip())
    body = _strip_marker(text)
    doi = find_doi(body)
    arxiv = find_arxiv(body)
    # Identifiers and URLs would otherwise pass for years and venues.
    plain = _URL.sub(" ", DOI.sub(" ", body))
    block, title, venue = _split_fields(plain)
    prefix = _author_year_prefix(plain)
    year = prefix[1] if prefix is not None else _find_year(plain)
    if year is not None and not 1800 <= year <= 2100:
        year = None
    return Reference(
        raw=text,
        authors=surnames(block) if block else (),
        year=year,
        title=title,
        venue=venue,
        doi=doi,
        arxiv=arxiv,
    )


def reference_number(raw: str) -> int | None:
    """The number a numbered list gives the entry ("[12] …", "12. …"), None for an unnumbered one."""
    found = _ENTRY_NUMBER.match(raw)
    return int(found.group(1) or found.group(2)) if found else None


def parse_references(text: str) -> list[Reference]:
    return [parse_reference(entry) for entry in split_references(_compatible(text))]


def _compatible(text: str) -> str:
    """Full-width forms as their plain letters and stops ("Ｒobotics．" → "Robotics."), as Chinese
    typesetting prints Latin text, and ligatures undone ("ﬃ"). Only those: the spacing accents of a PDF's
    "C´el´erier" must stay as they are for the tidying that joins them."""
    return _WIDE_OR_LIGATURE.sub(lambda m: unicodedata.normalize("NFKC", m.group()), text)
