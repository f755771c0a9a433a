"""The reader's child items: attachments (stored, linked, URLs, documents that are items of their own),
notes and annotations, hung under the items they belong to. Part of the reader's loader (zotero/reader.py).
"""

from __future__ import annotations

import json
import sqlite3
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from agent_zot.zotero.attachments import StorageIndex, resolve_attachment_path
from agent_zot.zotero.models import (
    ANNOTATION_TYPES,
    Annotation,
    Attachment,
    Item,
    LinkMode,
    Note,
    ReadOptions,
    TagRef,
)
from agent_zot.zotero.schema import SchemaInfo
from agent_zot.zotero.values import html_to_text, unix_time_text

# The itemAttachments columns read (and compared by marks.py); lastRead is Zotero 9's.
ATTACHMENT_COLUMNS = (
    "parentItemID",
    "linkMode",
    "contentType",
    "path",
    "storageModTime",
    "storageHash",
    "lastRead",
)
# The itemAnnotations columns read (and compared by marks.py), in the order _annotations unpacks them.
ANNOTATION_COLUMNS = (
    "parentItemID",
    "type",
    "authorName",
    "text",
    "comment",
    "color",
    "pageLabel",
    "sortIndex",
    "position",
)


@dataclass(slots=True)
class Row:
    """A row of ``items`` with its type name."""

    item_id: int
    key: str
    library_id: int
    type_name: str
    date_added: str
    date_modified: str
    version: int


