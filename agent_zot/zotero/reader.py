"""Load a whole Zotero library from zotero.sqlite into plain objects, read-only.

One pass of a handful of set-based queries (no per-item queries), so a library of tens of thousands
of items loads in about a second. Every query adapts to the columns this schema actually has.
"""

from __future__ import annotations

import sqlite3
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path
from typing import Any

from agent_zot.zotero.children import ChildLoader, Row
from agent_zot.zotero.collection_tree import build_collections
from agent_zot.zotero.connection import FileState, read_at_state, read_consistently
from agent_zot.zotero.gc_pause import gc_paused
from agent_zot.zotero.marks import LibraryMarks, read_marks
from agent_zot.zotero.models import (
    NON_REGULAR_TYPES,
    Annotation,
    Attachment,
    Collection,
    Creator,
    Item,
    Library,
    LibraryInfo,
    Note,
    ReadOptions,
    Relation,
    Retraction,
    TagRef,
    ZoteroDate,
)
from agent_zot.zotero.schema import SchemaInfo, inspect_schema
from agent_zot.zotero.values import (
    RETRACTION_HIDDEN,
    RETRACTION_NO_WARNING,
    citation_key_from_extra,
    item_key_from_uri,
    parse_zotero_date,
    retraction_from,
)

_READABLE_LIBRARY_TYPES = ("user", "group", "publications")


def load_library(
    db_path: Path,
    data_dir: Path | None = None,
    options: ReadOptions | None = None,
    previous: Library | None = None,
) -> Library:
    """Read ``db_path`` (never writing to it) and return a consistent snapshot of the library.

    ``previous``, an earlier snapshot of the same database read with the same options and given its
    marks (:func:`attach_marks`, or an incremental read), makes this read incremental: only the items
    whose rows changed are read again (see zotero/marks.py); the snapshot returned equals a full read's."""
    data_dir = data_dir or db_path.parent
    options = options or ReadOptions()
    if previous is not None and (previous.db_path, previous.data_dir) != (db_path, data_dir):
        previous = None
    with gc_paused():
        library, state = read_at_state(
            db_path, lambda conn: _Loader(conn, db_path, data_dir, options).load(previous)
        )
    library.read_stamp = read_stamp(state, data_dir, options)
    return library


def attach_marks(library: Library, options: ReadOptions) -> bool:
    """Give a snapshot read in full the marks its next read compares, so that read is incremental.
    Read apart (about a second at 100,000 items, which a first answer should not wait for), and kept only
    when the database is still as the snapshot saw it; returns whether they were."""
    marks, state = read_at_state(
        library.db_path, lambda conn: _Loader(conn, library.db_path, library.data_dir, options).marks()
    )
    if read_stamp(state, library.data_dir, options) != library.read_stamp:
        return False
    library.marks = marks
    return True


def library_identity(db_path: Path) -> str:
    """``Library.identity`` of this database, read alone (milliseconds): what a request that does not wait
    for the whole read checks the index against."""
    return read_consistently(db_path, lambda conn: _identity_of(conn, inspect_schema(conn), db_path))


def _identity_of(conn: sqlite3.Connection, schema: SchemaInfo, db_path: Path) -> str:
    """What names this library across copies and moves: Zotero's local user key, else the file's path."""
    if schema.has("settings", "value"):
        row = conn.execute(
            "SELECT value FROM settings WHERE setting = 'account' AND key = 'localUserKey'"
        ).fetchone()
        if row and row[0]:
            return f"zotero-user:{row[0]}"
    return f"path:{db_path.resolve()}"


def read_stamp(state: FileState, data_dir: Path, options: ReadOptions) -> str:
    """What this snapshot was read from: the database file's state and the read options. Two snapshots
    with the same stamp hold the same metadata (files on disk may still differ)."""
    return f"{state.stamp()}|{options_stamp(data_dir, options)}"


def options_stamp(data_dir: Path, options: ReadOptions) -> str:
    """The part of a read stamp that says what the database was read with."""
    libraries = ",".join(map(str, sorted(options.library_ids))) if options.library_ids is not None else "all"
    return f"{data_dir}|trash={int(options.include_trash)}|libraries={libraries}|base={options.base_attachment_dir}"


