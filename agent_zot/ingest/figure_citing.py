"""The sentences of a paper's body text that cite one of its figures, tables or equations.

Only body text counts: the lines of a page outside every figure or table region and caption found on it,
and that read as running text (or sit next to a line that does: a paragraph's short last line; a line of
mathematics as wide as the prose counts). Labels
inside a drawing, a table's rows and captions are not sentences citing anything.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from agent_zot.ingest.clean import normalise_text
from agent_zot.ingest.text_lines import CJK, Box, Segment, is_prose, page_lines

if TYPE_CHECKING:
    from agent_zot.ingest.figures import Element

CITING_PER_ITEM = 3
CJK_PROSE = 10  # Chinese characters that make a line of running text (it has no spaces to count words by)


def _mention(element: Element) -> re.Pattern[str]:
    number = re.escape(element.number)
    # not "Figure 31", "Table III" or "Figure 3.2" for 3 or II; "Fig. 4a" (a panel) and a full stop are
    end = r"(?!\d|\.\d|[^\W\d_]{2}|[IVXL])" if number.isalpha() else r"(?!\d|\.\d|[^\W\d_]{2})"
    if element.kind == "table":
        label = r"(?:Tables?|TABLES?|Tabs?\.)"
    elif element.kind == "figure":
        label = r"(?:Figures?|FIGURES?|Figs?\.|FIGS?\.)"
    else:
        label = r"(?:Equations?|Eqs?\.|Eqns?\.)"
        # "Eq. (4)", "Equation 4", or a bare "(4)" after a space and not "23(4):" in a reference
        return re.compile(rf"(?:\b{label}\s*\(?{number}\)?|(?<=\s)\({number}\)(?![:\d])){end}")
    # "Figure 3", "Figs. 2 and 3", "Figures 2-3"
    return re.compile(rf"\b{label}\s*(?:[A-Z]?\d+[a-z]?\s*(?:,|and|&|-|–)\s*)*{number}{end}")


_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z(\[])")


def _sentence_around(text: str, start: int, end: int) -> str:
    cut = [m.end() for m in _SENTENCE_END.finditer(text, 0, start)]
    begin = cut[-1] if cut else max(0, start - 300)
    after = _SENTENCE_END.search(text, end)
    stop = after.start() if after else min(len(text), end + 300)
    return " ".join(text[begin:stop].split())


def _reads_as_text(line: Segment, column: float) -> bool:
    """Running text: a line of prose, of Chinese, or as wide as the page's lines of prose (``column``)
    and mostly words (a line of mathematics between words)."""
    if is_prose(line.text) or len(CJK.findall(line.text)) >= CJK_PROSE:
        return True
    tokens = line.text.split()
    words = sum(1 for t in tokens if re.fullmatch(r"[^\W\d_]+[,.;:]?", t))
    wide = column > 0 and line.box[2] - line.box[0] >= 0.7 * column
    return wide and len(tokens) >= 5 and words >= 0.5 * len(tokens)


def _inside(line: Box, box: Box) -> bool:
    x, y = (line[0] + line[2]) / 2, (line[1] + line[3]) / 2
    return box[0] - 2 <= x <= box[2] + 2 and box[1] - 2 <= y <= box[3] + 2


def _next_to(line: Segment, other: Segment) -> bool:
    """Whether ``other`` is the line just above or below ``line`` in the same column."""
    gap = max(other.box[1] - line.box[3], line.box[1] - other.box[3])
    same_column = other.box[0] < line.box[2] and other.box[2] > line.box[0]
    return same_column and gap <= max(line.height, other.height, 1.0)


def body_text(segments: Sequence[Segment], boxes: Sequence[Box]) -> str:
    """A page's body text: its lines outside ``boxes`` (the regions and captions found on it) that read
    as running text or sit next to one that does."""
    lines = [line for line in page_lines(segments) if not any(_inside(line.box, box) for box in boxes)]
    prose = sorted(line.box[2] - line.box[0] for line in lines if is_prose(line.text))
    column = prose[len(prose) // 2] if prose else 0.0
    running = [_reads_as_text(line, column) for line in lines]
    kept = [
        line.text
        for i, line in enumerate(lines)
        if running[i]
        or any(running[j] and _next_to(line, lines[j]) for j in range(max(0, i - 2), min(len(lines), i + 3)))
    ]
    return normalise_text("\n".join(kept))


def add_citing(elements: Sequence[Element], page_texts: Sequence[str]) -> None:
    """Up to CITING_PER_ITEM sentences per numbered element that mention it, caption excluded."""
    for element in elements:
        if not element.number:
            continue
        pattern = _mention(element)
        caption_head = " ".join(element.caption.split())[:40]
        for number, text in enumerate(page_texts, 1):
            for match in pattern.finditer(text):
                sentence = _sentence_around(text, match.start(), match.end())
                if caption_head and caption_head[:30] in sentence:
                    continue  # the caption itself, or a sentence run into it by the text layer
                if len(sentence) > 500:
                    sentence = sentence[:499] + "…"
                if (number, sentence) not in element.citing:
                    element.citing.append((number, sentence))
                if len(element.citing) >= CITING_PER_ITEM:
                    break
            if len(element.citing) >= CITING_PER_ITEM:
                break
