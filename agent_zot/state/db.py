"""agent-zot's own SQLite state database (never Zotero's): one file in the data directory, one schema.

It holds what was indexed (items, attachments and the page texts they were indexed from), the graph facts
cached per indexed version of an item, and the embedded knowledge graph. Every module that keeps state
opens it through `connect`, so the tables are created in one place and in one version.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

from agent_zot.errors import AgentZotError

STATE_SCHEMA_VERSION = 1

SCHEMA = """
-- what was indexed (state/index.py)
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS items (
    item_key TEXT PRIMARY KEY,
    fingerprint TEXT NOT NULL,      -- Zotero version + dateModified + metadata text and payload hashes
    status TEXT NOT NULL,           -- indexed | failed
    chunks INTEGER NOT NULL DEFAULT 0,
    indexed_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS attachments (
    attachment_key TEXT PRIMARY KEY,
    item_key TEXT NOT NULL,
    fingerprint TEXT NOT NULL,      -- size + mtime (+ hash when computed) of the file, or its absence
    source TEXT NOT NULL,           -- pdfium | ft-cache | html | epub | text | none
    pages INTEGER NOT NULL DEFAULT 0,
    chunks INTEGER NOT NULL DEFAULT 0,
    status TEXT NOT NULL,           -- indexed | skipped | failed
    reason TEXT,
    references_text TEXT NOT NULL DEFAULT '',
    references_page INTEGER
);
CREATE INDEX IF NOT EXISTS attachments_item ON attachments(item_key);
CREATE TABLE IF NOT EXISTS pages (
    attachment_key TEXT NOT NULL,
    number INTEGER NOT NULL,
    label TEXT,
    text TEXT NOT NULL,
    PRIMARY KEY (attachment_key, number)
);
-- the pages whose text was read by OCR (a table of its own: indexes made before it lack it, and gain it
-- empty, which reads as "no page OCR'd" until the item is indexed again)
CREATE TABLE IF NOT EXISTS ocr_pages (
    attachment_key TEXT NOT NULL,
    number INTEGER NOT NULL,
    PRIMARY KEY (attachment_key, number)
);
-- each full-text chunk's sentence vectors, packed (index/sentence_vectors.py); indexes made before it
-- gain it empty, and pick passages without them until their items are indexed again
CREATE TABLE IF NOT EXISTS sentence_vectors (
    point_id TEXT PRIMARY KEY,
    item_key TEXT NOT NULL,
    data BLOB NOT NULL
);
CREATE INDEX IF NOT EXISTS sentence_vectors_item ON sentence_vectors(item_key);
-- title, authors and year read from a PDF that Zotero holds without a parent item (index/pdf_metadata.py)
CREATE TABLE IF NOT EXISTS pdf_metadata (
    attachment_key TEXT PRIMARY KEY,
    item_key TEXT NOT NULL,
    title TEXT NOT NULL,
    authors TEXT NOT NULL,          -- JSON list of names as printed
    year INTEGER,
    source TEXT NOT NULL            -- document info | first page
);
-- notes and annotations in the vector index (index/notes.py), one row per note or annotation
CREATE TABLE IF NOT EXISTS notes (
    note_key TEXT PRIMARY KEY,      -- the note's or annotation's own Zotero key (its points' item_key)
    kind TEXT NOT NULL,             -- note | annotation
    fingerprint TEXT NOT NULL,      -- hash of what its points hold (text, parent, page, colour)
    points INTEGER NOT NULL DEFAULT 1,
    indexed_at TEXT NOT NULL
);
-- graph facts per indexed version of an item (graph/facts.py)
CREATE TABLE IF NOT EXISTS graph_facts (
    item_key TEXT PRIMARY KEY,
    fingerprint TEXT NOT NULL,
    facts TEXT NOT NULL
);
-- what the last graph build or patch keeps for the next patch (graph/patch.py): item signatures, concepts
CREATE TABLE IF NOT EXISTS graph_memo (name TEXT PRIMARY KEY, value TEXT NOT NULL);
-- the embedded knowledge graph (graph/store_sqlite.py, which also adds its indexes)
CREATE TABLE IF NOT EXISTS graph_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS graph_nodes (
    id TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    props TEXT NOT NULL,            -- JSON object
    name TEXT NOT NULL DEFAULT ''   -- Node.name lower-cased, for lookups by name
);
CREATE TABLE IF NOT EXISTS graph_edges (
    source TEXT NOT NULL,
    kind TEXT NOT NULL,
    target TEXT NOT NULL,
    props TEXT NOT NULL,            -- JSON object
    PRIMARY KEY (source, kind, target)
);
INSERT OR IGNORE INTO graph_meta VALUES ('graph_version', '0');
"""


def rows_in(conn: sqlite3.Connection, query: str, values: Sequence[str]) -> list[tuple[Any, ...]]:
    """``query`` with its ``IN ({})`` over ``values``, a batch at a time (SQLite caps the parameters)."""
    rows: list[tuple[Any, ...]] = []
    for start in range(0, len(values), 500):
        batch = values[start : start + 500]
        rows += conn.execute(query.format(",".join("?" * len(batch))), batch).fetchall()
    return rows


class StateError(AgentZotError):
    """The state database cannot be opened or written."""


def connect(path: Path, *, autocommit: bool = True) -> sqlite3.Connection:
    """A connection to the state database at ``path``, created with its schema on first use. WAL mode, so
    readers never block the indexer. ``autocommit=False`` gives the sqlite3 module's implicit transactions
    (``with conn:`` commits)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    # "DEFERRED" is what a plain BEGIN does (the sqlite3 module's "")
    isolation: Literal["DEFERRED"] | None = None if autocommit else "DEFERRED"
    conn = sqlite3.connect(path, check_same_thread=False, timeout=30, isolation_level=isolation)
    try:
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")
        conn.executescript(SCHEMA)
        conn.execute("INSERT OR IGNORE INTO meta VALUES ('schema_version', ?)", (str(STATE_SCHEMA_VERSION),))
        if not autocommit:
            conn.commit()
    except sqlite3.Error:
        conn.close()
        raise
    return conn
