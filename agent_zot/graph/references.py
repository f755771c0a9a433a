"""Reference lists: splitting a references section into entries and parsing each entry.

Splitting tries every style it knows (blank-line blocks, "[12]", "12.", "12 " numbering that runs up by
one, author-year entries whose author list is followed by the year, and unnumbered "Surname, I." lists
followed by the title) and keeps the most plausible
split; text where none is plausible gives no entries, since a wrong citation costs more than a missing
one. Parsing is heuristic and never raises: authors' surnames, year, title, venue, DOI and arXiv id.
"""

from __future__ import annotations

import itertools
import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass

from agent_zot.graph.reference_names import (
    CJK_CHAR,
    INITIAL,
    SEMICOLON_AUTHORS,
    author_year_prefix,
    has_sentence_end,
    initials_authors,
    leading_names,
    looks_like_authors,
    surnames,
)
from agent_zot.identifiers import DOI, find_arxiv, find_doi
from agent_zot.text import EAST_ASIAN_CHARACTERS

MIN_ENTRY, MAX_ENTRY = 20, 800

_BRACKET = re.compile(r"\s*\[(\d{1,4})\]\s*")
# GB/T 7714's mark of a journal article, conference paper, thesis, book, report, patent, standard…
_GBT_KIND = re.compile(r"\[(?:J|C|D|M|R|P|S|N|A|G|Z|EB|DB|CP)(?:/OL)?\]")
# ... or the same letters where a PDF lost the brackets, a space left on each side: "分析 J . 学报" (an
# initial has its stop right after it: "Daniel S. Weld")
_GBT_BARE_KIND = re.compile(r"(?<=\S)\s(?:J|C|D|M|R|P|S|N|A|Z|EB/OL)\s[.．]\s")
_GBT_AUTHORS_END = re.compile(r"[.．。](?:\s+|(?=[\u3400-\u9fff]))")
# "van der Berg JH", "Hahn J-O"
_VANCOUVER_NAME = r"[A-Z][\w'’-]+(?:\s[a-z]{1,3})?(?:\s[A-Z][\w'’-]+)*\s(?:[A-Z]-[A-Z]|[A-Z]{1,4})"
_VANCOUVER_AUTHORS = re.compile(rf"({_VANCOUVER_NAME}(?:,\s*{_VANCOUVER_NAME})*(?:,?\s*et\s+al)?)\.\s+")
_CJK_BREAK = re.compile(f"(?<=[{EAST_ASIAN_CHARACTERS}])\n(?=[{EAST_ASIAN_CHARACTERS}])")
_WIDE_OR_LIGATURE = re.compile(r"[\u3000\uff01-\uff5e\ufb00-\ufb06]")
_ENTRY_NUMBER = re.compile(r"\s*\[(\d{1,4})\]|\s*(\d{1,4})[.)]\s")
_DOTTED = re.compile(r"\s*(\d{1,4})\.\s+(?=\S)")
_PLAIN = re.compile(r"\s*(\d{1,4})\s+(?=[^\W\d_])")
_MARKER = re.compile(r"\s*(?:\[\d{1,4}\]|\d{1,4}\.(?=\s)|\d{1,4}(?=\s+[^\W\d_]))\s*")
_YEAR = re.compile(r"(?<![\d/.:])(1[89]\d\d|20\d\d|2100)(?:[a-z](?![a-z]))?(?![\d])")
# (a closing mark opening the title too: ”Title”, as some word processors print it)
_QUOTED = re.compile(r"[“\"«”]\s*(.{8,400}?)\s*[”\"»“]|``\s*(.{8,400}?)\s*''|‘‘\s*(.{8,400}?)\s*’’")
_SENTENCE_END = re.compile(r"[.?!](?=\s+\S)")
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
_WINDOW_LINES = 14  # lines joined to read an entry's author list, which runs to 40+ names
_JOURNAL_YEAR = re.compile(r"(?!In\s)(.{2,150}?)\s(?:1[89]|20)\d\d,\s*\d")


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


def _author_year_starts(lines: Sequence[str]) -> list[int]:
    starts: list[int] = []
    for i in range(len(lines)):
        if i and (not _LINE_END_OK.search(lines[i - 1]) or _ENDS_WITH_INITIAL.search(lines[i - 1])):
            continue
        window = _join_lines(lines[i : i + _WINDOW_LINES])
        if author_year_prefix(window) is not None:
            starts.append(i)
    return starts


