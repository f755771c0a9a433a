"""Metadata read from a document's own file, for the items Zotero has none for: a PDF dropped into Zotero
without a parent item is an item of its own (zotero/children.py), titled by its file name and with no
creators or date. update-db reads its title, authors and year from the PDF (ingest/front_matter.py) and
keeps them in the index state; every read of the library for answers lays them over such items here.
Zotero's own values always win: only a title that is the file name (or a placeholder) is replaced, and
creators and date only where Zotero has none. zotero.sqlite is never written.
"""

from __future__ import annotations

import zlib
from collections.abc import Mapping
from dataclasses import dataclass, replace

from agent_zot.zotero.models import Creator, Item, Library, ZoteroDate

# Titles Zotero and its connectors give an attachment, which say nothing of the paper
_PLACEHOLDER_TITLES = frozenset(
    {
        "",
        "pdf",
        "full text pdf",
        "full text",
        "attachment",
        "preprint pdf",
        "submitted version",
        "accepted version",
    }
)
_PARTICLES = frozenset(
    {"van", "von", "der", "den", "de", "da", "di", "del", "della", "la", "le", "du", "dos"}
)
# Raised when reading changes: the next update-db reads the files of such items again (update_db._to_retry)
FILE_METADATA_VERSION = "1"
HINT = "Zotero has no metadata for it: its Retrieve Metadata for PDF (right-click the PDF) can fetch it"


@dataclass(frozen=True, slots=True)
class FrontMatter:
    """A paper's title, authors and year as its PDF gives them (ingest/front_matter.py)."""

    title: str
    authors: tuple[str, ...] = ()  # names as printed ("Leslie Lamport")
    year: int | None = None
    source: str = ""  # where the title came from: "document info" | "first page"


def is_placeholder_title(item: Item) -> bool:
    """Whether the item's title is only its file's name or an attachment's stock title."""
    title = item.title.strip()
    names = {a.file_name for a in item.attachments if a.file_name}
    stems = {name.rsplit(".", 1)[0] for name in names}
    return title.lower() in _PLACEHOLDER_TITLES or title in names or title in stems


def creator_of(name: str) -> Creator:
    """A printed name as an author: the last word, with the particles before it, is the surname.
    Its id is negative (Zotero's are positive) and the same for the same name."""
    words = name.split()
    cut = len(words) - 1
    while cut > 1 and words[cut - 1].lower() in _PARTICLES:
        cut -= 1
    creator_id = -1 - zlib.crc32(name.encode("utf-8"))
    return Creator(creator_id, "author", " ".join(words[cut:]), " ".join(words[:cut]))


def apply_front_matter(item: Item, found: FrontMatter) -> Item:
    """A copy of a document-as-item with what its PDF says where Zotero says nothing; the item itself
    when that adds nothing."""
    if item.item_type != "attachment":
        return item
    taken: list[str] = []
    fields, creators, date = item.fields, item.creators, item.date
    if found.title and is_placeholder_title(item):
        fields = {**item.fields, "title": found.title}
        taken.append("title")
    if found.authors and not item.creators:
        creators = [creator_of(name) for name in found.authors]
        taken.append("authors")
    if found.year and item.date is None:
        date = ZoteroDate(str(found.year), found.year)
        taken.append("year")
    if not taken:
        return item
    return replace(item, fields=fields, creators=creators, date=date, from_pdf=tuple(taken))


def with_file_metadata(library: Library, found: Mapping[str, FrontMatter]) -> Library:
    """The library with ``found`` (by item key) laid over its document-as-items: a new snapshot (caches
    keyed by the snapshot see the change) sharing every other item; ``library`` itself when none applies."""
    changed = {}
    for key, front in found.items():
        item = library.items.get(key)
        if item is not None and (updated := apply_front_matter(item, front)) is not item:
            changed[key] = updated
    if not changed:
        return library
    return replace(library, items={key: changed.get(key, item) for key, item in library.items.items()})


def pdf_note(item: Item) -> str:
    """What an answer says of an item whose metadata was read from its PDF ("" for the others)."""
    if not item.from_pdf:
        return ""
    return f"{', '.join(item.from_pdf)} read from the PDF"
