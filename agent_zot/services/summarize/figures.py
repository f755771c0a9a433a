"""`zot_summarize` mode `figures`: a paper's figures, tables and equations.

Listed compactly (number, page, caption); one of them shown: a figure or equation as a PNG cropped to its
region, a table's rows as Markdown when its text layer allows (else its image), each with its caption and
the sentences that cite it; or any page as an image.

The list reads only the text layer (about 20 ms a page) and is kept per file in memory; the layout
detector runs only on the page of the element asked for.
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from agent_zot.errors import InvalidArgumentError, NotFoundError
from agent_zot.ingest.extract import file_kind
from agent_zot.ingest.figure_render import png_of, table_markdown, text_table_box
from agent_zot.ingest.figures import Element, Inventory, inventory
from agent_zot.ingest.models import ParseError
from agent_zot.services.response import clip, plural
from agent_zot.text import STOPWORDS, fold
from agent_zot.zotero.models import Item

LIST_CAPTION_CHARS = 110
CACHED_FILES = 64

_TARGET = re.compile(
    r"\b(?P<label>fig(?:ure)?s?\.?|tab(?:le)?s?\.?|eq(?:uation|n)?s?\.?)\s*"
    r"(?P<num>[a-z]?\.?\d{1,3}(?:\.\d{1,2})?[a-z]?|[ivxl]{1,6})\b"
    r"|\bpage\s+(?P<page>\d{1,4})\b",
    re.IGNORECASE,
)
_KINDS = {"f": "figure", "t": "table", "e": "equation"}


@dataclass(frozen=True, slots=True)
class Target:
    """What one request asks for: an element by kind and number, or a page."""

    kind: str  # figure | table | equation | page
    number: str

    @property
    def name(self) -> str:
        return f"{self.kind} {self.number}"


def target_of(text: str) -> Target | None:
    """ "Figure 3", "fig. 3", "Table II", "eq. 4", "page 5" in a request or argument; None when it names
    none (then the paper's parts are listed)."""
    match = _TARGET.search(text or "")
    if match is None:
        return None
    if match.group("page"):
        return Target("page", match.group("page"))
    return Target(_KINDS[match.group("label")[0].lower()], match.group("num"))


# Words that ask for a kind of part by what it shows ("the execution overview figure", "the table of
# final sizes"), and words of the request that say nothing about the part itself.
_KIND_WORDS = {
    "figure": frozenset(
        {"figure", "figures", "fig", "diagram", "chart", "plot", "graph", "picture", "drawing"}
    ),
    "table": frozenset({"table", "tables"}),
}
_ASKING = (
    "show me see give display paper article study one image find library list every extract pull get print "
    "caption captions numbered want please"
)
_ASKING_WORDS = frozenset(_ASKING.split())
_WORD = re.compile(r"\w+")


@dataclass(frozen=True, slots=True)
class Description:
    """A figure or table asked for by what it shows: its kind and the words said about it."""

    kind: str  # figure | table
    words: frozenset[str]

    def fit(self, caption: str) -> int:
        """How many of the description's words ``caption`` holds."""
        return len(self.words & set(_WORD.findall(fold(caption))))


def description_of(request: str, title: str = "") -> Description | None:
    """The kind and words of a request that asks for a figure or table by what it shows ("the execution
    overview figure"); None when it asks for neither, or both, or says nothing about the part itself.
    Words of the paper's own ``title`` do not count."""
    said = [w for w in _WORD.findall(fold(request)) if w not in STOPWORDS]
    kinds = [kind for kind, named in _KIND_WORDS.items() if named & set(said)]
    if len(kinds) != 1:
        return None
    ignored = _KIND_WORDS[kinds[0]] | _ASKING_WORDS | set(_WORD.findall(fold(title)))
    wanted = frozenset(w for w in said if w not in ignored and len(w) > 2)
    return Description(kinds[0], wanted) if wanted else None


def names_nothing(request: str) -> bool:
    """Whether ``request`` only asks for figures or tables ("list all figures"), naming no paper and
    describing no part: there is nothing to look for, so the answer is a question back."""
    ignored = _ASKING_WORDS | _KIND_WORDS["figure"] | _KIND_WORDS["table"]
    return all(w in STOPWORDS or w in ignored for w in _WORD.findall(fold(request)))


def by_caption(found: Inventory, request: str, title: str) -> Target | None:
    """The figure or table whose caption holds more of the request's words than any other of its kind,
    when the request asks for a figure or table but names no number ("show me the execution overview
    figure of the MapReduce paper"); the paper's own title words do not count."""
    wish = description_of(request, title)
    if wish is None:
        return None
    scored = sorted(
        ((wish.fit(e.caption), e) for e in found.of_kind(wish.kind) if e.number), key=lambda pair: -pair[0]
    )
    if not scored or scored[0][0] == 0 or (len(scored) > 1 and scored[1][0] == scored[0][0]):
        return None
    return Target(wish.kind, scored[0][1].number)


_CACHE: OrderedDict[tuple[str, int, int], Inventory] = OrderedDict()
_CACHE_LOCK = threading.Lock()


def cached_inventory(path: Path) -> Inventory:
    """The text-layer inventory of a PDF, computed once per file version in this process."""
    stat = path.stat()
    key = (str(path), stat.st_size, stat.st_mtime_ns)
    with _CACHE_LOCK:
        if key in _CACHE:
            _CACHE.move_to_end(key)
            return _CACHE[key]
    found = inventory(path, use_layout=False)
    with _CACHE_LOCK:
        _CACHE[key] = found
        while len(_CACHE) > CACHED_FILES:
            _CACHE.popitem(last=False)
    return found


def pdf_of(item: Item) -> Path:
    """The item's PDF on disk (the first one when it has several), or NotFoundError saying why not."""
    files = [a for a in item.attachments if a.exists and a.path is not None]
    pdfs = [a for a in files if file_kind(a) == "pdf"]
    if pdfs and pdfs[0].path is not None:
        return pdfs[0].path
    why = "its attachments are not PDFs" if files else "it has no PDF attached (or the file is missing)"
    raise NotFoundError(
        f"No figures to show for {item.key}: {why}.",
        hint="Figures, tables and page images come from a PDF attachment; attach the PDF in Zotero.",
    )


@dataclass(slots=True)
class FigureAnswer:
    lines: list[str]
    data: dict[str, object]
    images: list[bytes]
    # The figures view's part (a list's thumbnails), made only for a client that renders the view
    view: Callable[[], dict[str, object]] | None = None


def figures(item: Item, request: str, explicit: str | None) -> FigureAnswer:
    """The list of the paper's parts, or the one part (or page) the request or ``explicit`` names."""
    path = pdf_of(item)
    target = target_of(explicit) if explicit else target_of(request)
    if target is None:
        try:
            target = by_caption(cached_inventory(path), explicit or request, item.title)
        except ParseError as err:
            raise NotFoundError(f"Cannot read the PDF of {item.key}: {err}") from err
    if explicit and target is None:
        raise InvalidArgumentError(
            f"figure={explicit!r} names no figure, table, equation or page.",
            hint="Use e.g. figure='Figure 3', 'Table 2', 'Equation 1' or 'page 4'.",
        )
    try:
        if target is None:
            return _listing(path, cached_inventory(path))
        if target.kind == "page":
            return _page(path, int(target.number))
        return _one(path, cached_inventory(path), target)
    except ParseError as err:
        raise NotFoundError(f"Cannot read the PDF of {item.key}: {err}") from err


def element_image(item: Item, target: Target) -> bytes:
    """The PNG of one figure, table, equation or page of the item's PDF (a table as its image even when
    its rows could be read)."""
    path = pdf_of(item)
    try:
        if target.kind == "page":
            return png_of(path, int(target.number))
        element = _element(cached_inventory(path), target)
        located = _located(path, element)
        return png_of(path, located.page, located.box)
    except ParseError as err:
        raise NotFoundError(f"Cannot read the PDF of {item.key}: {err}") from err


def _listing(path: Path, found: Inventory) -> FigureAnswer:
    parts = {kind: found.of_kind(kind) for kind in ("figure", "table", "equation")}
    counts = ", ".join(plural(len(v), k) for k, v in parts.items())
    lines = [f"{counts} (numbers and captions from the PDF's text; pages are positions in the file):"]
    for element in parts["figure"] + parts["table"]:
        caption = _without_label(element.caption)
        lines.append(f"- {element.name} (p. {element.page}): {clip(caption, LIST_CAPTION_CHARS)}")
    numbered = [e for e in parts["equation"] if e.number]
    if numbered:
        lines.append("Equations: " + ", ".join(f"({e.number}) p. {e.page}" for e in numbered))
    if not parts["figure"] and not parts["table"]:
        lines.append(
            "No captioned figures or tables were found in the text layer (a scanned PDF has none to read)."
        )
    lines.append(
        "One as an image with the sentences that cite it: figure='Figure 2'; a page: figure='page 3'."
    )
    listed = parts["figure"] + parts["table"] + numbered
    data: dict[str, object] = {
        "counts": {k: len(v) for k, v in parts.items()},
        "elements": [
            {"kind": e.kind, "number": e.number, "page": e.page, "caption": clip(e.caption, 200)}
            for e in listed
        ],
    }

    def view() -> dict[str, object]:
        from agent_zot.services.summarize.figure_thumbs import thumbnails

        return thumbnails(path, listed)

    return FigureAnswer(lines, data, [], view)


def _without_label(caption: str) -> str:
    return re.sub(r"^\s*(?:fig(?:ure)?|tab(?:le)?)\.?\s*[\w.]+\s*[.:|—–-]?\s*", "", caption, flags=re.I)


def _element(found: Inventory, target: Target) -> Element:
    element = found.find(target.kind, target.number)
    if element is None:
        have = [e.number for e in found.of_kind(target.kind) if e.number]
        listed = (
            f" It has {target.kind}s " + ", ".join(have) + "."
            if have
            else f" It has no numbered {target.kind}s."
        )
        raise NotFoundError(
            f"No {target.name} in this PDF's text layer.{listed}",
            hint="List them with a request like 'list the figures of <paper>'; any page shows as an "
            "image with figure='page N'.",
        )
    return element


def _one(path: Path, found: Inventory, target: Target) -> FigureAnswer:
    located = _located(path, _element(found, target))
    lines = [f"{located.name} (p. {located.page}): {_without_label(located.caption) or '(no caption)'}"]
    images: list[bytes] = []
    rows = _table_rows(path, located) if located.kind == "table" else None
    if rows:
        lines += ["", rows]
    else:
        images.append(png_of(path, located.page, located.box))
        if located.box is None:
            lines.append(f"(its region was not found: the image is the whole page {located.page})")
    if located.citing:
        lines.append("Cited in:")
        lines += [f"- p. {page}: {clip(sentence, 300)}" for page, sentence in located.citing]
    data: dict[str, object] = {
        "element": {
            "kind": located.kind,
            "number": located.number,
            "page": located.page,
            "caption": located.caption,
            "box": [round(v, 1) for v in located.box] if located.box else None,
            "citing": [{"page": p, "text": s} for p, s in located.citing],
            "as": "markdown" if rows else "image",
        }
    }
    return FigureAnswer(lines, data, images)


def _table_rows(path: Path, table: Element) -> str | None:
    """A table's rows as Markdown: from the detector's region, else from the rows its text layer holds
    under (or over) its caption."""
    rows = table_markdown(path, table.page, table.box) if table.box else None
    if rows is None and table.caption_box is not None:
        found = text_table_box(path, table.page, table.caption_box)
        rows = table_markdown(path, table.page, found) if found else None
    return rows


def _located(path: Path, element: Element) -> Element:
    """The element with its region, from the layout detector run on its page (and the page before, for
    a table whose caption sits below it at the top of a page)."""
    pages = {element.page, element.page - 1} if element.kind == "table" else {element.page}
    with_layout = inventory(path, use_layout=True, layout_pages=pages)
    return with_layout.find(element.kind, element.number) or element


def _page(path: Path, number: int) -> FigureAnswer:
    image = png_of(path, number)
    return FigureAnswer([f"Page {number} as an image."], {"page": number}, [image])
