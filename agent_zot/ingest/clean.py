"""Cleaning extracted text: line breaks, hyphenation, control characters, running headers and footers, and
the cover sheet a repository puts before the paper.

Hyphenation rules (conservative on purpose: a wrongly kept hyphen costs less than a wrongly merged word):

- pdfium marks a hyphen it judged to be a line-end soft hyphen with U+0002 (older builds: U+FFFE, followed
  by the line break); U+00AD is the soft hyphen itself. Such a break followed by a lowercase letter is
  joined without the hyphen ("exam-/ple" -> "example"), except after a few prefixes that are normally
  written with a hyphen ("self-", "cross-", "well-", "half-", "semi-"), after an "-ally" adverb
  ("automatically-/detected") and inside a compound that already has a hyphen ("state-of-the-/art"),
  where the hyphen stays.
- Followed by an uppercase letter or a digit the hyphen stays ("Addison-/Wesley", "IEEE-/754").
- A plain "-" left at a line end (pdfium did not think it was a soft hyphen: "F1-/score", "294-/306")
  stays, and only the line break between the two words is removed.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Sequence

_NEWLINES = re.compile(r"\r\n?|[\x0c\x85\u2028\u2029]")  # form feed: a page break in text files
# Anchored on the marker (cheap); the word before it is looked up only where a marker is.
_MARKED_BREAK = re.compile(r"[\x02\ufffe\u00ad](?:[ \t]*\n[ \t]*)?(?=(\w))")
_WORD_BEFORE = re.compile(r"[^\W\d_]+$")
_PLAIN_BREAK = re.compile(r"(\w)-[ \t]*\n[ \t]*(?=\w)")
# Control characters (but tab and newline), stray hyphen markers, BOM/zero-width space, noncharacters,
# and the private use area (glyphs of symbol fonts without a Unicode mapping: noise to a reader).
_JUNK = re.compile(r"[\x00-\x08\x0b\x0e-\x1f\x7f-\x84\x86-\x9f\u00ad\u200b\ufeff\ufffe\uffff\ue000-\uf8ff]")
_SPACES = re.compile(r"[ \t\u00a0\u2000-\u200a\u202f\u205f\u3000]+")
_LINE_EDGE_SPACE = re.compile(r" ?\n ?")
_BLANK_RUNS = re.compile(r"\n{3,}")

# TeX's spacing accents as pdfium reads them from papers set in Type 1 fonts: "Universit¨at", "S˜ao Paulo",
# "¨Ozg¨ur", "Fran¸cois" or "Franc¸ois", "Cire¸san". Joined to the letter they sit on, so names and words are
# found as written. In running text only an accent touching its letter, and a grave accent only inside a word
# (before a word it is TeX's opening quote, `word'); a title block's lines also take one space ("M ´ uller").
_ACCENT = re.compile(r"(?<![^\sA-Za-z(\[\"“])([´`¨ˆ˜˚ˇ˝])(\s?)([A-Za-zı])")
_CEDILLA = re.compile(r"([CcSsTt])(\s?)¸|(?<=[A-Za-z])¸([CcSsTt])")
_COMBINING = {"´": "\u0301", "`": "\u0300", "¨": "\u0308", "ˆ": "\u0302", "˜": "\u0303", "˚": "\u030a"}
_COMBINING |= {"ˇ": "\u030c", "˝": "\u030b"}


def join_accents(text: str, *, spaced: bool = False) -> str:
    """``text`` with TeX's spacing accents joined to their letters (``spaced``: also one space away)."""
    if not any(mark in text for mark in "´`¨ˆ˜˚ˇ˝¸"):
        return text

    def accent(match: re.Match[str]) -> str:
        mark, gap, letter = match.groups()
        inside = match.start() > 0 and text[match.start() - 1].isalpha()
        if (gap and not spaced) or (mark == "`" and not inside):
            return match.group()
        return unicodedata.normalize("NFC", ("i" if letter == "ı" else letter) + _COMBINING[mark])

    def cedilla(match: re.Match[str]) -> str:
        before, gap, after = match.groups()
        if before is not None and gap and not spaced:
            return match.group()
        return unicodedata.normalize("NFC", (before or after) + "\u0327")

    return _CEDILLA.sub(cedilla, _ACCENT.sub(accent, text))


_HYPHENATED_PREFIXES = frozenset({"self", "cross", "well", "half", "semi"})

_DIGITS = re.compile(r"\d+")
_PAGE_NUMBER = re.compile(
    r"(?:page\s*)?(?:\d{1,5}|[ivxlcdm]{1,7})(?:\s*(?:of|/)\s*\d{1,5})?|[-–—]\s*\d{1,5}\s*[-–—]",
    re.IGNORECASE,
)
_ROMAN = re.compile(r"m{0,3}(?:c[md]|d?c{0,3})(?:x[cl]|l?x{0,3})(?:i[xv]|v?i{0,3})", re.IGNORECASE)
EDGE_LINES = 2  # how many lines at the top and bottom of a page can be running headers/footers


def _join_marked(match: re.Match[str]) -> str:
    before = _WORD_BEFORE.search(match.string, max(0, match.start() - 40), match.start())
    if before is None:  # a marker after a digit or symbol: a glyph without a Unicode mapping
        return ""
    word, following = before.group(), match.group(1)
    in_compound = before.start() > 0 and match.string[before.start() - 1] == "-"  # "state-of-the-/art"
    keep = (
        not following.islower()
        or in_compound
        or word.lower() in _HYPHENATED_PREFIXES
        or (len(word) >= 7 and word.endswith("ally"))
    )
    return "-" if keep else ""