class _Loader(ChildLoader):
    def __init__(self, conn: sqlite3.Connection, db_path: Path, data_dir: Path, options: ReadOptions) -> None:
        self.conn = conn
        self.db_path = db_path
        self.data_dir = data_dir
        self.options = options
        self.schema: SchemaInfo = inspect_schema(conn)
        self._dates: dict[str, ZoteroDate | None] = {}
        self.only: set[int] | None = None  # the items to read (whole families); None: all

    @property
    def _types(self) -> str:
        return self.schema.first_table("itemTypesCombined", "itemTypes")

    def _of_items(self, column: str) -> str:
        """The condition that keeps a query to the items being read (``self.only``), or nothing."""
        if self.only is None:
            return ""
        ids = ",".join(str(int(i)) for i in sorted(self.only)) or "NULL"
        return f" WHERE {column} IN ({ids})"

    def _rows(self, sql: str, params: tuple[object, ...] = ()) -> list[tuple[Any, ...]]:
        return self.conn.execute(sql, params).fetchall()

    # -- entry point -------------------------------------------------------------------------

    def load(self, previous: Library | None = None) -> Library:
        """The library; with ``previous`` (see :func:`load_library`), only the items that changed since
        are read, and every other item is reused."""
        libraries = self._libraries()
        lib_ids = {lib.library_id for lib in libraries}
        parents = self._parents()
        identity = self._identity()
        marks = self.marks(libraries, parents, identity) if previous and previous.marks else None
        self.only = self._families_to_read(marks, previous) if marks and previous else None
        rows = {r.item_id: r for r in self._item_rows() if r.library_id in lib_ids}
        if marks is None or self.only is None:
            trashed = self._trashed(rows, parents)
            trashed_count = sum(
                1 for i in trashed if i in rows and rows[i].type_name not in NON_REGULAR_TYPES
            )
        else:  # the rows read are a few families; the trash counts them all
            types = dict(self._rows(f"SELECT itemTypeID, typeName FROM {self._types}"))
            trashed = self._trashed([i for i, (lib, _) in marks.rows.items() if lib in lib_ids], parents)
            trashed_count = sum(1 for i in trashed if types.get(marks.rows[i][1]) not in NON_REGULAR_TYPES)
        visible = {i: r for i, r in rows.items() if self.options.include_trash or i not in trashed}
        fields, base_fields = self._fields()
        tags = self._tags()

        items: dict[str, Item] = {}
        by_id: dict[int, Item] = {}
        warnings = self.schema.warnings()
        for item_id, row in sorted(visible.items(), key=lambda kv: (kv[1].library_id, kv[0])):
            if row.type_name in NON_REGULAR_TYPES:
                continue
            item = self._make_item(row, fields.get(item_id, {}), base_fields.get(item_id, {}), tags, trashed)
            if row.key in items:
                warnings.append(
                    f"Item key {row.key} exists in several libraries; showing the first one only."
                )
                continue
            items[row.key] = item
            by_id[item_id] = item

        for item_id, retraction in self._retractions().items():
            if item_id in by_id:
                by_id[item_id].retraction = retraction
        creators = self._creators()
        for item_id, item in by_id.items():
            item.creators = creators.get(item_id, [])
        for item_id, rels in self._relations().items():
            if item_id in by_id:
                by_id[item_id].relations = rels

        standalone_attachments = self._attach_children(visible, by_id, fields)
        standalone_attachments = self._documents_as_items(
            standalone_attachments, visible, fields, base_fields, tags, trashed, items, by_id
        )
        standalone_notes = self._attach_notes(visible, by_id, tags)
        annotations = self._annotations(visible, tags)
        for key, found in annotations.items():
            if key in items:  # on a document that is an item of its own: that item is their paper
                annotations[key] = [replace(a, parent_item_key=key) for a in found]
        read = set(by_id)
        lineage: tuple[tuple[str, frozenset[str]], ...] = ()
        if self.only is not None and previous is not None:
            merged = _merge(previous, self.only, items, standalone_attachments, standalone_notes, annotations)
            if merged is None:  # an item key now clashes with a kept item's: read it all, as a first read
                return _Loader(self.conn, self.db_path, self.data_dir, self.options).load()
            items, standalone_attachments, standalone_notes, annotations, changed_keys = merged
            by_id = {item.item_id: item for item in items.values()}
            lineage = _lineage(previous, changed_keys)
        collections, trashed_collections = self._collections(lib_ids, by_id, read)
        return Library(
            data_dir=self.data_dir,
            db_path=self.db_path,
            schema_version=self.schema.userdata,
            libraries=libraries,
            items=items,
            collections=collections,
            trashed_collections=trashed_collections,
            standalone_notes=standalone_notes,
            standalone_attachments=standalone_attachments,
            annotations_by_attachment=annotations,
            trashed_count=trashed_count,
            warnings=warnings,
            identity=identity,
            marks=marks,
            lineage=lineage,
        )

    def _families_to_read(self, marks: LibraryMarks, previous: Library) -> set[int] | None:
        """The items to read (whole families) given ``previous``; None to read every item."""
        if previous.marks is None or any(w.startswith("Item key ") for w in previous.warnings):
            return None  # keys that clash across libraries: which one shows depends on them all
        changed = marks.changed_since(previous.marks)
        if changed is None:
            return None
        renamed = sorted(marks.renamed_tags(previous.marks))
        for start in range(0, len(renamed), _SQL_BATCH):
            batch = renamed[start : start + _SQL_BATCH]
            sql = f"SELECT itemID FROM itemTags WHERE tagID IN ({','.join('?' * len(batch))})"
            changed.update(r[0] for r in self._rows(sql, tuple(batch)))
        families = marks.families(changed, previous.marks)
        too_many = len(families) > max(_MOST_TO_READ_AGAIN * len(marks.rows), _FEW_TO_READ_AGAIN)
        return None if too_many else families

    def marks(
        self,
        libraries: list[LibraryInfo] | None = None,
        parents: dict[int, int] | None = None,
        identity: str | None = None,
    ) -> LibraryMarks:
        """What the next read compares to find the items that changed (zotero/marks.py)."""
        libraries = self._libraries() if libraries is None else libraries
        parents = self._parents() if parents is None else parents
        identity = self._identity() if identity is None else identity
        shared = (self.schema.userdata, tuple(libraries), identity, self.options, str(self.data_dir))
        return read_marks(self.conn, self.schema, parents, shared)

    def _identity(self) -> str:
        return _identity_of(self.conn, self.schema, self.db_path)

    # -- libraries and items -----------------------------------------------------------------

    def _libraries(self) -> list[LibraryInfo]:
        groups: dict[int, tuple[int, str]] = {}
        if self.schema.has("groups"):
            groups = {
                lib: (gid, name)
                for gid, lib, name in self._rows("SELECT groupID, libraryID, name FROM groups")
            }
        result = []
        for library_id, kind in self._rows("SELECT libraryID, type FROM libraries ORDER BY libraryID"):
            if kind not in _READABLE_LIBRARY_TYPES:
                continue
            if self.options.library_ids is not None and library_id not in self.options.library_ids:
                continue
            group_id, name = groups.get(library_id, (None, "My Library" if kind == "user" else kind))
            result.append(LibraryInfo(library_id, "group" if kind == "group" else "user", name, group_id))
        return result

    def _item_rows(self) -> list[Row]:
        sql = (
            "SELECT i.itemID, i.key, i.libraryID, t.typeName, i.dateAdded, i.dateModified, "
            f"{self.schema.column_or_null('items', 'version')} "
            f"FROM items i JOIN {self._types} t ON t.itemTypeID = i.itemTypeID" + self._of_items("i.itemID")
        )
        return [Row(r[0], r[1], r[2], r[3], r[4] or "", r[5] or "", r[6] or 0) for r in self._rows(sql)]

    def _parents(self) -> dict[int, int]:
        """Child item id -> parent item id, for attachments, notes and annotations."""
        parents: dict[int, int] = {}
        for table in ("itemAttachments", "itemNotes", "itemAnnotations"):
            if self.schema.has(table, "parentItemID"):
                sql = f"SELECT itemID, parentItemID FROM {table} WHERE parentItemID IS NOT NULL"
                parents.update(self._rows(sql))
        return parents

    def _trashed(self, ids: Iterable[int], parents: dict[int, int]) -> set[int]:
        """Items in the trash, and children whose parent (or grandparent) is in the trash."""
        if not self.schema.has("deletedItems"):
            return set()
        deleted = {r[0] for r in self._rows("SELECT itemID FROM deletedItems")}
        trashed = set(deleted)
        for item_id in ids:
            parent = parents.get(item_id)
            while parent is not None and item_id not in trashed:
                if parent in deleted:
                    trashed.add(item_id)
                parent = parents.get(parent)
        return trashed

    def _fields(self) -> tuple[dict[int, dict[str, str]], dict[int, dict[str, str]]]:
        """Field values by item, and the same values under their base field names."""
        field_table = self.schema.first_table("fieldsCombined", "fields")
        names = dict(self._rows(f"SELECT fieldID, fieldName FROM {field_table}"))
        base_of: dict[tuple[int, int], str] = {}
        mapping = next(
            (t for t in ("baseFieldMappingsCombined", "baseFieldMappings") if self.schema.has(t)), None
        )
        if mapping:
            for type_id, base_id, field_id in self._rows(
                f"SELECT itemTypeID, baseFieldID, fieldID FROM {mapping}"
            ):
                base_of[(type_id, field_id)] = names.get(base_id, "")
        fields: dict[int, dict[str, str]] = defaultdict(dict)
        base_fields: dict[int, dict[str, str]] = defaultdict(dict)
        sql = (
            "SELECT d.itemID, i.itemTypeID, d.fieldID, v.value FROM itemData d "
            "JOIN itemDataValues v ON v.valueID = d.valueID JOIN items i ON i.itemID = d.itemID"
            + self._of_items("d.itemID")
        )
        for item_id, type_id, field_id, value in self._rows(sql):
            name = names.get(field_id)
            if name is None or value is None:
                continue
            fields[item_id][name] = str(value)
            base = base_of.get((type_id, field_id))
            if base:
                base_fields[item_id][base] = str(value)
        return fields, base_fields

    def _make_item(
        self,
        row: Row,
        fields: dict[str, str],
        base_fields: dict[str, str],
        tags: dict[int, list[TagRef]],
        trashed: set[int],
    ) -> Item:
        return Item(
            key=row.key,
            item_id=row.item_id,
            item_type=row.type_name,
            library_id=row.library_id,
            fields=fields,
            base_fields=base_fields,
            tags=tags.get(row.item_id, []),
            date=self._date(fields.get("date")),
            date_added=row.date_added,
            date_modified=row.date_modified,
            version=row.version,
            citation_key=fields.get("citationKey") or citation_key_from_extra(fields.get("extra", "")),
            deleted=row.item_id in trashed,
        )

    def _date(self, stored: str | None) -> ZoteroDate | None:
        """Dates recur (a year, a month); a parsed date is immutable, so each distinct text is parsed once."""
        if not stored:
            return None
        if stored not in self._dates:
            self._dates[stored] = parse_zotero_date(stored)
        return self._dates[stored]

    def _retractions(self) -> dict[int, Retraction]:
        """Items Zotero flagged as retracted (schemas since Zotero 5.0.66), except those the user hid.
        A row whose data Zotero itself could not parse still marks the item, without details."""
        if not self.schema.has("retractedItems"):
            return {}
        flagged = self.schema.has("retractedItems", "flag")
        sql = f"SELECT itemID, data, {'flag' if flagged else '0'} FROM retractedItems"
        found: dict[int, Retraction] = {}
        for item_id, raw, flag in self._rows(sql + self._of_items("itemID")):
            if flag == RETRACTION_HIDDEN:
                continue
            found[item_id] = retraction_from(raw, warn=flag != RETRACTION_NO_WARNING)
        return found

    def _creators(self) -> dict[int, list[Creator]]:
        sql = (
            "SELECT ic.itemID, c.creatorID, c.firstName, c.lastName, c.fieldMode, ct.creatorType "
            "FROM itemCreators ic JOIN creators c ON c.creatorID = ic.creatorID "
            "JOIN creatorTypes ct ON ct.creatorTypeID = ic.creatorTypeID"
            + self._of_items("ic.itemID")
            + " ORDER BY ic.itemID, ic.orderIndex"
        )
        result: dict[int, list[Creator]] = defaultdict(list)
        # A creator is immutable and recurs across items: one object per distinct row saves time and memory.
        shared: dict[tuple[Any, ...], Creator] = {}
        for item_id, *row in self._rows(sql):
            key = tuple(row)
            creator = shared.get(key)
            if creator is None:
                creator_id, first, last, mode, ctype = row
                creator = shared[key] = Creator(creator_id, ctype, last or "", first or "", bool(mode))
            result[item_id].append(creator)
        return result

    def _tags(self) -> dict[int, list[TagRef]]:
        sql = (
            "SELECT it.itemID, t.name, it.type FROM itemTags it JOIN tags t ON t.tagID = it.tagID"
            + self._of_items("it.itemID")
            + " ORDER BY t.name"
        )
        result: dict[int, list[TagRef]] = defaultdict(list)
        shared: dict[tuple[str, int], TagRef] = {}  # immutable and recurring, as creators are
        for item_id, name, kind in self._rows(sql):
            tag = shared.get((name, kind))
            if tag is None:
                tag = shared[(name, kind)] = TagRef(name, automatic=kind == 1)
            result[item_id].append(tag)
        return result

    def _relations(self) -> dict[int, list[Relation]]:
        if not (self.schema.has("itemRelations") and self.schema.has("relationPredicates")):
            return {}
        sql = (
            "SELECT r.itemID, p.predicate, r.object FROM itemRelations r "
            "JOIN relationPredicates p ON p.predicateID = r.predicateID"
            + self._of_items("r.itemID")
            + " ORDER BY r.rowid"  # the order Zotero added them in, however the rows are looked up
        )
        result: dict[int, list[Relation]] = defaultdict(list)
        for item_id, predicate, obj in self._rows(sql):
            result[item_id].append(Relation(predicate, obj, item_key_from_uri(obj)))
        return result

    def _collections(
        self, lib_ids: set[int], by_id: dict[int, Item], read: set[int]
    ) -> tuple[dict[str, Collection], dict[str, Collection]]:
        """(live, trashed) collections: collection_tree.build_collections over this schema's rows."""
        deleted: set[int] = set()
        if self.schema.has("deletedCollections") and not self.options.include_trash:
            deleted = {r[0] for r in self._rows("SELECT collectionID FROM deletedCollections")}
        rows = [
            r
            for r in self._rows(
                "SELECT collectionID, key, collectionName, parentCollectionID, libraryID FROM collections"
            )
            if r[4] in lib_ids
        ]
        members = self._rows("SELECT collectionID, itemID FROM collectionItems ORDER BY orderIndex")
        return build_collections(rows, deleted, members, by_id, read)


