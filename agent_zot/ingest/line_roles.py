"""A role for each line of a PDF's text layer, decided at parse time from its geometry and its own form:
``chrome`` (download/licence stamps, sideways margin stamps, lines repeated across pages), ``figure_text``
(labels, ticks and legends inside a drawing, text set sideways inside the page) or ``body`` (everything a
reader reads: prose, headings, captions, tables, equations, references). Chrome and figure text are kept
out of the page text that becomes passages; the figure inventory reads the text layer itself (figures.py).

The rules lean on geometry and form, which carry over between publishers: the page's body size (the set
size most of its characters have), the body's column extent, how many words a line has and of what kind.
A short list of stamp phrases is one signal among them, and it only counts where the line is not a line
of the body (smaller type, or outside the body's top and bottom).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from agent_zot.ingest.figures import opens_caption
from agent_zot.ingest.models import ParseError
from agent_zot.ingest.sentence_roles import opens_entry
from agent_zot.ingest.text_geometry import TextLine
from agent_zot.ingest.text_lines import CJK, is_prose

BODY, CHROME, FIGURE_TEXT = "body", "chrome", "figure_text"
SET_ASIDE = frozenset({CHROME, FIGURE_TEXT})

# What publishers and repositories stamp on a page (several languages); matched case-insensitively.
_STAMP = re.compile(
    r"\bdownloaded\s+(?:from|by|on)\b|\bheruntergeladen\s+am\b|\bbereitgestellt\s+von\b|^angemeldet\b"
    r"|\bthis\s+content\s+downloaded\b|\bauthori[sz]ed\s+licensed\s+use\b|\brestrictions\s+apply\b"
    r"|\ball\s+use\s+subject\s+to\b|\bterms\s+(?:and\s+conditions\s+)?of\s+use\b"
    r"|\bpermission\s+to\s+make\s+digital\b|\bcreative\s+commons\b|\bcc[\s-]by\b|\ball\s+rights\s+reserved\b"
    r"|\boriginal\s+content\s+from\s+this\s+work\s+may\s+be\s+used\b"
    r"|^(?:©|\(c\)|copyright\b)|©\s*\d{4}|^doi\b|\bpublished\s+online\b|\bfor\s+personal\s+use\s+only\b"
    r"|^arxiv:\s*\d{4}\.\d{4,5}|\bdoi\.org/|^(?:https?://|www\.)\S+$",
    re.IGNORECASE,
)
# The phrases only a stamp or a licence block holds: a line with one takes its neighbours of the same type
# along (_spread_chrome; a reference entry that names a licence loses at most the rest of its own lines,
# as an entry's first line is never taken). The others above (an address, "published online", a DOI link)
# are printed inside reference entries too, so a line with one is chrome by itself and spreads to nothing.
_SPREADING_STAMP = re.compile(
    r"\bdownloaded\s+(?:from|by|on)\b|\bheruntergeladen\s+am\b|\bbereitgestellt\s+von\b|^angemeldet\b"
    r"|\bcreative\s+commons\b|\boriginal\s+content\s+from\s+this\s+work\s+may\s+be\s+used\b"
    r"|\bauthori[sz]ed\s+licensed\s+use\b|\brestrictions\s+apply\b|\ball\s+use\s+subject\s+to\b"
    r"|\bpermission\s+to\s+make\s+digital\b|\ball\s+rights\s+reserved\b|^(?:©|\(c\)|copyright\b)|©\s*\d{4}",
    re.IGNORECASE,
)
# The stamp phrases' key words, looked for first: the full pattern is slow, and most lines have none.
_STAMP_WORDS = re.compile(
    r"download|heruntergeladen|bereitgestellt|angemeldet|licens|restrictions|subject to|of use|permission"
    r"|creative|cc by|cc-by|rights|©|\(c\)|copyright|published|personal use|arxiv|doi\.org|http|www\."
    r"|original content"
)
_DIGITS = re.compile(r"\d+")
_ROMAN = re.compile(r"[ivxlc]{1,7}")
_BARE_NUMBER = re.compile(r"[-–—(]?\s*\d{1,4}\s*[-–—)]?")
_WORD = re.compile(r"[^\W\d_]{2,}")
_NUMBER = re.compile(r"[-+−]?\d+(?:[.,]\d+)?%?")
_MATH = re.compile(r"[=+±×·∑∏∫√∈∀∃≤≥≈→←^_{}\\|α-ωΑ-Ω∂∇]")

LABEL_RUN = 3  # consecutive label-like lines that make a drawing's labels
LABEL_WORDS = 6  # a line of labels has at most this many words
LABEL_WIDTH = 0.35  # a line of labels is at most this share of the page's width
SMALL = 0.85  # type this much smaller than the body is not body type


def _characters_by_size(lines: Iterable[TextLine]) -> Counter[float]:
    """How many characters of ``lines`` (set across the page) are in each type size, to half a point."""
    sizes: Counter[float] = Counter()
    for line in lines:
        if line.box is not None and not line.vertical and line.size > 0:
            sizes[round(line.size * 2) / 2] += len(line.text)
    return sizes


def body_size(pages: Sequence[Sequence[TextLine]]) -> float:
    """The set size most characters of the document have (to half a point)."""
    sizes = _characters_by_size(line for lines in pages for line in lines)
    return sizes.most_common(1)[0][0] if sizes else 0.0


def page_body_size(lines: Sequence[TextLine], size: float) -> float:
    """The body size of one page: the document's, unless most of the page's paragraph-long lines are set
    larger. A catalogue paper whose tables and reference list outnumber its prose has a document size
    below its body text's, and every line of its prose pages would read as set apart from the body."""
    sizes = _characters_by_size(line for line in lines if _long(line.text))
    if not sizes:
        return size
    top, chars = sizes.most_common(1)[0]
    return top if top > size + 0.6 and chars >= 0.5 * sum(sizes.values()) else size


