"""Pictures and rows of a PDF's parts for the assistant: a region or a whole page as a PNG sized for a
multimodal model, and a table's rows as Markdown when its text layer allows."""

from __future__ import annotations

import io
import re
import statistics
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from agent_zot.ingest.figures import opens_caption
from agent_zot.ingest.models import ParseError
from agent_zot.ingest.pdfium import open_pdf
from agent_zot.ingest.text_lines import Box, Segment, is_prose

# The longest side of an image sent to the assistant: enough to read a chart's labels, and about 1,500
# tokens under the usual image-token rules. A region is never enlarged past MAX_SCALE pixels per point.
MAX_SIDE = 1200
MAX_SCALE = 3.0
MARGIN = 6.0  # points around a cropped region, so axis labels at its edge survive


def png_of(path: Path, page: int, box: tuple[float, float, float, float] | None = None) -> bytes:
    """Page ``page`` (1-based) of the PDF, or the region ``box`` of it (points, top-left origin), as PNG."""
    pdf = open_pdf(path)
    try:
        if not 1 <= page <= len(pdf):
            raise ParseError(f"the PDF has {len(pdf)} pages; there is no page {page}")
        pdf_page = pdf[page - 1]
        try:
            width, height = pdf_page.get_width(), pdf_page.get_height()
            left, top, right, bottom = _clamped(box, width, height) if box else (0.0, 0.0, width, height)
            scale = min(MAX_SCALE, MAX_SIDE / max(right - left, bottom - top, 1.0))
            # pypdfium2 crops by the margins to remove, in points: (left, bottom, right, top)
            crop = (left, height - bottom, width - right, top)
            bitmap = pdf_page.render(scale=scale, crop=crop)
            try:
                image = bitmap.to_pil()
                buffer = io.BytesIO()
                image.save(buffer, format="PNG", optimize=True)
                return buffer.getvalue()
            finally:
                bitmap.close()
        finally:
            pdf_page.close()
    finally:
        pdf.close()


def _clamped(
    box: tuple[float, float, float, float], width: float, height: float
) -> tuple[float, float, float, float]:
    left, top, right, bottom = box
    return (
        max(0.0, left - MARGIN),
        max(0.0, top - MARGIN),
        min(width, right + MARGIN),
        min(height, bottom + MARGIN),
    )


def table_markdown(path: Path, page: int, box: tuple[float, float, float, float]) -> str | None:
    """The table in ``box`` as Markdown rows, or None when its text layer cannot be laid out as a grid
    (no text, or fewer than two rows or columns): the caller then sends the image."""
    pdf = open_pdf(path)
    try:
        pdf_page = pdf[page - 1]
        try:
            inside = region_cells(pdf_page, box)
        finally:
            pdf_page.close()
    finally:
        pdf.close()
    rows = _rows(inside)
    if len(rows) < 2:
        return None
    cuts = _column_cuts(rows, box)
    if not cuts:
        return None
    grid = [
        [" ".join(s.text for s in row if _column(s, cuts) == c) for c in range(len(cuts) + 1)] for row in rows
    ]
    grid = [row for row in grid if any(cell for cell in row)]
    if len(grid) < 2:
        return None
    lines = ["| " + " | ".join(cell.replace("|", "\\|") for cell in grid[0]) + " |"]
    lines.append("|" + "---|" * len(grid[0]))
    lines += ["| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |" for row in grid[1:]]
    return "\n".join(lines)


def region_cells(page: Any, box: tuple[float, float, float, float]) -> list[Segment]:
    """The text inside ``box`` as runs split wherever the gap between two characters on a line is wider
    than a word space (pdfium reports a table's whole row as one run)."""
    height = page.get_height()
    textpage = page.get_textpage()
    try:
        chars: list[tuple[str, tuple[float, float, float, float]]] = []
        for index in range(textpage.count_chars()):
            char = textpage.get_text_range(index, 1)
            left, bottom, right, top = textpage.get_charbox(index)
            char_box = (left, height - top, right, height - bottom)
            if char.isspace():
                chars.append((" ", char_box))  # pdfium's own word spaces, boxed or not
            elif right > left and _inside(char_box, box):
                chars.append((char, char_box))
    finally:
        textpage.close()
    return _runs(chars)


