"""Reading a Zotero 10 database while Zotero holds it (exclusive lock, WAL) costs what changed: the
private copy of zotero.sqlite is kept between reads and only the -wal is copied again, unless the main
file changed (a checkpoint, or Zotero's VACUUM INTO swapped it). Every read sees the latest commit, and
zotero.sqlite and its -wal are never written by agent-zot."""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_zot.zotero.builder import ZoteroLibraryBuilder
from agent_zot.zotero.connection import file_state, read_consistently
from agent_zot.zotero.private_copy import KeptCopies, copy_stats, kept_copy
from agent_zot.zotero.reader import load_library
from tests.conftest import fingerprint

# Zotero 10's connection: exclusive locking, WAL, no automatic checkpoint here (the tests call one).
# Commands on stdin: "sql STATEMENT", "checkpoint", "vacuum" (db.js vacuum(): VACUUM INTO a file beside
# it, close, rename it over zotero.sqlite, open again), an empty line to close.
HOLDER = textwrap.dedent(
    """
    import os, sqlite3, sys
    db = sys.argv[1]

    def open_db():
        conn = sqlite3.connect(db, isolation_level=None)
        conn.execute("PRAGMA locking_mode=EXCLUSIVE")
        assert conn.execute("PRAGMA journal_mode=WAL").fetchone()[0] == "wal"
        conn.execute("PRAGMA wal_autocheckpoint=0")
        conn.execute("INSERT OR REPLACE INTO settings VALUES ('client', 'lastVersion', '10.0.0')")
        return conn

    conn = open_db()
    print("held", flush=True)
    for line in sys.stdin:
        command, _, rest = line.strip().partition(" ")
        if not command:
            break
        if command == "sql":
            conn.execute(rest)
        elif command == "checkpoint":
            conn.execute("PRAGMA wal_checkpoint(PASSIVE)")
        elif command == "vacuum":
            conn.execute(f"VACUUM INTO '{db}.vacuum.tmp'")
            conn.close()
            os.replace(f"{db}.vacuum.tmp", db)
            conn = open_db()
        print("done", flush=True)
    conn.close()
    """
)


class Zotero:
    def __init__(self, db: Path) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-c", HOLDER, str(db)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
        assert self.process.stdout.readline().strip() == "held"

    def do(self, command: str) -> None:
        self.process.stdin.write(command + "\n")
        self.process.stdin.flush()
        assert self.process.stdout.readline().strip() == "done"

    def retitle(self, old: str, new: str) -> None:
        self.do(f"sql UPDATE itemDataValues SET value = '{new}' WHERE value = '{old}'")

    def close(self) -> None:
        if self.process.poll() is not None or self.process.stdin.closed:
            return
        self.process.stdin.write("\n")
        self.process.stdin.close()
        self.process.wait(timeout=30)


@pytest.fixture
def held(tmp_path: Path) -> Iterator[tuple[Path, Zotero]]:
    builder = ZoteroLibraryBuilder(tmp_path / "Zotero", shape="z10")
    for n in range(1, 4):
        builder.add_item("journalArticle", title=f"Paper number {n}", creators=[("Ada", "Lovelace")])
    db = builder.build()
    zotero = Zotero(db)
    try:
        yield db, zotero
    finally:
        zotero.close()


def _titles(db: Path) -> set[str]:
    return {item.title for item in load_library(db).items.values()}


def _untouched(db: Path) -> tuple[object, bytes]:
    return fingerprint(db), Path(f"{db}-wal").read_bytes()


def test_an_edit_in_the_wal_is_seen_and_only_the_wal_is_copied_again(held: tuple[Path, Zotero]) -> None:
    db, zotero = held
    assert Path(f"{db}-wal").stat().st_size > 0  # Zotero's commits sit in the -wal
    before = _untouched(db)
    assert "Paper number 1" in _titles(db)
    first = copy_stats(db)
    assert first.main_copies == 1 and first.main_bytes == db.stat().st_size
    assert _untouched(db) == before

    zotero.retitle("Paper number 1", "Paper number one")
    before = _untouched(db)
    assert "Paper number one" in _titles(db)
    assert "Paper number one" in _titles(db)
    after = copy_stats(db)
    assert after.main_copies == 1 and after.main_bytes == first.main_bytes  # the kept copy served
    assert after.wal_bytes >= first.wal_bytes + 2 * Path(f"{db}-wal").stat().st_size
    assert _untouched(db) == before