def _key(text: str) -> str:
    """A running line's words, without its numbers (page numbers, roman ones too, on either side)."""
    return " ".join(word for word in _DIGITS.sub(" ", text.lower()).split() if not _ROMAN.fullmatch(word))


def _repeated(pages: Sequence[Sequence[TextLine]], apart: Sequence[Sequence[bool]]) -> list[set[int]]:
    """Per page, the indexes of its lines set apart from the body that (numbers aside) are on at least
    half the pages, and on at least 3: page chrome wherever it is in the page's text."""
    if len(pages) < 3:
        return [set() for _ in pages]
    keys = [
        [
            _key(line.text) if away and len(line.text) >= 8 else ""
            for line, away in zip(lines, flags, strict=True)
        ]
        for lines, flags in zip(pages, apart, strict=True)
    ]
    seen: Counter[str] = Counter()
    for page_keys in keys:
        seen.update({key for key in page_keys if len(key) >= 4})
    least = max(3, len(pages) / 3)  # a third: running heads alternate between left and right pages
    common = {key for key, n in seen.items() if n >= least and key}
    return [{i for i, key in enumerate(page_keys) if key in common} for page_keys in keys]


def _long(text: str) -> bool:
    """A line as long as a paragraph's (cheaper than is_prose, and run on every line)."""
    return (len(text) >= 40 and text.count(" ") >= 5) or (len(text) >= 20 and len(CJK.findall(text)) >= 15)


def _body_band(lines: Sequence[TextLine], size: float) -> tuple[float, float, float, float] | None:
    """The extent of the page's lines of body type that read as prose: its text block."""
    boxes = [
        line.box
        for line in lines
        if line.box is not None and not line.vertical and abs(line.size - size) <= 0.6 and _long(line.text)
    ]
    if not boxes:
        return None
    return (
        min(b[0] for b in boxes),
        min(b[1] for b in boxes),
        max(b[2] for b in boxes),
        max(b[3] for b in boxes),
    )


