"""A private copy of zotero.sqlite kept between reads while Zotero 10 runs, brought up to date with what
changed since the last read.

Zotero 10 keeps its database in WAL mode under an exclusive lock: commits sit in ``zotero.sqlite-wal``
until a checkpoint, so the -wal is never empty while Zotero runs, and an immutable reader (which ignores
the WAL) would miss them. agent-zot reads a copy of both files instead. Copying the main file costs in
proportion to the library (about 100 MB at 100,000 items), so its copy is kept and, per read, only the
-wal is copied again. A kept main file and a fresh -wal make the database as of the -wal's last commit
as long as the main file belongs to the -wal's current generation (one WAL header: checkpoint sequence
and salts):

- within one generation the main file changes only by checkpoints, which write page images the -wal
  still holds, so laying the -wal over any main file of that generation gives the same pages;
- a new generation (a new header) starts only after a checkpoint wrote everything back into the main
  file, and Zotero's ``VACUUM INTO`` replaces the main file by a rename (a new inode).

So the kept main file is used only while both the main file's identity and times and the -wal header are
those it was copied under; otherwise it is copied again. A copy checks after the fact that nothing moved
under it, and reports so instead of returning a torn copy (the caller tries again).

Each process keeps its copies in a folder of its own under the temporary folder, locked while the
process lives; folders whose process died are removed by the next process that makes one.
"""

from __future__ import annotations

import atexit
import contextlib
import itertools
import secrets
import shutil
import sqlite3
import tempfile
import threading
from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import IO

from agent_zot.errors import LibraryReadError
from agent_zot.locks import open_lock_file, try_lock, unlock

_PREFIX = "agent-zot-copy-"
_OWNER = "owner.lock"
_WAL_HEADER = 32  # magic, version, page size, checkpoint sequence, salts, checksum
_KEEP = 2  # databases with a kept copy per process; each copy is as large as its database


@dataclass(slots=True)
class CopyStats:
    """What one kept copy has cost so far."""

    main_copies: int = 0
    main_bytes: int = 0
    wal_bytes: int = 0


def _sidecar(path: Path, suffix: str) -> Path:
    return path.with_name(path.name + suffix)


def _identity(path: Path) -> tuple[int, ...] | None:
    """What changes when the file is written or replaced (the change time too: it cannot be set back)."""
    try:
        st = path.stat()
    except OSError:
        return None
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def _wal_header(path: Path) -> bytes:
    try:
        with path.open("rb") as fh:
            return fh.read(_WAL_HEADER)
    except OSError:
        return b""


class KeptCopy:
    """The private copy of one database. Use it while holding :attr:`lock` (see :meth:`KeptCopies.holding`)."""

    def __init__(self, source: Path, folder: Path) -> None:
        self.source = source
        self.folder = folder
        self.copy = folder / source.name
        self.lock = threading.Lock()
        self.stats = CopyStats()
        self.closed = False
        # the source main file's identity and -wal header it was copied under, and the copy's own identity
        # (a cleaner of the temporary folder may remove it while the process lives)
        self._made_from: tuple[tuple[int, ...], bytes, tuple[int, ...] | None] | None = None

    def refresh(self) -> bool:
        """Bring the copy up to the source's latest commit. False when the source changed while it was
        being copied: the copy may be torn, try again."""
        self.folder.mkdir(parents=True, exist_ok=True)
        source_wal, copy_wal = _sidecar(self.source, "-wal"), _sidecar(self.copy, "-wal")
        header = _wal_header(source_wal)
        main = _identity(self.source)
        if main is None:
            return False
        if self._made_from != (main, header, _identity(self.copy)):
            self._made_from = None
            if not self._copy(self.source, self.copy) or _identity(self.source) != main:
                return False
            self._made_from = (main, header, _identity(self.copy))
            self.stats.main_copies += 1
            self.stats.main_bytes += main[2]
        if header:
            if not self._copy(source_wal, copy_wal):
                return False
            self.stats.wal_bytes += copy_wal.stat().st_size
        else:
            copy_wal.unlink(missing_ok=True)
        # The -wal copied must be of the generation the kept main file belongs to.
        return _wal_header(copy_wal) == header

    def _copy(self, source: Path, target: Path) -> bool:
        try:
            shutil.copyfile(source, target)
        except FileNotFoundError as exc:
            if Path(exc.filename or "") == source:
                return False  # moved away meanwhile (Zotero's swap, or its -wal removed at close)
            raise self._cannot_copy(exc) from exc
        except OSError as exc:
            raise self._cannot_copy(exc) from exc
        return True

    def _cannot_copy(self, exc: OSError) -> LibraryReadError:
        return LibraryReadError(
            f"Could not make a private copy of {self.source} in {self.folder}: {exc.strerror or exc}.",
            hint="While Zotero 10 runs agent-zot reads a copy of its database (as large as zotero.sqlite) "
            "in the temporary folder: make room there, or set TMPDIR to a folder with space.",
        )

    def connect(self) -> sqlite3.Connection:
        """A read-only connection to the copy. SQLite reads the copied -wal through a -shm of its own here
        and writes nothing else: no checkpoint, so the kept main file stays as it was copied."""
        _sidecar(self.copy, "-shm").unlink(missing_ok=True)  # an index of an earlier -wal
        flags = "mode=ro" if _sidecar(self.copy, "-wal").exists() else "mode=ro&immutable=1"
        conn = sqlite3.connect(f"{self.copy.as_uri()}?{flags}", uri=True, check_same_thread=False)
        conn.execute("PRAGMA query_only = 1")
        return conn

    def discard(self) -> None:
        """Remove the copy once no thread reads it."""
        with self.lock:
            self.closed = True
            shutil.rmtree(self.folder, ignore_errors=True)


