"""Reading order of OCR'd lines: by the page's layout regions, column by column.

Engines that do not find columns themselves (RapidOCR) return lines roughly top to bottom across the whole
page, which interleaves the two columns of a paper. Here each line goes to the layout region it lies in; running headers, footers and the text inside
figures are dropped; regions are read in bands separated by full-width regions (a title, a wide table),
and within a band column by column (left column top to bottom, then the next), lines within a region top
to bottom and left to right. Lines outside every region stand as regions of their own.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from agent_zot.ingest.layout import Region
from agent_zot.ingest.ocr import OcrLine

_DROPPED = frozenset({"header", "footer", "figure"})
_INSIDE = 0.5  # share of a line's area that must lie in a region for the line to belong to it
_FULL_WIDTH = 0.55  # a region wider than this share of the page spans the columns
_SAME_COLUMN = 0.3  # horizontal overlap (share of the narrower one) that puts two regions in one column
_SAME_ROW = 0.5  # vertical overlap (share of the lower line) that puts two lines on one row

Box = tuple[float, float, float, float]


@dataclass(slots=True)
class _Block:
    box: Box
    lines: list[OcrLine] = field(default_factory=list)
    dropped: bool = False  # a header, footer or figure: not read, but a wide one still separates bands
    orphan: bool = False  # a line outside every region (consecutive ones are read as one paragraph)


def _overlap(a: float, b: float, c: float, d: float) -> float:
    return max(0.0, min(b, d) - max(a, c))


def _inside(line: Box, region: Box) -> float:
    area = max(1e-6, (line[2] - line[0]) * (line[3] - line[1]))
    return (
        _overlap(line[0], line[2], region[0], region[2])
        * _overlap(line[1], line[3], region[1], region[3])
        / area
    )


def order_lines(lines: Sequence[OcrLine], regions: Sequence[Region], scale: float, page_width: float) -> str:
    """The page's text in reading order: regions separated by a blank line, lines by a newline.

    ``lines`` have pixel boxes of an image rendered at ``scale`` pixels per point; ``regions`` and
    ``page_width`` are in PDF points."""
    scaled = [Region(r.kind, (r.box[0] * scale, r.box[1] * scale, r.box[2] * scale, r.box[3] * scale), r.score)
              for r in regions]  # fmt: skip
    blocks = [_Block(r.box, dropped=r.kind in _DROPPED) for r in scaled]
    for line in lines:
        best, share = None, 0.0
        for index, region in enumerate(scaled):
            inside = _inside(line.box, region.box)
            if inside > share:
                best, share = index, inside
        if best is None or share < _INSIDE:
            blocks.append(_Block(line.box, [line], orphan=True))
        else:
            blocks[best].lines.append(line)
    width = page_width * scale
    placed = [b for b in blocks if b.lines or (b.dropped and b.box[2] - b.box[0] > _FULL_WIDTH * width)]
    ordered = [b for b in _reading_order(placed, width) if b.lines and not b.dropped]
    paragraphs: list[list[str]] = []
    for index, block in enumerate(ordered):
        if not (block.orphan and index and ordered[index - 1].orphan):
            paragraphs.append([])
        paragraphs[-1] += _rows(block.lines)
    return "\n\n".join("\n".join(_join_hyphens(rows)) for rows in paragraphs)


def engine_order(lines: Sequence[OcrLine]) -> str:
    """The text of an engine that orders its own lines: its paragraphs separated by a blank line."""
    paragraphs: list[list[str]] = []
    last = None
    for line in lines:
        if line.paragraph != last:
            paragraphs.append([])
            last = line.paragraph
        paragraphs[-1].append(line.text)
    return "\n\n".join("\n".join(_join_hyphens(rows)) for rows in paragraphs)


def _reading_order(blocks: list[_Block], page_width: float) -> list[_Block]:
    """Bands split by full-width blocks; within a band, columns left to right, each top to bottom."""
    wide = sorted(
        (b for b in blocks if b.box[2] - b.box[0] > _FULL_WIDTH * page_width), key=lambda b: b.box[1]
    )
    narrow = [b for b in blocks if b.box[2] - b.box[0] <= _FULL_WIDTH * page_width]
    ordered: list[_Block] = []
    for block in [*wide, None]:
        limit = block.box[1] if block is not None else float("inf")
        band = [b for b in narrow if (b.box[1] + b.box[3]) / 2 < limit]
        narrow = [b for b in narrow if b not in band]
        ordered += _columns(band)
        if block is not None:
            ordered.append(block)
    return ordered


def _columns(blocks: list[_Block]) -> list[_Block]:
    columns: list[tuple[list[float], list[_Block]]] = []  # ([left, right], blocks)
    for block in sorted(blocks, key=lambda b: b.box[0]):
        left, right = block.box[0], block.box[2]
        for span, members in columns:
            narrower = max(1e-6, min(right - left, span[1] - span[0]))
            if _overlap(left, right, span[0], span[1]) / narrower >= _SAME_COLUMN:
                members.append(block)
                span[0], span[1] = min(span[0], left), max(span[1], right)
                break
        else:
            columns.append(([left, right], [block]))
    columns.sort(key=lambda column: column[0][0])
    return [b for _, members in columns for b in sorted(members, key=lambda b: b.box[1])]


def _rows(lines: list[OcrLine]) -> list[str]:
    """Lines top to bottom; pieces of one row (table cells, a line split by the engine) left to right."""
    rows: list[list[OcrLine]] = []
    for line in sorted(lines, key=lambda item: item.box[1]):
        if rows:
            last = rows[-1][-1]
            height = max(1e-6, min(line.box[3] - line.box[1], last.box[3] - last.box[1]))
            if _overlap(line.box[1], line.box[3], last.box[1], last.box[3]) / height >= _SAME_ROW:
                rows[-1].append(line)
                continue
        rows.append([line])
    return [" ".join(piece.text for piece in sorted(row, key=lambda item: item.box[0])) for row in rows]


def _join_hyphens(rows: list[str]) -> list[str]:
    """A word hyphenated at a line end gets the soft-hyphen mark pdfium would have given it, so the shared
    cleaning joins it by the same rules ("exam-/ple" -> "example", "self-/report" stays)."""
    marked = []
    for index, row in enumerate(rows):
        following = rows[index + 1] if index + 1 < len(rows) else ""
        if len(row) > 2 and row.endswith("-") and row[-2].isalpha() and following[:1].islower():
            row = row[:-1] + "\u00ad"
        marked.append(row)
    return marked
