"""The tables of each Zotero generation, for the fixture builder (builder.py): the DDL of one schema shape,
its `version` rows, and what Zotero 9 and 10 add around the rows (normalized search columns, the WAL
journal, `fulltext.sqlite`, the local API's server id). Facts: docs/research/zotero-10-local-api.md §2."""

from __future__ import annotations

import random
import sqlite3
import string
import unicodedata
from pathlib import Path

from agent_zot.zotero.schema_facts import SchemaShape

FULLTEXT_DB = "fulltext.sqlite"  # Zotero 10's word index, beside zotero.sqlite
# fulltext.sqlite's tables (fulltext.js, 10.0.0): contentless FTS5 word indexes and their bookkeeping.
_FULLTEXT_DDL = (
    "CREATE VIRTUAL TABLE fulltextContent USING fts5(text, content='', tokenize='unicode61')",
    "CREATE VIRTUAL TABLE fulltextContentCJK USING fts5(text, content='', tokenize='ascii')",
    "CREATE VIRTUAL TABLE fulltextNotes USING fts5(text, content='', tokenize='trigram')",
    "CREATE VIRTUAL TABLE fulltextNotesCJK USING fts5(text, content='', tokenize='ascii')",
    "CREATE TABLE fulltextIndexState (itemID INTEGER PRIMARY KEY, version INT NOT NULL)",
    "CREATE TABLE fulltextNoteIndexState (itemID INTEGER PRIMARY KEY, version INT NOT NULL)",
    "CREATE TABLE noteText (itemID INTEGER PRIMARY KEY, text TEXT)",
    "CREATE TABLE fulltextIndexMeta (key TEXT PRIMARY KEY, value)",
)


