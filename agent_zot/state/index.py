"""The index state database: what was indexed, from which version of each item and file, and the page
texts it was indexed from. Our own SQLite file in the agent-zot data directory (never Zotero's).

Each item is recorded in one transaction after its points are in the vector store, so after a crash at
any point the next run sees the item as changed and re-indexes it; point ids are deterministic and an
item's old points are removed by item key before new ones are written, so nothing is duplicated or orphaned.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from agent_zot.state.db import StateError, connect
from agent_zot.zotero.file_metadata import FrontMatter

# The fingerprint recorded for a file that a metadata-only run (--no-fulltext) did not parse; never equal
# to a real one.
UNPARSED = "unparsed"


@dataclass(frozen=True, slots=True)
class AttachmentRecord:
    attachment_key: str
    item_key: str
    fingerprint: str
    source: str
    pages: int
    chunks: int
    status: str
    reason: str | None = None
    references_text: str = ""
    references_page: int | None = None


@dataclass(frozen=True, slots=True)
class PageRecord:
    number: int
    label: str | None
    text: str
    ocr: bool = False  # its text was read by OCR


@dataclass(frozen=True, slots=True)
class StateCounts:
    items_indexed: int
    items_failed: int
    attachments_indexed: int
    attachments_skipped: int
    attachments_failed: int
    chunks: int
    pages: int


class IndexState:
    """Thread-safe access to the state database (WAL mode, so readers never block the indexer)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            self._conn = connect(path)
        except sqlite3.DatabaseError as exc:
            if isinstance(exc, sqlite3.OperationalError):  # locked, read-only, cannot open: not damage
                raise StateError(
                    f"Cannot open the index state database {path}: {exc}.",
                    hint="Check that the agent-zot data directory is writable (setting data_dir).",
                ) from exc
            raise StateError(
                f"The full-text index is damaged: its state database cannot be read ({exc}).",
                hint="Run a plain `agent-zot update-db`: it rebuilds the index (your library is untouched).",
            ) from exc
        except (OSError, sqlite3.Error) as exc:
            raise StateError(
                f"Cannot open the index state database {path}: {exc}.",
                hint="Check that the agent-zot data directory is writable (setting data_dir).",
            ) from exc
        self._lock = threading.Lock()

    def close(self) -> None:
        self._conn.close()

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            committed = False
            try:
                yield self._conn
                committed = True
            finally:  # commit only what completed; anything else (even Ctrl-C) rolls back
                self._conn.execute("COMMIT" if committed else "ROLLBACK")

    # -- meta ----------------------------------------------------------------------------------

    def get_meta(self, key: str) -> str | None:
        row = self._conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None

    def set_meta(self, key: str, value: str) -> None:
        with self._transaction() as conn:
            conn.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, value))

    # -- items ---------------------------------------------------------------------------------

    def item_fingerprints(self) -> dict[str, str]:
        """Fingerprints of items recorded as indexed (failed ones are retried)."""
        rows = self._conn.execute("SELECT item_key, fingerprint FROM items WHERE status = 'indexed'")
        return dict(rows.fetchall())

    def item_keys(self) -> set[str]:
        """Every item an update has seen, indexed or failed."""
        return {row[0] for row in self._conn.execute("SELECT item_key FROM items")}

    def attachment_fingerprints(self) -> dict[str, str]:
        return dict(self._conn.execute("SELECT attachment_key, fingerprint FROM attachments").fetchall())

    def text_fingerprints(self) -> dict[str, str]:
        """Each attachment's file fingerprint with the size and page of the reference list read from it: what
        the graph's facts come from, which a parser that reads the same file better changes."""
        rows = self._conn.execute(
            "SELECT attachment_key, fingerprint, length(references_text), references_page FROM attachments"
        )
        return {key: f"{fingerprint}/{size}@{page}" for key, fingerprint, size, page in rows}

    def attachments_by_item(self) -> dict[str, set[str]]:
        result: dict[str, set[str]] = {}
        for item_key, attachment_key in self._conn.execute(
            "SELECT item_key, attachment_key FROM attachments"
        ):
            result.setdefault(item_key, set()).add(attachment_key)
        return result

    def unread_files(self) -> list[AttachmentRecord]:
        """Files an update tried and could not read (failed, or indexed from metadata only, with the
        reason), newest problems not first: by item and attachment key. Files whose text was not asked
        for (a metadata-only update) are not among them."""
        rows = self._conn.execute(
            "SELECT attachment_key, item_key, fingerprint, source, pages, chunks, status, reason, "
            "references_text, references_page FROM attachments WHERE status != 'indexed' "
            "AND fingerprint != ? ORDER BY item_key, attachment_key",
            (UNPARSED,),
        )
        return [AttachmentRecord(*row) for row in rows.fetchall()]

    def indexed_with_reasons(self) -> list[AttachmentRecord]:
        """Files indexed with a reason attached (some pages skipped, Zotero's cached text standing in for
        a file that timed out, a later parser of the chain reading it): services/upkeep/unread.py tells
        which of them were read only in part. By item and attachment key."""
        rows = self._conn.execute(
            "SELECT attachment_key, item_key, fingerprint, source, pages, chunks, status, reason, "
            "references_text, references_page FROM attachments WHERE status = 'indexed' "
            "AND reason IS NOT NULL AND reason != '' ORDER BY item_key, attachment_key"
        )
        return [AttachmentRecord(*row) for row in rows.fetchall()]

    def attachments_of(self, item_key: str) -> list[AttachmentRecord]:
        rows = self._conn.execute(
            "SELECT attachment_key, item_key, fingerprint, source, pages, chunks, status, reason, "
            "references_text, references_page FROM attachments WHERE item_key = ? ORDER BY attachment_key",
            (item_key,),
        )
        return [AttachmentRecord(*row) for row in rows.fetchall()]

    def record_item(
        self,
        item_key: str,
        fingerprint: str,
        *,
        status: str,
        attachments: Sequence[AttachmentRecord],
        pages: Mapping[str, Sequence[PageRecord]],
        points: int | None = None,
        front_matter: dict[str, FrontMatter] | None = None,
        sentence_vectors: Mapping[str, bytes] | None = None,
    ) -> None:
        """Replace everything known about an item in one transaction. ``points``: how many vector points
        the item has in the store (its chunks plus its metadata point); ``front_matter``: what was read
        from its PDFs' title blocks, by attachment key; ``sentence_vectors``: its chunks' packed sentence
        vectors, by point id."""
        chunks = points if points is not None else sum(a.chunks for a in attachments)
        with self._transaction() as conn:
            self._forget(conn, [item_key])
            conn.execute(
                "INSERT INTO items VALUES (?, ?, ?, ?, ?)", (item_key, fingerprint, status, chunks, _now())
            )
            conn.executemany(
                "INSERT INTO attachments VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (
                        a.attachment_key,
                        a.item_key,
                        a.fingerprint,
                        a.source,
                        a.pages,
                        a.chunks,
                        a.status,
                        a.reason,
                        a.references_text,
                        a.references_page,
                    )
                    for a in attachments
                ],
            )
            conn.executemany(
                "INSERT INTO pages VALUES (?, ?, ?, ?)",
                [(key, p.number, p.label, p.text) for key, recs in pages.items() for p in recs],
            )
            conn.executemany(
                "INSERT INTO ocr_pages VALUES (?, ?)",
                [(key, p.number) for key, recs in pages.items() for p in recs if p.ocr],
            )
            conn.executemany(
                "INSERT INTO pdf_metadata VALUES (?, ?, ?, ?, ?, ?)",
                [
                    (key, item_key, fm.title, json.dumps(list(fm.authors)), fm.year, fm.source)
                    for key, fm in (front_matter or {}).items()
                ],
            )
            conn.executemany(
                "INSERT OR REPLACE INTO sentence_vectors VALUES (?, ?, ?)",
                [(point, item_key, data) for point, data in (sentence_vectors or {}).items()],
            )

    def items_without_sentence_vectors(self) -> dict[str, int]:
        """Items with full-text chunks none of which has sentence vectors (indexed before they were kept),
        with their chunk counts."""
        rows = self._conn.execute(
            "SELECT a.item_key, SUM(a.chunks) FROM attachments a WHERE a.chunks > 0 AND NOT EXISTS "
            "(SELECT 1 FROM sentence_vectors s WHERE s.item_key = a.item_key) "
            "GROUP BY a.item_key ORDER BY a.item_key"
        )
        return {key: int(chunks) for key, chunks in rows}

    def add_sentence_vectors(self, item_key: str, packed: Mapping[str, bytes]) -> None:
        """Keep an indexed item's chunks' packed sentence vectors (by point id) beside what it has."""
        with self._transaction() as conn:
            conn.executemany(
                "INSERT OR REPLACE INTO sentence_vectors VALUES (?, ?, ?)",
                [(point, item_key, data) for point, data in packed.items()],
            )

    def sentence_vectors(self, point_ids: Sequence[str]) -> dict[str, bytes]:
        """The packed sentence vectors of those of ``point_ids`` that have them."""
        found: dict[str, bytes] = {}
        for start in range(0, len(point_ids), 500):  # within SQLite's bound-parameter limit
            part = point_ids[start : start + 500]
            marks = ",".join("?" * len(part))
            rows = self._conn.execute(
                f"SELECT point_id, data FROM sentence_vectors WHERE point_id IN ({marks})",  # noqa: S608 - marks only
                list(part),
            )
            found.update(rows.fetchall())
        return found

    def update_fingerprints(self, fingerprints: dict[str, str]) -> None:
        """Record new fingerprints of indexed items updated in place (their files and points stay)."""
        if fingerprints:
            with self._transaction() as conn:
                conn.executemany(
                    "UPDATE items SET fingerprint = ? WHERE item_key = ?",
                    [(fingerprint, key) for key, fingerprint in fingerprints.items()],
                )

    def update_points(self, counts: dict[str, int]) -> None:
        """Record how many points items updated in place now have (a metadata point came or went)."""
        if counts:
            with self._transaction() as conn:
                conn.executemany(
                    "UPDATE items SET chunks = ? WHERE item_key = ?", [(n, key) for key, n in counts.items()]
                )

    def forget_items(self, item_keys: Iterable[str]) -> None:
        keys = list(item_keys)
        if keys:
            with self._transaction() as conn:
                self._forget(conn, keys)

    @staticmethod
    def _forget(conn: sqlite3.Connection, item_keys: Sequence[str]) -> None:
        for key in item_keys:
            for table in ("pages", "ocr_pages"):
                conn.execute(
                    f"DELETE FROM {table} WHERE attachment_key IN (SELECT attachment_key "  # noqa: S608 - fixed names
                    "FROM attachments WHERE item_key = ?)",
                    (key,),
                )
            conn.execute("DELETE FROM pdf_metadata WHERE item_key = ?", (key,))
            conn.execute("DELETE FROM sentence_vectors WHERE item_key = ?", (key,))
            conn.execute("DELETE FROM attachments WHERE item_key = ?", (key,))
            conn.execute("DELETE FROM items WHERE item_key = ?", (key,))

    # -- notes and annotations ----------------------------------------------------------------

    def note_fingerprints(self) -> dict[str, str]:
        """Fingerprints of the notes and annotations whose points are in the store, by their key."""
        return dict(self._conn.execute("SELECT note_key, fingerprint FROM notes").fetchall())

    def record_notes(self, records: Sequence[tuple[str, str, str, int]]) -> None:
        """(key, kind, fingerprint, points) of notes and annotations just stored, in one transaction."""
        if records:
            now = _now()
            with self._transaction() as conn:
                conn.executemany(
                    "INSERT OR REPLACE INTO notes VALUES (?, ?, ?, ?, ?)", [(*r, now) for r in records]
                )

    def forget_notes(self, keys: Iterable[str]) -> None:
        wanted = [(key,) for key in keys]
        if wanted:
            with self._transaction() as conn:
                conn.executemany("DELETE FROM notes WHERE note_key = ?", wanted)

    def note_counts(self) -> dict[str, int]:
        """Indexed notes and annotations by kind."""
        return dict(self._conn.execute("SELECT kind, count(*) FROM notes GROUP BY kind").fetchall())

    def clear(self) -> None:
        with self._transaction() as conn:
            for table in ("pages", "ocr_pages", "pdf_metadata", "attachments", "items", "notes"):
                conn.execute(f"DELETE FROM {table}")  # noqa: S608 - fixed table names

    # -- reads for tools -----------------------------------------------------------------------

    def front_matter(self) -> dict[str, FrontMatter]:
        """What was read from the PDFs of items Zotero has no metadata for, by item key."""
        rows = self._conn.execute(
            "SELECT item_key, title, authors, year, source FROM pdf_metadata ORDER BY attachment_key"
        )
        found: dict[str, FrontMatter] = {}
        for item_key, title, authors, year, source in rows.fetchall():
            found.setdefault(item_key, FrontMatter(title, tuple(json.loads(authors)), year, source))
        return found

    def front_matter_stamp(self) -> str:
        """Changes whenever a row of ``front_matter`` is written or removed: a reader re-applies them then."""
        count, last = self._conn.execute("SELECT count(*), max(rowid) FROM pdf_metadata").fetchone()
        return f"{count}:{last}"

    def pages_of(self, attachment_key: str) -> list[PageRecord]:
        rows = self._conn.execute(
            "SELECT p.number, p.label, p.text, o.number IS NOT NULL FROM pages p LEFT JOIN ocr_pages o "
            "ON o.attachment_key = p.attachment_key AND o.number = p.number "
            "WHERE p.attachment_key = ? ORDER BY p.number",
            (attachment_key,),
        )
        return [PageRecord(number, label, text, bool(ocr)) for number, label, text, ocr in rows.fetchall()]

    def first_page(self, attachment_key: str) -> str:
        """The text of the attachment's first stored page ("" when none): where a paper prints its title
        block and abstract."""
        row = self._conn.execute(
            "SELECT text FROM pages WHERE attachment_key = ? ORDER BY number LIMIT 1", (attachment_key,)
        ).fetchone()
        return row[0] if row else ""

    def pages_holding(self, words: Iterable[str]) -> list[tuple[str, int, str]]:
        """(item key, page number, text) of every stored page whose text holds any of ``words`` (ASCII case
        ignored, as SQLite's LIKE does): what a caption search across the library reads."""
        wanted = [w for w in words if w]
        if not wanted:
            return []
        pattern = " OR ".join("p.text LIKE ? ESCAPE '\\'" for _ in wanted)
        escaped = [
            "%" + w.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%" for w in wanted
        ]
        joined = "FROM pages p JOIN attachments a ON a.attachment_key = p.attachment_key"
        sql = (
            f"SELECT a.item_key, p.number, p.text {joined} WHERE {pattern} ORDER BY 1, 2"  # placeholders only
        )
        rows = self._conn.execute(sql, escaped)
        return [(key, number, text) for key, number, text in rows.fetchall()]

    def has_indexed_items(self) -> bool:
        """Whether any item is indexed: one row read, where ``counts`` counts every table (33 ms on each
        search of a 100,000-item library)."""
        row = self._conn.execute("SELECT 1 FROM items WHERE status = 'indexed' LIMIT 1").fetchone()
        return row is not None

    def ocr_page_count(self) -> int:
        """Pages of indexed files whose text was read by OCR."""
        return int(self._conn.execute("SELECT count(*) FROM ocr_pages").fetchone()[0] or 0)

    def counts(self) -> StateCounts:
        def one(sql: str) -> int:
            return int(self._conn.execute(sql).fetchone()[0] or 0)

        return StateCounts(
            items_indexed=one("SELECT count(*) FROM items WHERE status = 'indexed'"),
            items_failed=one("SELECT count(*) FROM items WHERE status = 'failed'"),
            attachments_indexed=one("SELECT count(*) FROM attachments WHERE status = 'indexed'"),
            attachments_skipped=one("SELECT count(*) FROM attachments WHERE status = 'skipped'"),
            attachments_failed=one("SELECT count(*) FROM attachments WHERE status = 'failed'"),
            chunks=one("SELECT sum(chunks) FROM items"),
            pages=one("SELECT count(*) FROM pages"),
        )

    # -- integrity (index/integrity.py) ---------------------------------------------------------

    def quick_check(self) -> str:
        """SQLite's quick_check verdict: "ok", or the first problem it found."""
        return str(self._conn.execute("PRAGMA quick_check").fetchone()[0])

    def points_recorded(self) -> dict[str, int]:
        """How many points each item and each note or annotation has in the vector store, by the key its
        points carry as item_key (items and notes never share a key)."""
        rows = self._conn.execute(
            "SELECT item_key, chunks FROM items WHERE chunks > 0 "
            "UNION ALL SELECT note_key, points FROM notes WHERE points > 0"
        )
        return {key: int(count) for key, count in rows.fetchall()}

    def failures(self, limit: int = 50) -> list[tuple[str, str, str]]:
        """(item key, attachment key, reason) of attachments that failed or were skipped with a reason."""
        rows = self._conn.execute(
            "SELECT item_key, attachment_key, reason FROM attachments WHERE status != 'indexed' "
            "AND reason IS NOT NULL ORDER BY item_key LIMIT ?",
            (limit,),
        )
        return rows.fetchall()


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S")