def _outside(box: tuple[float, float, float, float], band: tuple[float, float, float, float] | None) -> bool:
    """Wholly in the margin round the text block: above, below or beside it."""
    if band is None:
        return False
    return box[3] <= band[1] + 1 or box[1] >= band[3] - 1 or box[2] <= band[0] + 1 or box[0] >= band[2] - 1


def _label_like(line: TextLine, size: float, page_width: float) -> bool:
    """A drawing's label, tick or legend entry: a few words or numbers on a short line (a third of the
    page's width at most), in type smaller than the body's (a short line in body type is more often an
    equation's or a table's piece), not a caption."""
    if line.box is None or line.vertical or line.size >= SMALL * size or line.text.count(" ") >= LABEL_WORDS:
        return False
    return line.width <= LABEL_WIDTH * page_width and len(line.text) <= 40 and not opens_caption(line.text)


def _mathy(lines: Sequence[TextLine]) -> bool:
    """Lines of a display equation rather than a drawing: more math symbols than words."""
    text = " ".join(line.text for line in lines)
    return len(_MATH.findall(text)) > len(_WORD.findall(text))


def _numeric_row(text: str) -> bool:
    """A table's row of figures: three or more cells, most of them numbers."""
    cells = text.split()
    return len(cells) >= 3 and sum(
        1 for cell in cells if _NUMBER.fullmatch(cell) or cell in "—–-"
    ) >= 0.5 * len(cells)


def _label_runs(lines: Sequence[TextLine], size: float, page_width: float) -> set[int]:
    """Indexes of lines in runs of LABEL_RUN or more label-like lines (in content order) that are
    scattered over the page the way a drawing's labels are: not one left edge (a list), not rows of
    cells by a table caption or over rows of figures, not an equation."""
    found: set[int] = set()
    run: list[int] = []
    for index in [*range(len(lines)), None]:
        if index is not None and _label_like(lines[index], size, page_width):
            run.append(index)
            continue
        if len(run) >= LABEL_RUN:
            members = [lines[i] for i in run]
            lefts = {round(line.box[0] / 3) for line in members if line.box is not None}
            near = [*lines[max(0, run[0] - 3) : run[0]], *lines[run[-1] + 1 : run[-1] + 4]]
            # a table's head: next to its caption, or over rows of figures
            table = any(
                (opens_caption(line.text) and line.text.lower().startswith("tab")) or _numeric_row(line.text)
                for line in near
            )
            if len(lefts) >= 2 and not _mathy(members) and not table:
                found.update(run)
        run = []
    return found


def _apart(lines: Sequence[TextLine], size: float) -> tuple[list[bool], list[bool]]:
    """Which lines are set apart from the body (sideways on a page that reads across, in smaller type,
    or outside its text block), and which are outside its text block."""
    band = _body_band(lines, size)
    small = SMALL * size
    sideways = sum(len(line.text) for line in lines if line.vertical)
    turned = sideways > 0.3 * sum(len(line.text) for line in lines)  # a page turned for a wide table
    outside = [line.box is not None and _outside(line.box, band) for line in lines]
    apart = [
        line.box is not None and ((line.vertical and not turned) or line.size < small or out)
        for line, out in zip(lines, outside, strict=True)
    ]
    return apart, outside


