"""Section headings in cleaned page texts: cheap line rules, no layout."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from agent_zot.text import CJK_CHARACTERS

_NUMBERED = re.compile(r"(\d{1,2})(?:\.\d{1,2}){0,3}\.?\s+(\S.*)")
# A run-in heading: the number, a few words and a full stop, then its section's first sentence.
_RUN_IN = re.compile(r"(\d{1,2}(?:\.\d{1,2}){0,3}\.?\s+([A-Z][^.!?:;,]{1,70}?)[.:])\s+[A-Z(\"“]")
# A numbered reference entry: a surname and initials ("12. Wang L. A novel …", "3. Smith JA, Roe K.")
_REFERENCE_ENTRY = re.compile(r"\d{1,3}\.?\s+[A-Z][\w'’-]+,?(?:\s+[A-Z]{1,2}\.?)+[,.]?\s")
_RUN_IN_SENTENCE_CASE_WORDS = 3  # "2.1. Data collection. We …"; "1. We propose it. …" is a list item
_NOT_A_HEADING_START = frozenset({"we", "our", "it", "its", "this", "these", "they", "i", "he", "she"})
_ROMAN_NUMBERED = re.compile(r"[IVX]{1,5}\.\s+(\S.*)")
# A lettered subsection under a Roman-numbered section, as IEEE sets them ("B. Spectrum Analysis").
_LETTERED = re.compile(r"[A-H]\.\s+([A-Z][A-Za-z-]*(?: [A-Za-z][A-Za-z-]*){0,6})")
_ALL_CAPS = re.compile(r"[A-Z][A-Z&:,\- ]{3,}")
_SECTION_NAMES = frozenset(
    {
        "abstract",
        "introduction",
        "related work",
        "background",
        "method",
        "methods",
        "methodology",
        "experiments",
        "experimental setup",
        "results",
        "discussion",
        "conclusion",
        "conclusions",
        "limitations",
        "future work",
        "evaluation",
        "acknowledgments",
        "acknowledgements",
        # Sections consumers leave out (section_kinds.EXCLUDED) must be found to be left out.
        "about the authors",
        "biographies",
        "author biographies",
        "appendix",
        "supplementary material",
    }
)
_MAX_HEADING_WORDS = 10
_MAX_SENTENCE_CASE_WORDS = 6
_REPEATED_LABEL = 3
_BODY_LINE_CHARS = 25  # an unnumbered heading must be followed by a line at least this long
# A paragraph heading set on its own line inside a numbered section ("Worker Failure" under "3.3 Fault
# Tolerance"): a few Title Case words between a finished sentence and a new one.
_PARAGRAPH_HEADING = re.compile(r"[A-Z][A-Za-z-]*(?: [A-Za-z][A-Za-z-]*){1,4}")
PARAGRAPH_LEVEL = 9
# Equations set on their own line with their number ("7 SBP = a PTT −2 + b"), and a kernel's definition,
# look like short headings; no section heading holds an operator ("C++" does: a plus needs spaces around it).
_FORMULA = re.compile(r"[=<>≤≥±×·∑∏∫√−^|\[\]{}]|\s\+\s")
# Chinese and Japanese headings. A line of CJK prose wraps as short as a heading, so a heading is told by
# its frame: a chapter ("第 4 章 机器人运动学建模与状态观测"), a section number before CJK words with no
# punctuation ("4.1 本章简述", "1．1．2 经典力学分析", "2.2.2目标识别算法"), or a section's name alone ("摘 要",
# "参考文献"). A figure's or table's label set the same way has its English caption after it ("18 机器人离地"
# over "Fig．18 Robot off the ground").
_CJK = CJK_CHARACTERS
CJK_CHAPTER_MARK = r"第\s*[0-9一二三四五六七八九十]{1,3}\s*[章节篇]"
_CJK_CHAPTER = re.compile(rf"{CJK_CHAPTER_MARK}(?:\s*[{_CJK}].*)?")
_CJK_NUMBERED = re.compile(rf"(\d{{1,2}})(?:[.．]\d{{1,2}}){{0,3}}[.．]?\s*[{_CJK}].*")
_CAPTION_AFTER = re.compile(r"(?:fig(?:ure)?|tab(?:le)?)\s*[.．]?\s*\d", re.IGNORECASE)
_CJK_PUNCTUATION = re.compile(r"[，。；：！？、,;:!?]")
_CJK_HEADING_CHARS = 30
CJK_SECTION_NAMES = frozenset(
    {"摘要", "中文摘要", "英文摘要", "引言", "绪论", "前言", "参考文献", "致谢", "结论", "结语", "总结",
     "结论与展望", "总结与展望", "附录", "讨论", "作者简介",
     # Traditional Chinese and Japanese
     "參考文獻", "致謝", "結論", "緒論", "附錄", "討論", "要旨", "概要", "はじめに", "序論", "緒言", "考察",
     "謝辞", "おわりに", "まとめ"}
)  # fmt: skip
_CJK_NUMBER_SPACE = re.compile(rf"(\d{{1,2}}(?:[.．]\d{{1,2}}){{0,3}})[.．]?(?:\s|(?=[{_CJK}]))")

# A first page numbers its affiliations and marks its authors with them ("2 Indian Institute of Technology
# Madras, Chennai", "1 Personal Health, Philips Research, Royal Philips, Eindhoven", "1 Wei Zhou,2 Ying Xing ,1
# and …"): such a line reads as a numbered heading and is kept apart as one, but starts no section.
_AFFILIATION_WORD = re.compile(
    r"\b(?:universit|institut|department|dept\b|laborator|faculty|college|hospital|school of|academy"
    r"|research\b)",
    re.IGNORECASE,
)
_AUTHOR_MARK = re.compile(r"[^\W\d_]\s?,\s?\d{1,2}\b")  # "Zhou,2", "Xing ,1"
_PLACE_COMMAS = 3  # "Unit, Department, College, London, United Kingdom": no heading lists that much
# A publisher's stamp on the first page, set like a heading over the title or the abstract: kept apart, no
# section's name.
_STAMPS = frozenset(
    {
        "accepted manuscript",
        "author manuscript",
        "article in press",
        "research article",
        "original article",
        "review article",
        "original research",
        "research",
        "open access",
        "preprint",
    }
)
_ACRONYM_CHARS = 4  # a table's column header row is short capitalised abbreviations ("SBP DBP MAP HR")
_SMALL_WORDS = frozenset(
    {"a", "an", "and", "as", "at", "by", "for", "in", "of", "on", "or", "the", "to", "vs", "via"}
)


def _heading_text(line: str) -> str | None:
    """The text after a section number ("3.2 Results" -> "Results"), None when unnumbered."""
    numbered = _NUMBERED.fullmatch(line)
    if numbered:  # "2008 IEEE ..." is not section 2008
        return numbered.group(2) if int(numbered.group(1)) <= 20 else None
    roman = _ROMAN_NUMBERED.fullmatch(line)
    return roman.group(1) if roman else None


def _title_like(words: Sequence[str]) -> bool:
    """Title Case or ALL CAPS: most words of four letters or more start with a capital."""
    long_words = [word for word in words if len(word) >= 4]
    return not long_words or sum(word[0].isupper() for word in long_words) >= 0.7 * len(long_words)


def names_no_section(line: str) -> bool:
    """Whether a line kept apart as a heading starts no section: an affiliation, an author line with
    affiliation marks, a publisher's stamp."""
    return (
        line.lower() in _STAMPS
        or _AUTHOR_MARK.search(line) is not None
        or line.count(",") >= _PLACE_COMMAS
        or ("," in line and _AFFILIATION_WORD.search(line) is not None)
    )


