"""Small pictures of a paper's figures and tables for the figures view (MCP Apps): made only when a client
that renders the view asks (the list itself reads only the text layer), each a PNG a couple of hundred
pixels wide (a JPEG when the PNG would be large, a photograph), cropped to the element's region when the
layout detector finds it, else (no region, or no detector installed) its whole page; each a `data:` URI,
the one kind of image the view's CSP allows. With them, the PDF's page count, for the view's page picker."""

from __future__ import annotations

import base64
import io
from collections.abc import Sequence
from pathlib import Path

from agent_zot.errors import AgentZotError
from agent_zot.ingest.figure_render import png_of
from agent_zot.ingest.figures import Element, Inventory, inventory
from agent_zot.ingest.pdfium import open_pdf

THUMB_SIDE = 240  # pixels, the longer side
THUMB_BYTES = 60_000  # a thumbnail larger than this is left out (the list still names the element)
MAX_THUMBS = 40


def thumbnails(path: Path, elements: Sequence[Element]) -> dict[str, object]:
    """The view's part of a figure list: one data URI (or None) per element, in the list's order."""
    wanted = [e for e in elements if e.kind in ("figure", "table")][:MAX_THUMBS]
    try:
        located: Inventory | None = inventory(path, use_layout=True, layout_pages={e.page for e in wanted})
    except AgentZotError:  # the PDF no longer opens, or no layout detector: the pages themselves
        located = None
    pictures: list[str | None] = []
    for element in elements:
        if element not in wanted:
            pictures.append(None)
            continue
        found = (located.find(element.kind, element.number) if located else None) or element
        pictures.append(_thumbnail(path, found))
    return {"thumbnails": pictures, "pages": _page_count(path)}


def _page_count(path: Path) -> int | None:
    """How many pages the view may ask for (as figure='page N'); None when the PDF no longer opens."""
    try:
        pdf = open_pdf(path)
    except AgentZotError:
        return None
    try:
        return len(pdf)
    finally:
        pdf.close()


def _thumbnail(path: Path, element: Element) -> str | None:
    from PIL import Image

    try:
        picture = Image.open(io.BytesIO(png_of(path, element.page, element.box)))
    except AgentZotError:
        return None
    picture.thumbnail((THUMB_SIDE, THUMB_SIDE))
    for form, mime, options in (
        ("PNG", "image/png", {"optimize": True}),
        ("JPEG", "image/jpeg", {"quality": 75}),
    ):
        out = io.BytesIO()
        picture.convert("RGB").save(out, format=form, **options)
        if len(out.getvalue()) <= THUMB_BYTES:
            return f"data:{mime};base64," + base64.b64encode(out.getvalue()).decode("ascii")
    return None
