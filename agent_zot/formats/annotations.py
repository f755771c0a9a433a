"""Annotations and notes as data: one record per annotation or note, written as JSON (a list of records)
or CSV (a header row, spreadsheet-safe cells; export/csvtable.py). No file I/O.

A record says where the annotation or note sits (its paper's key and title, the attachment, the page
label), what it is (kind: annotation or note; the annotation type: highlight, underline, note, image,
ink, text), its colour (Zotero's colour name nearest to the stored hex, and the hex), its words (text,
comment), its own tags and when it was added and last changed (as Zotero stores them: UTC,
``YYYY-MM-DD HH:MM:SS``). A note's text is its plain text. JSON keeps values as they are (null for what a
record lacks); CSV joins tags with "; " and escapes cells a spreadsheet would run as formulas.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from agent_zot.formats.csvtable import to_csv
from agent_zot.zotero.colors import color_name, normalize_hex
from agent_zot.zotero.models import Annotation, Library, Note

COLUMNS: tuple[str, ...] = (
    "kind",
    "key",
    "item_key",
    "item_title",
    "attachment_key",
    "page_label",
    "color_name",
    "color_hex",
    "type",
    "text",
    "comment",
    "tags",
    "date_added",
    "date_modified",
)
TAG_SEPARATOR = "; "

Record = dict[str, object]


def annotation_record(library: Library, ann: Annotation) -> Record:
    """One annotation as a record. On an attachment with no parent item, the title is the attachment's."""
    item = library.items.get(ann.parent_item_key) if ann.parent_item_key else None
    title = item.title if item is not None else _attachment_title(library, ann.attachment_key)
    return {
        "kind": "annotation",
        "key": ann.key,
        "item_key": ann.parent_item_key,
        "item_title": title or None,
        "attachment_key": ann.attachment_key,
        "page_label": ann.page_label or None,
        "color_name": color_name(ann.color) or None,
        "color_hex": (normalize_hex(ann.color) or ann.color) or None,
        "type": ann.annotation_type,
        "text": ann.text or None,
        "comment": ann.comment or None,
        "tags": [t.name for t in ann.tags],
        "date_added": ann.date_added or None,
        "date_modified": ann.date_modified or None,
    }


def note_record(library: Library, note: Note) -> Record:
    """One note (a child note, or a standalone one with no item) as a record."""
    item = library.items.get(note.parent_key) if note.parent_key else None
    return {
        "kind": "note",
        "key": note.key,
        "item_key": note.parent_key,
        "item_title": (item.title or None) if item is not None else None,
        "attachment_key": None,
        "page_label": None,
        "color_name": None,
        "color_hex": None,
        "type": None,
        "text": note.text or None,
        "comment": None,
        "tags": [t.name for t in note.tags],
        "date_added": note.date_added or None,
        "date_modified": note.date_modified or None,
    }


def to_annotations_json(records: Sequence[Record]) -> str:
    return json.dumps(list(records), ensure_ascii=False, indent=2) + "\n"


def to_annotations_csv(records: Sequence[Record]) -> str:
    rows = [{**r, "tags": TAG_SEPARATOR.join(_tag_names(r))} for r in records]
    return to_csv(COLUMNS, rows)


def _tag_names(record: Record) -> list[str]:
    tags = record.get("tags")
    return [str(t) for t in tags] if isinstance(tags, list) else []


def _attachment_title(library: Library, key: str) -> str:
    """The title of a top-level attachment (the only kind whose annotations have no parent item): an item of
    its own when it is a document, else a standalone attachment."""
    item = library.items.get(key)
    if item is not None:
        return item.title
    return next((a.title for a in library.standalone_attachments if a.key == key), "")
