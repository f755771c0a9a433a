"""A PDF page's text layer as lines: pdfium's runs with their boxes (from the page's top left), joined into
the lines a reader sees. Some PDFs hold one run per word, set a caption's "Fig. 1." in a font of its own,
split small capitals ("T" + "ABLE"), report a run twice, or turn a table's text sideways: the figure
inventory (figures.py) and a table's rows (figure_render.py) read lines, not runs."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pypdfium2 as pdfium

CJK = re.compile(r"[\u3400-\u9fff]")  # a Chinese or Japanese character


Box = tuple[float, float, float, float]  # left, top, right, bottom, in points from the page's top left


@dataclass(frozen=True, slots=True)
class Segment:
    """A run of text on one line, as pdfium reports it."""

    text: str
    box: Box

    @property
    def height(self) -> float:
        return self.box[3] - self.box[1]


def page_segments(page: Any) -> list[Segment]:
    """The text runs of a pypdfium2 page in content order, boxes from the top left."""
    height = page.get_height()
    textpage = page.get_textpage()
    try:
        found = []
        for index in range(textpage.count_rects()):
            left, bottom, right, top = textpage.get_rect(index)
            text = " ".join(
                unicodedata.normalize("NFKC", textpage.get_text_bounded(left, bottom, right, top)).split()
            )
            if text:
                found.append(Segment(text, (left, height - top, right, height - bottom)))
        return found
    finally:
        textpage.close()


def page_lines(segments: Sequence[Segment]) -> list[Segment]:
    """The runs joined into lines: a run that follows the one before on the same line, close to its
    right, continues it (without a space when the two touch: "T" + "ABLE" set in small capitals). Some
    PDFs hold one run per word, or set a caption's "Fig. 1." in a font of its own: a caption is read from
    its whole line. Runs set sideways (a table turned on its page) are joined the same way, down or up
    the page."""
    lines: list[Segment] = []
    for segment in segments:
        joint = _joint(lines[-1], segment) if lines else None
        if joint is None:
            lines.append(segment)
            continue
        last = lines[-1]
        box = (
            min(last.box[0], segment.box[0]),
            min(last.box[1], segment.box[1]),
            max(last.box[2], segment.box[2]),
            max(last.box[3], segment.box[3]),
        )
        head = last.text
        tail = head.split(" ")[-1]
        if joint == "" and len(tail) < len(segment.text) and segment.text.startswith(tail):
            head = head[: len(head) - len(tail)]  # "Ta" + "Table 2:": a run pdfium reports twice
        lines[-1] = Segment(head + joint + segment.text, box)
    return lines


def _sideways(segment: Segment) -> bool:
    width = segment.box[2] - segment.box[0]
    return len(segment.text) >= 2 and segment.height > 2 * max(width, 0.1)


def _joint(line: Segment, segment: Segment) -> str | None:
    """What joins ``segment`` to the line before it ("" or " "), or None when it starts a new line."""
    if _sideways(line) and (_sideways(segment) or len(segment.text) <= 2):
        width = max(min(line.box[2] - line.box[0], segment.box[2] - segment.box[0]), 1.0)
        overlap = min(line.box[2], segment.box[2]) - max(line.box[0], segment.box[0])
        gap = max(segment.box[1] - line.box[3], line.box[1] - segment.box[3])
        return " " if overlap >= 0.5 * width and -2.0 <= gap <= 1.5 * width else None
    height = max(min(line.height, segment.height), 1.0)
    overlap = min(line.box[3], segment.box[3]) - max(line.box[1], segment.box[1])
    gap = segment.box[0] - line.box[2]
    if overlap < 0.5 * height or not -2.0 <= gap <= 1.5 * max(line.height, segment.height, 1.0):
        return None
    if CJK.match(line.text[-1:]) and CJK.match(segment.text[:1]):
        return ""  # Chinese sets no spaces between words
    return "" if gap < 0.2 * height and line.text[-1:].isalnum() and segment.text[:1].isalnum() else " "


def is_prose(text: str) -> bool:
    """A line of running text: six words or more, nearly all of them words of letters."""
    words = text.split()
    return len(words) >= 6 and sum(1 for w in words if re.fullmatch(r"[^\W\d_]+[,.;:]?", w)) >= 0.8 * len(
        words
    )


def segments_or_none(page: Any) -> list[Segment]:
    try:
        return page_segments(page)
    except pdfium.PdfiumError:  # an unreadable text layer: regions only
        return []