def _runs(chars: list[tuple[str, tuple[float, float, float, float]]]) -> list[Segment]:
    """Characters joined into runs; a run ends at a new line or a gap wider than a word space."""
    visible = [b for c, b in chars if c != " "]
    if not visible:
        return []
    size = statistics.median(b[3] - b[1] for b in visible)
    runs: list[Segment] = []
    text, run_box, spaced = "", None, False
    for char, char_box in chars:
        if char == " ":
            spaced = True
            continue
        # overlapping vertically, not aligned tops: a full stop's box is a speck at the baseline
        same_line = run_box is not None and char_box[1] < run_box[3] - 0.5 and char_box[3] > run_box[1] + 0.5
        gap = char_box[0] - run_box[2] if run_box is not None else 0.0
        if run_box is not None and same_line and -size * 0.2 <= gap < size * 0.6:
            # pdfium also puts spaces inside numbers ("8 . 1M"): a space counts only over a real gap
            text += (" " if spaced and gap > size * 0.12 else "") + char
            spaced = False
            run_box = (run_box[0], min(run_box[1], char_box[1]), char_box[2], max(run_box[3], char_box[3]))
            continue
        if run_box is not None and text.strip():
            runs.append(Segment(" ".join(text.split()), run_box))
        text, run_box, spaced = char, char_box, False
    if run_box is not None and text.strip():
        runs.append(Segment(" ".join(text.split()), run_box))
    return runs


def _inside(inner: tuple[float, float, float, float], outer: tuple[float, float, float, float]) -> bool:
    x = (inner[0] + inner[2]) / 2
    y = (inner[1] + inner[3]) / 2
    return outer[0] - 2 <= x <= outer[2] + 2 and outer[1] - 2 <= y <= outer[3] + 2


def _rows(segments: Sequence[Segment]) -> list[list[Segment]]:
    """Segments grouped into lines by their vertical middle, top to bottom, each left to right."""
    if not segments:
        return []
    tolerance = statistics.median(s.height for s in segments) * 0.5
    rows: list[list[Segment]] = []
    for segment in sorted(segments, key=lambda s: (s.box[1] + s.box[3]) / 2):
        middle = (segment.box[1] + segment.box[3]) / 2
        if rows and abs(middle - _middle(rows[-1])) <= tolerance:
            rows[-1].append(segment)
        else:
            rows.append([segment])
    return [sorted(row, key=lambda s: s.box[0]) for row in rows]


def _middle(row: Sequence[Segment]) -> float:
    return statistics.fmean((s.box[1] + s.box[3]) / 2 for s in row)


def _column_cuts(rows: list[list[Segment]], box: tuple[float, float, float, float]) -> list[float]:
    """x positions of the white stripes that run through every multi-cell row: the column boundaries. A
    header or note that spans several columns would cover them, so the stripes are found in the rows with
    the most usual number of cells (when two or more such rows exist) and the others are placed by them."""
    multi = [row for row in rows if len(row) > 1]
    if not multi:
        return []
    usual = statistics.mode(len(row) for row in multi)
    typical = [row for row in multi if len(row) == usual]
    cells = [s for row in (typical if len(typical) >= 2 else multi) for s in row]
    left, right = int(box[0]) - 1, int(box[2]) + 2
    covered = [False] * (right - left + 1)
    for segment in cells:
        for x in range(max(left, int(segment.box[0])), min(right, int(segment.box[2]) + 1)):
            covered[x - left] = True
    first = next(i for i, c in enumerate(covered) if c)
    last = len(covered) - 1 - next(i for i, c in enumerate(reversed(covered)) if c)
    cuts, start = [], None
    for i in range(first, last + 1):
        if not covered[i] and start is None:
            start = i
        elif covered[i] and start is not None:
            if i - start >= 4:  # points of white: narrower gaps are spaces between words
                cuts.append(left + (start + i) / 2)
            start = None
    return cuts


def _column(segment: Segment, cuts: Sequence[float]) -> int:
    middle = (segment.box[0] + segment.box[2]) / 2
    return sum(1 for cut in cuts if middle > cut)


_ROW_GAP = 2.5  # line heights of white that end a table read from the text layer
_STRAY = re.compile(r"(?:[^\W\d_]|[^\w\s])(?:\s[^\W\d_])?")  # one letter or mark, alone or spaced
_MAX_STRAY = 0.25


