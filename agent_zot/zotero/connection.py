"""Open zotero.sqlite so that reading can never change it, even while Zotero holds it locked.

Zotero keeps an exclusive lock on its database while it runs, so an ordinary SQLite connection cannot
even read. We open the file with SQLite's ``immutable=1`` URI flag: no locks are taken and no journal,
WAL or shm file is ever created, and ``mode=ro`` makes any write fail. Because immutable readers do not
see concurrent commits, :func:`read_consistently` brackets each load with a look at the file header's
change counter and the presence of a hot journal, and retries (finally falling back to a private copy)
when Zotero committed in the middle of our read. Zotero 10 keeps its commits in a WAL while it runs,
which an immutable reader would not see: such a database is read from a private copy kept between reads
(private_copy.py).
"""

from __future__ import annotations

import os
import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from agent_zot.errors import LibraryReadError, NotAZoteroDatabaseError
from agent_zot.zotero.private_copy import forget_copy, kept_copy

T = TypeVar("T")

_SQLITE_MAGIC = b"SQLite format 3\x00"
# A rollback journal whose header starts with this is live; Zotero's exclusive locking mode leaves an
# empty or zeroed journal file behind between transactions, which is not a write in progress.
_JOURNAL_MAGIC = bytes.fromhex("d9d505f920a163d7")
_RETRY_DELAY_S = 0.2


@dataclass(frozen=True, slots=True)
class FileState:
    """What tells us whether the database changed between two moments."""

    change_counter: int
    size: int
    mtime_ns: int
    inode: int  # Zotero 10 swaps in a vacuumed file by renaming it over the old one
    journal_present: bool
    wal_size: int
    # After a checkpoint the -wal is written again from its start: a commit may leave its size and the
    # main file as they were, and only its time tells (the change counter does not move in WAL mode).
    wal_mtime_ns: int

    def stamp(self) -> str:
        """The state as text, for stamps saying which snapshot of the database a result reflects."""
        return f"{self.change_counter}:{self.size}:{self.mtime_ns}:{self.inode}:{self.wal_size}:{self.wal_mtime_ns}"

    @property
    def wal_present(self) -> bool:
        return self.wal_size > 0

    @property
    def busy(self) -> bool:
        """A hot journal means a write transaction is in progress (rollback-journal mode)."""
        return self.journal_present


def file_state(db_path: Path) -> FileState:
    """Read the header's file change counter (bytes 24..27) and the sidecar files, without opening SQLite."""
    try:
        with db_path.open("rb") as fh:
            header = fh.read(100)
        stat = db_path.stat()
    except OSError as exc:
        raise NotAZoteroDatabaseError(
            f"Cannot read {db_path}: {exc.strerror or exc}.",
            hint="Check that the file exists and that you have permission to read it.",
        ) from exc
    if len(header) < 100 or not header.startswith(_SQLITE_MAGIC):
        raise NotAZoteroDatabaseError(
            f"{db_path} is not an SQLite database.",
            hint="Point agent-zot at your Zotero data directory (the folder holding zotero.sqlite).",
        )
    wal = _stat_or_none(_sidecar(db_path, "-wal"))
    return FileState(
        change_counter=int.from_bytes(header[24:28], "big"),
        size=stat.st_size,
        mtime_ns=stat.st_mtime_ns,
        inode=stat.st_ino,
        journal_present=_journal_live(_sidecar(db_path, "-journal")),
        wal_size=wal.st_size if wal else 0,
        wal_mtime_ns=wal.st_mtime_ns if wal else 0,
    )


def _journal_live(journal: Path) -> bool:
    try:
        with journal.open("rb") as fh:
            return fh.read(8) == _JOURNAL_MAGIC
    except OSError:
        return False


def _stat_or_none(path: Path) -> os.stat_result | None:
    try:
        return path.stat()
    except OSError:
        return None


def _sidecar(db_path: Path, suffix: str) -> Path:
    return db_path.with_name(db_path.name + suffix)


def open_immutable(db_path: Path) -> sqlite3.Connection:
    """A connection that takes no locks and can write nothing (not even a journal)."""
    uri = db_path.resolve().as_uri() + "?mode=ro&immutable=1"
    conn = sqlite3.connect(uri, uri=True, check_same_thread=False)
    conn.execute("PRAGMA query_only = 1")
    return conn


def read_consistently(db_path: Path, load: Callable[[sqlite3.Connection], T], *, attempts: int = 3) -> T:
    """Run ``load`` over a connection to ``db_path`` and return its result, consistent with one commit.

    Retries while Zotero is mid-write; after ``attempts`` tries (or when the database uses a WAL, whose
    contents an immutable reader would miss) it reads a private copy instead, kept between reads and
    brought up to date with what changed (private_copy.py). Never writes to ``db_path``.
    """
    return read_at_state(db_path, load, attempts=attempts)[0]


def read_at_state(
    db_path: Path, load: Callable[[sqlite3.Connection], T], *, attempts: int = 3
) -> tuple[T, FileState]:
    """:func:`read_consistently`, with the file's state that the result reflects (it did not change
    during the read)."""
    for attempt in range(attempts):
        before = file_state(db_path)
        if before.wal_present:
            break
        if before.busy:
            time.sleep(_RETRY_DELAY_S * (attempt + 1))
            continue
        result = _run(open_immutable(db_path), load, db_path)
        if file_state(db_path) == before:
            forget_copy(db_path)  # Zotero closed (its -wal checkpointed away): no copy needed now
            return result, before
        time.sleep(_RETRY_DELAY_S * (attempt + 1))
    return _read_copy(db_path, load, attempts)


def _run(conn: sqlite3.Connection, load: Callable[[sqlite3.Connection], T], db_path: Path) -> T:
    try:
        return load(conn)
    except sqlite3.DatabaseError as exc:
        raise NotAZoteroDatabaseError(
            f"{db_path} could not be read as a Zotero database: {exc}.",
            hint="If Zotero is running, it may be rewriting the file; try again. "
            "Otherwise make sure this is Zotero's zotero.sqlite and not a backup or another program's file.",
        ) from exc
    finally:
        conn.close()


def _read_copy(db_path: Path, load: Callable[[sqlite3.Connection], T], attempts: int) -> tuple[T, FileState]:
    """Read the private copy of the database and its WAL, brought up to date first; the original is
    untouched. The result is labelled with the state the copy was made at, checked unchanged after it."""
    for attempt in range(attempts):
        before = file_state(db_path)
        if not before.busy:
            with kept_copy(db_path) as copy:
                if copy.refresh() and file_state(db_path) == before:
                    return _run(copy.connect(), load, db_path), before
        time.sleep(_RETRY_DELAY_S * (attempt + 1))
    raise LibraryReadError(
        f"{db_path} kept changing while agent-zot read it (Zotero is writing to it).",
        hint="Try again in a moment; if it persists, wait for Zotero to finish syncing or close it.",
    )