_MOST_TO_READ_AGAIN = 0.25  # a larger share of the items changed: a full read is as quick
_FEW_TO_READ_AGAIN = 1000  # this many items are read again at once in any library, however small
_SQL_BATCH = 500  # bound parameters a query takes at once
_LINEAGE = 4  # earlier snapshots whose changed items a snapshot remembers

Merged = tuple[dict[str, Item], list[Attachment], list[Note], dict[str, list[Annotation]], frozenset[str]]


def _merge(
    previous: Library,
    read: set[int],
    items: dict[str, Item],
    attachments: list[Attachment],
    notes: list[Note],
    annotations: dict[str, list[Annotation]],
) -> Merged | None:
    """The items just read, with ``previous``'s other items, in a full read's order; and the keys of the
    items that changed (read again, new or gone). None when a key read clashes with a kept item's."""
    kept = {key: item for key, item in previous.items.items() if item.item_id not in read}
    if kept.keys() & items.keys():
        return None
    changed = frozenset(items.keys() | (previous.items.keys() - kept.keys()))
    merged = sorted([*kept.values(), *items.values()], key=_read_order)
    attachments = sorted(
        [*(a for a in previous.standalone_attachments if a.item_id not in read), *attachments],
        key=lambda a: a.item_id,
    )
    notes = sorted(
        [*(n for n in previous.standalone_notes if n.item_id not in read), *notes], key=lambda n: n.item_id
    )
    on_attachments = {
        key: anns for key, anns in previous.annotations_by_attachment.items() if anns[0].item_id not in read
    } | annotations
    ordered = dict(sorted(on_attachments.items(), key=lambda kv: min(a.item_id for a in kv[1])))
    return {i.key: i for i in merged}, attachments, notes, ordered, changed


def _read_order(item: Item) -> tuple[bool, int, int]:
    """Where a full read puts an item: regular items by library and id, then documents by id."""
    document = item.item_type == "attachment"
    return document, 0 if document else item.library_id, item.item_id


def _lineage(previous: Library, changed: frozenset[str]) -> tuple[tuple[str, frozenset[str]], ...]:
    """For each recent snapshot (the one just before first): the items that changed since it."""
    older = tuple((stamp, keys | changed) for stamp, keys in previous.lineage)
    return ((previous.read_stamp, changed), *older)[:_LINEAGE]