class KeptCopies:
    """This process's kept copies, at most ``_KEEP`` (the least recently read go first)."""

    def __init__(self, root: Path | None = None) -> None:
        self._root = root
        self._folder: Path | None = None
        self._owner: IO[bytes] | None = None
        self._copies: OrderedDict[Path, KeptCopy] = OrderedDict()
        self._lock = threading.Lock()
        self._serial = itertools.count(1)

    @contextlib.contextmanager
    def holding(self, db_path: Path) -> Iterator[KeptCopy]:
        """The kept copy of ``db_path``, locked against this process's other threads while in use."""
        key = db_path.resolve()
        while True:
            with self._lock:
                kept = self._copies.get(key)
                if kept is None:
                    kept = self._copies[key] = KeptCopy(key, self._own_folder() / str(next(self._serial)))
                self._copies.move_to_end(key)
                gone = [self._copies.popitem(last=False)[1] for _ in range(len(self._copies) - _KEEP)]
            for old in gone:
                old.discard()
            with kept.lock:
                if not kept.closed:  # else discarded meanwhile: make a new one
                    yield kept
                    return

    def forget(self, db_path: Path) -> None:
        """Drop ``db_path``'s copy (Zotero closed: reads need none, and the disk space is the user's)."""
        if not self._copies:
            return
        with self._lock:
            kept = self._copies.pop(db_path.resolve(), None)
        if kept is not None:
            kept.discard()

    def stats(self, db_path: Path) -> CopyStats:
        with self._lock:
            kept = self._copies.get(db_path.resolve())
        return replace(kept.stats) if kept is not None else CopyStats()

    def close(self) -> None:
        """Remove every copy (at exit: without waiting for a read a daemon thread may still be doing)."""
        with self._lock:
            copies, self._copies = list(self._copies.values()), OrderedDict()
            folder, owner, self._folder, self._owner = self._folder, self._owner, None, None
        for kept in copies:
            kept.closed = True
        if owner is not None:
            unlock(owner)
            owner.close()
        if folder is not None:
            shutil.rmtree(folder, ignore_errors=True)

    def _own_folder(self) -> Path:
        """This process's folder, made on first use: locked before it takes the name other processes'
        sweeps look at, so a sweep never removes a live process's copies."""
        if self._folder is None:
            root = self._root or Path(tempfile.gettempdir())
            _sweep(root)
            staging = Path(tempfile.mkdtemp(prefix=".agent-zot-new-", dir=root))
            owner = open_lock_file(staging / _OWNER)
            try_lock(owner)
            folder = root / f"{_PREFIX}{secrets.token_hex(8)}"
            try:
                staging.rename(folder)
            except OSError:  # Windows will not rename a folder with an open file: keep the staging name
                folder = staging
            self._folder, self._owner = folder, owner
        return self._folder


def _sweep(root: Path) -> None:
    """Remove copies left by processes that died without removing them (their lock is free)."""
    for folder in root.glob(_PREFIX + "*"):
        try:
            handle = open_lock_file(folder / _OWNER)
        except OSError:
            continue
        try:
            if try_lock(handle):
                shutil.rmtree(folder, ignore_errors=True)
        finally:
            unlock(handle)
            handle.close()


_COPIES = KeptCopies()
atexit.register(_COPIES.close)


def kept_copy(db_path: Path) -> contextlib.AbstractContextManager[KeptCopy]:
    """This process's kept copy of ``db_path`` (see :meth:`KeptCopies.holding`)."""
    return _COPIES.holding(db_path)


def forget_copy(db_path: Path) -> None:
    _COPIES.forget(db_path)


def copy_stats(db_path: Path) -> CopyStats:
    """What reading ``db_path`` through its kept copy has cost in this process (zeros when none is kept)."""
    return _COPIES.stats(db_path)