def page_roles(
    lines: Sequence[TextLine],
    size: float,
    apart: Sequence[bool],
    outside: Sequence[bool],
    repeated: set[int],
    page_size: tuple[float, float],
) -> list[str]:
    """The role of each line of one page."""
    roles = [BODY] * len(lines)
    seeds: set[int] = set()  # chrome lines whose neighbours of the same type go with them
    width, height = page_size
    for index, line in enumerate(lines):
        box = line.box
        if box is None or not apart[index]:
            continue
        off_page = box[2] < 0 or box[0] > width or box[3] < 0 or box[1] > height
        if line.vertical and not off_page:
            # sideways in the margin: a repository's stamp; inside the page: an axis title, a rotated label
            roles[index] = CHROME if outside[index] else FIGURE_TEXT
        elif opens_entry(line.text):
            continue  # a reference entry's first line, whatever address or licence it names
        elif (
            off_page
            or (outside[index] and _BARE_NUMBER.fullmatch(line.text))  # a page or line number in the margin
            or (index in repeated and not (line.size >= SMALL * size and is_prose(line.text)))
        ):
            roles[index] = CHROME
            seeds.add(index)
        elif _STAMP_WORDS.search(line.text.lower()) and _STAMP.search(line.text):
            roles[index] = CHROME
            if _SPREADING_STAMP.search(line.text):
                seeds.add(index)
    _spread_chrome(lines, roles, apart, seeds)
    for index in _label_runs(lines, size, width):
        if roles[index] == BODY:
            roles[index] = FIGURE_TEXT
    return roles


def _spread_chrome(
    lines: Sequence[TextLine], roles: list[str], apart: Sequence[bool], seeds: set[int]
) -> None:
    """A stamp's other lines: next to a chrome line that spreads (``seeds``, and the lines taken from
    them) in content order, set in the same size and close by (a licence paragraph, "Angemeldet" under
    "Bereitgestellt von | …"), and, like it, set apart from the body (``apart``: sideways, in smaller type
    or in the margin). A reference entry's first line is never taken: a reference list is set in smaller
    type, line after line, and would go whole."""
    changed = True
    while changed:
        changed = False
        for index, line in enumerate(lines):
            if roles[index] != BODY or line.box is None or not apart[index] or opens_entry(line.text):
                continue
            for other in (index - 1, index + 1):
                if not 0 <= other < len(lines) or other not in seeds:
                    continue
                if other > index and (_long(line.text) or line.text.rstrip().endswith((".", "?", "!"))):
                    # a stamp under a paragraph ("© 2018 Published by Elsevier Inc." under an abstract, a
                    # page number under a column) takes none of its lines, the last one included
                    continue
                near = lines[other]
                if near.box is None or near.vertical != line.vertical or abs(near.size - line.size) > 0.3:
                    continue
                gap = max(line.box[1] - near.box[3], near.box[1] - line.box[3])
                if line.vertical:
                    gap = max(line.box[0] - near.box[2], near.box[0] - line.box[2])
                if gap <= 1.5 * max(line.size, 1.0):
                    roles[index] = CHROME
                    seeds.add(index)
                    changed = True
                    break


def document_roles(
    pages: Sequence[Sequence[TextLine]], sizes: Sequence[tuple[float, float]]
) -> list[list[str]]:
    """The role of every line of every page of one document."""
    size = body_size(pages)
    page_sizes = [page_body_size(lines, size) for lines in pages]
    flags = [_apart(lines, page_size) for lines, page_size in zip(pages, page_sizes, strict=True)]
    repeated = _repeated(pages, [apart for apart, _ in flags])
    return [
        page_roles(lines, page_sizes[i], *flags[i], repeated[i], sizes[i]) for i, lines in enumerate(pages)
    ]


@dataclass(frozen=True, slots=True)
class PageLines:
    """A page's paragraph-long lines by what this release does with them."""

    kept: list[str]  # body
    chrome: list[str]


def long_lines(path: Path) -> list[PageLines]:
    """Per page of the PDF at ``path``, its paragraph-long lines this release keeps and those it takes for
    page chrome (what an index made by an earlier release is checked against, ingest/text_version.py); []
    when the file cannot be read."""
    from agent_zot.ingest.pdfium import read_lines  # pdfium.py imports this module when it reads a PDF

    try:
        pages, sizes = read_lines(path)
    except ParseError:
        return []
    found = []
    for lines, roles in zip(pages, document_roles(pages, sizes), strict=True):
        paired = [(line.text, role) for line, role in zip(lines, roles, strict=True) if _long(line.text)]
        found.append(
            PageLines([text for text, role in paired if role == BODY], [t for t, r in paired if r == CHROME])
        )
    return found