def normalise_text(raw: str) -> str:
    """Line breaks to LF, hyphenated breaks joined, junk removed, spaces collapsed, TeX's spacing accents
    joined to their letters; blank lines kept."""
    text = join_accents(_NEWLINES.sub("\n", raw))
    text = _MARKED_BREAK.sub(_join_marked, text)
    text = _PLAIN_BREAK.sub(r"\1-", text)
    text = _JUNK.sub("", text)
    text = _SPACES.sub(" ", text)
    text = _LINE_EDGE_SPACE.sub("\n", text)
    return _BLANK_RUNS.sub("\n\n", text).strip()


def is_page_number(line: str, label: str | None = None) -> bool:
    """A line that is only a page number or label: "12", "iv", "Page 3 of 9", "- 7 -"."""
    line = line.strip()
    if not line or len(line) > 20:
        return False
    if label and line == label:
        return True
    if not _PAGE_NUMBER.fullmatch(line):
        return False
    letters = line.lower().removeprefix("page").strip()
    if letters.isalpha():  # roman numerals only; "mix" passes, "civil" does not
        return bool(_ROMAN.fullmatch(letters))
    return True


def _line_key(line: str) -> str:
    """Lines that differ only in numbers ("Page 3", "Page 4") are the same running line."""
    return _DIGITS.sub("#", line.lower())


def _edges(lines: Sequence[str]) -> list[tuple[int, str]]:
    """(index, "top"/"bottom") for the first and last EDGE_LINES non-blank lines of a page; headers
    are only compared with headers and footers with footers."""
    filled = [i for i, line in enumerate(lines) if line.strip()]
    return [(i, "top") for i in filled[:EDGE_LINES]] + [(i, "bottom") for i in filled[-EDGE_LINES:]]


def _running_keys(pages: Sequence[Sequence[str]]) -> set[tuple[str, str]]:
    """Edge lines that recur on at least half the pages (or half the odd or even pages, for headers
    that alternate between left and right pages), and on at least 3 pages."""
    total: Counter[tuple[str, str]] = Counter()
    by_parity: tuple[Counter[tuple[str, str]], Counter[tuple[str, str]]] = (Counter(), Counter())
    for number, lines in enumerate(pages, start=1):
        keys = {(edge, _line_key(lines[i])) for i, edge in _edges(lines)}
        total.update(keys)
        by_parity[number % 2].update(keys)
    page_count = len(pages)
    parity_counts = (page_count // 2, (page_count + 1) // 2)
    running = {key for key, n in total.items() if n >= max(3, page_count / 2)}
    for parity, counts in enumerate(by_parity):
        running |= {key for key, n in counts.items() if n >= max(3, parity_counts[parity] / 2)}
    return running


def strip_running_lines(pages: Sequence[str], labels: Sequence[str | None]) -> list[str]:
    """Drop running headers/footers and bare page numbers from the top and bottom lines of each page."""
    split = [page.split("\n") for page in pages]
    running = _running_keys(split) if len(split) >= 3 else set()
    cleaned: list[str] = []
    for lines, label in zip(split, labels, strict=True):
        drop = {
            i
            for i, edge in _edges(lines)
            if (edge, _line_key(lines[i])) in running or is_page_number(lines[i], label)
        }
        kept = [line for i, line in enumerate(lines) if i not in drop]
        cleaned.append(_BLANK_RUNS.sub("\n\n", "\n".join(kept)).strip())
    return cleaned


def drop_listed(text: str, lines: Sequence[str]) -> str:
    """``text`` (normalised) without ``lines`` (raw lines of it, each taken out once)."""
    if not lines:
        return text
    wanted = Counter(normalise_text(line) for line in lines)
    kept = []
    for line in text.split("\n"):
        if wanted[line] > 0:
            wanted[line] -= 1
        else:
            kept.append(line)
    return _BLANK_RUNS.sub("\n\n", "\n".join(kept)).strip()


# The page a repository or a download service puts before a paper (HAL's "HAL Id: hal-00905460 … To cite this
# version", ResearchGate's "See discussions, stats, and author profiles for this publication at: …", Taylor &
# Francis' "This article was downloaded by", JSTOR's terms of use): none of it is the paper's, and its lines
# ("… working on these related projects: …", "ffhal-00905460ff") otherwise read as the paper's first words.
_COVER_SHEET = re.compile(
    r"\bHAL\s+Id\s*:\s*(?:hal|tel|inria|cea|halshs|hal-\w+)-\d+|HAL\s+is\s+a\s+multi-disciplinary\s+open\s+access\s+archive"
    r"|See\s+discussions,\s+stats,\s+and\s+author\s+profiles\s+for\s+this\s+publication\s+at"
    r"|This\s+article\s+was\s+downloaded\s+by\s*:|Your\s+use\s+of\s+the\s+JSTOR\s+archive\s+indicates",
    re.IGNORECASE,
)
_COVER_CHARS = 4000  # a cover sheet is short; a first page of the paper that quotes the phrase is not


def without_cover_sheet(pages: Sequence[str]) -> tuple[list[str], bool]:
    """``pages`` (normalised) with a repository's cover sheet, when the first page is one, left empty (the
    pages keep their numbers: citations stay PDF pages); and whether it was."""
    if len(pages) < 2 or len(pages[0]) > _COVER_CHARS or not _COVER_SHEET.search(pages[0]):
        return list(pages), False
    return ["", *pages[1:]], True
