"""zot_export's annotations mode: the annotations and notes of part of the library as data, one record
each, to a .csv (the default) or .json file in the export folder (the records: export/annotations_file.py).

Scope: the listed items, a collection (and below), items matching words — those items' annotations and
notes — and tags, which an annotation or note matches by its own tag or its paper's (as zot_manage_notes
reads them). With no scope, the whole library, standalone notes and standalone PDFs' annotations included.
Within a paper, annotations come in reading order, then its notes in the order they were added.

The answer is lean: counts, the file and a few sample rows; the file holds the rest.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import replace
from datetime import date
from pathlib import Path

from agent_zot.config import Settings
from agent_zot.errors import InvalidArgumentError, NotFoundError
from agent_zot.formats.annotations import (
    COLUMNS,
    Record,
    annotation_record,
    note_record,
    to_annotations_csv,
    to_annotations_json,
)
from agent_zot.services.export_target import check_path, resolve_target, write_file
from agent_zot.services.notes.note_scope import NoteScope, resolve_scope
from agent_zot.services.resolve.scope import (
    LibraryScope,
    collection_phrase,
    resolve_tags,
    tags_phrase,
    without_note,
)
from agent_zot.services.response import ToolResponse, clip, plural
from agent_zot.zotero.models import Annotation, Item, Library, Note

DATA_FORMATS = {".csv": "csv", ".json": "json"}
_JSON_WORD = re.compile(r"\bjson\b", re.IGNORECASE)
SAMPLE_ROWS = 3
_SAMPLE_TEXT = 80


def export_annotations(
    library: Library, settings: Settings, *, path: str | None, scope: LibraryScope, overwrite: bool
) -> ToolResponse:
    fmt = _data_format(path)
    alone = not (scope.item_keys or scope.collection or scope.search)
    chosen = resolve_tags(library, scope.tags, whole=alone)
    scope = replace(scope, tags=chosen.names)  # as the library spells them
    records = select_records(library, scope)
    where = describe(library, scope)
    if not records:
        raise NotFoundError(
            f"Nothing to export: no annotations or notes {where}.",
            hint="Nothing was written. Annotations are those made in Zotero's PDF reader (Zotero 6 and "
            "later); what is in Zotero's trash counts only with include_trash on.",
        )
    target = resolve_target(settings, path or default_name(scope), "annotations", scope)
    if target.suffix.lower() not in DATA_FORMATS:
        target = target.with_name(target.name + ".csv")
    body = to_annotations_json(records) if fmt == "json" else to_annotations_csv(records)
    written = write_file(target, body, overwrite)
    kinds = Counter(str(r["kind"]) for r in records)
    counts = " and ".join(plural(kinds[k], k) for k in ("annotation", "note") if kinds[k])
    sample = records[:SAMPLE_ROWS]
    lines = [f"Exported {counts} {where} as {fmt.upper()} to {written}."]
    if chosen.left_out:
        lines.append(without_note("Exported", chosen.left_out))
    titled = len({r["item_title"] for r in records}) > 1  # one paper: its title is said once, above
    lines += ["Sample rows:", *(f"  {_sample_line(r, titled)}" for r in sample)]
    if len(records) > len(sample):
        lines.append(f"  … {len(records) - len(sample)} more in the file.")
    return ToolResponse(
        "\n".join(lines),
        {
            "format": fmt,
            "path": str(written),
            "files": [str(written)],
            "count": len(records),
            "annotations": kinds["annotation"],
            "notes": kinds["note"],
            "items": len({r["item_key"] for r in records if r["item_key"]}),
            "columns": list(COLUMNS),
            "sample": [_clipped(r) for r in sample],
        },
    )


def select_records(library: Library, scope: LibraryScope) -> list[Record]:
    """The records in scope: per paper, its annotations in reading order, then its notes."""
    tag_scope = resolve_scope(library, tags=scope.tags) if scope.tags else NoteScope()
    narrowed = bool(scope.item_keys or scope.collection or scope.search)
    items = replace(scope, tags=()).items(library) if narrowed else list(library.items.values())
    records: list[Record] = []
    for item in items:
        records += _records(library, tag_scope, item.annotations(library), item.notes)
    if not narrowed:
        loose = [
            a
            for att in library.standalone_attachments
            for a in library.annotations_by_attachment.get(att.key, [])
        ]
        records += _records(library, tag_scope, loose, library.standalone_notes)
    return records


def _records(
    library: Library, scope: NoteScope, annotations: list[Annotation], notes: list[Note]
) -> list[Record]:
    found = [annotation_record(library, a) for a in annotations if scope.admits_annotation(a, library)]
    kept = sorted((n for n in notes if scope.admits_note(n, library)), key=lambda n: n.date_added)
    return found + [note_record(library, n) for n in kept]


def describe(library: Library, scope: LibraryScope) -> str:
    """ "on 'S2ORC…' [KEY]", "in collection 'Thesis' (and below), tagged stat", "in the whole library"."""
    parts = []
    if len(scope.item_keys) == 1 and (item := _item(library, scope.item_keys[0])) is not None:
        parts.append(f"on {clip(item.title or '(untitled)', 50)!r} [{item.key}]")
    elif scope.item_keys:
        parts.append(f"on {len(scope.item_keys)} listed items")
    if scope.collection:
        parts.append(f"in {collection_phrase(scope.collection)}")
    if scope.search:
        parts.append(f"on items matching {scope.search!r}")
    if scope.tags:
        parts.append(tags_phrase(scope.tags) + " (their own tag or their paper's)")
    return ", ".join(parts) or "in the whole library"


def _item(library: Library, key: str) -> Item | None:
    return library.items.get(key.strip().upper())


def _data_format(path: str | None) -> str:
    """csv or json, from the path's extension (none: csv)."""
    if not path:
        return "csv"
    check_path(path)
    if path.rstrip().endswith(("/", "\\")):
        raise InvalidArgumentError(
            "Annotations export to one file, not a folder.", hint="Name a .csv or .json file."
        )
    suffix = Path(path.strip()).suffix.lower()
    if suffix and suffix not in DATA_FORMATS:
        raise InvalidArgumentError(
            f"Annotations export as .csv or .json, not {suffix}.",
            hint="Name a .csv file (spreadsheets) or a .json file (a list of records).",
        )
    return DATA_FORMATS.get(suffix, "csv")