class ChildLoader:
    """What the loader reads below the items; it provides the connection, schema and item queries."""

    conn: sqlite3.Connection
    data_dir: Path
    options: ReadOptions
    schema: SchemaInfo
    _rows: Callable[..., list[tuple[Any, ...]]]
    _of_items: Callable[[str], str]
    _make_item: Callable[..., Item]

    def _attach_children(
        self, visible: dict[int, Row], by_id: dict[int, Item], fields: dict[int, dict[str, str]]
    ) -> list[Attachment]:
        """Attachments under their parent items; returns the standalone ones."""
        cols = ", ".join(self.schema.column_or_null("itemAttachments", c) for c in ATTACHMENT_COLUMNS)
        standalone: list[Attachment] = []
        storage = StorageIndex(self.data_dir)
        for item_id, parent_id, mode, ctype, raw_path, mtime, fhash, last_read in self._rows(
            f"SELECT itemID, {cols} FROM itemAttachments" + self._of_items("itemID")
        ):
            row = visible.get(item_id)
            if row is None:
                continue
            link_mode = LinkMode(mode) if mode in LinkMode._value2member_map_ else LinkMode.IMPORTED_FILE
            path = resolve_attachment_path(
                raw_path, link_mode, row.key, storage, self.options.base_attachment_dir
            )
            item_fields = fields.get(item_id, {})
            parent = by_id.get(parent_id) if parent_id is not None else None
            attachment = Attachment(
                key=row.key,
                item_id=item_id,
                parent_key=parent.key if parent else None,
                title=item_fields.get("title", ""),
                link_mode=link_mode,
                content_type=ctype or "",
                raw_path=raw_path,
                path=path,
                exists=storage.exists(row.key, path),
                url=item_fields.get("url"),
                fulltext_cache=storage.fulltext_cache(row.key),
                date_added=row.date_added,
                date_modified=row.date_modified,
                version=row.version,
                storage_mod_time=mtime,
                storage_hash=fhash,
                last_read=unix_time_text(last_read),
            )
            if parent is not None:
                parent.attachments.append(attachment)
            elif parent_id is None:
                standalone.append(attachment)
        return standalone

    def _documents_as_items(
        self,
        standalone: list[Attachment],
        visible: dict[int, Row],
        fields: dict[int, dict[str, str]],
        base_fields: dict[int, dict[str, str]],
        tags: dict[int, list[TagRef]],
        trashed: set[int],
        items: dict[str, Item],
        by_id: dict[int, Item],
    ) -> list[Attachment]:
        """A PDF (or other document) dropped into Zotero without a parent item is an item of its own, as
        Zotero lists it: titled by its title or file name, its one attachment itself. Returns the
        standalone attachments that stay attachments (no file agent-zot reads)."""
        rest = []
        for attachment in standalone:
            row = visible.get(attachment.item_id)
            if row is None or not attachment.is_document or attachment.path is None or row.key in items:
                rest.append(attachment)
                continue
            own = dict(fields.get(attachment.item_id, {}))
            own["title"] = own.get("title") or attachment.file_name or row.key
            item = self._make_item(row, own, base_fields.get(attachment.item_id, {}), tags, trashed)
            item.attachments.append(replace(attachment, parent_key=row.key))
            items[row.key] = item
            by_id[attachment.item_id] = item
        return rest

    def _attach_notes(
        self, visible: dict[int, Row], by_id: dict[int, Item], tags: dict[int, list[TagRef]]
    ) -> list[Note]:
        title_col = self.schema.column_or_null("itemNotes", "title")
        standalone: list[Note] = []
        for item_id, parent_id, html, title in self._rows(
            f"SELECT itemID, parentItemID, note, {title_col} FROM itemNotes" + self._of_items("itemID")
        ):
            row = visible.get(item_id)
            if row is None or row.type_name != "note":
                continue  # attachments may carry a note too; those are not notes of their own
            parent = by_id.get(parent_id) if parent_id is not None else None
            text = html_to_text(html or "")
            note = Note(
                key=row.key,
                item_id=item_id,
                parent_key=parent.key if parent else None,
                html=html or "",
                text=text,
                title=title or (text.splitlines()[0][:120] if text else ""),
                date_added=row.date_added,
                date_modified=row.date_modified,
                tags=tags.get(item_id, []),
            )
            if parent is not None:
                parent.notes.append(note)
            elif parent_id is None:
                standalone.append(note)
        return standalone

    def _annotations(
        self, visible: dict[int, Row], tags: dict[int, list[TagRef]]
    ) -> dict[str, list[Annotation]]:
        """Zotero 6+ annotations, grouped by the key of the attachment they sit on, in reading order."""
        if not self.schema.has("itemAnnotations"):
            return {}
        cols = ", ".join(self.schema.column_or_null("itemAnnotations", c) for c in ANNOTATION_COLUMNS)
        parent_of_attachment = dict(
            self._rows("SELECT itemID, parentItemID FROM itemAttachments WHERE parentItemID IS NOT NULL")
        )
        result: dict[str, list[Annotation]] = defaultdict(list)
        for item_id, att_id, kind, author, text, comment, color, label, sort_index, position in self._rows(
            f"SELECT itemID, {cols} FROM itemAnnotations" + self._of_items("itemID")
        ):
            row, attachment = visible.get(item_id), visible.get(att_id)
            if row is None or attachment is None:
                continue
            grandparent = visible.get(parent_of_attachment.get(att_id, -1))
            result[attachment.key].append(
                Annotation(
                    key=row.key,
                    item_id=item_id,
                    attachment_key=attachment.key,
                    parent_item_key=grandparent.key if grandparent else None,
                    annotation_type=ANNOTATION_TYPES.get(kind, str(kind)),
                    text=text or "",
                    comment=comment or "",
                    color=color or "",
                    page_label=label or "",
                    page_index=_page_index(position),
                    sort_index=sort_index or "",
                    author_name=author or "",
                    date_added=row.date_added,
                    date_modified=row.date_modified,
                    tags=tags.get(item_id, []),
                )
            )
        for anns in result.values():
            anns.sort(key=lambda a: a.sort_index)
        return dict(result)


def _page_index(position: str | None) -> int | None:
    if not position:
        return None
    try:
        value = json.loads(position).get("pageIndex")
    except (json.JSONDecodeError, AttributeError):
        return None
    return value if isinstance(value, int) else None