def section_name(heading: str | None) -> str | None:
    """What a chunk's stored section heading cites its words by: a run-in heading's own words, nothing for
    a line that starts no section (indexes made before these were told apart keep both)."""
    if not heading or names_no_section(heading):
        return None
    return _run_in_heading(heading) or heading


def _numbered_heading(line: str) -> bool:
    rest = _heading_text(line)
    if rest is None:
        return False
    words = rest.split()
    # Sentence-case headings are short; longer sentence-case lines are numbered list items or table rows.
    max_words = _MAX_HEADING_WORDS if _title_like(words) else _MAX_SENTENCE_CASE_WORDS
    return (
        rest[0].isupper()
        and len(words) <= max_words
        and not any(word[0].isdigit() for word in words)
        and (rest[-1].isalnum() or rest[-1] == ")")
        and sum(ch.isalpha() for ch in rest) >= 3
    )


def cjk_compact(line: str) -> str:
    """A CJK heading without the spaces set between its characters ("参 考 文 献") or its colon ("摘要：")."""
    return "".join(line.split()).rstrip("：:")


def cjk_section_name(line: str) -> bool:
    return cjk_compact(line) in CJK_SECTION_NAMES


def _cjk_heading(line: str, next_line: str) -> bool:
    """A Chinese or Japanese chapter, numbered section or section name on its own line (see ``_CJK``)."""
    if line.isascii():  # most lines
        return False
    if cjk_section_name(line):
        return True
    if len(line) > _CJK_HEADING_CHARS or _CJK_PUNCTUATION.search(line) or _CAPTION_AFTER.match(next_line):
        return False
    numbered = _CJK_NUMBERED.fullmatch(line)
    return _CJK_CHAPTER.fullmatch(line) is not None or (numbered is not None and int(numbered.group(1)) <= 20)


def _unnumbered_heading(line: str, next_line: str) -> bool:
    if len(next_line) < _BODY_LINE_CHARS:
        return False
    if line.lower().rstrip(".:") in _SECTION_NAMES:  # "Abstract." over the abstract
        return True
    return len(line.split()) <= _MAX_HEADING_WORDS and _ALL_CAPS.fullmatch(line) is not None


def _paragraph_heading(previous: str, line: str, next_line: str) -> bool:
    """Every word capitalised but the small ones, after a line that ends a sentence and before one that
    starts a long one: a wrapped line inside a paragraph, a title or an author line has no such frame."""
    if not previous.endswith((".", "!", "?")) or not _PARAGRAPH_HEADING.fullmatch(line):
        return False
    words = line.split()
    return (
        all(word[0].isupper() or word in _SMALL_WORDS for word in words)
        and len(next_line) >= _BODY_LINE_CHARS
        and next_line[0].isupper()
    )