def text_table_box(path: Path, page: int, caption_box: Box) -> Box | None:
    """Where a table is, from the text layer alone, for when the layout detector found no region for it
    (or one its text does not fill as a grid): the rows of two or more cells under its caption (or above
    it, for a caption set below its table) in the caption's column, up to the first line of prose or a
    wide gap. None when fewer than two such rows are found, when the caption is set sideways (the rows
    then run up the page), or when the rows read as a chart's axis labels (stray letters, not cells)."""
    if caption_box[3] - caption_box[1] > caption_box[2] - caption_box[0]:
        return None
    pdf = open_pdf(path)
    try:
        pdf_page = pdf[page - 1]
        try:
            width, height = pdf_page.get_width(), pdf_page.get_height()
            runs = region_cells(pdf_page, (0.0, 0.0, width, height))
        finally:
            pdf_page.close()
    finally:
        pdf.close()
    low, high = _column_of(caption_box, width) if _two_columns(runs, width) else (0.0, width)
    rows = _rows([r for r in runs if low <= (r.box[0] + r.box[2]) / 2 <= high])
    below = [row for row in rows if min(s.box[1] for s in row) >= caption_box[3] - 1]
    above = [row for row in rows if max(s.box[3] for s in row) <= caption_box[1] + 1]
    found = []
    for side in (below, list(reversed(above))):
        table = _table_rows(side)
        if len(table) >= 2:
            cells = [s for row in table for s in row]
            box = (
                min(s.box[0] for s in cells),
                min(s.box[1] for s in cells),
                max(s.box[2] for s in cells),
                max(s.box[3] for s in cells),
            )
            found.append((max(box[1] - caption_box[3], caption_box[1] - box[3]), box))
    if not found:
        return None
    # rows on both sides (tables stacked with no prose between): the nearer are the caption's; below
    # (the usual side) unless those above are nearer by half a line
    line = caption_box[3] - caption_box[1]
    if len(found) == 2 and found[1][0] < found[0][0] - 0.5 * min(line, 12.0):
        return found[1][1]
    return found[0][1]


def _two_columns(runs: Sequence[Segment], width: float) -> bool:
    """Whether the page is set in two columns: its lines of prose stop short of the middle."""
    prose = [r for r in runs if len(r.text.split()) >= 6]
    across = sum(1 for r in prose if r.box[0] < 0.45 * width and r.box[2] > 0.55 * width)
    return bool(prose) and across < 0.2 * len(prose)


def _column_of(caption_box: Box, width: float) -> tuple[float, float]:
    """The horizontal span a caption's table may use: its column of a two-column page, or the page."""
    if caption_box[2] < 0.55 * width:
        return 0.0, 0.5 * width + 10
    if caption_box[0] > 0.45 * width:
        return 0.5 * width - 10, width
    return 0.0, width


def _table_rows(rows: list[list[Segment]]) -> list[list[Segment]]:
    """The rows nearest the caption (``rows`` ordered away from it) that read as a table's: cells, not a
    sentence, with no wide gap between them. A row of one cell (a label spanning the columns) stays only
    between rows of several."""
    taken: list[list[Segment]] = []
    line = statistics.median(s.height for row in rows for s in row) if rows else 0.0
    for row in rows:
        text = " ".join(s.text for s in row)
        if taken:
            gap = max(
                min(s.box[1] for s in row) - max(s.box[3] for s in taken[-1]),
                min(s.box[1] for s in taken[-1]) - max(s.box[3] for s in row),
            )
            if gap > _ROW_GAP * line:
                break
        if (len(row) == 1 and is_prose(text)) or opens_caption(text):
            break  # a paragraph, or the next table's caption
        taken.append(row)
    while taken and len(taken[-1]) < 2:
        taken.pop()
    cells = [s.text for row in taken for s in row]
    stray = sum(1 for text in cells if _STRAY.fullmatch(text))
    if stray > _MAX_STRAY * max(len(cells), 1):
        return []  # "A", "y", "i t": the letters of a plot's axes, not a table's cells
    return taken if sum(1 for row in taken if len(row) >= 2) >= 2 else []