def test_a_checkpoint_is_seen_and_the_main_file_copied_again(held: tuple[Path, Zotero]) -> None:
    db, zotero = held
    zotero.retitle("Paper number 1", "Paper number one")
    assert "Paper number one" in _titles(db)
    # The checkpoint writes the edit into zotero.sqlite; the next commit starts the -wal over, so the
    # -wal alone no longer holds the first edit: a copy kept from before the checkpoint would lose it.
    zotero.do("checkpoint")
    zotero.retitle("Paper number 2", "Paper number two")
    before = _untouched(db)
    titles = _titles(db)
    assert {"Paper number one", "Paper number two"} <= titles
    assert copy_stats(db).main_copies == 2
    assert _untouched(db) == before


def test_a_commit_that_does_not_grow_the_wal_changes_the_read_stamp(held: tuple[Path, Zotero]) -> None:
    """After a checkpoint the -wal is rewritten from its start: a commit can leave its size as it was,
    and zotero.sqlite untouched. Two snapshots with one stamp must hold the same metadata."""
    db, zotero = held
    for n in range(1, 4):
        zotero.retitle(f"Paper number {n}", f"Paper number {n} (long enough to fill the -wal)")
    zotero.do("checkpoint")
    zotero.retitle("Paper number 1 (long enough to fill the -wal)", "Paper A")
    size, main = Path(f"{db}-wal").stat().st_size, fingerprint(db)
    first = load_library(db)
    time.sleep(0.05)  # file times move at the kernel clock's tick (a few ms), as Zotero's commits do
    zotero.retitle("Paper A", "Paper B")
    assert (Path(f"{db}-wal").stat().st_size, fingerprint(db)) == (size, main)  # as this test means
    second = load_library(db)
    assert "Paper B" in {i.title for i in second.items.values()}
    assert second.read_stamp != first.read_stamp


def test_an_atomic_swap_by_vacuum_into_is_seen(held: tuple[Path, Zotero]) -> None:
    db, zotero = held
    assert "Paper number 1" in _titles(db)
    inode = db.stat().st_ino
    zotero.do("vacuum")
    zotero.retitle("Paper number 3", "Paper number three")
    assert db.stat().st_ino != inode  # a new file under the old name
    before = _untouched(db)
    assert "Paper number three" in _titles(db)
    assert copy_stats(db).main_copies == 2
    assert _untouched(db) == before


def test_a_kept_copy_removed_meanwhile_is_made_again(held: tuple[Path, Zotero]) -> None:
    db, zotero = held
    assert "Paper number 1" in _titles(db)
    with kept_copy(db) as kept:  # as a cleaner of the temporary folder may do in a long session
        shutil.rmtree(kept.folder)
    zotero.retitle("Paper number 1", "Paper number one")
    assert "Paper number one" in _titles(db)
    assert copy_stats(db).main_copies == 2


def test_the_kept_copy_goes_when_zotero_closes(held: tuple[Path, Zotero]) -> None:
    db, zotero = held
    assert read_consistently(db, lambda c: c.execute("SELECT count(*) FROM items").fetchone()[0])
    assert copy_stats(db).main_copies == 1
    zotero.close()  # Zotero checkpoints the -wal away at close: reads need no copy
    assert not file_state(db).wal_present
    assert "Paper number 1" in _titles(db)
    assert copy_stats(db).main_copies == 0


def test_copies_a_killed_process_left_behind_are_removed(tmp_path: Path) -> None:
    left = tmp_path / "agent-zot-copy-left"
    (left / "1").mkdir(parents=True)
    (left / "owner.lock").touch()  # no process holds it
    (left / "1" / "zotero.sqlite").write_bytes(b"x" * 1000)
    source = tmp_path / "Zotero" / "zotero.sqlite"
    source.parent.mkdir()
    sqlite3.connect(source).executescript("CREATE TABLE items (itemID INTEGER);")
    copies, other = KeptCopies(tmp_path), KeptCopies(tmp_path)
    try:
        with copies.holding(source) as kept:
            assert kept.refresh()
        with other.holding(source) as kept:  # a second process: the first one's copy stays
            assert kept.refresh()
        assert not left.exists()
        assert len(list(tmp_path.glob("agent-zot-copy-*"))) == 2
    finally:
        copies.close()
        other.close()
    assert not list(tmp_path.glob("agent-zot-copy-*"))
