"""What Zotero writes to ``zotero.sqlite`` when the user edits items: for tests and benchmarks only.

agent-zot never writes to a user's Zotero database. Tests and benchmark scripts need a library that changes
the way it does under Zotero (a retag, a title fixed, a paper filed into a collection), on a copy they
built or copied themselves, so this module writes those rows as Zotero's own edit does: the change itself,
then the item's ``version`` (kept at the last sync's, with ``synced = 0``, where the table has it) and its
``dateModified`` and ``clientDateModified`` stamps.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path


class LocalEdits:
    """Edits to a Zotero database copy, each batch in one transaction as Zotero commits it."""

    def __init__(self, db_path: Path) -> None:
        self.db_path = Path(db_path)

    @contextmanager
    def _editing(self, keys: Iterable[str]) -> Iterator[tuple[sqlite3.Connection, dict[str, int]]]:
        conn = sqlite3.connect(self.db_path)
        try:
            wanted = list(dict.fromkeys(keys))
            ids = {
                key: row[0]
                for key in wanted
                if (row := conn.execute("SELECT itemID FROM items WHERE key = ?", (key,)).fetchone())
            }
            missing = [key for key in wanted if key not in ids]
            if missing:
                raise KeyError(f"no items with keys {missing[:5]}")
            with conn:
                yield conn, ids
                self._touch(conn, list(ids.values()))
        finally:
            conn.close()

    @staticmethod
    def _touch(conn: sqlite3.Connection, item_ids: list[int]) -> None:
        now = datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S")
        columns = {row[1] for row in conn.execute("PRAGMA table_info(items)")}
        sets = ["dateModified = ?", "clientDateModified = ?"]
        if "synced" in columns:
            sets.append("synced = 0")
        conn.executemany(
            f"UPDATE items SET {', '.join(sets)} WHERE itemID = ?",  # noqa: S608 (column names are ours)
            [(now, now, item_id) for item_id in item_ids],
        )

    def add_tag(self, keys: Iterable[str], tag: str) -> None:
        with self._editing(keys) as (conn, ids):
            conn.execute("INSERT OR IGNORE INTO tags (name) VALUES (?)", (tag,))
            (tag_id,) = conn.execute("SELECT tagID FROM tags WHERE name = ?", (tag,)).fetchone()
            conn.executemany(
                "INSERT OR IGNORE INTO itemTags (itemID, tagID, type) VALUES (?, ?, 0)",
                [(item_id, tag_id) for item_id in ids.values()],
            )

    def remove_tag(self, keys: Iterable[str], tag: str) -> None:
        with self._editing(keys) as (conn, ids):
            conn.executemany(
                "DELETE FROM itemTags WHERE itemID = ? AND tagID = (SELECT tagID FROM tags WHERE name = ?)",
                [(item_id, tag) for item_id in ids.values()],
            )

    def set_field(self, key: str, field: str, value: str) -> None:
        """Set one field (``title``, ``abstractNote``, ``DOI`` …) of an item to a new value."""
        with self._editing([key]) as (conn, ids):
            table = _first_table(conn, "fieldsCombined", "fields")
            row = conn.execute(f"SELECT fieldID FROM {table} WHERE fieldName = ?", (field,)).fetchone()  # noqa: S608
            if row is None:
                raise KeyError(f"no field {field!r} in this schema")
            conn.execute("INSERT OR IGNORE INTO itemDataValues (value) VALUES (?)", (value,))
            (value_id,) = conn.execute(
                "SELECT valueID FROM itemDataValues WHERE value = ?", (value,)
            ).fetchone()
            conn.execute(
                "INSERT OR REPLACE INTO itemData (itemID, fieldID, valueID) VALUES (?, ?, ?)",
                (ids[key], row[0], value_id),
            )

    def add_to_collection(self, keys: Iterable[str], collection_key: str) -> None:
        with self._editing(keys) as (conn, ids):
            row = conn.execute(
                "SELECT collectionID FROM collections WHERE key = ?", (collection_key,)
            ).fetchone()
            if row is None:
                raise KeyError(f"no collection with key {collection_key!r}")
            conn.executemany(
                "INSERT OR IGNORE INTO collectionItems (collectionID, itemID) VALUES (?, ?)",
                [(row[0], item_id) for item_id in ids.values()],
            )


def _first_table(conn: sqlite3.Connection, *names: str) -> str:
    for name in names:
        if conn.execute("SELECT 1 FROM sqlite_master WHERE name = ?", (name,)).fetchone():
            return name
    raise KeyError(f"none of the tables {names}")
