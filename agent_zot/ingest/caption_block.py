"""Where a caption's text ends: the lines below or beside its first line that continue it, and the line
where its table's body begins instead. A line that opens like a caption but continues the sentence above
("... as shown in" / "Table 1: ...") is a mention, not a caption.

Reads a page's lines (text_lines.Segment); boxes in PDF points from the page's top left.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from agent_zot.ingest.text_lines import Box, Segment, is_prose

CAPTION = re.compile(
    r"^\s*(?P<label>Figure|FIGURE|Fig\s?\.?|FIG\s?\.?|Table|TABLE|Tab\s?\.|TAB\s?\.|图|表)\s*"
    r"(?P<num>[A-Z]\.?\d{1,2}|\d{1,3}(?:\s?[.-]\s?\d{1,2})?[a-zA-Z]?|[IVXL]{1,6})(?![A-Za-z0-9.][A-Za-z0-9])"
    r"\s*(?P<after>.?)"
)


def kind_of(label: str) -> str:
    return "table" if label.lower().startswith("tab") or label == "表" else "figure"


# Words after which "Table 1: …" at the start of the next line is the sentence going on ("… are listed
# in\nTable 1: FuzzDelSol finds …"), not a caption.
_LEADS_TO_MENTION = frozenset(
    [
        "in",
        "see",
        "of",
        "from",
        "and",
        "to",
        "by",
        "with",
        "as",
        "shown",
        "listed",
        "given",
        "presented",
        "reported",
        "summarized",
        "summarised",
        "compare",
        "cf",
    ]
)


_CJK_LEADS_TO_MENTION = frozenset("如见由从据按照于在")


def continues_a_sentence(segments: Sequence[Segment], index: int) -> bool:
    """Whether the line above, in the same column and close, ends a sentence fragment that leads into
    this line ("… as shown in" / "Table 1: …")."""
    line = segments[index]
    for above in reversed(segments[max(0, index - 6) : index]):
        gap = line.box[1] - above.box[3]
        same_column = above.box[0] < line.box[2] and above.box[2] > line.box[0]
        if same_column and 0 <= gap <= max(line.height, 1.0) * 0.9:
            if above.text.rstrip()[-1:] in _CJK_LEADS_TO_MENTION:  # "如" / "图 3 所示"
                return True
            last = re.findall(r"[A-Za-z]+\W*$", above.text)
            return bool(last) and last[0].rstrip().lower() in _LEADS_TO_MENTION
    return False


def caption_block(segments: Sequence[Segment], start: int) -> tuple[str, Box]:
    """The caption's first line and the runs that continue it: on the same line, or on the lines below in
    the same column without a gap wider than a line (two lines below a label set on a line of its own,
    "TABLE I" over its centred title; three and a half when nothing is nearer: "FIG. 1." alone, its
    words set further down). It ends where its table's body begins (_opens_body)."""
    first = segments[start]
    parts, (left, top, right, bottom) = [first.text], first.box
    line = max(first.height, 1.0)
    parts_right = first.box[2]
    opening = CAPTION.match(first.text)
    label_alone = opening is not None and not first.text[opening.end("num") :].strip(" .:|—–-")
    table = opening is not None and kind_of(opening.group("label")) == "table"
    last_gap: float | None = None  # between the caption's own lines, not after a label alone
    for index in range(start + 1, min(len(segments), start + 40)):
        segment = segments[index]
        s_left, s_top, s_right, s_bottom = segment.box
        # on the block's last line, just right of the run before; or the next line, in the same column
        same_line = s_top < bottom and s_bottom > bottom - line and -line < s_left - parts_right < line * 6
        title = label_alone and len(parts) == 1
        reach = line * (3.5 if title and _a_title(segment.text) else 2.0 if title else 0.9)
        below = 0 <= s_top - bottom <= reach and s_left < right + line and s_right > left - line
        if not (same_line or below):
            break
        parts_right = s_right
        if CAPTION.match(segment.text) and below:
            break
        if below and not title:
            block = (left, top, right, bottom)
            if _opens_body(segments, index, block, " ".join(parts), last_gap, table):
                break
            last_gap = s_top - bottom
        parts.append(segment.text)
        left, top, right, bottom = (
            min(left, s_left),
            min(top, s_top),
            max(right, s_right),
            max(bottom, s_bottom),
        )
    text = " ".join(parts)
    text = re.sub(r"(\w)[\u00ad\u0002-] (\w)", r"\1\2", text)  # words hyphenated across lines
    return text, (left, top, right, bottom)


def _a_title(text: str) -> bool:
    """A line that can be a caption's words: a few words, not a paragraph's line, not a drawing's
    reference numerals ("102")."""
    return not is_prose(text) and bool(re.search(r"[^\W\d_]{2,}", text))


# Words a caption's line holds and a table's row of headings or figures does not.
_FUNCTION_WORDS = frozenset(
    [
        "a",
        "an",
        "the",
        "of",
        "and",
        "or",
        "in",
        "on",
        "to",
        "for",
        "from",
        "with",
        "by",
        "as",
        "at",
        "is",
        "are",
        "was",
        "were",
        "be",
        "that",
        "which",
        "this",
        "these",
        "its",
    ]
)


def _row_like(text: str) -> bool:
    """A line that can be a table's row: no sentence, no sentence's end, none of the little words that
    run through a caption ("of", "the"; a wrapped title "RESULTS OF THE" has them too)."""
    words = set(re.findall(r"[^\W\d_]+", text.lower()))
    return not is_prose(text) and not text.rstrip().endswith(".") and not words & _FUNCTION_WORDS


def _opens_body(
    segments: Sequence[Segment], index: int, block: Box, text: str, last_gap: float | None, table: bool
) -> bool:
    """Whether the line at ``index``, under a caption ``block`` reading ``text``, is the first row of its
    table rather than more caption: a line that reads as a row (_row_like) and is one of several cells
    on its line, or comes after the caption's sentence has ended, after a wider gap than between the
    caption's own lines, or out of line with it (neither its left edge nor its middle)."""
    segment = segments[index]
    if not table or not _row_like(segment.text):
        return False  # a figure's caption runs on over subscripts set as runs of their own
    line = max(segment.height, 1.0)
    cells = [
        s
        for s in segments[max(0, index - 8) : index + 8]
        if s is not segment
        and s.height < 2 * line  # not a margin's sideways line
        and min(s.box[3], segment.box[3]) - max(s.box[1], segment.box[1]) > 0.5 * line
        and s.box[0] < block[2]
        and s.box[2] > block[0]
        and (s.box[0] > segment.box[2] + line or s.box[2] < segment.box[0] - line)
    ]
    if cells:
        return True
    gap = segment.box[1] - block[3]
    wider = last_gap is not None and gap > last_gap + 0.5 * line
    aligned = (
        abs(segment.box[0] - block[0]) <= line
        or abs((segment.box[0] + segment.box[2]) / 2 - (block[0] + block[2]) / 2) <= line
    )
    return text.rstrip()[-1:] == "." or wider or not aligned
