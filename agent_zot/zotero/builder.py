"""Build Zotero-shaped data directories (zotero.sqlite + storage/) from schema facts.

Used by the test suite to make libraries that cover every case the reader handles, in old and new
schema shapes, and by the demo library. It only ever creates new files in a folder it is given; it has
nothing to do with a user's real zotero.sqlite.
"""

from __future__ import annotations

import csv
import json
import random
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from agent_zot.identifiers import KEY_ALPHABET
from agent_zot.zotero.attachments import FULLTEXT_CACHE
from agent_zot.zotero.builder_schema import complete, ddl, finish, version_rows
from agent_zot.zotero.schema_facts import (
    ANNOTATION_TYPE_IDS,
    CREATOR_TYPES,
    ITEM_TYPE_FIELDS,
    LINK_MODES,
    SHAPES,
    fields_of,
)


@dataclass
class _Pending:
    statements: list[tuple[str, tuple[object, ...]]] = field(default_factory=list)

    def add(self, sql: str, *params: object) -> None:
        self.statements.append((sql, params))


class ZoteroLibraryBuilder:
    """Describe a library item by item, then :meth:`build` writes ``<data_dir>/zotero.sqlite``.

    >>> b = ZoteroLibraryBuilder(tmp_path, shape="z7")
    >>> key = b.add_item("journalArticle", title="A paper", creators=[("Ada", "Lovelace")])
    >>> db = b.build()
    """

    def __init__(
        self, data_dir: Path, *, shape: str = "z7", userdata: int | None = None, seed: int = 7
    ) -> None:
        if shape not in SHAPES:
            raise ValueError(f"unknown schema shape {shape!r}; choose from {', '.join(SHAPES)}")
        self.data_dir = Path(data_dir)
        self.shape = SHAPES[shape]
        self.userdata = userdata or self.shape.userdata
        self._rng = random.Random(seed)
        self._keys: set[str] = set()
        self._next_id = 1
        self._ids: dict[tuple[int, str], int] = {}  # (libraryID, key) -> itemID
        self._collections: dict[tuple[int, str], int] = {}
        self._sql = _Pending()
        self._values: dict[object, int] = {}
        self._tags: dict[str, int] = {}
        self._creators: dict[tuple[str, str, int], int] = {}
        self._predicates: dict[str, int] = {}
        self._libraries: list[tuple[int, str]] = [(1, "user")]
        # Offsets make our ids differ from Zotero's and between shapes.
        offset = 100 + len(self.shape.name) * 7
        self.type_fields = {
            t: fields_of(t, citation_key=self.shape.citation_key_field, schema40=self.shape.schema40_fields)
            for t in ITEM_TYPE_FIELDS
        }
        fields = sorted(
            {f for fs in self.type_fields.values() for f in fs}
            | {b for fs in self.type_fields.values() for b in fs.values() if b}
        )
        self._fulltext_ids: list[int] = []
        self.field_ids = {name: offset + i for i, name in enumerate(fields)}
        self.type_ids = {name: offset * 2 + i for i, name in enumerate(ITEM_TYPE_FIELDS)}
        self.creator_type_ids = {name: offset * 3 + i for i, name in enumerate(CREATOR_TYPES)}

    # -- identity ------------------------------------------------------------------------------

    def new_key(self) -> str:
        while True:
            key = "".join(self._rng.choice(KEY_ALPHABET) for _ in range(8))
            if key not in self._keys:
                self._keys.add(key)
                return key

    def _new_item_row(
        self,
        item_type: str,
        library_id: int,
        key: str | None,
        date_added: str,
        date_modified: str | None,
        version: int,
    ) -> tuple[int, str]:
        key = key or self.new_key()
        self._keys.add(key)
        item_id = self._next_id
        self._next_id += 1
        self._ids[(library_id, key)] = item_id
        self._sql.add(
            "INSERT INTO items (itemID, itemTypeID, dateAdded, dateModified, clientDateModified, libraryID, key, "
            "version) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            item_id,
            self.type_ids[item_type],
            date_added,
            date_modified or date_added,
            date_modified or date_added,
            library_id,
            key,
            version,
        )
        return item_id, key

    def item_id(self, key: str, library_id: int = 1) -> int:
        return self._ids[(library_id, key)]

    # -- libraries -----------------------------------------------------------------------------

    def add_group(self, group_id: int, name: str) -> int:
        library_id = max(lib for lib, _ in self._libraries) + 1
        self._libraries.append((library_id, "group"))
        self._sql.add("INSERT INTO groups VALUES (?, ?, ?, '', 0)", group_id, library_id, name)
        return library_id

    def add_feed_library(self) -> int:
        library_id = max(lib for lib, _ in self._libraries) + 1
        self._libraries.append((library_id, "feed"))
        return library_id

    # -- items ---------------------------------------------------------------------------------

    def add_item(
        self,
        item_type: str,
        *,
        key: str | None = None,
        library_id: int = 1,
        creators: Sequence[tuple[str, str] | tuple[str, str, str] | str] = (),
        tags: Sequence[str | tuple[str, int]] = (),
        collections: Sequence[str] = (),
        date_added: str = "2024-01-15 10:00:00",
        date_modified: str | None = None,
        version: int = 1,
        deleted: bool = False,
        relations: Sequence[tuple[str, str]] = (),
        **fields: str,
    ) -> str:
        """Add a regular item. Creators: ("First", "Last"[, role]) or "Single Field Name"."""
        if item_type not in ITEM_TYPE_FIELDS:
            raise ValueError(f"no schema facts for item type {item_type!r}")
        item_id, key = self._new_item_row(item_type, library_id, key, date_added, date_modified, version)
        self._set_fields(item_id, item_type, fields)
        for index, creator in enumerate(creators):
            self._add_creator(item_id, index, creator)
        for tag in tags:
            self._tag(item_id, tag)
        for collection_key in collections:
            self.add_to_collection(collection_key, key, library_id)
        for predicate, obj in relations:
            self._relate(item_id, predicate, obj)
        if deleted:
            self._sql.add("INSERT INTO deletedItems (itemID) VALUES (?)", item_id)
        return key

    def _set_fields(self, item_id: int, item_type: str, fields: dict[str, str]) -> None:
        allowed = self.type_fields[item_type]
        for name, value in fields.items():
            if name not in allowed:
                raise ValueError(f"{item_type} has no field {name!r} in schema shape {self.shape.name}")
            value_id = self._values.setdefault(value, len(self._values) + 1)
            self._sql.add("INSERT INTO itemData VALUES (?, ?, ?)", item_id, self.field_ids[name], value_id)

    def _add_creator(self, item_id: int, index: int, creator: tuple[str, ...] | str) -> None:
        if isinstance(creator, str):
            first, last, mode, role = "", creator, 1, "author"
        else:
            first, last = creator[0], creator[1]
            role = creator[2] if len(creator) > 2 else "author"
            mode = 0
        creator_id = self._creators.setdefault((first, last, mode), len(self._creators) + 1)
        self._sql.add(
            "INSERT INTO itemCreators VALUES (?, ?, ?, ?)",
            item_id,
            creator_id,
            self.creator_type_ids[role],
            index,
        )

    def _tag(self, item_id: int, tag: str | tuple[str, int]) -> None:
        name, kind = (tag, 0) if isinstance(tag, str) else tag
        tag_id = self._tags.setdefault(name, len(self._tags) + 1)
        self._sql.add("INSERT INTO itemTags VALUES (?, ?, ?)", item_id, tag_id, kind)

    def _relate(self, item_id: int, predicate: str, obj: str) -> None:
        pred_id = self._predicates.setdefault(predicate, len(self._predicates) + 1)
        self._sql.add("INSERT INTO itemRelations VALUES (?, ?, ?)", item_id, pred_id, obj)

    def add_relation(self, key: str, predicate: str, obj: str, library_id: int = 1) -> None:
        self._relate(self._ids[(library_id, key)], predicate, obj)

    def item_uri(self, key: str, user_id: str = "local/aB3dE5fG") -> str:
        return f"http://zotero.org/users/{user_id}/items/{key}"

    # -- collections ---------------------------------------------------------------------------

    def add_collection(
        self, name: str, *, parent: str | None = None, library_id: int = 1, deleted: bool = False
    ) -> str:
        key = self.new_key()
        collection_id = len(self._collections) + 11
        self._collections[(library_id, key)] = collection_id
        parent_id = self._collections[(library_id, parent)] if parent else None
        self._sql.add(
            "INSERT INTO collections (collectionID, collectionName, parentCollectionID, libraryID, key) "
            "VALUES (?, ?, ?, ?, ?)",
            collection_id,
            name,
            parent_id,
            library_id,
            key,
        )
        if deleted:
            if not self.shape.deleted_collections:
                raise ValueError(f"schema shape {self.shape.name} has no collection trash")
            self._sql.add("INSERT INTO deletedCollections (collectionID) VALUES (?)", collection_id)
        return key

    def add_to_collection(self, collection_key: str, item_key: str, library_id: int = 1) -> None:
        self._sql.add(
            "INSERT INTO collectionItems (collectionID, itemID) VALUES (?, ?)",
            self._collections[(library_id, collection_key)],
            self._ids[(library_id, item_key)],
        )

    def add_papers_from_csv(self, csv_path: Path) -> dict[str, str]:
        """One journal article per row of a papers table (columns file, title, authors as "Last, First; …",
        year, venue, doi), each with its PDF from beside the table; returns file name → item key."""
        keys: dict[str, str] = {}
        with csv_path.open(encoding="utf-8") as fh:
            for row in csv.DictReader(fh):
                creators: list[tuple[str, str] | tuple[str, str, str] | str] = []
                for name in filter(None, (n.strip() for n in row["authors"].split(";"))):
                    last, _, first = name.partition(",")
                    creators.append((first.strip(), last.strip()))
                fields: dict[str, str] = {
                    "title": row["title"],
                    "publicationTitle": row["venue"] or "Unknown venue",
                }
                if row["year"]:
                    fields["date"] = f"{row['year']}-00-00 {row['year']}"
                if row["doi"]:
                    fields["DOI"] = row["doi"]
                key = keys[row["file"]] = self.add_item("journalArticle", creators=creators)
                self._set_fields(self._ids[(1, key)], "journalArticle", fields)
                self.add_attachment(
                    key, filename=row["file"], content=(csv_path.parent / row["file"]).read_bytes()
                )
        return keys

    # -- children ------------------------------------------------------------------------------

    def add_retraction(
        self,
        item_key: str,
        *,
        date: str | None = None,
        reasons: Sequence[str] = (),
        notice_doi: str | None = None,
        pmid: str | None = None,
        urls: Sequence[str] = (),
        flag: int = 0,
        library_id: int = 1,
    ) -> None:
        """Mark an item retracted as Zotero does: a ``retractedItems`` row whose ``data`` is the JSON of
        Zotero's retraction API result (the notice's DOI/PMID in place of the item's, ``date`` as
        YYYY-MM-DD, ``reasons`` and ``urls`` lists), and ``flag`` 0 (shown), 1 (hidden by the user) or 2
        (no warning when cited)."""
        if not self.shape.retractions:
            raise ValueError(f"schema shape {self.shape.name!r} has no retractedItems table")
        data: dict[str, object] = {"date": date, "reasons": list(reasons), "urls": list(urls)}
        if notice_doi:
            data["doi"] = notice_doi
        if pmid:
            data["pmid"] = pmid
        item_id = self._ids[(library_id, item_key)]
        self._sql.add(
            "INSERT INTO retractedItems (itemID, data, flag) VALUES (?, ?, ?)",
            item_id,
            json.dumps(data),
            flag,
        )

    def add_attachment(
        self,
        parent_key: str | None,
        *,
        filename: str | None = None,
        content: bytes | None = None,
        link_mode: str = "imported_file",
        content_type: str = "application/pdf",
        path: str | None = None,
        title: str = "Full Text PDF",
        url: str | None = None,
        fulltext: str | None = None,
        library_id: int = 1,
        deleted: bool = False,
        last_read: str | None = None,
    ) -> str:
        """Add an attachment. Stored files: give ``filename`` (+ ``content`` to write it under storage/KEY/).
        Linked files: give ``path`` as Zotero stores it (absolute, or ``attachments:REL``). ``last_read``
        ("YYYY-MM-DD HH:MM:SS", UTC): when it was last opened (Zotero 9+ keeps Unix seconds)."""
        if last_read is not None and not self.shape.last_read:
            raise ValueError(f"schema shape {self.shape.name} predates itemAttachments.lastRead")
        item_id, key = self._new_item_row("attachment", library_id, None, "2024-01-16 09:00:00", None, 1)
        raw_path = path
        if filename is not None:
            raw_path = f"storage:{filename}"
            folder = self.data_dir / "storage" / key
            if content is not None:
                folder.mkdir(parents=True, exist_ok=True)
                (folder / filename).write_bytes(content)
        if fulltext is not None:
            folder = self.data_dir / "storage" / key
            folder.mkdir(parents=True, exist_ok=True)
            (folder / FULLTEXT_CACHE).write_text(fulltext, encoding="utf-8")
            self._fulltext_ids.append(item_id)
            self._sql.add(
                "INSERT INTO fulltextItems (itemID, indexedPages, totalPages) VALUES (?, 1, 1)", item_id
            )
        parent_id = self._ids[(library_id, parent_key)] if parent_key else None
        self._sql.add(
            "INSERT INTO itemAttachments (itemID, parentItemID, linkMode, contentType, path) VALUES (?, ?, ?, ?, ?)",
            item_id,
            parent_id,
            LINK_MODES[link_mode],
            content_type,
            raw_path,
        )
        fields = {"title": title} | ({"url": url} if url else {})
        self._set_fields(item_id, "attachment", fields)
        if last_read is not None:
            stamp = datetime.strptime(last_read, "%Y-%m-%d %H:%M:%S").replace(tzinfo=UTC)
            self._sql.add(
                "UPDATE itemAttachments SET lastRead = ? WHERE itemID = ?", int(stamp.timestamp()), item_id
            )
        if deleted:
            self._sql.add("INSERT INTO deletedItems (itemID) VALUES (?)", item_id)
        return key

    def add_note(
        self,
        parent_key: str | None,
        html: str,
        *,
        library_id: int = 1,
        tags: Sequence[str] = (),
        deleted: bool = False,
    ) -> str:
        item_id, key = self._new_item_row("note", library_id, None, "2024-01-17 08:30:00", None, 1)
        title = " ".join(html.replace("<", " <").split())[:60]
        self._sql.add(
            "INSERT INTO itemNotes VALUES (?, ?, ?, ?)",
            item_id,
            self._ids[(library_id, parent_key)] if parent_key else None,
            html,
            title,
        )
        for tag in tags:
            self._tag(item_id, tag)
        if deleted:
            self._sql.add("INSERT INTO deletedItems (itemID) VALUES (?)", item_id)
        return key

    def add_annotation(
        self,
        attachment_key: str,
        *,
        kind: str = "highlight",
        text: str = "",
        comment: str = "",
        color: str = "#ffd400",
        page_label: str = "1",
        page_index: int = 0,
        library_id: int = 1,
        tags: Sequence[str] = (),
    ) -> str:
        if not self.shape.annotations:
            raise ValueError(f"schema shape {self.shape.name} predates Zotero annotations")
        item_id, key = self._new_item_row("annotation", library_id, None, "2024-01-18 12:00:00", None, 1)
        position = json.dumps({"pageIndex": page_index, "rects": [[72.0, 500.0, 300.0, 512.0]]})
        sort_index = f"{page_index:05d}|{item_id:06d}|00000"
        self._sql.add(
            "INSERT INTO itemAnnotations (itemID, parentItemID, type, authorName, text, comment, color, pageLabel, "
            "sortIndex, position, isExternal) VALUES (?, ?, ?, '', ?, ?, ?, ?, ?, ?, 0)",
            item_id,
            self._ids[(library_id, attachment_key)],
            ANNOTATION_TYPE_IDS[kind],
            text,
            comment,
            color,
            page_label,
            sort_index,
            position,
        )
        for tag in tags:
            self._tag(item_id, tag)
        return key

    # -- output --------------------------------------------------------------------------------

    def build(self) -> Path:
        """Write ``zotero.sqlite`` (replacing any earlier build in this folder) and return its path."""
        self.data_dir.mkdir(parents=True, exist_ok=True)
        db_path = self.data_dir / "zotero.sqlite"
        db_path.unlink(missing_ok=True)
        conn = sqlite3.connect(db_path)
        try:
            self._write(conn)
            complete(conn, self.shape, self._rng)
            conn.commit()
        finally:
            conn.close()
        finish(db_path, self.shape, self._fulltext_ids)
        return db_path

    def _write(self, conn: sqlite3.Connection) -> None:
        suffix = "Combined" if self.shape.combined_tables else ""
        conn.executescript(ddl(self.shape))
        conn.executemany("INSERT INTO version VALUES (?, ?)", version_rows(self.shape, self.userdata))
        conn.executemany(
            "INSERT INTO libraries (libraryID, type, editable, filesEditable) VALUES (?, ?, 1, 1)",
            self._libraries,
        )
        conn.executemany(
            f"INSERT INTO itemTypes{suffix} VALUES (?, ?)", [(i, n) for n, i in self.type_ids.items()]
        )
        conn.executemany(
            f"INSERT INTO fields{suffix} VALUES (?, ?)", [(i, n) for n, i in self.field_ids.items()]
        )
        conn.executemany(
            "INSERT INTO creatorTypes VALUES (?, ?)", [(i, n) for n, i in self.creator_type_ids.items()]
        )
        conn.executemany(
            f"INSERT INTO baseFieldMappings{suffix} VALUES (?, ?, ?)",
            [
                (self.type_ids[t], self.field_ids[base], self.field_ids[f])
                for t, fs in self.type_fields.items()
                for f, base in fs.items()
                if base
            ],
        )
        conn.executemany(
            "INSERT INTO itemDataValues (valueID, value) VALUES (?, ?)",
            [(i, v) for v, i in self._values.items()],
        )
        conn.executemany(
            "INSERT INTO tags (tagID, name) VALUES (?, ?)", [(i, n) for n, i in self._tags.items()]
        )
        conn.executemany(
            "INSERT INTO creators (creatorID, firstName, lastName, fieldMode) VALUES (?, ?, ?, ?)",
            [(i, f, last, m) for (f, last, m), i in self._creators.items()],
        )
        conn.executemany(
            "INSERT INTO relationPredicates VALUES (?, ?)", [(i, p) for p, i in self._predicates.items()]
        )
        for sql, params in self._sql.statements:
            conn.execute(sql, params)
