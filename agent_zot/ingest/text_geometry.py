"""The lines of a page's text as pdfium gives them, each with where it sits, its font size and whether it
runs sideways: what the line roles (line_roles.py) are decided from.

Cheap on purpose (this runs on every page of every PDF): the text is pdfium's whole-page text, as before;
each line's geometry is read from its first and last characters, not from every
character or every text run. pdfium's text leaves out a few characters of its character list (empty
generated ones), so each line's first character is found in the list by a short forward search.
"""

from __future__ import annotations

import ctypes
import re
from typing import Any, NamedTuple

import pypdfium2.raw as pdfium_c

_LINE = re.compile(r"[^\s][^\r\n]*")  # a line from its first visible character
_SEARCH = 64  # characters of the list searched past where a line's first character is expected


class TextLine(NamedTuple):  # a tuple: made for every line of every page, cheaply
    """One line of the page text with its geometry (boxes from the page's top left, in points)."""

    text: str
    span: tuple[int, int]  # where the line is in the page's raw text
    box: tuple[float, float, float, float] | None  # left, top, right, bottom; None when not located
    size: float = 0.0  # set size (ascent to descent) of its characters, in points
    vertical: bool = False  # set sideways (its characters advance up or down the page)

    @property
    def width(self) -> float:
        return self.box[2] - self.box[0] if self.box else 0.0


def _locate(textpage: Any, text: str, start: int, count: int) -> int | None:
    """The index in pdfium's character list of ``text``'s first character, at ``start`` or a little past."""
    wanted = ord(text[0])
    for index in range(start, min(count, start + _SEARCH)):
        if pdfium_c.FPDFText_GetUnicode(textpage, index) == wanted:
            return index
    return None


def text_lines(textpage: Any, page_height: float) -> tuple[str, list[TextLine]]:
    """pdfium's text of the page (as ``get_text_bounded`` reads it) and its non-blank lines with their
    geometry. A line not found in the character list keeps ``box=None`` (and is read as body)."""
    raw = textpage.get_text_bounded()
    count = pdfium_c.FPDFText_CountChars(textpage)
    handle = textpage.raw
    rect = pdfium_c.FS_RECTF()
    ref, char_box, unicode_of = (
        ctypes.byref(rect),
        pdfium_c.FPDFText_GetLooseCharBox,
        pdfium_c.FPDFText_GetUnicode,
    )
    lines: list[TextLine] = []
    drift = 0  # characters of the list the text has skipped so far
    for match in _LINE.finditer(raw):
        stripped = match.group().rstrip()
        offset = match.start()
        start = offset + drift
        found = (
            start
            if start < count and unicode_of(handle, start) == ord(stripped[0])
            else _locate(handle, stripped, start + 1, count)
        )
        if found is None:
            lines.append(TextLine(stripped, match.span(), None))
            continue
        drift = found - offset
        char_box(handle, found, ref)
        l1, t1, r1, b1 = rect.left, rect.top, rect.right, rect.bottom
        char_box(handle, min(found + len(stripped) - 1, count - 1), ref)
        l2, t2, r2, b2 = rect.left, rect.top, rect.right, rect.bottom
        # sideways when the line advances more up or down the page than across it
        vertical = len(stripped) >= 3 and abs(t1 + b1 - t2 - b2) > 2 * abs(l1 + r1 - l2 - r2)
        # the loose box spans the font's ascent to descent: its height is the set size (the font-size
        # field is often 1, the size being in the text matrix); the larger of the two ends, as one may
        # be a superscript
        size = max(r1 - l1, r2 - l2) if vertical else max(t1 - b1, t2 - b2)
        box = (min(l1, l2), page_height - max(t1, t2), max(r1, r2), page_height - min(b1, b2))
        lines.append(TextLine(stripped, match.span(), box, abs(size), vertical))
    return raw, lines
