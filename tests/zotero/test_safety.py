"""Reading must work while Zotero holds the database locked, and must never change it."""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from agent_zot.errors import LibraryReadError, NotAZoteroDatabaseError
from agent_zot.zotero.connection import file_state, read_consistently
from agent_zot.zotero.reader import load_library
from tests.conftest import fingerprint
from tests.factories import FullLibrary

# Holds the database the way Zotero does: exclusive locking mode, after a write, lock kept until told.
LOCK_HOLDER = textwrap.dedent(
    """
    import sqlite3, sys
    conn = sqlite3.connect(sys.argv[1], isolation_level=None)
    conn.execute("PRAGMA locking_mode = EXCLUSIVE")
    conn.execute("BEGIN EXCLUSIVE")
    conn.execute("INSERT OR REPLACE INTO settings VALUES ('client', 'lastVersion', '7.0.99')")
    conn.execute("COMMIT")
    print("locked", flush=True)
    sys.stdin.readline()
    conn.close()
    """
)


@pytest.fixture
def private_copy(full_lib: FullLibrary, tmp_path: Path) -> Path:
    """A copy the lock holder may write to (the guarded fixture itself must stay untouched)."""
    folder = tmp_path / "Zotero"
    shutil.copytree(full_lib.data_dir, folder)
    return folder / "zotero.sqlite"


def test_reads_while_another_process_holds_an_exclusive_lock(private_copy: Path) -> None:
    holder = subprocess.Popen(
        [sys.executable, "-c", LOCK_HOLDER, str(private_copy)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "locked"
        # The lock is real: an ordinary reader is refused.
        with pytest.raises(sqlite3.OperationalError, match="locked"):
            plain = sqlite3.connect(f"{private_copy.resolve().as_uri()}?mode=ro", uri=True, timeout=0)
            plain.execute("SELECT count(*) FROM items").fetchone()
        before_files = sorted(p.name for p in private_copy.parent.iterdir())
        before = fingerprint(private_copy)

        library = load_library(private_copy)

        assert "S2ORC: The Semantic Scholar Open Research Corpus" in {i.title for i in library.items.values()}
        assert fingerprint(private_copy) == before
        assert sorted(p.name for p in private_copy.parent.iterdir()) == before_files
    finally:
        holder.communicate("release\n", timeout=10)


def test_reading_leaves_no_sidecar_files_and_keeps_mtime(full_lib: FullLibrary) -> None:
    before_files = sorted(p.name for p in full_lib.data_dir.iterdir())
    before = fingerprint(full_lib.db_path)
    load_library(full_lib.db_path)
    load_library(full_lib.db_path)
    assert fingerprint(full_lib.db_path) == before
    assert sorted(p.name for p in full_lib.data_dir.iterdir()) == before_files


def test_a_commit_during_the_read_is_detected_and_the_read_repeated(private_copy: Path) -> None:
    calls: list[int] = []

    def load(conn: sqlite3.Connection) -> int:
        calls.append(1)
        if len(calls) == 1:  # Zotero commits while we are reading
            writer = sqlite3.connect(private_copy)
            writer.execute("INSERT INTO settings VALUES ('test', 'x', 1)")
            writer.commit()
            writer.close()
        return conn.execute("SELECT count(*) FROM settings").fetchone()[0]

    assert read_consistently(private_copy, load) == 1
    assert len(calls) == 2


def test_a_write_in_progress_is_waited_for_then_reported(private_copy: Path, monkeypatch) -> None:
    monkeypatch.setattr("agent_zot.zotero.connection._RETRY_DELAY_S", 0.0)
    journal = Path(f"{private_copy}-journal")
    journal.write_bytes(bytes.fromhex("d9d505f920a163d7") + b"\x00" * 504)  # a live journal header
    assert file_state(private_copy).busy
    with pytest.raises(LibraryReadError, match="kept changing"):
        load_library(private_copy)
    journal.write_bytes(b"\x00" * 512)  # zeroed after commit, as exclusive locking mode leaves it
    assert not file_state(private_copy).busy
    assert load_library(private_copy).items


def test_a_wal_database_is_read_from_a_private_copy(private_copy: Path) -> None:
    conn = sqlite3.connect(private_copy)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA wal_autocheckpoint=0")
    conn.execute("INSERT INTO settings VALUES ('wal', 'only-in-wal', 1)")
    conn.commit()
    wal = Path(f"{private_copy}-wal")
    assert wal.stat().st_size > 0
    before = fingerprint(private_copy), wal.read_bytes()
    value = read_consistently(
        private_copy, lambda c: c.execute("SELECT count(*) FROM settings WHERE setting = 'wal'").fetchone()[0]
    )
    assert value == 1  # the commit that lives only in the WAL is seen
    assert (fingerprint(private_copy), wal.read_bytes()) == before
    conn.close()


def test_not_sqlite_and_not_zotero_are_clear_errors(tmp_path: Path) -> None:
    text = tmp_path / "zotero.sqlite"
    text.write_text("hello, this is not a database" * 10)
    with pytest.raises(NotAZoteroDatabaseError, match="not an SQLite database"):
        load_library(text)
    other = tmp_path / "other.sqlite"
    sqlite3.connect(other).executescript("CREATE TABLE notes (id INTEGER, body TEXT);")
    before = fingerprint(other)
    with pytest.raises(NotAZoteroDatabaseError, match="not a Zotero database"):
        load_library(other)
    assert fingerprint(other) == before