def _initials_starts(lines: Sequence[str]) -> list[int]:
    """Lines that open an entry with a "Surname, I." list and then its title, the year at the end:
    unnumbered ACM lists ("ATTIYA, C., DOLEV, D., AND GIL, J. Title. ..., 1984.") and MDPI's."""
    starts: list[int] = []
    for i in range(len(lines)):
        if i and (not _LINE_END_OK.search(lines[i - 1]) or _ENDS_WITH_INITIAL.search(lines[i - 1])):
            continue
        window = _join_lines(lines[i : i + _WINDOW_LINES])
        if initials_authors(window) is not None or SEMICOLON_AUTHORS.match(window):
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
    ("name-initials", _initials_starts),
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


_STYLE_WEIGHT = {"author-year": 1.0, "name-initials": 1.0, "bracket+author-year": 1.3, "caret": 1.3}


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
    anywhere = _YEAR.search(text)
    return int(anywhere.group(1)) if anywhere else None


def _sentences(text: str) -> list[str]:
    """Split at ". " except after an initial ("A. Aho") or "et al."-like abbreviations."""
    parts: list[str] = []
    start = 0
    for match in _SENTENCE_END.finditer(text):
        word = text[start : match.end()].split()[-1] if text[start : match.end()].split() else ""
        if INITIAL.fullmatch(word.lstrip("(")) or word.lower() in {"al.", "eds.", "ed.", "vs.", "st."}:
            continue
        parts.append(text[start : match.end()].strip())
        start = match.end()
    parts.append(text[start:].strip())
    return [p for p in parts if p]


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
    return CJK_CHAR.sub(r" \g<0> ", text).split()


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


def _split_fields(text: str) -> tuple[tuple[str, ...], str, str]:
    """(authors, title, venue) by the first pattern that fits."""
    block, title, venue = _block_fields(text)
    return (block if isinstance(block, tuple) else surnames(block) if block else ()), title, venue


def _block_fields(text: str) -> tuple[str | tuple[str, ...], str, str]:
    """(author block, or the surnames where the pattern gives them, title, venue)."""
    standard = _gbt_fields(text) or _vancouver_fields(text)
    if standard is not None:
        return standard
    prefix = author_year_prefix(text)
    if prefix is not None:
        block_end, _, year_end = prefix
        year_word = text[block_end:year_end]
        if not year_word.rstrip(")").endswith((".", ":", ",")) and not year_word.endswith(")"):
            return text[:block_end], "", _venue(text[year_end:])  # "Perlmutter S, 1997 Astrophys. J."
        return (text[:block_end], *_title_and_venue(text[year_end:]))
    listed = SEMICOLON_AUTHORS.match(text)
    initialled = initials_authors(text)
    if listed is not None:
        # one name, "SKEEN, D." or "L AMPORT, L.", fits both patterns: the second gives its usual case
        alone = initialled is not None and initialled[0] == listed.end()
        names = initialled[1] if initialled is not None and alone else text[: listed.end()]
        return (names, *_title_before_publisher(text[listed.end() :]))
    if initialled is not None:  # "ATTIYA, C., AND GIL, J. Title. Venue, 1984."
        return (initialled[1], *_title_and_venue(text[initialled[0] :]))
    quoted = _QUOTED.search(text)
    title = _clean_title(next(g for g in quoted.groups() if g)) if quoted else ""
    if quoted and title and looks_like_authors(text[: quoted.start()].rstrip(" ,:")):
        return text[: quoted.start()], title, _venue(text[quoted.end() :])
    colon = text.find(": ")
    if (
        0 < colon < 400 and looks_like_authors(text[:colon]) and not has_sentence_end(text[:colon])
    ):  # "Kopp, O., Zimmermann, O.: Title. In: ..."
        return (text[:colon], *_title_and_venue(text[colon + 2 :]))
    sentences = _sentences(text)
    if len(sentences) >= 2 and looks_like_authors(sentences[0]):
        return sentences[0], _clean_title(sentences[1]), _venue(" ".join(sentences[2:]))
    return leading_names(text), "", ""


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


def parse_reference(raw: str) -> Reference:
    """Parse one reference entry; fields that cannot be found are left empty. Never raises."""
    raw = raw if isinstance(raw, str) else ""
    text = _tidy(re.sub(r"\s+", " ", _compatible(raw)).strip())
    body = _strip_marker(text)
    doi = find_doi(body)
    arxiv = find_arxiv(body)
    # Identifiers and URLs would otherwise pass for years and venues.
    plain = _URL.sub(" ", DOI.sub(" ", body))
    authors, title, venue = _split_fields(plain)
    prefix = author_year_prefix(plain)
    year = prefix[1] if prefix is not None else _find_year(plain)
    if year is not None and not 1800 <= year <= 2100:
        year = None
    return Reference(
        raw=text,
        authors=authors,
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
