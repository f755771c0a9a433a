"""The figures, tables and display equations of one PDF: number, caption, page, region, and the sentences
that cite them.

Captions come from the text layer: a line that starts with "Figure 3:", "Fig. 3.", "Table II" and the lines
that follow it in the same block. Regions come from the layout detector (layout.py) and are matched to the
captions on their page (a figure's region is usually above its caption, a table's below); a detected
figure or table with no caption near it is listed unnumbered. Equations are the detector's equation
regions, numbered by the "(4)" the text layer has at their right edge.

Where a caption's text ends: caption_block.py; which region is which caption's: figure_regions.py; the
sentences citing each: figure_citing.py.

Everything is in PDF points with the origin at the page's top left (pdfium's is bottom left).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from agent_zot.ingest import layout
from agent_zot.ingest.caption_block import CAPTION, caption_block, continues_a_sentence, kind_of
from agent_zot.ingest.figure_citing import add_citing, body_text
from agent_zot.ingest.figure_regions import pair_regions
from agent_zot.ingest.pdfium import open_pdf
from agent_zot.ingest.text_lines import CJK, Box, Segment, is_prose, page_lines, segments_or_none

INVENTORY_VERSION = 1
KINDS = ("figure", "table", "equation")
CAPTION_CHARS = 600
# A region the detector found with no caption near it is listed only when it is this large a share of the
# page (small "figures" are logos, icons and mis-detected text).
UNCAPTIONED_MIN_AREA = 0.04
UNCAPTIONED_MIN_SCORE = 0.8

# "图 1 1": a Chinese label's number set one digit a run ("图 11")
_CJK_DIGITS = re.compile(r"^([图表]\s?)((?:\d ){1,2}\d)(?!\d)")
_STRONG_AFTER = frozenset(".:|—–-")
_ROMAN = {"i": 1, "v": 5, "x": 10, "l": 50}


def number_key(number: str) -> str:
    """A printed number as it is compared: "II", "ii" and "2" are one number (IEEE tables are numbered in
    Roman numerals, requests usually in Arabic); anything else as printed, in lower case."""
    text = number.strip().lower()
    if not text or any(c not in _ROMAN for c in text):
        return text
    values = [_ROMAN[c] for c in text]
    total = sum(-v if i + 1 < len(values) and v < values[i + 1] else v for i, v in enumerate(values))
    return str(total)


_EQUATION_NUMBER = re.compile(r"\(\s*([A-Z]?\d{1,3}(?:\.\d{1,2})?[a-z]?)\s*\)\s*$")


@dataclass(slots=True)
class Element:
    """One figure, table or equation."""

    kind: str  # figure | table | equation
    number: str  # as printed ("3", "II", "A1"); "" when unnumbered
    page: int  # 1-based position in the file
    caption: str = ""
    box: tuple[float, float, float, float] | None = None  # the region itself, when detected
    caption_box: tuple[float, float, float, float] | None = None
    citing: list[tuple[int, str]] = field(default_factory=list)  # (page, sentence)

    @property
    def name(self) -> str:
        title = self.kind.capitalize()
        return f"{title} {self.number}" if self.number else f"{title} (unnumbered, p. {self.page})"

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Element:
        boxes = {k: tuple(data[k]) if data.get(k) else None for k in ("box", "caption_box")}
        citing = [(int(page), str(text)) for page, text in data.get("citing", [])]
        return cls(data["kind"], data["number"], int(data["page"]), data["caption"], **boxes, citing=citing)


@dataclass(slots=True)
class Inventory:
    """What one PDF holds, with the page sizes (for cropping) and how long it took to find."""

    elements: list[Element]
    page_sizes: list[tuple[float, float]]
    seconds: float = 0.0
    layout_used: bool = True

    def of_kind(self, kind: str) -> list[Element]:
        return [e for e in self.elements if e.kind == kind]

    def find(self, kind: str, number: str) -> Element | None:
        """The element of ``kind`` numbered ``number`` ("Table 3" finds the table printed "Table III")."""
        of_kind = self.of_kind(kind)
        exact = next((e for e in of_kind if e.number.lower() == number.strip().lower()), None)
        return exact or next((e for e in of_kind if number_key(e.number) == number_key(number)), None)

    def to_dict(self) -> dict[str, Any]:
        return {
            "version": INVENTORY_VERSION,
            "elements": [e.to_dict() for e in self.elements],
            "page_sizes": self.page_sizes,
            "seconds": self.seconds,
            "layout_used": self.layout_used,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Inventory:
        return cls(
            [Element.from_dict(e) for e in data["elements"]],
            [tuple(size) for size in data["page_sizes"]],
            float(data.get("seconds", 0.0)),
            bool(data.get("layout_used", True)),
        )


# -- captions -----------------------------------------------------------------------------------------


def _digits_joined(text: str) -> str:
    return _CJK_DIGITS.sub(lambda m: m.group(1) + m.group(2).replace(" ", ""), text)


def opens_caption(text: str) -> bool:
    """Whether a line begins like a caption ("Table 3:", "FIG. 2", "TABLE II")."""
    return CAPTION.match(_digits_joined(text)) is not None


def caption_candidates(segments: Sequence[Segment], page: int) -> Iterator[tuple[Element, int]]:
    """(element, strength) for each line that opens a caption: 2 when the number is followed by
    punctuation ("Figure 3:"), 1 when by a capitalised word ("Fig. 3 Overview"), 0 for a label on a line
    of its own with no words after it ("FIG. 3" under a patent drawing). A line that reads as a sentence
    about the figure ("Figure 3 shows") is no caption."""
    for index, segment in enumerate(segments):
        match = CAPTION.match(_digits_joined(segment.text))
        if match is None:
            continue
        after = match.group("after")
        strong = after in _STRONG_AFTER or after == "" or bool(CJK.match(after))
        if not strong and not after.isupper():
            continue
        if continues_a_sentence(segments, index):
            continue
        text, box = caption_block(segments, index)
        text = _digits_joined(text)
        kind, number = kind_of(match.group("label")), re.sub(r"\s", "", match.group("num"))
        if not match.string[match.end("num") :].strip(" .:|—–-"):  # the label alone on its line
            title = text[match.end("num") :].strip(" .:|—–-")
            element = Element(kind, number, page, text[:CAPTION_CHARS], caption_box=box)
            yield element, 1 if re.search(r"[^\W\d_]{2,}", title) else 0
            continue
        rest = text[match.end("num") :].lstrip()
        if _CJK_MENTION.match(rest):
            continue
        if not rest or rest[0].islower() or rest[0] in "),;":  # "(see Table 1) for ...", "Table 1 for a"
            continue
        words = len(re.findall(r"[^\W\d_]{2,}", rest)) + len(CJK.findall(rest))
        if words < 2:  # "... (see\nFigure 8.)": a mention, no caption
            continue
        yield Element(kind, number, page, text[:CAPTION_CHARS], caption_box=box), 2 if strong else 1


# "图 3 所示", "表 1 中": a Chinese sentence about the figure, no caption
_CJK_MENTION = re.compile(r"^\s*(?:所示|中|可见|可以|为|是|给出|列出|的)")


# -- regions -------------------------------------------------------------------------------------------


def attach_regions(
    elements: list[Element],
    regions: list[layout.Region],
    size: tuple[float, float],
    page: int,
    *,
    scanned: bool = False,
) -> list[layout.Region]:
    """Give each captioned element on the page its region (figure_regions: by the side of its caption,
    not by order; a table's region stops at its caption and at the next caption). On a page without a text layer (a
    scan: no captions to read) the regions that are large and sure enough are listed unnumbered; on
    other pages a region without a caption is a logo, a code listing or a misdetection more often than
    a figure, so it is left out. Returns the regions no caption claimed."""
    free = [r for r in regions if r.kind in ("figure", "table")]
    claimed = pair_regions(elements, free)
    leftover = [r for r in free if id(r) not in claimed]
    area = size[0] * size[1]
    for region in leftover if scanned else []:
        if (
            region.score >= UNCAPTIONED_MIN_SCORE
            and region.width * region.height >= UNCAPTIONED_MIN_AREA * area
        ):
            elements.append(Element(region.kind, "", page, box=region.box))
    return leftover


def equations(regions: list[layout.Region], segments: Sequence[Segment], page: int) -> list[Element]:
    """The display equations on a page, numbered from the text at their right edge when it has "(n)"."""
    found = []
    for region in regions:
        if region.kind != "equation":
            continue
        left, top, right, bottom = region.box
        band = [
            s
            for s in segments
            if s.box[1] < bottom and s.box[3] > top and s.box[0] > left - 4 and s.box[0] < right + 120
        ]
        band.sort(key=lambda s: s.box[2])
        number = ""
        for segment in reversed(band):
            match = _EQUATION_NUMBER.search(segment.text)
            if match:
                number = match.group(1)
                break
        text = " ".join(s.text for s in sorted(band, key=lambda s: (s.box[1], s.box[0])))
        found.append(Element("equation", number, page, text[:CAPTION_CHARS], box=region.box))
    return found


_ALONE_NUMBER = re.compile(r"^\(\s*(\d{1,3}(?:\.\d{1,2})?[a-z]?)\s*\)$")


def numbered_lines(segments: Sequence[Segment], page: int) -> list[Element]:
    """Equations from the text layer alone: a run that is only "(4)", standing apart from the text at
    the right of its line, as LaTeX sets equation numbers. No region: the detector finds it on demand."""
    found: dict[str, Element] = {}
    for segment in segments:
        match = _ALONE_NUMBER.match(segment.text)
        if match is None:
            continue
        neighbours = [
            s for s in segments if s is not segment and abs(s.box[1] - segment.box[1]) < segment.height
        ]
        if any(s.box[0] > segment.box[2] and s.box[0] - segment.box[2] < 30 for s in neighbours):
            continue  # text follows it on the line: "(4)" inside a sentence
        text = " ".join(
            s.text for s in sorted(neighbours, key=lambda s: s.box[0]) if s.box[2] <= segment.box[0]
        )
        found.setdefault(match.group(1), Element("equation", match.group(1), page, text[:CAPTION_CHARS]))
    return list(found.values())


# -- one PDF --------------------------------------------------------------------------------------------


def _best_captions(candidates: list[tuple[Element, int]]) -> list[Element]:
    """One caption per kind and number: the strongest (caption_candidates), then the first in the file."""
    chosen: dict[tuple[str, str], tuple[Element, int]] = {}
    for element, strength in candidates:
        key = (element.kind, element.number.lower())
        if key not in chosen or strength > chosen[key][1]:
            chosen[key] = (element, strength)
    return [element for element, _ in chosen.values()]


def inventory(path: Path, *, use_layout: bool = True, layout_pages: set[int] | None = None) -> Inventory:
    """The figures, tables and equations of the PDF at ``path`` (ParseError when it cannot be opened).
    ``layout_pages`` limits the layout detector to those pages (1-based); elsewhere captions are listed
    without regions, and equations (found only by the detector) are missing."""
    import time

    started = time.perf_counter()
    pdf = open_pdf(path)
    try:
        sizes: list[tuple[float, float]] = []
        per_page: list[tuple[list[Segment], list[layout.Region]]] = []
        candidates: list[tuple[Element, int]] = []
        for index in range(len(pdf)):
            page = pdf[index]
            try:
                sizes.append((page.get_width(), page.get_height()))
                segments = segments_or_none(page)
                wanted = use_layout and (layout_pages is None or index + 1 in layout_pages)
                regions = layout.detect(layout.render(page)) if wanted else []
            finally:
                page.close()
            per_page.append((segments, regions))
            candidates.extend(caption_candidates(page_lines(segments), index + 1))
    finally:
        pdf.close()
    captioned = _best_captions(candidates)
    elements: list[Element] = []
    unclaimed: dict[int, list[layout.Region]] = {}
    for number, (segments, regions) in enumerate(per_page, 1):
        on_page = [e for e in captioned if e.page == number]
        unclaimed[number] = attach_regions(on_page, regions, sizes[number - 1], number, scanned=not segments)
        elements.extend(on_page)
        elements.extend(equations(regions, segments, number) if regions else numbered_lines(segments, number))
    # no sentence cites anything from inside a caption or a region (captions before a table moves pages)
    hidden: dict[int, list[Box]] = {}
    for element in elements:
        if element.caption_box:
            hidden.setdefault(element.page, []).append(element.caption_box)
    _join_split_tables(elements, sizes, unclaimed)
    _move_foot_captions(elements, sizes, [segments for segments, _ in per_page])
    for element in elements:
        if element.box:
            hidden.setdefault(element.page, []).append(element.box)
    bodies = [body_text(s, hidden.get(n, [])) for n, (s, _) in enumerate(per_page, 1)]
    add_citing(elements, bodies)
    _mend_captions(elements, bodies)
    order = {kind: i for i, kind in enumerate(KINDS)}
    elements.sort(key=lambda e: (order[e.kind], e.page, e.box[1] if e.box else 0.0))
    return Inventory(elements, sizes, time.perf_counter() - started, use_layout)


def _mend_captions(elements: list[Element], bodies: list[str]) -> None:
    """Captions with words a lost ligature or a gap broke mended as the passages are ("Bigtab le"), the
    page bodies lending their vocabulary (ingest/ligatures.py)."""
    from agent_zot.ingest.ligatures import restore_words

    captions = [e.caption for e in elements]
    for element, caption in zip(elements, restore_words([*captions, *bodies]), strict=False):
        element.caption = caption


def _join_split_tables(
    elements: list[Element], sizes: list[tuple[float, float]], unclaimed: dict[int, list[layout.Region]]
) -> None:
    """A table captioned below itself that began on the page before: its caption sits in the top third of
    its page, its region (if any) is above the caption, and a table region no caption claimed ends in
    the bottom half of the previous page. The table is listed where it begins, with that region."""
    for element in [e for e in elements if e.kind == "table" and e.number and e.caption_box]:
        assert element.caption_box is not None
        if element.page < 2 or element.caption_box[1] > sizes[element.page - 1][1] / 3:
            continue
        if element.box is not None and element.box[1] > element.caption_box[1]:
            continue  # its region is below the caption: the table starts here
        previous = element.page - 1
        start = next(
            (
                r
                for r in unclaimed.get(previous, [])
                if r.kind == "table" and r.box[3] > sizes[previous - 1][1] / 2
            ),
            None,
        )
        if start is not None:
            unclaimed[previous].remove(start)
            element.page, element.box = previous, start.box


FOOT = 0.85  # a caption whose top is below this share of the page's height sits at its foot


def _move_foot_captions(
    elements: list[Element], sizes: list[tuple[float, float]], segments: list[list[Segment]]
) -> None:
    """A table caption printed at the foot of a page, under a paragraph of prose and with no text under
    it in its column, heads a table that begins on the next page (the page broke between them): the table
    is listed there. Under the table's own rows it is a caption set below its table, and stays."""
    for element in elements:
        if element.kind != "table" or element.caption_box is None or element.box is not None:
            continue
        if element.page >= len(sizes) or element.caption_box[1] < FOOT * sizes[element.page - 1][1]:
            continue
        left, top, right, bottom = element.caption_box
        column = [s for s in page_lines(segments[element.page - 1]) if s.box[0] < right and s.box[2] > left]
        under = [s for s in column if s.box[1] > bottom and len(s.text.split()) >= 3]
        above = [s for s in column if s.box[3] <= top + 1]
        if not under and above and is_prose(max(above, key=lambda s: s.box[3]).text):
            element.page += 1