def ddl(shape: SchemaShape) -> str:
    """Tables as Zotero lays them out, limited to what agent-zot reads, for one schema era."""
    suffix = "Combined" if shape.combined_tables else ""
    client_version = ", clientVersion INT NOT NULL DEFAULT 0" if shape.client_version else ""
    attachment_extra = ", lastProcessedModificationTime INT" if shape.attachment_last_processed else ""
    attachment_extra += ", lastRead INT" if shape.last_read else ""
    admin = ", isAdmin INT NOT NULL DEFAULT 0" if shape.last_read else ""
    normalized = shape.normalized
    parts = [
        "CREATE TABLE version (schema TEXT PRIMARY KEY, version INT NOT NULL)",
        "CREATE TABLE libraries (libraryID INTEGER PRIMARY KEY, type TEXT NOT NULL, editable INT NOT NULL, "
        "filesEditable INT NOT NULL, version INT NOT NULL DEFAULT 0, storageVersion INT NOT NULL DEFAULT 0, "
        f"lastSync INT NOT NULL DEFAULT 0, archived INT NOT NULL DEFAULT 0{admin}{client_version})",
        "CREATE TABLE groups (groupID INTEGER PRIMARY KEY, libraryID INT NOT NULL UNIQUE, name TEXT NOT NULL, "
        "description TEXT NOT NULL, version INT NOT NULL)",
        f"CREATE TABLE itemTypes{suffix} (itemTypeID INTEGER PRIMARY KEY, typeName TEXT NOT NULL)",
        f"CREATE TABLE fields{suffix} (fieldID INTEGER PRIMARY KEY, fieldName TEXT NOT NULL)",
        f"CREATE TABLE baseFieldMappings{suffix} (itemTypeID INT, baseFieldID INT, fieldID INT, "
        "PRIMARY KEY (itemTypeID, baseFieldID, fieldID))",
        "CREATE TABLE creatorTypes (creatorTypeID INTEGER PRIMARY KEY, creatorType TEXT)",
        "CREATE TABLE items (itemID INTEGER PRIMARY KEY, itemTypeID INT NOT NULL, "
        "dateAdded TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP, "
        "dateModified TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP, "
        "clientDateModified TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP, libraryID INT NOT NULL, "
        f"key TEXT NOT NULL, version INT NOT NULL DEFAULT 0, synced INT NOT NULL DEFAULT 0{client_version}, "
        "UNIQUE (libraryID, key))",
        "CREATE TABLE itemDataValues (valueID INTEGER PRIMARY KEY, value UNIQUE"
        + (", valueNormalized TEXT" if normalized else "")
        + ")",
        "CREATE TABLE itemData (itemID INT, fieldID INT, valueID, PRIMARY KEY (itemID, fieldID))",
        "CREATE TABLE creators (creatorID INTEGER PRIMARY KEY, firstName TEXT, lastName TEXT, fieldMode INT, "
        + ("firstNameNormalized TEXT, lastNameNormalized TEXT, " if normalized else "")
        + "UNIQUE (lastName, firstName, fieldMode))",
        "CREATE TABLE itemCreators (itemID INT NOT NULL, creatorID INT NOT NULL, "
        "creatorTypeID INT NOT NULL DEFAULT 1, orderIndex INT NOT NULL DEFAULT 0, "
        "PRIMARY KEY (itemID, creatorID, creatorTypeID, orderIndex), UNIQUE (itemID, orderIndex))",
        "CREATE TABLE tags (tagID INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE"
        + (", nameNormalized TEXT" if normalized else "")
        + ")",
        "CREATE TABLE itemTags (itemID INT NOT NULL, tagID INT NOT NULL, type INT NOT NULL, "
        "PRIMARY KEY (itemID, tagID))",
        "CREATE TABLE collections (collectionID INTEGER PRIMARY KEY, collectionName TEXT NOT NULL, "
        "parentCollectionID INT DEFAULT NULL, clientDateModified TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP, "
        "libraryID INT NOT NULL, key TEXT NOT NULL, version INT NOT NULL DEFAULT 0, "
        f"synced INT NOT NULL DEFAULT 0{client_version}, UNIQUE (libraryID, key))",
        "CREATE TABLE collectionItems (collectionID INT NOT NULL, itemID INT NOT NULL, "
        "orderIndex INT NOT NULL DEFAULT 0, PRIMARY KEY (collectionID, itemID))",
        "CREATE TABLE itemAttachments (itemID INTEGER PRIMARY KEY, parentItemID INT, linkMode INT, "
        "contentType TEXT, charsetID INT, path TEXT, syncState INT DEFAULT 0, storageModTime INT, "
        f"storageHash TEXT{attachment_extra})",
        "CREATE TABLE itemNotes (itemID INTEGER PRIMARY KEY, parentItemID INT, note TEXT, title TEXT)",
        "CREATE TABLE deletedItems (itemID INTEGER PRIMARY KEY, dateDeleted DEFAULT CURRENT_TIMESTAMP NOT NULL)",
        "CREATE TABLE relationPredicates (predicateID INTEGER PRIMARY KEY, predicate TEXT UNIQUE)",
        "CREATE TABLE itemRelations (itemID INT NOT NULL, predicateID INT NOT NULL, object TEXT NOT NULL, "
        "PRIMARY KEY (itemID, predicateID, object))",
        "CREATE TABLE settings (setting TEXT, key TEXT, value, PRIMARY KEY (setting, key))",
        "CREATE TABLE savedSearches (savedSearchID INTEGER PRIMARY KEY, savedSearchName TEXT NOT NULL, "
        "clientDateModified TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP, libraryID INT NOT NULL, "
        f"key TEXT NOT NULL, version INT NOT NULL DEFAULT 0, synced INT NOT NULL DEFAULT 0{client_version}, "
        "UNIQUE (libraryID, key))",
        # userdata 127 recreates the conditions without `required`
        "CREATE TABLE savedSearchConditions (savedSearchID INT NOT NULL, searchConditionID INT NOT NULL, "
        "condition TEXT NOT NULL, operator TEXT, value TEXT"
        + (", required NONE" if shape.word_tables else "")
        + ", PRIMARY KEY (savedSearchID, searchConditionID))",
        "CREATE TABLE fulltextItems (itemID INTEGER PRIMARY KEY, indexedPages INT, totalPages INT, "
        "indexedChars INT, totalChars INT, version INT NOT NULL DEFAULT 0, synced INT NOT NULL DEFAULT 0)",
    ]
    if shape.word_tables:
        parts += [
            "CREATE TABLE fulltextWords (wordID INTEGER PRIMARY KEY, word TEXT UNIQUE)",
            "CREATE TABLE fulltextItemWords (wordID INT, itemID INT, PRIMARY KEY (wordID, itemID))",
        ]
    if shape.last_read:
        parts.append("CREATE INDEX itemAttachments_lastRead ON itemAttachments(lastRead)")
    if shape.deleted_collections:
        parts.append(
            "CREATE TABLE deletedCollections (collectionID INTEGER PRIMARY KEY, "
            "dateDeleted DEFAULT CURRENT_TIMESTAMP NOT NULL)"
        )
    if shape.annotations:
        parts.append(
            "CREATE TABLE itemAnnotations (itemID INTEGER PRIMARY KEY, parentItemID INT NOT NULL, "
            "type INTEGER NOT NULL, authorName TEXT, text TEXT, comment TEXT, color TEXT, pageLabel TEXT, "
            "sortIndex TEXT NOT NULL, position TEXT NOT NULL, isExternal INT NOT NULL"
            + (", textNormalized TEXT, commentNormalized TEXT" if normalized else "")
            + ")"
        )
    if shape.retractions:
        parts.append(
            "CREATE TABLE retractedItems (itemID INTEGER PRIMARY KEY, data TEXT, flag INT DEFAULT 0, "
            "FOREIGN KEY (itemID) REFERENCES items(itemID) ON DELETE CASCADE)"
        )
    return ";\n".join(parts) + ";"