def default_name(scope: LibraryScope, request: str = "") -> str:
    """``annotations-<scope>-<date>.csv``, or ``.json`` when the request asks for JSON ("… as JSON")."""
    label = scope.collection or (scope.tags[0] if scope.tags else None) or scope.search
    if not label and len(scope.item_keys) == 1:
        label = scope.item_keys[0]
    slug = re.sub(r"[^\w]+", "-", (label or "library").casefold()).strip("-")[:60] or "library"
    suffix = ".json" if _JSON_WORD.search(request) else ".csv"
    return f"annotations-{slug}-{date.today():%Y%m%d}{suffix}"


def _sample_line(record: Record, titled: bool) -> str:
    """ "[KEY] highlight, p. 4969, yellow: “text…” — comment (on Title…)" for the answer's text."""
    kind = record["type"] or record["kind"]
    bits = [f"[{record['key']}] {kind}"]
    if record["page_label"]:
        bits.append(f"p. {record['page_label']}")
    if record["color_name"]:
        bits.append(str(record["color_name"]))
    head = ", ".join(bits)
    words = clip(str(record["text"] or ""), _SAMPLE_TEXT)
    comment = clip(str(record["comment"] or ""), _SAMPLE_TEXT)
    body = (f" “{words}”" if words else "") + (f" — {comment}" if comment else "")
    title = f" (on {clip(str(record['item_title']), 40)})" if titled and record["item_title"] else ""
    return f"{head}:{body}{title}" if body else f"{head}{title}"


def _clipped(record: Record) -> Record:
    """A sample record for the structured answer: long text and comments clipped."""
    return {
        k: clip(v, 200) if isinstance(v, str) and k in ("text", "comment", "item_title") else v
        for k, v in record.items()
    }


__all__ = ["default_name", "describe", "export_annotations", "select_records"]