def _run_in_heading(line: str) -> str | None:
    """A numbered heading that its section's first sentence runs on from ("2.1. Online Database. The
    University of Queensland …", "3. Interpolation and Extrapolation: Interpolation is …"), or None."""
    run_in = _RUN_IN.match(line)
    if run_in is None:
        return None
    words = run_in.group(2).split()
    if words[0].lower() in _NOT_A_HEADING_START or _REFERENCE_ENTRY.match(line):
        return None
    long_words = [word for word in words if len(word) >= 4]
    max_words = _MAX_HEADING_WORDS if long_words and _title_like(words) else _RUN_IN_SENTENCE_CASE_WORDS
    return run_in.group(1) if len(words) <= max_words and _numbered_heading(run_in.group(1)[:-1]) else None


def heading_lines(text: str) -> list[tuple[int, int]]:
    """(start, end) offsets of the heading lines of ``text`` (a page, or a chunk of pages), by the rules
    of ``find_headings``; of a run-in heading, the heading alone."""
    found, offset, previous = [], 0, ""
    lines = text.split("\n")
    for i, raw in enumerate(lines):
        line = raw.strip()
        next_line = lines[i + 1].strip() if i + 1 < len(lines) else ""
        heading = _run_in_heading(line) if line[:1].isdigit() else None
        if heading is None and line and len(line) <= 80 and _is_heading(previous, line, next_line):
            heading = line
        if heading is not None:
            start = offset + raw.index(line)
            found.append((start, start + len(heading)))
        offset += len(raw) + 1
        previous = line or previous
    return found


def _is_heading(previous: str, line: str, next_line: str) -> bool:
    # What a heading looks like first, then what it may not hold: most lines fail the first cheaply.
    return (
        _numbered_heading(line)
        or _unnumbered_heading(line, next_line)
        or _paragraph_heading(previous, line, next_line)
        or _lettered_heading(previous, line, next_line)
        or _cjk_heading(line, next_line)
    ) and not (_FORMULA.search(line) or _column_header_row(line))


def _column_header_row(line: str) -> bool:
    """A table's header row: three or more capitalised abbreviations and nothing else ("SBP DBP MAP HR",
    "ME STD MAE RMSE ME STD MAE RMSE"); a heading names its section in words ("DATA AND CODE")."""
    words = [word for word in (_heading_text(line) or line).split() if word.lower() not in _SMALL_WORDS]
    return len(words) >= 3 and all(len(word) <= _ACRONYM_CHARS and word.isupper() for word in words)


def _lettered_heading(previous: str, line: str, next_line: str) -> bool:
    """A lettered heading ("B. Spectrum Analysis"): a letter, then Title Case words, between a finished
    sentence (or the section's own heading) and a long line that starts a sentence; one word only when it
    names a section ("A. Methods"): an initial and a surname ("H. Smith") is an author list's line."""
    if line[1:3] != ". ":  # most lines: no regular expression
        return False
    lettered = _LETTERED.fullmatch(line)
    if lettered is None or len(next_line) < _BODY_LINE_CHARS or not next_line[0].isupper():
        return False
    words = lettered.group(1).split()
    framed = previous.endswith((".", "!", "?", ":")) or _numbered_heading(previous)
    named = len(words) >= 2 or words[0].lower() in _SECTION_NAMES  # "A. Methods", not "H. Smith"
    return framed and named and all(w[0].isupper() or w in _SMALL_WORDS for w in words)


def heading_level(heading: str) -> int:
    """1 for "3 Implementation", "INTRODUCTION" or "Related Work", 2 for "3.3 Fault Tolerance", deeper than
    any numbered heading for a paragraph heading ("Worker Failure")."""
    numbered = _CJK_NUMBER_SPACE.match(heading)
    if numbered:
        return len(re.findall(r"[.．]", numbered.group(1))) + 1
    if _CJK_CHAPTER.fullmatch(heading) or cjk_section_name(heading):
        return 1
    if _LETTERED.fullmatch(heading):
        return 2
    known = (
        heading.isupper()
        or heading.lower().rstrip(".:") in _SECTION_NAMES
        or _ROMAN_NUMBERED.fullmatch(heading)
    )
    return 1 if known else PARAGRAPH_LEVEL


def find_headings(pages: Sequence[str], numbers: Sequence[int]) -> list[tuple[int, str]]:
    """(page number, heading) for short numbered, all-caps/known-name or paragraph-heading lines followed by
    body text."""
    headings: list[tuple[int, str]] = []
    for number, page in zip(numbers, pages, strict=True):
        headings += [(number, page[start:end]) for start, end in heading_lines(page)]
    # The same "heading" three times over is a figure or table label ("1 Trace", "LPTF").
    counts = Counter(text for _, text in headings)
    return [
        (number, text)
        for number, text in headings
        if counts[text] < _REPEATED_LABEL and not names_no_section(text)
    ]