def version_rows(shape: SchemaShape, userdata: int) -> list[tuple[str, int]]:
    """The `version` table: userdata, system and triggers always; the global schema and (8+) the
    compatibility level where the generation has them."""
    rows = [("userdata", userdata), ("system", 32), ("triggers", 18)]
    if shape.global_schema:
        rows.append(("globalSchema", shape.global_schema))
    if shape.schema40_fields:
        rows.append(("compatibility", 7 if shape.word_tables else 9))
    return rows


def _normalized(text: str | None) -> str | None:
    """Accent- and case-folded text, as the *Normalized columns hold it for accent-insensitive search."""
    if text is None:
        return None
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).casefold()


def complete(conn: sqlite3.Connection, shape: SchemaShape, rng: random.Random) -> None:
    """What a generation keeps beside the rows the builder wrote: normalized columns (10), the local
    API's server id (10)."""
    if shape.normalized:
        conn.create_function("normalized", 1, _normalized, deterministic=True)
        conn.execute("UPDATE itemDataValues SET valueNormalized = normalized(value)")
        conn.execute("UPDATE tags SET nameNormalized = normalized(name)")
        conn.execute(
            "UPDATE creators SET firstNameNormalized = normalized(firstName), "
            "lastNameNormalized = normalized(lastName)"
        )
        if shape.annotations:
            conn.execute(
                "UPDATE itemAnnotations SET textNormalized = normalized(text), "
                "commentNormalized = normalized(comment)"
            )
    if shape.client_version:
        server_id = "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(12))
        conn.execute("INSERT INTO settings VALUES ('localAPI', 'serverID', ?)", (server_id,))


def finish(db_path: Path, shape: SchemaShape, indexed: list[int]) -> None:
    """After the rows are committed: Zotero 10's WAL journal (header bytes 18/19 = 2; the -wal is
    checkpointed away when the connection closes, as at Zotero's clean shutdown) and its `fulltext.sqlite`
    with the ``indexed`` attachments' state."""
    fulltext = db_path.parent / FULLTEXT_DB
    fulltext.unlink(missing_ok=True)
    if not shape.wal:
        return
    conn = sqlite3.connect(db_path)
    try:
        conn.execute("PRAGMA journal_mode=WAL")
    finally:
        conn.close()
    conn = sqlite3.connect(fulltext)
    try:
        for statement in _FULLTEXT_DDL:
            conn.execute(statement)
        conn.executemany("INSERT INTO fulltextIndexState VALUES (?, 1)", [(i,) for i in indexed])
        conn.execute("INSERT INTO fulltextIndexMeta VALUES ('localUserKey', 'aB3dE5fG')")
        conn.execute("PRAGMA user_version = 2")
        conn.commit()
    finally:
        conn.close()
